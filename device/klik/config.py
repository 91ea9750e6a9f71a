"""The table daemon's config: shipped defaults, a typed schema, one clear line per mistake.

``load(path)`` reads the shipped ``defaults.toml``, lays the organiser's file over it key by
key, and checks the result against the schema below: every section is a frozen dataclass
whose fields are the allowed keys, with their types and units in their names. An unknown key
gets a "did you mean"; a wrong type or value names the file, the key and what is allowed.
``klik config --config FILE`` prints the effective config as TOML.
"""

from __future__ import annotations

import difflib
import tomllib
import typing
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from klik.core import game as g
from klik.core.gestures import GestureSettings
from klik.core.scoring import RULE_SETS
from klik.errors import KlikError

SEATS = ("A", "B", "C", "D")
#: Pins no seat part may take: the ID EEPROM (0, 1), I2C1 (2, 3) and the shutdown button the
#: firmware's gpio-shutdown overlay owns (4, hardware/pinmap.toml) always; the UART (14, 15)
#: for the serial radio; SPI0 (7–11) only when a panel is on SPI.
RESERVED_PINS = {
    0: "ID EEPROM",
    1: "ID EEPROM",
    2: "I2C SDA",
    3: "I2C SCL",
    4: "shutdown button (gpio-shutdown in config.txt)",
}
UART_PINS = {14: "UART TXD", 15: "UART RXD"}
SPI_PINS = {7: "SPI CE1", 8: "SPI CE0", 9: "SPI MISO", 10: "SPI MOSI", 11: "SPI SCLK"}


class ConfigError(KlikError, ValueError):
    """The table's config cannot be used; ``str()`` names the file, the key and what is allowed."""


@dataclass(frozen=True, slots=True)
class TableSection:
    name: str = "1"  # the table's number or name, as the hub knows it
    seats: int = 4  # players at this table: 2, 3 or 4 (seats A, B, C, D in clockwise order)
    language: Literal["pl", "en"] = "pl"
    state_dir: str = "/var/lib/klik"  # the journal lives here; systemd's StateDirectory
    checkpoint_s: float = 1.0  # how often a running clock is written to the journal


@dataclass(frozen=True, slots=True)
class GameSection:
    move_time_s: float = 60.0
    starter: Literal["A", "B", "C", "D"] = "A"
    rules: Literal["tournament", "league"] = "tournament"
    timeout: Literal["wait", "auto"] = "wait"
    penalty_tiles: int = 1
    penalty_window_s: float = 5.0
    warn_s: float = 10.0


@dataclass(frozen=True, slots=True)
class HardwareSection:
    pin_factory: Literal["lgpio", "rpigpio", "mock"] = "lgpio"
    sound: Literal["on", "quiet", "off"] = "on"  # quiet: only the button LEDs warn
    judge_key: bool = True  # a judge key is wired to pins.judge_key


