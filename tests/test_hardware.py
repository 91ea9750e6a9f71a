"""The pin map: no conflicts, true to the header, and everything made from it up to date."""

from __future__ import annotations

import copy
import importlib.util
import shutil
import sys
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from klik.table import config

ROOT = Path(__file__).resolve().parent.parent


def _load_generate() -> ModuleType:
    # hardware/ is not a package: load the script as a module, registered so that its
    # dataclasses can find their module.
    spec = importlib.util.spec_from_file_location(
        "klik_hardware_generate", ROOT / "hardware/generate.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generate()

# The header as the Raspberry Pi documentation's pinout shows it, typed in again here
# independently of generate.HEADER: BCM GPIO -> physical pin.
PINOUT_BCM_TO_PHYSICAL = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23,
    12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40,
    22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}  # fmt: skip
PINOUT_POWER = {
    "3V3": {1, 17},
    "5V": {2, 4},
    "GND": {6, 9, 14, 20, 25, 30, 34, 39},
}


def raw_pinmap() -> dict[str, Any]:
    return tomllib.loads((ROOT / "hardware/pinmap.toml").read_text(encoding="utf-8"))


def role(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(row for row in data["gpio"] if row["role"] == name)


# --- the header data ------------------------------------------------------------------------


def test_header_table_matches_the_pinout() -> None:
    assert sorted(gen.HEADER) == list(range(1, 41))
    assert gen.BCM_TO_PHYSICAL == PINOUT_BCM_TO_PHYSICAL
    for net, pins in PINOUT_POWER.items():
        assert {pin for pin, name in gen.HEADER.items() if name == net} == pins


# --- the pin map's rules --------------------------------------------------------------------


def test_the_pin_map_has_no_problems() -> None:
    assert gen.problems(gen.parse(raw_pinmap())) == []


def test_roles_are_exactly_the_daemons_keys_and_the_shutdown_pin() -> None:
    pinmap = gen.load()
    assert list(pinmap.pins()) == list(gen.DAEMON_KEYS)
    assert sorted(g.role for g in pinmap.gpio) == sorted([*gen.DAEMON_KEYS, "shutdown_button"])


def test_no_role_on_a_bus_the_id_eeprom_or_the_shutdown_pin() -> None:
    pinmap = gen.load()
    shutdown = pinmap.shutdown_bcm()
    assert shutdown not in {2, 3}  # gpio-shutdown must stay off I2C1
    forbidden = {0, 1, 2, 3, 7, 8, 9, 10, 11, 14, 15}
    for g in pinmap.gpio:
        assert g.bcm not in forbidden, g.role
        if g.role != "shutdown_button":
            assert g.bcm != shutdown, g.role
    assert len({g.bcm for g in pinmap.gpio}) == len(pinmap.gpio)


def test_physical_pins_agree_with_bcm_numbers() -> None:
    pinmap = gen.load()
    for item in (*pinmap.gpio, *pinmap.buses, *pinmap.reserved):
        assert PINOUT_BCM_TO_PHYSICAL[item.bcm] == item.physical, item


def _set(name: str, **values: object) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        role(data, name).update(values)

    return mutate


def _move_shutdown_and_buzzer(data: dict[str, Any]) -> None:
    role(data, "shutdown_button").update(bcm=17, physical=11)
    role(data, "buzzer").update(bcm=4, physical=7)


def _drop_judge_key(data: dict[str, Any]) -> None:
    data["gpio"] = [row for row in data["gpio"] if row["role"] != "judge_key"]


def _ground_on_5v(data: dict[str, Any]) -> None:
    next(row for row in data["power"] if row["net"] == "GND")["physical"] = 2


def _sda_elsewhere(data: dict[str, Any]) -> None:
    next(row for row in data["bus"] if row["signal"] == "SDA").update(bcm=27, physical=13)


def _seat_c_drawn_left(data: dict[str, Any]) -> None:
    next(row for row in data["part"] if row["id"] == "seat_C")["side"] = "left"


def _unknown_part(data: dict[str, Any]) -> None:
    role(data, "judge_key")["part"] = "judge_box"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (_set("seat_B_button", bcm=5, physical=29), "GPIO5 is used twice"),  # two seats, one pin
        (_set("buzzer", bcm=2, physical=3), "GPIO2 is I2C1 SDA"),  # role on I2C1 SDA
        (_set("buzzer", bcm=3, physical=5), "GPIO3 is I2C1 SCL"),  # role on I2C1 SCL
        (_set("judge_key", bcm=14, physical=8), "GPIO14 is UART TXD"),  # role on the UART
        (_set("seat_C_button", bcm=15, physical=10), "GPIO15 is UART RXD"),
        (_set("seat_C_led", bcm=10, physical=19), "GPIO10 is SPI0 MOSI"),  # role on SPI0
        (_set("seat_D_led", bcm=9, physical=21), "GPIO9 is SPI0 MISO"),
        (_set("seat_A_button", bcm=0, physical=27), "ID EEPROM"),  # role on the EEPROM pins
        (_set("seat_A_button", bcm=1, physical=28), "ID EEPROM"),
        (_set("seat_D_button", bcm=4, physical=7), "GPIO4 is used twice"),  # on the shutdown pin
        (_set("shutdown_button", bcm=3, physical=5), "GPIO3 is I2C1 SCL"),  # shutdown on SCL
        (_set("seat_A_button", physical=31), "header pin 31 is GPIO6, not GPIO5"),  # miscounted
        (_set("buzzer", physical=41), "header pin 41 does not exist"),
        (_ground_on_5v, "header pin 2 is 5V, not GND"),  # a ground wire on a 5 V pin
        (_move_shutdown_and_buzzer, "buzzer: GPIO4 is pulled up while the Pi boots"),
        (_drop_judge_key, "role judge_key: appears 0 times"),  # a [pins] key missing
        (_set("judge_key", role="judge"), "role judge: unknown"),
        (_sda_elsewhere, "I2C1 SDA: must be listed once, on GPIO2"),
        (_seat_c_drawn_left, "in the right (even) column but seat_C is drawn on the left"),
        (_unknown_part, "part 'judge_box' is not a [[part]]"),
        (_set("judge_key", wire="purple"), "wire 'purple'"),
    ],
)
def test_each_broken_rule_is_reported(
    mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    data = copy.deepcopy(raw_pinmap())
    mutate(data)
    found = gen.problems(gen.parse(data))
    assert any(expected in line for line in found), found


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (_set("buzzer", bcm="18"), "bcm = '18': must be int"),  # a string for a number
        (_set("buzzer", bcm=True), "bcm = True: must be int"),  # bool is not a pin
        (_set("buzzer", direction="both"), "direction = 'both'"),
    ],
)
def test_malformed_rows_are_refused(
    mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    data = copy.deepcopy(raw_pinmap())
    mutate(data)
    with pytest.raises(gen.PinMapError, match=expected.replace("(", r"\(")):
        gen.parse(data)


# --- what is made from it -------------------------------------------------------------------


def test_generated_files_are_up_to_date() -> None:
    # The --check logic, in-process: fails when someone edits pinmap.toml and forgets to run
    # `python hardware/generate.py`, or edits a generated file by hand.
    assert [str(p.relative_to(ROOT)) for p in gen.stale(gen.load())] == []


def test_check_command_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen.main(["--check"]) == 0
    assert capsys.readouterr().out == ""


def test_defaults_pins_equal_the_pin_map() -> None:
    defaults = tomllib.loads((ROOT / "device/klik/table/defaults.toml").read_text(encoding="utf-8"))
    assert list(defaults["pins"].items()) == list(gen.load().pins().items())


def test_the_daemon_uses_the_pins_of_the_pin_map() -> None:
    # The config's code once had pins of its own (seat A's LED on 12, the judge key on 21)
    # that contradicted the wiring; now its only defaults are defaults.toml's.
    for pins in (config.load(None).pins, config.Config().pins):
        assert {role: getattr(pins, role) for role in gen.DAEMON_KEYS} == gen.load().pins()


def test_firmware_shutdown_pin_equals_the_pin_map() -> None:
    text = (ROOT / "firmware/config.txt").read_text(encoding="utf-8")
    assert f"gpio_pin={gen.load().shutdown_bcm()}," in text


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Copies of every generated file, with generate.py pointed at them."""
    for name, path in {
        "DEFAULTS": gen.DEFAULTS,
        "FIRMWARE_CONFIG": gen.FIRMWARE_CONFIG,
        "PINS_MD": gen.PINS_MD,
        "WIRING_SVG": gen.WIRING_SVG,
        "WIRING_PNG": gen.WIRING_PNG,
    }.items():
        copy_path = tmp_path / path.name
        shutil.copyfile(path, copy_path)
        monkeypatch.setattr(gen, name, copy_path)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "edit"),
    [
        ("defaults.toml", lambda t: t.replace("buzzer = 18", "buzzer = 17")),  # hand-edited pin
        ("config.txt", lambda t: t.replace("gpio_pin=4,", "gpio_pin=3,")),  # shutdown moved
        ("PINS.md", lambda t: t + "\nnote\n"),  # hand-edited table
        ("wiring.svg", lambda t: t.replace("seat A button", "seat A")),  # stale drawing
    ],
)
def test_check_names_a_stale_file_and_write_fixes_it(
    sandbox: Path, name: str, edit: Callable[[str], str]
) -> None:
    path = sandbox / name
    original = path.read_text(encoding="utf-8")
    edited = edit(original)
    assert edited != original
    path.write_text(edited, encoding="utf-8")
    pinmap = gen.load()
    stale = gen.stale(pinmap)
    assert path in stale
    if name == "wiring.svg":
        # The PNG's tag is the wanted SVG's hash, so it stays current while the SVG is stale.
        assert stale == [path]
    assert gen.write(pinmap) == stale
    assert gen.stale(pinmap) == []
    assert path.read_text(encoding="utf-8") == original


def test_check_notices_a_png_from_another_drawing(sandbox: Path) -> None:
    png = sandbox / "wiring.png"
    png.write_bytes(gen.render_png(gen.Scene(10, 10), "0" * 64))
    assert gen.stale(gen.load()) == [png]


def test_render_defaults_replaces_only_the_block() -> None:
    text = 'a = 1\n# BEGIN pins (x)\n[pins]\nbuzzer = 99\n# END pins\n[b]\nc = "d"\n'
    out = gen.render_defaults(text, gen.load())
    assert out.startswith("a = 1\n# BEGIN pins (x)\n[pins]\n")
    assert out.endswith('# END pins\n[b]\nc = "d"\n')
    assert "buzzer = 99" not in out
    assert tomllib.loads(out)["pins"] == gen.load().pins()


@pytest.mark.parametrize(
    "text",
    [
        "[pins]\nbuzzer = 18\n",  # no markers at all
        "# BEGIN pins\n[pins]\n",  # no end marker
        "# END pins\n# BEGIN pins\n",  # reversed
    ],
)
def test_render_defaults_needs_both_markers(text: str) -> None:
    with pytest.raises(gen.PinMapError, match="BEGIN pins"):
        gen.render_defaults(text, gen.load())


def test_drawing_is_deterministic_and_labels_every_used_pin() -> None:
    pinmap = gen.load()
    svg = gen.render_svg(gen.layout(pinmap))
    assert svg == gen.render_svg(gen.layout(pinmap))
    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for g in pinmap.gpio:
        assert any(t.startswith(f"GPIO{g.bcm}  ") for t in texts), g.role
    for title in (p.title for p in pinmap.parts):
        assert title in texts
    for n in range(4):
        assert f"ch{n}" in texts  # the four OLEDs hang off mux channels 0-3
    assert [str(n) for n in range(1, 41)] == [t for t in texts if t.isdigit()]


def test_no_wires_cross_where_lanes_allow() -> None:
    # The lane order search must not do worse than the plain order it starts from.
    spans = [(160.0, 250.0), (200.0, 130.0), (240.0, 290.0), (280.0, 170.0)]
    order = gen._lane_order(spans)
    assert sorted(order) == [0, 1, 2, 3]
    assert gen._crossings([spans[i] for i in order]) <= gen._crossings(spans)


def test_dashes_cover_the_line_in_pieces() -> None:
    pieces = gen._dashes([(0.0, 0.0), (30.0, 0.0)], 9.0, 6.0)
    assert pieces == [
        [(0.0, 0.0), (9.0, 0.0)],
        [(15.0, 0.0), (24.0, 0.0)],
    ]
