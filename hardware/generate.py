"""Make everything that follows from hardware/pinmap.toml, or check that it is up to date.

    python hardware/generate.py           # rewrite what is stale, print what changed
    python hardware/generate.py --check   # exit 1 and name what is stale; write nothing

From the one pin map it makes:

- the ``[pins]`` block of ``device/klik/table/defaults.toml`` (only between ``# BEGIN pins`` and
  ``# END pins``), which the daemon reads;
- the ``gpio_pin=`` of the gpio-shutdown line in ``firmware/config.txt``;
- ``hardware/PINS.md``, the pin table;
- ``hardware/wiring.svg`` and ``hardware/wiring.png``, the wiring diagram. Both are drawn
  from one layout (:func:`layout`), a list of shapes with no I/O. The SVG is plain text and
  compared byte for byte; the PNG carries the SHA-256 of that SVG in a text chunk, so
  ``--check`` does not depend on how this machine's Pillow rasterises fonts.

Before writing anything the map is checked (:func:`problems`): no GPIO used twice, no role
on the ID EEPROM, I2C1, UART or SPI0 pins, every header pin number matching its BCM number
on the standard 40-pin header (:data:`HEADER`). Importable: the tests call the functions.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import itertools
import math
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PINMAP = HERE / "pinmap.toml"
DEFAULTS = REPO / "device" / "klik" / "table" / "defaults.toml"
FIRMWARE_CONFIG = REPO / "firmware" / "config.txt"
PINS_MD = HERE / "PINS.md"
WIRING_SVG = HERE / "wiring.svg"
WIRING_PNG = HERE / "wiring.png"
FONTS = REPO / "device" / "klik" / "fonts"

# The 40-pin header, the same on every 40-pin Raspberry Pi (B+ and later, Zeros, Pi 5):
# physical pin -> what is on it. Pin 1 has the square pad; odd pins form one column, even
# pins the other, so pins 1 and 2 are side by side.
HEADER: dict[int, str] = {
    1: "3V3", 2: "5V",
    3: "GPIO2", 4: "5V",
    5: "GPIO3", 6: "GND",
    7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15",
    11: "GPIO17", 12: "GPIO18",
    13: "GPIO27", 14: "GND",
    15: "GPIO22", 16: "GPIO23",
    17: "3V3", 18: "GPIO24",
    19: "GPIO10", 20: "GND",
    21: "GPIO9", 22: "GPIO25",
    23: "GPIO11", 24: "GPIO8",
    25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1",
    29: "GPIO5", 30: "GND",
    31: "GPIO6", 32: "GPIO12",
    33: "GPIO13", 34: "GND",
    35: "GPIO19", 36: "GPIO16",
    37: "GPIO26", 38: "GPIO20",
    39: "GND", 40: "GPIO21",
}  # fmt: skip
BCM_TO_PHYSICAL: dict[int, int] = {
    int(name[4:]): pin for pin, name in HEADER.items() if name.startswith("GPIO")
}

# The [pins] keys the daemon's config reads, in the order they are written.
DAEMON_KEYS: tuple[str, ...] = (
    "seat_A_button", "seat_A_led",
    "seat_B_button", "seat_B_led",
    "seat_C_button", "seat_C_led",
    "seat_D_button", "seat_D_led",
    "buzzer", "judge_key",
    "seat_A_vibration", "seat_B_vibration", "seat_C_vibration", "seat_D_vibration",
)  # fmt: skip
SHUTDOWN_ROLE = "shutdown_button"
ROLES = (*DAEMON_KEYS, SHUTDOWN_ROLE)

# GPIOs no role may take, and why.
OFF_LIMITS: dict[int, str] = {
    0: "the HAT ID EEPROM's ID_SD",
    1: "the HAT ID EEPROM's ID_SC",
    2: "I2C1 SDA (the mux)",
    3: "I2C1 SCL (the mux)",
    7: "SPI0 CE1 (kept for SPI panels)",
    8: "SPI0 CE0 (kept for SPI panels)",
    9: "SPI0 MISO (kept for SPI panels)",
    10: "SPI0 MOSI (kept for SPI panels)",
    11: "SPI0 SCLK (kept for SPI panels)",
    14: "UART TXD (the radio)",
    15: "UART RXD (the radio)",
}
BUSES: dict[tuple[str, str], int] = {
    ("I2C1", "SDA"): 2,
    ("I2C1", "SCL"): 3,
    ("UART", "TXD"): 14,
    ("UART", "RXD"): 15,
}
# GPIO0-8 come out of reset pulled up, GPIO9-27 pulled down (BCM2835 ARM Peripherals, the
# GPIO pull table; the same on BCM2837/2711). An output on a pulled-up pin would switch its
# transistor on while the Pi boots.
PULLED_DOWN_AT_RESET = frozenset(range(9, 28))

WIRE_COLOURS: dict[str, str] = {
    "black": "#222222",
    "brown": "#8b4513",
    "red": "#d62828",
    "orange": "#f28c00",
    "yellow": "#c9a800",
    "green": "#1f8a3a",
    "blue": "#1f5bd8",
    "violet": "#8a3ad1",
    "grey": "#7a7a7a",
    "white": "#b9b9b9",  # drawn light grey: white on white would vanish
}
NET_COLOURS = {"5V": "#d62828", "3V3": "#f28c00", "GND": "#222222"}
BEGIN_PINS = "# BEGIN pins"
END_PINS = "# END pins"
SHUTDOWN_LINE = re.compile(r"^(dtoverlay=gpio-shutdown,(?:.*,)?gpio_pin=)(\d+)(,.*)?$", re.M)


class PinMapError(ValueError):
    """pinmap.toml is malformed or breaks a wiring rule; the message names each problem."""


# --- the pin map as data --------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """A box in the diagram: a seat's button, the mux, the radio."""

    id: str
    side: Literal["left", "right"]
    title: str
    notes: tuple[str, ...] = ()
    attached: tuple[str, ...] = ()