@dataclass(frozen=True, slots=True)
class PinsSection:
    """BCM GPIO numbers; generated from hardware/pinmap.toml into the defaults."""

    seat_A_button: int = 5  # noqa: N815 (the seat letter is part of the name)
    seat_A_led: int = 12  # noqa: N815
    seat_B_button: int = 6  # noqa: N815
    seat_B_led: int = 13  # noqa: N815
    seat_C_button: int = 16  # noqa: N815
    seat_C_led: int = 19  # noqa: N815
    seat_D_button: int = 20  # noqa: N815
    seat_D_led: int = 26  # noqa: N815
    buzzer: int = 18
    judge_key: int = 21

    def button(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_button"))

    def led(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_led"))


@dataclass(frozen=True, slots=True)
class PanelSection:
    """One seat's OLED; keys left out of ``[panels.X]`` come from ``[panels]``."""

    driver: Literal["ssd1306", "sh1106", "none"] = "ssd1306"  # none: this seat has no screen
    interface: Literal["i2c", "spi", "sim"] = "i2c"  # sim: a recording bus (virtual table)
    i2c_bus: int = 1
    i2c_address: int = 0x3C
    mux_address: int = 0x70  # TCA9548A behind the i2c-mux overlay; 0 = no mux
    mux_channel: int = 0
    spi_port: int = 0
    spi_device: int = 0
    gpio_dc: int = 24
    gpio_reset: int = 25
    rotate: int = 0  # quarter turns: 0, or 2 for a panel mounted upside down


RETRY_S = 5.0


@dataclass(frozen=True, slots=True)
class PanelsSection:
    retry_s: float = RETRY_S  # how often a panel that is out is tried again
    common: PanelSection = PanelSection()
    seats: tuple[tuple[str, PanelSection], ...] = ()

    def seat(self, seat: str) -> PanelSection:
        return dict(self.seats).get(seat, self.common)


@dataclass(frozen=True, slots=True)
class SimSection:
    host: str = "127.0.0.1"
    port: int = 8100


@dataclass(frozen=True, slots=True)
class Config:
    table: TableSection = TableSection()
    game: GameSection = GameSection()
    buttons: GestureSettings = field(default_factory=GestureSettings)  # the engine's own schema
    hardware: HardwareSection = HardwareSection()
    pins: PinsSection = PinsSection()
    panels: PanelsSection = PanelsSection()
    players: tuple[tuple[str, str], ...] = ()  # (seat, name)
    sim: SimSection = SimSection()
    source: str = field(default="<defaults>", compare=False)

    @property
    def seat_letters(self) -> tuple[str, ...]:
        return SEATS[: self.table.seats]

    def settings(self) -> g.Settings:
        """The engine's settings for a new game at this table."""
        game = self.game
        return g.Settings(
            seats=self.seat_letters,
            starter=game.starter,
            move_time_s=game.move_time_s,
            rules=RULE_SETS[game.rules],
            timeout=g.TimeoutMode(game.timeout),
            penalty_tiles=game.penalty_tiles,
            penalty_window_s=game.penalty_window_s,
            warn_s=game.warn_s,
            gestures=self.buttons,
        )


SECTIONS: dict[str, type] = {
    "table": TableSection,
    "game": GameSection,
    "buttons": GestureSettings,
    "hardware": HardwareSection,
    "pins": PinsSection,
    "sim": SimSection,
}


def defaults_text() -> str:
    return resources.files("klik").joinpath("defaults.toml").read_text(encoding="utf-8")


def load(path: str | Path | None) -> Config:
    """The effective config: the shipped defaults with ``path`` laid over them (None: defaults).

    Raises ConfigError with one line naming the file, the key and what is allowed.
    """
    merged = _parse(defaults_text(), "defaults.toml")
    source = "<defaults>"
    if path is not None:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(
                f"{path}: no such file (give --config an existing TOML file)"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ConfigError(f"{path}: cannot read ({reason})") from None
        _merge(merged, _parse(text, source))
    return _build(merged, source)


def from_text(text: str, source: str = "<text>") -> Config:
    """Like ``load`` for a config given as text (tests, the virtual table's own overrides)."""
    merged = _parse(defaults_text(), "defaults.toml")
    _merge(merged, _parse(text, source))
    return _build(merged, source)


def dumps(config: Config) -> str:
    """The effective config as TOML, every key shown, in the schema's order."""
    lines = [f"# effective config: defaults.toml + {config.source}"]
    for name in SECTIONS:
        lines += ["", f"[{name}]"]
        lines += [f"{k} = {_toml(v)}" for k, v in _values(getattr(config, name)).items()]
    lines += ["", "[players]"]
    lines += [f"{seat} = {_toml(name)}" for seat, name in config.players]
    lines += ["", "[panels]", f"retry_s = {_toml(config.panels.retry_s)}"]
    lines += [f"{k} = {_toml(v)}" for k, v in _values(config.panels.common).items()]
    for seat, panel in config.panels.seats:
        lines += ["", f"[panels.{seat}]"]
        lines += [f"{k} = {_toml(v)}" for k, v in _values(panel).items()]
    return "\n".join(lines) + "\n"


# --- reading -----------------------------------------------------------------------------


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML ({error})") from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> None:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _build(data: dict[str, Any], source: str) -> Config:
    allowed = [*SECTIONS, "players", "panels"]
    for key, value in data.items():
        if key not in allowed:
            raise ConfigError(f"{source}: unknown section [{key}]{_hint(key, allowed)}")
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {key} must be a section [{key}], got {_kind(value)}")
    built = {
        name: _section(cls, data.get(name, {}), name, source) for name, cls in SECTIONS.items()
    }
    config = Config(
        **built,
        players=_players(data.get("players", {}), source),
        panels=_panels(data.get("panels", {}), source),
        source=source,
    )
    _check(config, source)
    return config


def _section(cls: type, data: dict[str, Any], where: str, source: str) -> Any:
    hints = typing.get_type_hints(cls)
    names = [f.name for f in fields(cls) if f.name in hints and _is_value(hints[f.name])]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            raise ConfigError(f"{source}: unknown key [{where}] {key}{_hint(key, names)}")
        values[key] = _typed(value, hints[key], f"[{where}] {key}", source)
    return cls(**values)


def _is_value(hint: Any) -> bool:
    return hint in (str, int, float, bool) or get_origin(hint) is Literal


def _typed(value: Any, hint: Any, key: str, source: str) -> Any:
    if get_origin(hint) is Literal:
        allowed = get_args(hint)
        if value not in allowed or isinstance(value, bool):
            options = ", ".join(f'"{a}"' for a in allowed)
            raise ConfigError(f"{source}: {key} = {_toml(value)}: allowed are {options}")
        return value
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, int | float) and not isinstance(value, bool),
        str: isinstance(value, str),
    }[hint]
    if not ok:
        want = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}
        raise ConfigError(
            f"{source}: {key} = {_toml(value)}: must be {want[hint]}, got {_kind(value)}"
        )
    return float(value) if hint is float else value


