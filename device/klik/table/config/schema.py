"""The table's config schema: its sections, their keys, and how TOML data becomes a ``Config``.

Every section is a frozen dataclass whose fields are the keys a file may give, with their
types and units in their names, and every number and text carries what it may be next to it
(``allowed(...)``, ``types.py``; ``[buttons]`` is the engine's own ``GestureSettings``, its
ranges in ``klik.core.limits``). No key has a default here: the shipped ``defaults.toml`` is
the only place one is written, so ``build`` is handed the defaults with the organiser's file
laid over them (``load.py``), and ``Config()`` is the shipped defaults alone (``shipped()``).

``build`` checks one key at a time: an unknown key gets a "did you mean", a wrong type or
value one line naming the file, the key, the value and what is allowed. How the keys fit
together (pins, the link, the engine's settings) is ``checks.py``'s.
"""

from __future__ import annotations

import functools
import re
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from klik.core import game as g
from klik.core.game import SEATS
from klik.core.gestures import GestureSettings
from klik.core.limits import GAME, GESTURES, Range
from klik.core.scoring import RuleSet
from klik.link.protocol import DEVICE
from klik.rules import RULE_SETS, RulesError, parse
from klik.table.config.types import (
    GPIO,
    KINDS,
    PLAYER,
    PORT,
    Allowed,
    ConfigError,
    OneOf,
    Pattern,
    RuleSetName,
    SeatList,
    Secret,
    Text,
    Url,
    as_toml,
)
from klik.validate import (
    NUMBER,
    OBJECT,
    TEXT,
    TRUE_FALSE,
    WHOLE,
    Choice,
    Voice,
    check,
    known,
    required,
)

#: A list of distinct seats (``[table] large``, ``[hardware] vibration``).
SEAT_LIST = SeatList(SEATS)


def allowed(limit: Allowed | Choice) -> dict[str, Allowed | Choice]:
    """A key's field metadata: what the key may be. (Its default is in ``defaults.toml``.)
    A ``Choice`` is for words defined elsewhere (the seats), which a ``Literal`` would copy."""
    return {"allowed": limit}


@dataclass(frozen=True, slots=True)
class TableSection:
    # the table's number or name, as the hub knows it
    name: str = field(metadata=allowed(Text(1, 16)))
    # players at this table: 2, 3 or 4 (seats A, B, C, D in clockwise order)
    seats: int = field(metadata=allowed(Range(2, 4, "seats")))
    language: Literal["pl", "en"]
    # the journal lives here; systemd's StateDirectory
    state_dir: str = field(metadata=allowed(Text(1, 4096)))
    # how often a running clock is written to the journal (each one is an fsync)
    checkpoint_s: float = field(metadata=allowed(Range(0.2, 5, "s")))
    # the room held on the card for the games when it fills up (klik.table.game.card)
    reserve_mib: int = field(metadata=allowed(Range(0, 16, "MiB")))
    # the seats whose screens are always in large type (a round's players may ask for it too)
    large: tuple[str, ...] = field(metadata=allowed(SEAT_LIST))


_TIME = GAME["move_time_s"]
MOVE_TIME = Range(_TIME.lo, _TIME.hi, _TIME.unit, also=(0,))


@dataclass(frozen=True, slots=True)
class GameSection:
    # 0: the rule set's (pl-turniej 60 s); any other overrides it, as a tournament's does
    move_time_s: float = field(metadata=allowed(MOVE_TIME))
    starter: str = field(metadata=allowed(Choice(SEATS, show=as_toml)))
    # a set Klik ships (``klik rules list``) or a rule set file: the penalty tiles, the joker,
    # the points (``klik.rules``); the hub's lineup brings the tournament's own
    rules: str = field(metadata=allowed(RuleSetName()))
    timeout: Literal["wait", "auto"]
    penalty_window_s: float = field(metadata=allowed(GAME["penalty_window_s"]))
    warn_s: float = field(metadata=allowed(GAME["warn_s"]))


@dataclass(frozen=True, slots=True)
class HardwareSection:
    pin_factory: Literal["lgpio", "rpigpio", "mock"]
    sound: Literal["on", "quiet", "off"]  # quiet: only the button LEDs warn
    judge_key: bool  # a judge key is wired to pins.judge_key
    # A UPS or supercapacitor HAT's power-fail line, low when the supply fails (0: none; GPIO 0
    # holds the HAT's ID EEPROM, never an input of ours).
    power_fail_pin: int = field(metadata=allowed(GPIO))
    # the seats fitted with a vibration motor (pins.seat_X_vibration); none by default
    vibration: tuple[str, ...] = field(metadata=allowed(SEAT_LIST))