@dataclass(frozen=True)
class Gpio:
    """A role pin: one of the daemon's ``[pins]`` or the kernel's shutdown pin."""

    role: str
    bcm: int
    physical: int
    direction: Literal["in", "out"]
    part: str
    terminal: str
    wire: str
    notes: str = ""
    seat: str = ""


@dataclass(frozen=True)
class Bus:
    """One line of I2C1 or the UART."""

    bus: str
    signal: str
    bcm: int
    physical: int
    part: str
    terminal: str
    wire: str
    notes: str = ""


@dataclass(frozen=True)
class Power:
    """A supply wire; ``physical == 0`` means it comes from the driver board's rail."""

    net: str
    physical: int
    part: str
    terminal: str
    wire: str


@dataclass(frozen=True)
class Reserved:
    """A GPIO kept free on purpose."""

    name: str
    bcm: int
    physical: int
    notes: str = ""


@dataclass(frozen=True)
class PinMap:
    parts: tuple[Part, ...]
    gpio: tuple[Gpio, ...]
    buses: tuple[Bus, ...]
    power: tuple[Power, ...]
    reserved: tuple[Reserved, ...]

    def pins(self) -> dict[str, int]:
        """The daemon's ``[pins]``: role -> BCM number, in :data:`DAEMON_KEYS` order."""
        by_role = {g.role: g.bcm for g in self.gpio}
        return {key: by_role[key] for key in DAEMON_KEYS if key in by_role}

    def shutdown_bcm(self) -> int:
        return next(g.bcm for g in self.gpio if g.role == SHUTDOWN_ROLE)


