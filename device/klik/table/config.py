"""The table daemon's config: shipped defaults, a typed schema, one clear line per mistake.

``load(path)`` reads the shipped ``defaults.toml``, lays the organiser's file over it key by
key, and checks the result against the schema below: every section is a frozen dataclass
whose fields are the allowed keys, with their types and units in their names, and every
number and text carries its range next to it (``field(metadata=allowed(...))``; the game's
and the buttons' ranges are the engine's own, ``klik.core.limits``). An unknown key gets a
"did you mean"; a wrong type or value names the file, the key, the value and what is
allowed, in one shape::

    table.toml: [buttons] storm_s = 0.0: allowed are 0.05 to 1 s

The one exception is ``[hub] key``, the pairing secret: a message names the key and says
what is wrong with it (``[hub] key: must be 64 lower-case hex digits (got 12 characters)``)
but never shows its value, and ``klik config --config FILE``, which prints the effective
config as TOML, prints ``key = "<hidden>"`` in its place.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol, get_args, get_origin
from urllib.parse import urlsplit

from klik.core import game as g
from klik.core import limits
from klik.core.gestures import GestureSettings
from klik.core.limits import Range
from klik.core.scoring import RULE_SETS
from klik.errors import InputError, KlikError
from klik.link.protocol import DEVICE, KEY_HEX

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


# --- ranges ------------------------------------------------------------------------------


class Allowed(Protocol):
    """What a key may be: a number ``Range``, a ``Text`` or a ``OneOf``."""

    def allows(self, value: Any) -> bool: ...
    def shown(self, value: Any) -> str: ...


@dataclass(frozen=True, slots=True)
class Text:
    """``lo`` to ``hi`` printable characters (no control characters), not all spaces."""

    lo: int
    hi: int
    spaces: bool = True  # False: a host name, where a space is always a typo

    def allows(self, value: str) -> bool:
        return (
            self.lo <= len(value) <= self.hi
            and value.isprintable()
            and bool(value.strip())
            and (self.spaces or " " not in value)
        )

    def shown(self, value: str) -> str:
        return _short(value)

    def __str__(self) -> str:
        rule = "not all spaces" if self.spaces else "no spaces"
        return f"{self.lo} to {self.hi} printable characters, {rule}"


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of a few numbers, e.g. a panel's half turns."""

    values: tuple[int, ...]
    note: str = ""

    def allows(self, value: int) -> bool:
        return value in self.values

    def shown(self, value: int) -> str:
        return repr(value)

    def __str__(self) -> str:
        *rest, last = (str(v) for v in self.values)
        return f"{', '.join(rest)} and {last}" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True, slots=True)
class Pattern:
    """Text matching ``regex`` whole, or ``""`` when ``empty`` says what leaving it out means."""

    regex: re.Pattern[str]
    rule: str  # what the pattern allows, in words
    empty: str = ""  # what "" stands for ("not paired"); "" itself is allowed only if this is set

    def allows(self, value: str) -> bool:
        # fullmatch, never match: "$" would let a trailing newline through.
        return (bool(self.empty) and value == "") or self.regex.fullmatch(value) is not None

    def shown(self, value: str) -> str:
        return _short(value)

    def __str__(self) -> str:
        return f'"" ({self.empty}) or {self.rule}' if self.empty else self.rule


@dataclass(frozen=True, slots=True)
class Url:
    """``""`` (not set) or an ``http://`` or ``https://`` address with a host: the hub's base."""

    def allows(self, value: str) -> bool:
        if value == "":
            return True
        if len(value) > 2048 or not value.isprintable() or " " in value:
            return False
        if not value.startswith(("http://", "https://")):
            return False
        try:
            parts = urlsplit(value)
            _ = parts.port  # a port that is no number or out of range raises here
        except ValueError:
            return False
        # The link adds /api/v1/... to this base: a query or a fragment would end up inside it.
        return bool(parts.hostname) and not parts.query and not parts.fragment

    def shown(self, value: str) -> str:
        return _short(value)

    def __str__(self) -> str:
        return '"" or an address starting with http:// or https://, e.g. "http://10.0.0.5:8000"'