@dataclass(frozen=True, slots=True)
class PinsSection:
    """BCM GPIO numbers; defaults.toml's are generated from hardware/pinmap.toml."""

    seat_A_button: int = field(metadata=allowed(GPIO))  # noqa: N815 (the seat letter is in the name)
    seat_A_led: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_B_button: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_B_led: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_C_button: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_C_led: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_D_button: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_D_led: int = field(metadata=allowed(GPIO))  # noqa: N815
    buzzer: int = field(metadata=allowed(GPIO))
    judge_key: int = field(metadata=allowed(GPIO))
    # the optional vibration motors ([hardware] vibration names the seats fitted with one)
    seat_A_vibration: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_B_vibration: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_C_vibration: int = field(metadata=allowed(GPIO))  # noqa: N815
    seat_D_vibration: int = field(metadata=allowed(GPIO))  # noqa: N815

    def button(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_button"))

    def led(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_led"))

    def vibration(self, seat: str) -> int:
        return int(getattr(self, f"seat_{seat}_vibration"))


@dataclass(frozen=True, slots=True)
class PanelSection:
    """One seat's OLED; keys left out of ``[panels.X]`` come from ``[panels]``."""

    driver: Literal["ssd1306", "sh1106", "none"]  # none: this seat has no screen
    interface: Literal["i2c", "spi", "sim"]  # sim: a recording bus (virtual table)
    i2c_bus: int = field(metadata=allowed(Range(0, 255)))  # /dev/i2c-N
    # 7-bit addresses without the reserved ones at both ends
    i2c_address: int = field(metadata=allowed(Range(0x03, 0x77, hex=True)))
    # TCA9548A behind the i2c-mux overlay (its pins set 0x70 to 0x77); 0 = no mux
    mux_address: int = field(metadata=allowed(Range(0x70, 0x77, hex=True, also=(0,))))
    mux_channel: int = field(metadata=allowed(Range(0, 7)))  # the mux has 8
    spi_port: int = field(metadata=allowed(Range(0, 1)))  # /dev/spidevP.D
    spi_device: int = field(metadata=allowed(Range(0, 2)))
    gpio_dc: int = field(metadata=allowed(GPIO))
    gpio_reset: int = field(metadata=allowed(GPIO))
    # quarter turns: 0, or 2 for a panel mounted upside down
    rotate: int = field(metadata=allowed(OneOf((0, 2), "upside down")))


@dataclass(frozen=True, slots=True)
class PanelsSection:
    # how often a panel that is out is tried again; each try costs the bus a few ms
    retry_s: float = field(metadata=allowed(Range(1, 60, "s")))
    common: PanelSection
    seats: tuple[tuple[str, PanelSection], ...]  # (seat, its panel) where [panels.X] is given

    def seat(self, seat: str) -> PanelSection:
        return dict(self.seats).get(seat, self.common)


@dataclass(frozen=True, slots=True)
class SimSection:
    # a host name or address; a DNS name is at most 253 characters
    host: str = field(metadata=allowed(Text(1, 253, spaces=False)))
    port: int = field(metadata=allowed(PORT))


BAUD_RATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
PIN = re.compile(r"[0-9A-Fa-f]{64}")  # as `openssl x509 -fingerprint -sha256` prints, colons out
HUB_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,63}")  # a DNS-SD instance name (one DNS label)


@dataclass(frozen=True, slots=True)
class HubSection:
    """The link to the tournament hub. ``klik pair`` fills in table, device_id and key."""

    # "off": results stay on the table; "http": over the network to url; "serial": a USB
    # cable or a radio module on serial_port
    link: Literal["off", "http", "serial"]
    # the hub's base address; "" with link = "http": found on the network (DNS-SD)
    url: str = field(metadata=allowed(Url()))
    # with no url: the hub to take when several answer, by the name it advertises
    name: str = field(
        metadata=allowed(Pattern(HUB_NAME, "1 to 63 printable characters", "the only hub"))
    )
    # the table's number at the tournament; 0: not paired
    table: int = field(metadata=allowed(Range(0, 999)))
    device_id: str = field(
        metadata=allowed(Pattern(DEVICE, "1 to 64 letters, digits, - or _", "not paired"))
    )
    # the HMAC key from pairing: a secret, so it is left out of repr() as well
    key: str = field(repr=False, metadata=allowed(Secret()))
    serial_port: str = field(metadata=allowed(Text(1, 4096, spaces=False)))
    serial_baud: int = field(metadata=allowed(OneOf(BAUD_RATES, "baud")))
    # "listen": listen before talking (a cable, or radios the hub cannot poll); "polled": the
    # hub gives each table its turn (klik hub --serial-channel polled)
    serial_channel: Literal["listen", "polled"]
    # how often the table tells the hub it is alive (and asks for commands)
    heartbeat_s: float = field(metadata=allowed(Range(0.5, 60, "s")))
    # SHA-256 of the hub's self-signed certificate: https then trusts that one certificate
    tls_pin_sha256: str = field(
        metadata=allowed(Pattern(PIN, "64 hex digits (SHA-256), without colons", "no pin"))
    )

    @property
    def asks_to_join(self) -> bool:
        """Nothing from pairing, and a way to the hub: the table asks the hub to join
        (``klik.link.joining``): over its serial port with ``link = "serial"``, else with the
        hub's address or an http link that finds it."""
        if self.device_id or self.key:
            return False
        if self.link == "serial":
            return bool(self.serial_port)
        return bool(self.url) or self.link == "http"

    @property
    def finds_hub(self) -> bool:
        """It asks to join a hub it has no address of: found on the network by DNS-SD
        (``klik.link.discovery``), the one named ``name`` if it is set. A serial link needs
        no address: it asks over its port."""
        return self.asks_to_join and self.link != "serial" and not self.url


def defaults_text() -> str:
    """The shipped ``defaults.toml``, the one place a key's default is written."""
    return resources.files("klik.table").joinpath("defaults.toml").read_text(encoding="utf-8")


@functools.cache
def shipped() -> Config:
    """The config ``defaults.toml`` alone makes: what ``Config()`` holds. Read once."""
    return build(tomllib.loads(defaults_text()), "<defaults>")


@dataclass(frozen=True, slots=True)
class Config:
    """The effective config. ``Config()`` is the shipped defaults alone, as ``load(None)``."""

    table: TableSection = field(default_factory=lambda: shipped().table)
    game: GameSection = field(default_factory=lambda: shipped().game)
    # the engine's own schema
    buttons: GestureSettings = field(default_factory=lambda: shipped().buttons)
    hardware: HardwareSection = field(default_factory=lambda: shipped().hardware)
    pins: PinsSection = field(default_factory=lambda: shipped().pins)
    panels: PanelsSection = field(default_factory=lambda: shipped().panels)
    # (seat, name)
    players: tuple[tuple[str, str], ...] = field(default_factory=lambda: shipped().players)
    sim: SimSection = field(default_factory=lambda: shipped().sim)
    hub: HubSection = field(default_factory=lambda: shipped().hub)
    source: str = field(default="<defaults>", compare=False)

    @property
    def seat_letters(self) -> tuple[str, ...]:
        return SEATS[: self.table.seats]

    @property
    def rule_set(self) -> RuleSet:
        """The rule set ``[game] rules`` names: a known one, or the file at that path (read
        once); ConfigError naming the key and the file's fault."""
        try:
            return RULE_SETS[self.game.rules]
        except KeyError:
            return _rule_file(self.game.rules, self.source)

    def settings(self) -> g.Settings:
        """The engine's settings for a new game at this table: the rule set's, with the
        config's own move time if it gives one."""
        game, rules = self.game, self.rule_set
        return g.Settings(
            seats=self.seat_letters,
            starter=game.starter,
            move_time_s=game.move_time_s or float(rules.move_time_s),
            rules=rules,
            timeout=g.TimeoutMode(game.timeout),
            penalty_tiles=rules.penalty_tiles,
            penalty_window_s=game.penalty_window_s,
            warn_s=game.warn_s,
            gestures=self.buttons,
        )


#: The sections whose keys are the fields of one dataclass; ``[players]`` (seat = name) and
#: ``[panels]`` (with a ``[panels.X]`` for each seat) are read on their own.
SECTIONS: dict[str, type] = {
    "table": TableSection,
    "game": GameSection,
    "buttons": GestureSettings,
    "hardware": HardwareSection,
    "pins": PinsSection,
    "sim": SimSection,
    "hub": HubSection,
}


#: How the config refuses a key: the file (``where``), the key as the file has it
#: (``[game] warn_s``), the value as TOML writes it and what is allowed.
VOICE = Voice(
    lambda at, line: ConfigError(line),
    wrong="{where}: {at} = {value}: allowed are {allowed}",
    kind="{where}: {at} = {value}: must be {allowed}, got {got}",
    unknown="{where}: unknown key {at}{hint}",
    # Only a broken defaults.toml leaves a key out: every key's default is there.
    missing="defaults.toml: {at} is missing",
    joiner=" ",
    far="; allowed are {}",
    shown=as_toml,
    kinds=KINDS,
)
#: What a value of each of the schema's types must be, before its range is asked.
TYPES = {bool: TRUE_FALSE, int: WHOLE, float: NUMBER, str: TEXT}  # an int is a float too
#: ``[players] X`` and ``[panels.X]`` where X is no seat.
NO_SEAT_KEY = "{where}: unknown key {at}: seats are {allowed}"
NO_SEAT_SECTION = "{where}: unknown section {at}: seats are {allowed}"


@functools.cache
def _rule_file(path: str, source: str) -> RuleSet:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        why = error.strerror or str(error)
        raise ConfigError(
            f"{source}: [game] rules = {as_toml(path)}: cannot read ({why})"
        ) from None
    try:
        return parse(text, path)
    except RulesError as error:
        raise ConfigError(f"{source}: [game] rules: {error}") from None


#: A key the config had before the rule sets gave it, and what to do now.
GONE = {
    ("game", "penalty_tiles"): (
        "{where}: [game] penalty_tiles: the rule set gives the penalty tiles now (classic"
        " draws 3); remove the key, and choose a set or write one (klik rules list)"
    ),
}


def build(data: dict[str, Any], source: str) -> Config:
    """``data`` (the defaults with the file laid over them) as a ``Config``, every key checked
    against the schema. Raises ConfigError naming ``source``, the key and what is allowed."""
    voice = replace(VOICE, where=source)
    sections = [*SECTIONS, "players", "panels"]
    for key, value in data.items():
        known([key], sections, voice, says="{where}: unknown section [{key}]{hint}")
        check(value, OBJECT, voice, key, says="{where}: {at} must be a section [{at}], got {got}")
    for (section, key), says in GONE.items():
        if key in data.get(section, {}):
            raise voice.refuse(says, f"[{section}] {key}")
    built = {name: _section(cls, data.get(name, {}), name, voice) for name, cls in SECTIONS.items()}
    return Config(
        **built,
        players=_players(data.get("players", {}), voice),
        panels=_panels(data.get("panels", {}), voice),
        source=source,
    )


def _section(cls: type, data: dict[str, Any], where: str, voice: Voice) -> Any:
    hints = typing.get_type_hints(cls)
    names = [f.name for f in fields(cls) if f.name in hints and _is_value(hints[f.name])]
    ranges = _ranges(cls)
    path = f"[{where}]"
    values: dict[str, Any] = {}
    for key, value in data.items():  # each key in the file's order: unknown, or checked
        known([key], names, voice, path)
        values[key] = _value(value, hints[key], ranges.get(key), voice.at(path, key), voice)
    for name in names:
        required(values, name, voice, path)
    return cls(**values)


def _ranges(cls: type) -> Mapping[str, Allowed | Choice]:
    """What each key of section ``cls`` may be, from its fields' metadata."""
    if cls is GestureSettings:  # the engine's own dataclass: its ranges are in klik.core.limits
        return GESTURES
    return {f.name: f.metadata["allowed"] for f in fields(cls) if "allowed" in f.metadata}


def _is_value(hint: Any) -> bool:
    return hint in (str, int, float, bool) or get_origin(hint) in (Literal, tuple)


def _value(value: Any, hint: Any, limit: Allowed | Choice | None, at: str, voice: Voice) -> Any:
    """``value`` as the schema's type, checked against its range; ConfigError if not."""
    if isinstance(limit, Secret):  # the message names the key and never shows the value
        if isinstance(value, str) and limit.allows(value):
            return value
        raise voice.refuse("{where}: {at}: {allowed}", at, allowed=limit.why(value))
    if get_origin(hint) is Literal:
        return check(value, Choice(get_args(hint), show=as_toml), voice, at)
    if isinstance(limit, Choice):
        return check(value, limit, voice, at)
    if isinstance(limit, SeatList):
        return tuple(sorted(check(value, limit, voice, at, shown=limit.shown)))
    value = check(value, TYPES[hint], voice, at)
    value = float(value) if hint is float else value  # 1 is 1.0: shown so when refused
    if limit is not None:
        check(value, limit, voice, at, shown=limit.shown)
    return value


def _players(data: dict[str, Any], voice: Voice) -> tuple[tuple[str, str], ...]:
    players = []
    for seat, name in data.items():
        at = f"[players] {seat}"
        check(seat, Choice(SEATS), voice, at, says=NO_SEAT_KEY)
        players.append((seat, _value(name, str, PLAYER, at, voice)))
    return tuple(sorted(players))


def _panels(data: dict[str, Any], voice: Voice) -> PanelsSection:
    common_keys = {k: v for k, v in data.items() if not isinstance(v, dict)}
    retry = required(common_keys, "retry_s", voice, "[panels]")
    del common_keys["retry_s"]
    retry_s = _value(retry, float, _ranges(PanelsSection)["retry_s"], "[panels] retry_s", voice)
    common = _section(PanelSection, common_keys, "panels", voice)
    seats = []
    for seat, table in data.items():
        if not isinstance(table, dict):
            continue
        check(seat, Choice(SEATS), voice, f"[panels.{seat}]", says=NO_SEAT_SECTION)
        merged = {**common_keys, **table}
        seats.append((seat, _section(PanelSection, merged, f"panels.{seat}", voice)))
    return PanelsSection(retry_s=retry_s, common=common, seats=tuple(sorted(seats)))