def _field(table: Mapping[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    if key not in table:
        if default is not None:
            return default
        raise PinMapError(f"{where}: missing key {key!r}")
    value = table[key]
    # bool is an int in Python; a pin number of `true` is still wrong.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PinMapError(f"{where}: {key} = {value!r}: must be {kind.__name__}")
    return value


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    values = table.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise PinMapError(f"{where}: {key} must be a list of strings")
    return tuple(values)


def parse(data: Mapping[str, Any]) -> PinMap:
    """Turn pinmap.toml's tables into a :class:`PinMap`; raises :class:`PinMapError`."""
    unknown = set(data) - {"part", "gpio", "bus", "power", "reserved"}
    if unknown:
        raise PinMapError(f"unknown tables: {', '.join(sorted(unknown))}")

    def rows(name: str) -> list[Mapping[str, Any]]:
        table = data.get(name, [])
        if not isinstance(table, list) or not all(isinstance(r, dict) for r in table):
            raise PinMapError(f"[[{name}]] must be an array of tables")
        return table

    parts = []
    for i, row in enumerate(rows("part")):
        where = f"[[part]] #{i + 1}"
        side = _field(row, "side", str, where)
        if side not in ("left", "right"):
            raise PinMapError(f"{where}: side = {side!r}: allowed are 'left', 'right'")
        parts.append(
            Part(
                id=_field(row, "id", str, where),
                side=side,
                title=_field(row, "title", str, where),
                notes=_strings(row, "notes", where),
                attached=_strings(row, "attached", where),
            )
        )
    gpio = []
    for i, row in enumerate(rows("gpio")):
        where = f"[[gpio]] #{i + 1} ({row.get('role', '?')})"
        direction = _field(row, "direction", str, where)
        if direction not in ("in", "out"):
            raise PinMapError(f"{where}: direction = {direction!r}: allowed are 'in', 'out'")
        gpio.append(
            Gpio(
                role=_field(row, "role", str, where),
                bcm=_field(row, "bcm", int, where),
                physical=_field(row, "physical", int, where),
                direction=direction,
                part=_field(row, "part", str, where),
                terminal=_field(row, "terminal", str, where),
                wire=_field(row, "wire", str, where),
                notes=_field(row, "notes", str, where, ""),
                seat=_field(row, "seat", str, where, ""),
            )
        )
    buses = [
        Bus(
            bus=_field(row, "bus", str, f"[[bus]] #{i + 1}"),
            signal=_field(row, "signal", str, f"[[bus]] #{i + 1}"),
            bcm=_field(row, "bcm", int, f"[[bus]] #{i + 1}"),
            physical=_field(row, "physical", int, f"[[bus]] #{i + 1}"),
            part=_field(row, "part", str, f"[[bus]] #{i + 1}"),
            terminal=_field(row, "terminal", str, f"[[bus]] #{i + 1}"),
            wire=_field(row, "wire", str, f"[[bus]] #{i + 1}"),
            notes=_field(row, "notes", str, f"[[bus]] #{i + 1}", ""),
        )
        for i, row in enumerate(rows("bus"))
    ]
    power = [
        Power(
            net=_field(row, "net", str, f"[[power]] #{i + 1}"),
            physical=_field(row, "physical", int, f"[[power]] #{i + 1}"),
            part=_field(row, "part", str, f"[[power]] #{i + 1}"),
            terminal=_field(row, "terminal", str, f"[[power]] #{i + 1}"),
            wire=_field(row, "wire", str, f"[[power]] #{i + 1}"),
        )
        for i, row in enumerate(rows("power"))
    ]
    reserved = [
        Reserved(
            name=_field(row, "name", str, f"[[reserved]] #{i + 1}"),
            bcm=_field(row, "bcm", int, f"[[reserved]] #{i + 1}"),
            physical=_field(row, "physical", int, f"[[reserved]] #{i + 1}"),
            notes=_field(row, "notes", str, f"[[reserved]] #{i + 1}", ""),
        )
        for i, row in enumerate(rows("reserved"))
    ]
    return PinMap(tuple(parts), tuple(gpio), tuple(buses), tuple(power), tuple(reserved))


def load(path: Path = PINMAP) -> PinMap:
    """Read and check a pin map; raises :class:`PinMapError` listing every problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise PinMapError(f"{path}: {error}") from error
    pinmap = parse(data)
    found = problems(pinmap)
    if found:
        raise PinMapError(f"{path}:\n  " + "\n  ".join(found))
    return pinmap


# --- the rules ------------------------------------------------------------------------------


def problems(pinmap: PinMap) -> list[str]:
    """Every broken wiring rule, one line each; empty when the map is good. Pure."""
    found: list[str] = []
    roles = [g.role for g in pinmap.gpio]
    for role in ROLES:
        if roles.count(role) != 1:
            found.append(f"role {role}: appears {roles.count(role)} times, must appear once")
    found += [f"role {r}: unknown; allowed: {', '.join(ROLES)}" for r in roles if r not in ROLES]

    # Every GPIO has one owner: a role, a bus line or a reservation.
    owners: dict[int, list[str]] = {}
    for g in pinmap.gpio:
        owners.setdefault(g.bcm, []).append(g.role)
    for b in pinmap.buses:
        owners.setdefault(b.bcm, []).append(f"{b.bus} {b.signal}")
    for r in pinmap.reserved:
        owners.setdefault(r.bcm, []).append(f"reserved {r.name}")
    for bcm, names in sorted(owners.items()):
        if len(names) > 1:
            found.append(f"GPIO{bcm} is used twice: {', '.join(names)}")

    for g in pinmap.gpio:
        if g.bcm in OFF_LIMITS:
            found.append(f"{g.role}: GPIO{g.bcm} is {OFF_LIMITS[g.bcm]}")
        if g.direction == "out" and g.bcm not in PULLED_DOWN_AT_RESET:
            found.append(
                f"{g.role}: GPIO{g.bcm} is pulled up while the Pi boots, so this output "
                "would switch on; use GPIO9-27"
            )
    for (bus, signal), bcm in BUSES.items():
        lines = [b for b in pinmap.buses if (b.bus, b.signal) == (bus, signal)]
        if len(lines) != 1 or lines[0].bcm != bcm:
            found.append(f"{bus} {signal}: must be listed once, on GPIO{bcm}")

    # The header: physical numbers must say the same as BCM numbers.
    numbered: list[tuple[str, int, str]] = [
        (g.role, g.physical, f"GPIO{g.bcm}") for g in pinmap.gpio
    ]
    numbered += [(f"{b.bus} {b.signal}", b.physical, f"GPIO{b.bcm}") for b in pinmap.buses]
    numbered += [(f"reserved {r.name}", r.physical, f"GPIO{r.bcm}") for r in pinmap.reserved]
    numbered += [
        (f"{p.part} {p.terminal}", p.physical, p.net) for p in pinmap.power if p.physical != 0
    ]
    for name, physical, expected in numbered:
        actual = HEADER.get(physical)
        if actual is None:
            found.append(f"{name}: header pin {physical} does not exist (1-40)")
        elif actual != expected:
            found.append(f"{name}: header pin {physical} is {actual}, not {expected}")
    for p in pinmap.power:
        if p.net not in NET_COLOURS:
            found.append(f"{p.part} {p.terminal}: net {p.net!r}; allowed: 3V3, 5V, GND")

    # Parts: every wire lands on a known part, on the part's side of the header.
    parts = {p.id: p for p in pinmap.parts}
    if len(parts) != len(pinmap.parts):
        found.append("two parts share an id")
    used_terminals: set[tuple[str, str]] = set()
    for wire in _wires(pinmap):
        part = parts.get(wire.part)
        if part is None:
            found.append(f"{wire.label}: part {wire.part!r} is not a [[part]]")
            continue
        if (wire.part, wire.terminal) in used_terminals:
            found.append(f"{wire.part}: terminal {wire.terminal!r} is wired twice")
        used_terminals.add((wire.part, wire.terminal))
        if wire.physical and (wire.physical % 2 == 1) != (part.side == "left"):
            column = "left (odd)" if wire.physical % 2 else "right (even)"
            found.append(
                f"{wire.label}: pin {wire.physical} is in the {column} column but "
                f"{part.id} is drawn on the {part.side}"
            )
        if wire.colour not in WIRE_COLOURS:
            found.append(f"{wire.label}: wire {wire.colour!r}; allowed: {', '.join(WIRE_COLOURS)}")
    found += [
        f"part {p.id}: nothing is wired to it"
        for p in pinmap.parts
        if not any(w.part == p.id for w in _wires(pinmap))
    ]
    return found


@dataclass(frozen=True)
class _Wire:
    """Anything drawn from the header (or a rail) to a part's terminal."""

    label: str
    physical: int  # 0: from the driver board's rail, drawn as a label
    part: str
    terminal: str
    colour: str
    dashed: bool


def _wires(pinmap: PinMap) -> list[_Wire]:
    wires = [
        _Wire(g.role, g.physical, g.part, g.terminal, g.wire, g.direction == "out")
        for g in pinmap.gpio
    ]
    wires += [
        _Wire(f"{b.bus} {b.signal}", b.physical, b.part, b.terminal, b.wire, dashed=False)
        for b in pinmap.buses
    ]
    wires += [
        _Wire(f"{p.net} to {p.part}", p.physical, p.part, p.terminal, p.wire, dashed=False)
        for p in pinmap.power
    ]
    return wires


# --- text outputs ---------------------------------------------------------------------------


def _pin_uses(pinmap: PinMap) -> dict[int, str]:
    """Header pin -> a short description of its use, for labels and PINS.md."""
    uses: dict[int, list[str]] = {}
    for g in pinmap.gpio:
        uses.setdefault(g.physical, []).append(_role_label(g.role))
    for b in pinmap.buses:
        uses.setdefault(b.physical, []).append(f"{b.bus} {b.signal}")
    for r in pinmap.reserved:
        uses.setdefault(r.physical, []).append(f"{r.name} ({r.notes})" if r.notes else r.name)
    for p in pinmap.power:
        if p.physical:
            uses.setdefault(p.physical, []).append(_part_title(pinmap, p.part))
    return {pin: ", ".join(dict.fromkeys(names)) for pin, names in uses.items()}


def _role_label(role: str) -> str:
    if role.startswith("seat_"):
        seat, thing = role[5], role[7:]
        return (
            f"seat {seat} {'LED' if thing == 'led' else 'motor' if thing == 'vibration' else thing}"
        )
    return role.replace("_", " ")


def _part_title(pinmap: PinMap, part_id: str) -> str:
    return next((p.title.split(":")[0] for p in pinmap.parts if p.id == part_id), part_id)


def defaults_block(pinmap: PinMap) -> str:
    """The lines between the markers in defaults.toml: ``[pins]`` and one key per role."""
    physical = {g.role: g.physical for g in pinmap.gpio}
    lines = ["[pins]"]
    for key, bcm in pinmap.pins().items():
        lines.append(f"{key + ' = ' + str(bcm):<28}# header pin {physical[key]}")
    return "\n".join(lines) + "\n"


def render_defaults(text: str, pinmap: PinMap) -> str:
    """``text`` with the ``[pins]`` block between the markers replaced; the rest untouched."""
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.startswith(BEGIN_PINS)]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == END_PINS]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise PinMapError(
            f"defaults.toml: needs one '{BEGIN_PINS} ...' line and one '{END_PINS}' line after it"
        )
    return "".join(lines[: begins[0] + 1]) + defaults_block(pinmap) + "".join(lines[ends[0] :])