HIDDEN = "<hidden>"  # what `klik config` prints in place of a secret


@dataclass(frozen=True, slots=True)
class Secret:
    """The pairing key: ``""`` (not paired) or 64 lower-case hex digits (256 bits).

    Its value is never shown: not in a message (``_value`` asks ``why`` instead), not by
    ``klik config`` (``HIDDEN``), not in the section's ``repr``.
    """

    def allows(self, value: str) -> bool:
        return value == "" or KEY_HEX.fullmatch(value) is not None

    def shown(self, value: Any) -> str:
        return _toml(HIDDEN)

    def why(self, value: Any) -> str:
        """What is wrong with ``value``, in words that give nothing of it away but its length."""
        if not isinstance(value, str):
            return f"must be text, got {_kind(value)}"
        if value == HIDDEN:
            return (
                f'"{HIDDEN}" is what klik config prints in place of the key; '
                "put the key from pairing here (run klik pair)"
            )
        if len(value) == 64:
            return "must be 64 lower-case hex digits (got 64 characters, not all 0-9 or a-f)"
        return f"must be 64 lower-case hex digits (got {len(value)} characters)"

    def __str__(self) -> str:
        return '"" (not paired) or 64 lower-case hex digits'


def allowed(limit: Allowed) -> dict[str, Allowed]:
    """A field's metadata: what its key may be."""
    return {"allowed": limit}


GPIO = Range(0, 27, label="GPIO ")  # BCM numbers of the 40-pin header
PORT = Range(1, 65535)  # TCP
PLAYER = Text(1, 24)  # a player's name, as the seat screens show it


@dataclass(frozen=True, slots=True)
class TableSection:
    # the table's number or name, as the hub knows it
    name: str = field(default="1", metadata=allowed(Text(1, 16)))
    # players at this table: 2, 3 or 4 (seats A, B, C, D in clockwise order)
    seats: int = field(default=4, metadata=allowed(Range(2, 4, "seats")))
    language: Literal["pl", "en"] = "pl"
    # the journal lives here; systemd's StateDirectory
    state_dir: str = field(default="/var/lib/klik", metadata=allowed(Text(1, 4096)))
    # how often a running clock is written to the journal (each one is an fsync)
    checkpoint_s: float = field(default=1.0, metadata=allowed(Range(0.2, 5, "s")))


def _game(key: str, default: float) -> Any:
    return field(default=default, metadata=allowed(limits.GAME[key]))


@dataclass(frozen=True, slots=True)
class GameSection:
    move_time_s: float = _game("move_time_s", 60.0)
    starter: Literal["A", "B", "C", "D"] = "A"
    rules: Literal["tournament", "league"] = "tournament"
    timeout: Literal["wait", "auto"] = "wait"
    penalty_tiles: int = _game("penalty_tiles", 1)
    penalty_window_s: float = _game("penalty_window_s", 5.0)
    warn_s: float = _game("warn_s", 10.0)


def _pin(default: int) -> Any:
    return field(default=default, metadata=allowed(GPIO))


@dataclass(frozen=True, slots=True)
class HardwareSection:
    pin_factory: Literal["lgpio", "rpigpio", "mock"] = "lgpio"
    sound: Literal["on", "quiet", "off"] = "on"  # quiet: only the button LEDs warn
    judge_key: bool = True  # a judge key is wired to pins.judge_key