def _players(data: dict[str, Any], source: str) -> tuple[tuple[str, str], ...]:
    players = []
    for seat, name in data.items():
        if seat not in SEATS:
            raise ConfigError(f"{source}: unknown key [players] {seat}: seats are A, B, C, D")
        players.append((seat, _typed(name, str, f"[players] {seat}", source)))
    return tuple(sorted(players))


def _panels(data: dict[str, Any], source: str) -> PanelsSection:
    common_keys = {k: v for k, v in data.items() if not isinstance(v, dict)}
    retry = common_keys.pop("retry_s", RETRY_S)
    retry_s = _typed(retry, float, "[panels] retry_s", source)
    common = _section(PanelSection, common_keys, "panels", source)
    seats = []
    for seat, table in data.items():
        if not isinstance(table, dict):
            continue
        if seat not in SEATS:
            raise ConfigError(f"{source}: unknown section [panels.{seat}]: seats are A, B, C, D")
        merged = {**common_keys, **table}
        seats.append((seat, _section(PanelSection, merged, f"panels.{seat}", source)))
    return PanelsSection(retry_s=retry_s, common=common, seats=tuple(sorted(seats)))


def _check(config: Config, source: str) -> None:
    """Whole-config rules: the engine's own checks, then the pins and the panels."""
    if config.table.seats not in (2, 3, 4):
        raise ConfigError(
            f"{source}: [table] seats = {config.table.seats}: allowed are 2, 3, 4 "
            "(seats must be 2 to 4 seats lettered from A)"
        )
    try:
        config.settings().check()
    except (KlikError, ValueError) as error:
        raise ConfigError(f"{source}: {error}") from None
    if config.game.starter not in config.seat_letters:
        seats = ", ".join(config.seat_letters)
        raise ConfigError(f"{source}: [game] starter = {config.game.starter}: allowed are {seats}")
    if not 0 < config.table.checkpoint_s <= 60:
        raise ConfigError(f"{source}: [table] checkpoint_s must be from 0 to 60 seconds")
    if not 1 <= config.sim.port <= 65535:
        raise ConfigError(f"{source}: [sim] port = {config.sim.port}: allowed are 1 to 65535")
    panels = [config.panels.seat(s) for s in config.seat_letters]
    for seat, panel in zip(config.seat_letters, panels, strict=True):
        where = f"[panels.{seat}]" if seat in dict(config.panels.seats) else "[panels]"
        if panel.rotate not in (0, 2):
            raise ConfigError(
                f"{source}: {where} rotate = {panel.rotate}: allowed are 0 and 2 (upside down)"
            )
        if not 0 <= panel.mux_channel <= 7:
            raise ConfigError(f"{source}: {where} mux_channel must be from 0 to 7")
    _check_pins(config, source, spi=any(p.interface == "spi" for p in panels))


def _check_pins(config: Config, source: str, spi: bool) -> None:
    used: dict[int, str] = {}
    names = [f"seat_{s}_{part}" for s in config.seat_letters for part in ("button", "led")]
    names += ["buzzer"] + (["judge_key"] if config.hardware.judge_key else [])
    taken = {**RESERVED_PINS, **UART_PINS, **(SPI_PINS if spi else {})}
    for name in names:
        pin = getattr(config.pins, name)
        if not 0 <= pin <= 27:
            raise ConfigError(f"{source}: [pins] {name} = {pin}: allowed are GPIO 0 to 27")
        if pin in taken:
            raise ConfigError(
                f"{source}: [pins] {name} = {pin}: GPIO {pin} is the {taken[pin]} pin"
            )
        if pin in used:
            raise ConfigError(
                f"{source}: [pins] {name} = {pin}: GPIO {pin} is already {used[pin]}; "
                "every part needs a pin of its own"
            )
        used[pin] = name


# --- helpers -----------------------------------------------------------------------------


def _values(section: Any) -> dict[str, Any]:
    return {f.name: getattr(section, f.name) for f in fields(section)}


def _hint(key: str, allowed: list[str]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f"; allowed are {', '.join(allowed)}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    return {str: "text", int: "a whole number", float: "a number", dict: "a section"}.get(
        type(value), "a list" if isinstance(value, list) else type(value).__name__
    )


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