def render_firmware_config(text: str, pinmap: PinMap) -> str:
    """``text`` with the gpio-shutdown overlay's ``gpio_pin=`` set to the map's shutdown pin."""
    if len(SHUTDOWN_LINE.findall(text)) != 1:
        raise PinMapError("firmware/config.txt: needs exactly one dtoverlay=gpio-shutdown line")
    return SHUTDOWN_LINE.sub(
        lambda m: f"{m.group(1)}{pinmap.shutdown_bcm()}{m.group(3) or ''}", text
    )


def render_pins_md(pinmap: PinMap) -> str:
    """hardware/PINS.md: the role pins, buses, power and the whole header as tables."""
    out = [
        "# Klik table: pin map",
        "",
        "Generated from [`pinmap.toml`](pinmap.toml) by `python hardware/generate.py`; do not",
        "edit. The wiring is drawn in [`wiring.svg`](wiring.svg) and explained in",
        "[`WIRING.md`](WIRING.md); the parts are in [`BOM.md`](BOM.md).",
        "",
        "BCM is the GPIO number that gpiozero, lgpio and config.txt use; *pin* is the",
        "physical header pin, counted from pin 1 (the square pad): odd pins in one column,",
        "even pins in the other.",
        "",
        "## Roles",
        "",
        "| role | BCM | pin | direction | wire | notes |",
        "|---|---:|---:|---|---|---|",
    ]
    for g in pinmap.gpio:
        direction = "input, pull-up" if g.direction == "in" else "output"
        out.append(f"| `{g.role}` | {g.bcm} | {g.physical} | {direction} | {g.wire} | {g.notes} |")
    out += [
        "",
        "`shutdown_button` belongs to the kernel (`dtoverlay=gpio-shutdown` in",
        "`firmware/config.txt`), not to the daemon; the other roles are the `[pins]` of",
        "`device/klik/table/defaults.toml`.",
        "",
        "## Buses",
        "",
        "| bus | signal | BCM | pin | to | wire | notes |",
        "|---|---|---:|---:|---|---|---|",
    ]
    for b in pinmap.buses:
        to = f"{_part_title(pinmap, b.part)} {b.terminal}"
        out.append(
            f"| {b.bus} | {b.signal} | {b.bcm} | {b.physical} | {to} | {b.wire} | {b.notes} |"
        )
    out += ["", "## Power", "", "| net | pin | to | wire |", "|---|---:|---|---|"]
    for p in pinmap.power:
        pin = str(p.physical) if p.physical else "driver board rail"
        out.append(f"| {p.net} | {pin} | {_part_title(pinmap, p.part)} {p.terminal} | {p.wire} |")
    out += ["", "## Kept free", "", "| name | BCM | pin | why |", "|---|---:|---:|---|"]
    out += [f"| {r.name} | {r.bcm} | {r.physical} | {r.notes} |" for r in pinmap.reserved]
    uses = _pin_uses(pinmap)
    out += [
        "",
        "## The whole header",
        "",
        "| use | name | pin | pin | name | use |",
        "|---:|---:|:---:|:---:|---|---|",
    ]
    for odd in range(1, 41, 2):
        even = odd + 1
        out.append(
            f"| {uses.get(odd, '')} | {HEADER[odd]} | {odd} "
            f"| {even} | {HEADER[even]} | {uses.get(even, '')} |"
        )
    return "\n".join(out) + "\n"


# --- the drawing: one layout, two renderers ---------------------------------------------------


@dataclass(frozen=True)
class Line:
    points: tuple[tuple[float, float], ...]
    colour: str
    width: float = 3.0
    dashed: bool = False


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str
    radius: float = 0.0
    stroke_width: float = 1.5


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    fill: str
    stroke: str


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # the baseline
    text: str
    size: float
    anchor: Literal["start", "middle", "end"] = "start"
    colour: str = "#222222"
    bold: bool = False


Shape = Line | Rect | Circle | Text


@dataclass
class Scene:
    width: int
    height: int
    shapes: list[Shape] = field(default_factory=list)


ROW = 40  # px between header rows; pins sit at multiples of ROW, terminals at 10 mod 20
FIRST_ROW_Y = 160
PIN_R = 13
LANE = 13  # px between wire lanes
TERM = 20  # px between a part's terminals
HEADER_HALF = 50
PART_W = 230
ATTACH_W = 150
MARGIN = 30
CHAR_W = 0.56  # estimated width of a character, in font sizes: layout never measures fonts


def _text_w(text: str, size: float) -> float:
    return len(text) * size * CHAR_W


@dataclass
class _Box:
    part: Part
    terminals: list[tuple[str, _Wire | None]]  # (label, wire) in drawing order
    top: float = 0.0

    @property
    def head(self) -> float:
        return 28 + 16 * len(self.part.notes)

    @property
    def height(self) -> float:
        rows = max(len(self.terminals), len(self.part.attached) * 38 / TERM)
        return self.head + TERM * rows + 6

    def terminal_y(self, index: int) -> float:
        return self.top + self.head + TERM * index + TERM / 2