@dataclass(frozen=True, slots=True)
class PinsSection:
    """BCM GPIO numbers; generated from hardware/pinmap.toml into the defaults."""

    seat_A_button: int = _pin(5)  # noqa: N815 (the seat letter is part of the name)
    seat_A_led: int = _pin(12)  # noqa: N815
    seat_B_button: int = _pin(6)  # noqa: N815
    seat_B_led: int = _pin(13)  # noqa: N815
    seat_C_button: int = _pin(16)  # noqa: N815
    seat_C_led: int = _pin(19)  # noqa: N815
    seat_D_button: int = _pin(20)  # noqa: N815
    seat_D_led: int = _pin(26)  # noqa: N815
    buzzer: int = _pin(18)
    judge_key: int = _pin(21)

    def button(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_button"))

    def led(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_led"))


@dataclass(frozen=True, slots=True)
class PanelSection:
    """One seat's OLED; keys left out of ``[panels.X]`` come from ``[panels]``."""

    driver: Literal["ssd1306", "sh1106", "none"] = "ssd1306"  # none: this seat has no screen
    interface: Literal["i2c", "spi", "sim"] = "i2c"  # sim: a recording bus (virtual table)
    i2c_bus: int = field(default=1, metadata=allowed(Range(0, 255)))  # /dev/i2c-N
    # 7-bit addresses without the reserved ones at both ends
    i2c_address: int = field(default=0x3C, metadata=allowed(Range(0x03, 0x77, hex=True)))
    # TCA9548A behind the i2c-mux overlay (its pins set 0x70 to 0x77); 0 = no mux
    mux_address: int = field(default=0x70, metadata=allowed(Range(0x70, 0x77, hex=True, also=(0,))))
    mux_channel: int = field(default=0, metadata=allowed(Range(0, 7)))  # the mux has 8
    spi_port: int = field(default=0, metadata=allowed(Range(0, 1)))  # /dev/spidevP.D
    spi_device: int = field(default=0, metadata=allowed(Range(0, 2)))
    gpio_dc: int = field(default=24, metadata=allowed(GPIO))
    gpio_reset: int = field(default=25, metadata=allowed(GPIO))
    # quarter turns: 0, or 2 for a panel mounted upside down
    rotate: int = field(default=0, metadata=allowed(OneOf((0, 2), "upside down")))


RETRY_S = 5.0


@dataclass(frozen=True, slots=True)
class PanelsSection:
    # how often a panel that is out is tried again; each try costs the bus a few ms
    retry_s: float = field(default=RETRY_S, metadata=allowed(Range(1, 60, "s")))
    common: PanelSection = PanelSection()
    seats: tuple[tuple[str, PanelSection], ...] = ()

    def seat(self, seat: str) -> PanelSection:
        return dict(self.seats).get(seat, self.common)


@dataclass(frozen=True, slots=True)
class SimSection:
    # a host name or address; a DNS name is at most 253 characters
    host: str = field(default="127.0.0.1", metadata=allowed(Text(1, 253, spaces=False)))
    port: int = field(default=8100, metadata=allowed(PORT))


BAUD_RATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
PIN = re.compile(r"[0-9A-Fa-f]{64}")  # as `openssl x509 -fingerprint -sha256` prints, colons out


@dataclass(frozen=True, slots=True)
class HubSection:
    """The link to the tournament hub. ``klik pair`` fills in table, device_id and key."""

    # "off": results stay on the table; "http": over the network to url; "serial": a USB
    # cable or a radio module on serial_port
    link: Literal["off", "http", "serial"] = "off"
    url: str = field(default="", metadata=allowed(Url()))  # the hub's base address
    # the table's number at the tournament; 0: not paired
    table: int = field(default=0, metadata=allowed(Range(0, 999)))
    device_id: str = field(
        default="",
        metadata=allowed(Pattern(DEVICE, "1 to 64 letters, digits, - or _", "not paired")),
    )
    # the HMAC key from pairing: a secret, so it is left out of repr() as well
    key: str = field(default="", repr=False, metadata=allowed(Secret()))
    serial_port: str = field(default="/dev/ttyAMA0", metadata=allowed(Text(1, 4096, spaces=False)))
    serial_baud: int = field(default=9600, metadata=allowed(OneOf(BAUD_RATES, "baud")))
    # how often the table tells the hub it is alive (and asks for commands)
    heartbeat_s: float = field(default=2.0, metadata=allowed(Range(0.5, 60, "s")))
    # SHA-256 of the hub's self-signed certificate: https then trusts that one certificate
    tls_pin_sha256: str = field(
        default="",
        metadata=allowed(Pattern(PIN, "64 hex digits (SHA-256), without colons", "no pin")),
    )


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
    hub: HubSection = HubSection()
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
    "hub": HubSection,
}


def defaults_text() -> str:
    return resources.files("klik.table").joinpath("defaults.toml").read_text(encoding="utf-8")


def load(path: str | Path | None) -> Config:
    """The effective config: the shipped defaults with ``path`` laid over them (None: defaults).

    Raises ConfigError with one line naming the file, the key and what is allowed.
    """
    merged = _parse(defaults_text(), "defaults.toml")
    source = "<defaults>"
    if path is not None:
        source = str(path)
        try:
            # utf-8-sig: Windows editors start a UTF-8 file with a byte order mark.
            text = Path(path).read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise ConfigError(
                f"{path}: no such file (give --config an existing TOML file)"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ConfigError(f"{path}: cannot read ({reason})") from None
        _merge(merged, _parse(text, source))
    return _build(merged, source)


def make_state_dir(config: Config, flag: str | None = None) -> None:
    """Make the journal's folder ``[table] state_dir`` (and its parents) if it is missing.

    The daemons call this before they open any hardware. Raises ConfigError, one line naming
    the key (or the command line's ``flag``, e.g. ``--state-dir``) and why it cannot be used.
    """
    path = config.table.state_dir
    where = f"{flag} {path}" if flag else f"{config.source}: [table] state_dir = {_toml(path)}"
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        # mkdir(exist_ok=True) says "File exists" when the name is a file's: say that plainly.
        reason = "a file is in the way" if isinstance(error, FileExistsError) else error.strerror
        raise ConfigError(f"{where}: cannot make this folder ({reason or error})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: cannot write in this folder (no permission)")


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
        lines += [f"{k} = {v}" for k, v in _printed(getattr(config, name)).items()]
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
    known = [*SECTIONS, "players", "panels"]
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown section [{key}]{_hint(key, known)}")
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
    ranges = _ranges(cls)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            raise ConfigError(f"{source}: unknown key [{where}] {key}{_hint(key, names)}")
        values[key] = _value(value, hints[key], ranges.get(key), f"[{where}] {key}", source)
    return cls(**values)


def _ranges(cls: type) -> Mapping[str, Allowed]:
    """What each key of section ``cls`` may be, from its fields' metadata."""
    if cls is GestureSettings:  # the engine's own dataclass: its ranges are in klik.core.limits
        return limits.GESTURES
    return {f.name: f.metadata["allowed"] for f in fields(cls) if "allowed" in f.metadata}


def _is_value(hint: Any) -> bool:
    return hint in (str, int, float, bool) or get_origin(hint) is Literal


def _value(value: Any, hint: Any, limit: Allowed | None, key: str, source: str) -> Any:
    """``value`` as the schema's type, checked against its range; ConfigError if not."""
    if isinstance(limit, Secret):  # the message names the key and never shows the value
        if isinstance(value, str) and limit.allows(value):
            return value
        raise ConfigError(f"{source}: {key}: {limit.why(value)}")
    value = _typed(value, hint, key, source)
    if limit is not None and not limit.allows(value):
        raise ConfigError(f"{source}: {key} = {limit.shown(value)}: allowed are {limit}")
    return value


def _typed(value: Any, hint: Any, key: str, source: str) -> Any:
    if get_origin(hint) is Literal:
        choices = get_args(hint)
        if value not in choices or isinstance(value, bool):
            options = ", ".join(f'"{a}"' for a in choices)
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
        players.append((seat, _value(name, str, PLAYER, f"[players] {seat}", source)))
    return tuple(sorted(players))


def _panels(data: dict[str, Any], source: str) -> PanelsSection:
    common_keys = {k: v for k, v in data.items() if not isinstance(v, dict)}
    retry = common_keys.pop("retry_s", RETRY_S)
    retry_s = _value(retry, float, _ranges(PanelsSection)["retry_s"], "[panels] retry_s", source)
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
    """Whole-config rules, once every key is in its range: how the game's and the buttons'
    settings fit together (the engine's own check), then the pins."""
    try:
        config.settings().check(name=_setting)
    except InputError as error:
        raise ConfigError(f"{source}: {error}") from None
    spi = any(config.panels.seat(seat).interface == "spi" for seat in config.seat_letters)
    _check_pins(config, source, spi=spi)
    _check_hub(config.hub, source)


def _check_hub(hub: HubSection, source: str) -> None:
    """A link that is on needs what pairing gives (and, over http, the hub's address)."""
    if hub.link == "off":
        return
    needs = f'[hub] link = "{hub.link}" needs'
    if hub.table == 0:
        raise ConfigError(
            f"{source}: [hub] table is missing: {needs} the table's number at the tournament, "
            "1 to 999 (run klik pair)"
        )
    if not hub.device_id:
        raise ConfigError(
            f"{source}: [hub] device_id is missing: {needs} the device id from pairing "
            "(run klik pair)"
        )
    if not hub.key:
        raise ConfigError(
            f"{source}: [hub] key is missing: {needs} the key from pairing (run klik pair)"
        )
    if hub.link != "http":
        return
    if not hub.url:
        raise ConfigError(
            f'{source}: [hub] url is missing: {needs} the hub\'s address, e.g. "http://10.0.0.5:8000"'
        )
    if hub.tls_pin_sha256 and not hub.url.startswith("https://"):
        # Over plain http a pin checks nothing: say so rather than let the organiser believe
        # the link is pinned.
        raise ConfigError(
            f"{source}: [hub] tls_pin_sha256 is set but [hub] url = {_toml(hub.url)} is not "
            "https://; a pinned certificate needs an https:// address"
        )


def _setting(key: str) -> str:
    """An engine setting's name as the config file has it: ``warn_s`` is ``[game] warn_s``."""
    if key in limits.GESTURES:
        return f"[buttons] {key}"
    return "[table] seats" if key == "seats" else f"[game] {key}"


def _check_pins(config: Config, source: str, spi: bool) -> None:
    used: dict[int, str] = {}
    names = [f"seat_{s}_{part}" for s in config.seat_letters for part in ("button", "led")]
    names += ["buzzer"] + (["judge_key"] if config.hardware.judge_key else [])
    taken = {**RESERVED_PINS, **UART_PINS, **(SPI_PINS if spi else {})}
    for name in names:
        pin = getattr(config.pins, name)
        if pin in taken:
            raise ConfigError(
                f"{source}: [pins] {name} = {pin}: GPIO {pin} is the {taken[pin]} pin"
            )
        if pin in used:
            raise ConfigError(
                f"{source}: [pins] {name} = {pin}: GPIO {pin} is already [pins] {used[pin]}; "
                "every part needs a pin of its own"
            )
        used[pin] = name


# --- helpers -----------------------------------------------------------------------------


def _values(section: Any) -> dict[str, Any]:
    return {f.name: getattr(section, f.name) for f in fields(section)}


def _printed(section: Any) -> dict[str, str]:
    """A section's keys as TOML values, a secret that is set as ``"<hidden>"``."""
    secret = {f.name for f in fields(section) if isinstance(f.metadata.get("allowed"), Secret)}
    return {k: _toml(HIDDEN if k in secret and v else v) for k, v in _values(section).items()}


def _short(value: str) -> str:
    """A text as a message shows it, on one line: a 5,000-character one by its start and length."""
    if len(value) > 40:
        return f"{_toml(value[:20] + '…')} ({len(value)} characters)"
    return _toml(value)


def _hint(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f"; allowed are {', '.join(names)}"


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
        return '"' + "".join(_TOML_ESCAPES.get(c) or _escaped(c) for c in value) + '"'
    return repr(value)


_TOML_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _escaped(char: str) -> str:
    """A character as a TOML string holds it: control characters escaped, so a message that
    shows a bad value stays one line."""
    if char.isprintable():
        return char
    return f"\\u{ord(char):04X}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08X}"