def _pin_xy(physical: int, cx: float) -> tuple[float, float]:
    row = (physical - 1) // 2
    x = cx - HEADER_HALF / 2 if physical % 2 else cx + HEADER_HALF / 2
    return x, FIRST_ROW_Y + ROW * row


def _place(boxes: list[_Box], wires_y: dict[str, float], top: float, bottom: float) -> None:
    """Stack the boxes top to bottom near their pins' mean height, inside [top, bottom]."""
    gap = 18.0
    # A side with more boxes than the header is tall grows downwards (the legend moves down).
    bottom = max(bottom, top + sum(b.height for b in boxes) + gap * (len(boxes) - 1))
    for i, box in enumerate(boxes):
        ideal = wires_y[box.part.id] - box.height / 2
        floor = top if i == 0 else boxes[i - 1].top + boxes[i - 1].height + gap
        box.top = max(ideal, floor)
    for i in range(len(boxes) - 1, -1, -1):
        ceiling = bottom if i == len(boxes) - 1 else boxes[i + 1].top - gap
        boxes[i].top = min(boxes[i].top, ceiling - boxes[i].height)
    for box in boxes:
        # Terminals at 10 mod 20: never on a pin row, so no wire runs along another.
        first = box.top + box.head + TERM / 2
        box.top += (10 - first % 20) % 20


def _crossings(order: Sequence[tuple[float, float]]) -> int:
    """Crossings of wires given as (pin y, terminal y), lanes from the header outward."""
    count = 0
    for i, (pin_i, term_i) in enumerate(order):
        lo_i, hi_i = min(pin_i, term_i), max(pin_i, term_i)
        for pin_j, term_j in order[i + 1 :]:
            lo_j, hi_j = min(pin_j, term_j), max(pin_j, term_j)
            count += lo_i < pin_j < hi_i  # the outer wire's pin run crosses the inner's lane
            count += lo_j < term_i < hi_j  # the inner wire's terminal run crosses the outer's
    return count


def _lane_order(spans: list[tuple[float, float]]) -> list[int]:
    """Indices of ``spans`` from the innermost lane out, with few crossings; deterministic."""
    order = sorted(range(len(spans)), key=lambda i: (abs(spans[i][0] - spans[i][1]), spans[i]))
    best = _crossings([spans[i] for i in order])
    improved = True
    while improved and best:
        improved = False
        for a in range(len(order)):
            for b in range(a + 1, len(order)):
                trial = order[:]
                trial.insert(b, trial.pop(a))
                score = _crossings([spans[i] for i in trial])
                if score < best:
                    order, best, improved = trial, score, True
    return order


def layout(pinmap: PinMap) -> Scene:
    """The wiring diagram as shapes: the header in the middle, parts left and right. Pure."""
    wires = _wires(pinmap)
    sides: dict[str, list[_Box]] = {"left": [], "right": []}
    for part in pinmap.parts:
        mine = [w for w in wires if w.part == part.id]
        mine.sort(key=lambda w: (w.physical == 0, _pin_xy(w.physical, 0)[1] if w.physical else 0))
        sides[part.side].append(_Box(part, [(w.terminal, w) for w in mine]))
    mean_y: dict[str, float] = {}
    for boxes in sides.values():
        for box in boxes:
            ys = [_pin_xy(w.physical, 0)[1] for _, w in box.terminals if w and w.physical]
            mean_y[box.part.id] = sum(ys) / len(ys) if ys else FIRST_ROW_Y
        boxes.sort(key=lambda b: (mean_y[b.part.id], b.part.id))

    last_row_y = FIRST_ROW_Y + ROW * 19
    body_top, body_bottom = FIRST_ROW_Y - 60, last_row_y + 60
    for boxes in sides.values():
        _place(boxes, mean_y, body_top, body_bottom + 40)

    labels = {physical: _pin_label(pinmap, physical) for physical in HEADER}
    zone = {
        side: 10 + max(
            _text_w(text, size) for pin, (text, size, _, _) in labels.items()
            if (pin % 2 == 1) == (side == "left")
        )
        for side in sides
    }  # fmt: skip
    lanes = {s: sum(1 for w in wires if w.physical and _side_of(pinmap, w) == s) for s in sides}
    attach = {s: any(b.part.attached for b in sides[s]) for s in sides}

    def extent(side: str) -> float:
        return (
            HEADER_HALF + zone[side] + 20 + LANE * lanes[side] + 24 + PART_W
            + (40 + ATTACH_W if attach[side] else 0) + MARGIN
        )  # fmt: skip

    cx = extent("left")
    width = math.ceil(cx + extent("right"))
    bottom_of_parts = max(b.top + b.height for boxes in sides.values() for b in boxes)
    legend_top = max(body_bottom, bottom_of_parts) + 30
    height = math.ceil(legend_top + 210)
    scene = Scene(width, height)
    add = scene.shapes.append

    add(Rect(0, 0, width, height, "#ffffff", "#ffffff", stroke_width=0))
    add(Text(MARGIN, 44, "Klik table: wiring", 26, bold=True))
    add(
        Text(
            MARGIN,
            72,
            "Generated from hardware/pinmap.toml by hardware/generate.py. The Pi's 40-pin "
            "header seen from above, pin 1 (square pad) at the top left.",
            14,
            colour="#555555",
        )
    )

    # Wires first: the header and its pins are drawn over their ends.
    for side, boxes in sides.items():
        sign = -1 if side == "left" else 1
        _draw_side(
            scene, pinmap, side, boxes, cx=cx, label_edge=cx + sign * (HEADER_HALF + zone[side])
        )

    # The header: a board-coloured strip with 20 rows of two pins.
    add(
        Rect(cx - HEADER_HALF, FIRST_ROW_Y - 30, 2 * HEADER_HALF, ROW * 19 + 60, "#1d5c3a",
             "#123d26", radius=8)
    )  # fmt: skip
    add(Text(cx, FIRST_ROW_Y - 40, "40-pin header", 14, "middle", bold=True))
    wired = {w.physical for w in wires if w.physical}
    for physical, name in HEADER.items():
        x, y = _pin_xy(physical, cx)
        net_colour = NET_COLOURS.get(name)
        if net_colour:
            fill, ink = net_colour, "#ffffff"
        elif physical in wired:
            fill, ink = "#ffffff", "#111111"
        else:
            fill, ink = "#9fb8a8", "#223344"
        add(Circle(x, y, PIN_R, fill, "#0b2a18"))
        add(Text(x, y + 4.5, str(physical), 12, "middle", ink, bold=True))
        left = physical % 2 == 1
        label_x = cx - HEADER_HALF - 10 if left else cx + HEADER_HALF + 10
        anchor: Literal["start", "end"] = "end" if left else "start"
        text, size, colour, bold = labels[physical]
        # Above the row, so a wire leaving the pin runs under its own label.
        add(Text(label_x, y - 6, text, size, anchor, colour, bold))

    _draw_legend(scene, legend_top)
    _draw_driver(scene, scene.width - MARGIN - 420, legend_top)
    return scene


def _pin_label(pinmap: PinMap, physical: int) -> tuple[str, float, str, bool]:
    """(text, size, colour, bold) of a header pin's label."""
    name = HEADER[physical]
    if name in NET_COLOURS:
        return name, 13, NET_COLOURS[name], False
    use = _pin_uses(pinmap).get(physical)
    wired = any(w.physical == physical for w in _wires(pinmap))
    if wired and use:
        return f"{name}  {use}", 13, "#111111", True
    return f"{name}  {use or 'free'}", 12, "#8a8a8a", False


def _side_of(pinmap: PinMap, wire: _Wire) -> str:
    return next(p.side for p in pinmap.parts if p.id == wire.part)


def _draw_side(
    scene: Scene, pinmap: PinMap, side: str, boxes: list[_Box], *, cx: float, label_edge: float
) -> None:
    """One side's wires (each in its own lane), part boxes and terminals."""
    add = scene.shapes.append
    sign = -1 if side == "left" else 1
    routed = [
        (box, i, wire)
        for box in boxes
        for i, (_, wire) in enumerate(box.terminals)
        if wire is not None and wire.physical
    ]
    spans = [(_pin_xy(w.physical, cx)[1], box.terminal_y(i)) for box, i, w in routed]
    order = _lane_order(spans)
    lane_of = {index: rank for rank, index in enumerate(order)}
    lanes = len(routed)
    box_inner = label_edge + sign * (20 + LANE * lanes + 24)
    box_x = box_inner if side == "right" else box_inner - PART_W

    # Wires first, so boxes and pins sit on top of their ends.
    by_pin: dict[int, list[float]] = {}
    for index, (box, i, routed_wire) in enumerate(routed):
        pin_x, pin_y = _pin_xy(routed_wire.physical, cx)
        lane_x = label_edge + sign * (20 + LANE * lane_of[index])
        term_y = box.terminal_y(i)
        colour = WIRE_COLOURS.get(routed_wire.colour, "#000000")
        points = ((pin_x, pin_y), (lane_x, pin_y), (lane_x, term_y), (box_inner, term_y))
        add(Line(points, colour, 3.0, routed_wire.dashed))
        by_pin.setdefault(routed_wire.physical, []).append(lane_x)
    for physical, xs in sorted(by_pin.items()):
        # A pin feeding several wires: a dot where each but the outermost turns off.
        _, pin_y = _pin_xy(physical, cx)
        outer = min(xs) if side == "left" else max(xs)
        for x in sorted(xs):
            if x != outer:
                add(Circle(x, pin_y, 4.5, "#222222", "#222222"))

    for box in boxes:
        part = box.part
        add(Rect(box_x, box.top, PART_W, box.height, "#f6f6f2", "#444444", radius=6))
        add(Text(box_x + 10, box.top + 20, part.title, 14, bold=True))
        for n, note in enumerate(part.notes):
            add(Text(box_x + 10, box.top + 38 + 16 * n, note, 12, colour="#555555"))
        for i, (label, wire) in enumerate(box.terminals):
            y = box.terminal_y(i)
            inside_x = box_inner + sign * 10
            anchor: Literal["start", "end"] = "end" if side == "left" else "start"
            if wire is not None and not wire.physical:
                # From the driver board's rail, not the header: named, not drawn.
                net = next(p.net for p in pinmap.power if (p.part, p.terminal) == (part.id, label))
                colour = NET_COLOURS[net]
                add(Text(inside_x, y + 4.5, f"{label}: {net} rail", 13, anchor, colour, True))
                add(Circle(box_inner, y, 4.5, colour, colour))
            else:
                add(Text(inside_x, y + 4.5, label, 13, anchor))
                add(Circle(box_inner, y, 4.5, "#ffffff", "#222222"))
        if part.attached:
            _draw_attached(scene, box, box_x, side)


def _draw_attached(scene: Scene, box: _Box, box_x: float, side: str) -> None:
    """Small boxes beyond a part (the mux's OLEDs), each on a labelled line."""
    add = scene.shapes.append
    outer = box_x if side == "left" else box_x + PART_W
    sign = -1 if side == "left" else 1
    x = outer + sign * 40 if side == "right" else outer - 40 - ATTACH_W
    step = 38
    top = box.top + box.head
    for n, label in enumerate(box.part.attached):
        channel, _, name = label.partition(": ")
        y = top + step * n
        mid = y + 14
        add(Line(((outer, mid), (outer + sign * 40, mid)), WIRE_COLOURS["blue"], 3.0))
        add(Text(outer + sign * 20, mid - 5, channel, 11, "middle", "#1f5bd8", bold=True))
        add(Rect(x, y, ATTACH_W, 28, "#101820", "#444444", radius=4))
        add(Text(x + ATTACH_W / 2, mid + 4.5, name or label, 12, "middle", "#9fe3ff"))


def _draw_legend(scene: Scene, top: float) -> None:
    add = scene.shapes.append
    x = MARGIN
    add(Text(x, top, "Legend", 15, bold=True))
    ink = "#222222"
    rows: list[tuple[str, str, bool]] = [
        (ink, "solid: input, a contact to GND (internal pull-up) or a bus line", False),
        (ink, "dashed: output into an NPN driver stage, which switches the load to GND", True),
        (NET_COLOURS["5V"], "5 V    (LED and buzzer supply: the driver board's rail)", False),
        (NET_COLOURS["3V3"], "3.3 V  (mux and OLEDs only: never 5 V on a GPIO or I²C line)", False),
        (NET_COLOURS["GND"], "GND    (daisy-chain the button grounds; one wire a pin)", False),
    ]
    for n, (colour, text, dashed) in enumerate(rows):
        y = top + 26 + 22 * n
        add(Line(((x, y - 5), (x + 50, y - 5)), colour, 3.0, dashed))
        add(Text(x + 62, y, text, 13))
    x2 = x + 640
    notes = [
        "Wire colours are suggestions (pinmap.toml), so a table can be checked by eye.",
        "Each OLED: VCC to 3.3 V, GND, SDA/SCL to its mux channel's SDn/SCn; all at 0x3C.",
        "Seat LED (5 V type): + to the 5 V rail, - to the NPN's collector; emitter to GND.",
        "Buzzer: + to 5 V, - to the NPN's collector; a 1N4148 across it, cathode to +.",
        "Motor (optional): + via 22R to 5 V, - to the NPN's collector; a 1N4148 across it.",
        "Radio: 3.3 V logic on TXD/RXD; Pi TXD goes to the radio's RXD and back.",
    ]
    for n, note in enumerate(notes):
        add(Text(x2, top + 26 + 22 * n, note, 13))


def _draw_driver(scene: Scene, x: float, y: float) -> None:
    """An inset: the NPN stage that drives each LED and the buzzer (dashed wires)."""
    add = scene.shapes.append
    ink = "#222222"
    add(Text(x, y, "Driver stage, one per dashed wire", 14, bold=True))
    base_y, tx = y + 112, x + 190  # the transistor's centre
    add(Text(x, base_y + 5, "GPIO", 13, bold=True))
    add(Line(((x + 40, base_y), (x + 70, base_y)), ink, 2.0))
    add(Rect(x + 70, base_y - 8, 44, 16, "#ffffff", ink))
    add(Text(x + 92, base_y - 13, "1 kΩ", 12, "middle"))
    add(Line(((x + 114, base_y), (tx - 10, base_y)), ink, 2.0))
    # 10 kΩ base to GND: off while the pin floats or is weakly pulled, on any Pi model.
    add(Circle(x + 136, base_y, 3.5, ink, ink))
    add(Line(((x + 136, base_y), (x + 136, base_y + 8)), ink, 2.0))
    add(Rect(x + 129, base_y + 8, 14, 24, "#ffffff", ink))
    add(Text(x + 124, base_y + 25, "10 kΩ", 12, "end"))
    add(Line(((x + 136, base_y + 32), (x + 136, base_y + 40)), ink, 2.0))
    add(Circle(tx, base_y, 22, "#ffffff", ink))
    add(Line(((tx - 10, base_y - 13), (tx - 10, base_y + 13)), ink, 3.0))
    add(Line(((tx - 10, base_y - 6), (tx + 8, base_y - 18), (tx + 8, base_y - 40)), ink, 2.0))
    add(Line(((tx - 10, base_y + 6), (tx + 8, base_y + 18), (tx + 8, base_y + 40)), ink, 2.0))
    add(Text(tx + 30, base_y + 5, "NPN (2N2222A, BC337)", 12))
    add(Rect(tx - 14, base_y - 70, 44, 30, "#fff6d6", ink, radius=3))
    add(Text(tx + 8, base_y - 50, "load", 12, "middle"))
    add(Line(((tx + 8, base_y - 70), (tx + 8, base_y - 78)), NET_COLOURS["5V"], 2.0))
    add(Text(tx + 8, base_y - 82, "5 V rail", 12, "middle", NET_COLOURS["5V"], bold=True))
    add(Text(tx + 36, base_y - 58, "LED (5 V type), buzzer or motor", 12))
    add(Text(tx + 36, base_y - 44, "+ up, - to the collector", 12))
    add(Line(((x + 126, base_y + 40), (tx + 22, base_y + 40)), ink, 3.0))
    add(Text(tx + 30, base_y + 45, "GND", 12, bold=True))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


FONT_FAMILY = "'DejaVu Sans Condensed', 'DejaVu Sans', 'Arial Narrow', Arial, sans-serif"


def render_svg(scene: Scene) -> str:
    """The scene as an SVG document; the same scene gives the same bytes."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" '
        f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}" '
        f'font-family="{FONT_FAMILY}" xml:space="preserve">',
    ]
    for shape in scene.shapes:
        if isinstance(shape, Line):
            points = " ".join(f"{_num(x)},{_num(y)}" for x, y in shape.points)
            dash = ' stroke-dasharray="9 6"' if shape.dashed else ""
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{shape.colour}" '
                f'stroke-width="{_num(shape.width)}" stroke-linejoin="round"{dash}/>'
            )
        elif isinstance(shape, Rect):
            out.append(
                f'<rect x="{_num(shape.x)}" y="{_num(shape.y)}" width="{_num(shape.w)}" '
                f'height="{_num(shape.h)}" rx="{_num(shape.radius)}" fill="{shape.fill}" '
                f'stroke="{shape.stroke}" stroke-width="{_num(shape.stroke_width)}"/>'
            )
        elif isinstance(shape, Circle):
            out.append(
                f'<circle cx="{_num(shape.x)}" cy="{_num(shape.y)}" r="{_num(shape.r)}" '
                f'fill="{shape.fill}" stroke="{shape.stroke}" stroke-width="1.5"/>'
            )
        else:
            weight = ' font-weight="bold"' if shape.bold else ""
            out.append(
                f'<text x="{_num(shape.x)}" y="{_num(shape.y)}" font-size="{_num(shape.size)}" '
                f'text-anchor="{shape.anchor}" fill="{shape.colour}"{weight}>'
                f"{_escape(shape.text)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


PNG_KEY = "klik-svg-sha256"
SUPERSAMPLE = 2  # drawn at twice the size and scaled down: Pillow's lines are not smoothed


def render_png(scene: Scene, svg_sha256: str) -> bytes:
    """The scene rasterised with Pillow, tagged with the SVG's hash for ``--check``."""
    from PIL import Image, ImageDraw, ImageFont, PngImagePlugin  # noqa: PLC0415 (only here)

    k = SUPERSAMPLE
    image = Image.new("RGB", (scene.width * k, scene.height * k), "#ffffff")
    draw = ImageDraw.Draw(image)
    fonts: dict[tuple[float, bool], ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}

    def font(size: float, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        if (size, bold) not in fonts:
            path = FONTS / ("DejaVuSansCondensed-Bold.ttf" if bold else "DejaVuSansCondensed.ttf")
            fonts[size, bold] = (
                ImageFont.truetype(str(path), round(size * k))
                if path.exists()
                else ImageFont.load_default(round(size * k))
            )
        return fonts[size, bold]

    for shape in scene.shapes:
        if isinstance(shape, Line):
            points = [(x * k, y * k) for x, y in shape.points]
            segments = _dashes(points, 9 * k, 6 * k) if shape.dashed else [points]
            for segment in segments:
                draw.line(segment, fill=shape.colour, width=round(shape.width * k), joint="curve")
        elif isinstance(shape, Rect):
            box = (shape.x * k, shape.y * k, (shape.x + shape.w) * k, (shape.y + shape.h) * k)
            draw.rounded_rectangle(
                box,
                radius=shape.radius * k,
                fill=shape.fill,
                outline=shape.stroke if shape.stroke_width else None,
                width=max(1, round(shape.stroke_width * k)),
            )
        elif isinstance(shape, Circle):
            box = (
                (shape.x - shape.r) * k,
                (shape.y - shape.r) * k,
                (shape.x + shape.r) * k,
                (shape.y + shape.r) * k,
            )
            draw.ellipse(box, fill=shape.fill, outline=shape.stroke, width=round(1.5 * k))
        else:
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}[shape.anchor]
            draw.text(
                (shape.x * k, shape.y * k),
                shape.text,
                fill=shape.colour,
                font=font(shape.size, shape.bold),
                anchor=anchor,
            )
    image = image.resize((scene.width, scene.height), Image.Resampling.LANCZOS)
    # 256 colours hold the anti-aliased edges of a dozen inks: a quarter of the RGB file size.
    image = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    info = PngImagePlugin.PngInfo()
    info.add_text(PNG_KEY, svg_sha256)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", pnginfo=info, optimize=True)
    return buffer.getvalue()


def _dashes(
    points: Sequence[tuple[float, float]], on: float, off: float
) -> list[list[tuple[float, float]]]:
    """Split a polyline into dash segments, the pattern running on across corners."""
    segments: list[list[tuple[float, float]]] = []
    drawing, left = True, on
    current: list[tuple[float, float]] = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        while length - pos > left:
            pos += left
            point = (x0 + (x1 - x0) * pos / length, y0 + (y1 - y0) * pos / length)
            if drawing:
                current.append(point)
                segments.append(current)
            else:
                current = [point]
            drawing = not drawing
            left = on if drawing else off
        left -= length - pos
        if drawing:
            current.append((x1, y1))
    if drawing and len(current) > 1:
        segments.append(current)
    return segments


def png_tag(data: bytes) -> str | None:
    """The SVG hash a wiring.png was made from, or None when it carries none."""
    from PIL import Image  # noqa: PLC0415

    try:
        with Image.open(io.BytesIO(data)) as image:
            value = image.info.get(PNG_KEY)
    except OSError:
        return None
    return value if isinstance(value, str) else None


# --- the command ----------------------------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_outputs(pinmap: PinMap) -> dict[Path, str]:
    """Every generated text file's wanted content (reads the two files it edits in place)."""
    svg = render_svg(layout(pinmap))
    return {
        DEFAULTS: render_defaults(DEFAULTS.read_text(encoding="utf-8"), pinmap),
        FIRMWARE_CONFIG: render_firmware_config(
            FIRMWARE_CONFIG.read_text(encoding="utf-8"), pinmap
        ),
        PINS_MD: render_pins_md(pinmap),
        WIRING_SVG: svg,
    }


def stale(pinmap: PinMap) -> list[Path]:
    """The generated files that differ from what ``pinmap`` makes; writes nothing."""
    wanted = text_outputs(pinmap)
    found = [
        path
        for path, text in wanted.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if not WIRING_PNG.exists() or png_tag(WIRING_PNG.read_bytes()) != _sha256(wanted[WIRING_SVG]):
        found.append(WIRING_PNG)
    return found


def write(pinmap: PinMap) -> list[Path]:
    """Rewrite every stale file; returns those it wrote. Side effect: files in the repo."""
    changed = stale(pinmap)
    wanted = text_outputs(pinmap)
    for path in changed:
        if path == WIRING_PNG:
            scene = layout(pinmap)
            path.write_bytes(render_png(scene, _sha256(wanted[WIRING_SVG])))
        else:
            path.write_text(wanted[path], encoding="utf-8")
    return changed


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if anything is stale")
    args = parser.parse_args(None if argv is None else list(argv))
    try:
        pinmap = load()
        paths = stale(pinmap) if args.check else write(pinmap)
    except PinMapError as error:
        print(f"generate.py: {error}", file=sys.stderr)
        return 2
    for path in paths:
        verb = "stale" if args.check else "wrote"
        print(f"{verb}: {path.relative_to(REPO)}")
    if args.check and paths:
        print("run: python hardware/generate.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
