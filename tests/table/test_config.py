"""The table config: shipped defaults, the typed schema, and one clear line per mistake."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from klik.cli import main
from klik.core import game as g
from klik.core.gestures import GestureSettings
from klik.errors import InputError, KlikError
from klik.table import config
from klik.table.config import schema


def test_the_defaults_alone_are_a_working_config() -> None:
    c = config.load(None)
    assert c.settings().move_time_s == 60.0
    assert c.panels.seat("C").mux_channel == 2
    assert c.pins.button("A") != c.pins.button("B")


def test_a_file_overrides_only_its_keys(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[game]\nmove_time_s = 45\n[table]\nname = "7"\n[panels.D]\nrotate = 2\n')
    c = config.load(path)
    assert (c.game.move_time_s, c.game.warn_s, c.table.name) == (45.0, 10.0, "7")
    assert (c.panels.seat("D").rotate, c.panels.seat("D").mux_channel) == (2, 3)
    assert c.panels.seat("A").rotate == 0


def test_the_printed_config_reads_back_the_same(tmp_path: Path) -> None:
    c = config.from_text('[players]\nA = "Zażółć \\"Ż\\""\n[game]\ntimeout = "auto"\n')
    assert config.from_text(config.dumps(c)) == c


# --- defaults.toml is the only place a default is written -------------------------------


def test_every_key_has_its_default_in_defaults_toml_and_nowhere_else() -> None:
    # The effective config with no file is defaults.toml, key for key: a key whose default
    # came from the code (or that defaults.toml left out) would differ here.
    shipped = tomllib.loads(schema.defaults_text())
    common = {k: v for k, v in shipped["panels"].items() if not isinstance(v, dict)}
    del common["retry_s"]  # [panels] only: not a key of one seat's panel
    seats = {k: {**common, **v} for k, v in shipped["panels"].items() if isinstance(v, dict)}
    expected = {**shipped, "panels": {**shipped["panels"], **seats}}
    assert tomllib.loads(config.dumps(config.load(None))) == expected


def test_the_code_s_own_defaults_are_defaults_toml_s() -> None:
    assert config.Config() == config.load(None)  # no section has a default of its own
    # A game script starts from the engine's defaults, a table from defaults.toml: the same game.
    assert config.load(None).settings() == g.Settings()
    assert config.load(None).buttons == GestureSettings()


@pytest.mark.parametrize(
    ("key", "bcm"),
    [
        ("seat_A_led", 13),  # header pin 33 (hardware/pinmap.toml); the code once said 12
        ("judge_key", 26),  # header pin 37; the code once said 21
    ],
)
def test_the_pins_are_the_wiring_s(key: str, bcm: int) -> None:
    assert getattr(config.Config().pins, key) == getattr(config.load(None).pins, key) == bcm


def test_a_key_left_out_of_defaults_toml_is_one_line() -> None:
    # Only a broken package can do this: the code has no default to fall back on.
    shipped = tomllib.loads(schema.defaults_text())
    del shipped["pins"]["buzzer"]
    with pytest.raises(config.ConfigError) as caught:
        schema.build(shipped, "table.toml")
    assert str(caught.value) == "defaults.toml: [pins] buzzer is missing"


def test_every_config_error_is_a_klik_error() -> None:
    assert issubclass(config.ConfigError, KlikError)
    assert issubclass(config.ConfigError, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a wrong type names the key, the value and what is allowed
        ('[game]\nmove_time_s = "60"', '[game] move_time_s = "60": must be a number, got text'),
        ("[hardware]\njudge_key = 1", "[hardware] judge_key = 1: must be true or false"),
        ("[table]\nseats = 4.5", "[table] seats = 4.5: must be a whole number"),
        # unknown keys and sections get a "did you mean"
        ("[game]\nmove_tme_s = 30", "unknown key [game] move_tme_s (did you mean move_time_s?)"),
        ("[gam]\nmove_time_s = 30", "unknown section [gam] (did you mean game?)"),
        ("[panels.A]\nrotat = 2", "unknown key [panels.A] rotat (did you mean rotate?)"),
        ("[panels.E]\nrotate = 2", "unknown section [panels.E]: seats are A, B, C, D"),
        # a value out of range, or a choice not on the list
        (
            '[hardware]\nsound = "loud"',
            '[hardware] sound = "loud": allowed are "on", "quiet", "off"',
        ),
        ('[game]\nstarter = "E"', '[game] starter = "E": allowed are "A", "B", "C", "D"'),
        ("[game]\nstarter = 1", '[game] starter = 1: allowed are "A", "B", "C", "D"'),
        ("[panels]\nrotate = 1", "[panels] rotate = 1: allowed are 0 and 2"),
        ("[table]\nseats = 5", "[table] seats = 5: allowed are 2 to 4 seats"),
        ('[table]\nseats = 3\n[game]\nstarter = "D"', "starter must be one of A, B, C, got D"),
        ("[game]\nmove_time_s = 5\nwarn_s = 10", "warn_s must be below [game] move_time_s (5.0)"),
        # pins: twice the same, a bus pin, out of range
        ("[pins]\nbuzzer = 5", "[pins] buzzer = 5: GPIO 5 is already [pins] seat_A_button"),
        ("[pins]\nseat_B_led = 3", "[pins] seat_B_led = 3: GPIO 3 is the I2C SCL pin"),
        ("[pins]\nseat_B_led = 14", "GPIO 14 is the UART TXD pin"),
        ("[pins]\njudge_key = 4", "GPIO 4 is the shutdown button"),
        ('[panels]\ninterface = "spi"\n[pins]\nseat_B_led = 10', "GPIO 10 is the SPI MOSI pin"),
        ("[pins]\nbuzzer = 40", "[pins] buzzer = 40: allowed are GPIO 0 to 27"),
        # the power-fail line of a UPS HAT needs a pin of its own
        (
            "[hardware]\npower_fail_pin = 26",
            "[hardware] power_fail_pin = 26: GPIO 26 is already [pins] judge_key",
        ),
        (
            "[hardware]\npower_fail_pin = 2",
            "[hardware] power_fail_pin = 2: GPIO 2 is the I2C SDA pin",
        ),
        (
            "[hardware]\npower_fail_pin = 28",
            "[hardware] power_fail_pin = 28: allowed are GPIO 0 to 27",
        ),
        ("[game\nmove_time_s = 5", "not valid TOML"),
        # the hub's section is checked like the others
        ('[hub]\nlink = "radio"', '[hub] link = "radio": allowed are "off", "http", "serial"'),
        ('[hub]\nurls = ""', "unknown key [hub] urls (did you mean url?)"),
        ("[hub]\nheartbeat = 2", "unknown key [hub] heartbeat (did you mean heartbeat_s?)"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(text, "/etc/klik/table.toml")
    line = str(caught.value)
    assert line.startswith("/etc/klik/table.toml: ")
    assert message in line
    assert "\n" not in line


def test_no_power_fail_line_unless_a_pin_is_given() -> None:
    assert config.from_text("").hardware.power_fail_pin == 0
    assert config.from_text("[hardware]\npower_fail_pin = 7").hardware.power_fail_pin == 7


def test_a_judge_key_pin_is_free_when_there_is_no_judge_key() -> None:
    c = config.from_text("[hardware]\njudge_key = false\n[pins]\njudge_key = 5")
    assert c.hardware.judge_key is False


def test_klik_config_prints_the_effective_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[game]\nmove_time_s = 45\n")
    assert main(["config", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "move_time_s = 45.0" in out
    assert config.from_text(out) == config.load(path)


@pytest.mark.parametrize("command", ["config", "table"])
def test_a_missing_or_bad_config_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([command, "--config", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"klik {command}: {tmp_path / 'nope.toml'}: no such file (give --config an existing TOML file)"
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("[game]\nmove_time_s = true\n")
    assert main([command, "--config", str(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# --- every key has a range, and a value outside it is one line naming it ----------------

# (key as the message names it, "whole" or "number", bad values as TOML, what the message
# allows). Each row's values cover zero, a negative, NaN, inf and too big wherever they are
# bad; the wrong types are tried for every row by the tests below.
RANGES = [
    ("[table] seats", "whole", ["0", "-2", "1", "5"], "2 to 4 seats"),  # a game needs 2 to 4 players
    ("[table] checkpoint_s", "number", ["0", "-1", "nan", "inf", "0.1", "6"], "0.2 to 5 s"),  # 0: fsync after fsync
    ("[table] reserve_mib", "whole", ["-1", "17", "1024"], "0 to 16 MiB"),  # 0 is allowed: no reserve
    ("[game] move_time_s", "number", ["-60", "nan", "inf", "4.9", "601", "1e9"], "0 or 5 to 600 s"),  # 0: the rule set's
    ("[game] penalty_window_s", "number", ["0", "-5", "nan", "inf", "0.5", "31"], "1 to 30 s"),  # "auto": time to hold
    ("[game] warn_s", "number", ["-1", "nan", "inf", "601"], "0 to 600 s"),  # 0 is allowed: no warning
    ("[buttons] hold_s", "number", ["0", "-1", "nan", "inf", "0.2", "3.5"], "0.3 to 3 s"),  # a hold is meant
    ("[buttons] double_s", "number", ["0", "-0.4", "nan", "inf", "0.05", "100"], "0.1 to 1 s"),  # 100 passed before
    ("[buttons] call_judge_s", "number", ["0", "-2", "nan", "inf", "0.2", "11"], "0.3 to 10 s"),  # and from hold_s
    ("[buttons] long_hold_s", "number", ["0", "-3", "nan", "inf", "0.2", "11"], "0.3 to 10 s"),  # and below stuck_s
    ("[buttons] repeat_s", "number", ["0", "-0.5", "nan", "inf", "1e-9", "2.5"], "0.1 to 2 s"),  # 1e-9 hung the engine
    ("[buttons] debounce_ms", "number", ["-1", "nan", "inf", "101"], "0 to 100 ms"),  # 0 is allowed: no bounce
    ("[buttons] stuck_s", "number", ["0", "-10", "nan", "inf", "4", "121"], "5 to 120 s"),  # after a long hold
    ("[buttons] storm_s", "number", ["0", "-0.25", "nan", "inf", "0.01", "1.5"], "0.05 to 1 s"),  # 0: a tap and a double
    ("[pins] seat_A_button", "whole", ["-1", "28", "99999"], "GPIO 0 to 27"),  # the header's BCM numbers
    ("[pins] buzzer", "whole", ["-5", "40"], "GPIO 0 to 27"),  # every pin has the same range
    ("[hardware] power_fail_pin", "whole", ["-1", "28"], "GPIO 0 to 27"),  # 0: none
    ("[panels] retry_s", "number", ["0", "-5", "nan", "inf", "-inf", "0.5", "61"], "1 to 60 s"),  # 0: a busy loop
    ("[panels] i2c_bus", "whole", ["-7", "256"], "0 to 255"),  # /dev/i2c-N
    ("[panels] i2c_address", "whole", ["-1", "0", "2", "0x78", "300"], "0x03 to 0x77"),  # 7 bits, none reserved
    ("[panels] mux_address", "whole", ["-1", "1", "0x6F", "0x78"], "0 or 0x70 to 0x77"),  # 0: no mux; TCA9548A
    ("[panels] mux_channel", "whole", ["-1", "8"], "0 to 7"),  # a TCA9548A has 8 channels
    ("[panels] spi_port", "whole", ["-1", "2"], "0 to 1"),  # SPI0 or SPI1
    ("[panels] spi_device", "whole", ["-1", "3"], "0 to 2"),  # chip selects
    ("[panels] gpio_dc", "whole", ["-1", "28"], "GPIO 0 to 27"),  # SPI panels' data/command pin
    ("[panels] gpio_reset", "whole", ["-1", "28"], "GPIO 0 to 27"),  # and reset pin
    ("[panels] rotate", "whole", ["-2", "1", "3", "4"], "0 and 2 (upside down)"),  # half turns only
    ("[panels.B] i2c_address", "whole", ["0x78"], "0x03 to 0x77"),  # a seat's own section is named
    ("[sim] port", "whole", ["0", "-1", "65536", "70000"], "1 to 65535"),  # TCP
    ("[hub] table", "whole", ["-1", "1000", "99999"], "0 to 999"),  # 0: not paired; a tournament's tables
    ("[hub] serial_baud", "whole", ["0", "-9600", "9601", "300", "230400"], "1200, 2400, 4800, 9600, 19200, 38400, 57600 and 115200 (baud)"),  # the standard rates only
    ("[hub] heartbeat_s", "number", ["0", "-2", "nan", "inf", "0.4", "61"], "0.5 to 60 s"),  # 0: a busy loop; over a minute: the hub thinks the table is gone
]  # fmt: skip
# (key, bad values as TOML, what the message allows)
TEXTS = [
    ("[table] name", ['""', '"   "', '"12345678901234567"', '"a\\tb"'], "1 to 16 printable characters, not all spaces"),  # as the hub knows it
    ("[table] state_dir", ['""', '"/var/lib/\\nklik"'], "1 to 4096 printable characters, not all spaces"),  # a path
    ("[players] A", ['""', '"  "', '"Ania\\u0007"', '"Aleksandra Zażółć-Gęśląjaźń"'], "1 to 24 printable characters, not all spaces"),  # fits a screen
    ("[sim] host", ['""', '"local host"', '"127.0.0.1\\n"'], "1 to 253 printable characters, no spaces"),  # a name or address
    ("[hub] url", ['"10.0.0.5:8000"', '"ftp://hub"', '"HTTP://hub"', '"http://"', '"http://hub:99999"', '"http://hub:port"', '"http://hub/?t=1"', '"http://hub/#a"', '"http://h ub"', '"http://hub\\n"', '" "'], '"" or an address starting with http:// or https://, e.g. "http://10.0.0.5:8000"'),  # the hub's base address; the link adds /api/v1/...
    ("[hub] device_id", ['"t 1"', '"t-1\\n"', '"stół-1"', '"t.1"', '"t/1"'], '"" (not paired) or 1 to 64 letters, digits, - or _'),  # as the protocol's envelopes carry it
    ("[hub] serial_port", ['""', '"/dev/tty AMA0"', '"/dev/ttyAMA0\\n"'], "1 to 4096 printable characters, no spaces"),  # a device path
    ("[hub] name", ['"laptop\\n"', '"a\\tb"'], '"" (the only hub) or 1 to 63 printable characters'),  # a DNS-SD instance name is one DNS label
    ("[hub] tls_pin_sha256", ['"ab"', '"sha256"', '" "'], '"" (no pin) or 64 hex digits (SHA-256), without colons'),  # too short
]  # fmt: skip


def toml_of(key: str, value: str) -> str:
    section, name = key.split()
    return f"{section}\n{name} = {value}\n"


def shown(key: str, kind: str, value: str) -> str:
    """The value as the message shows it: as read (a number as a float), addresses in hex."""
    number = tomllib.loads(f"v = {value}")["v"]
    if kind == "number":
        return repr(float(number))
    if key.endswith("_address") and number > 0:
        return f"0x{number:02X}"
    return repr(number)


@pytest.mark.parametrize(
    ("key", "kind", "value", "allowed"),
    [(key, kind, value, allowed) for key, kind, values, allowed in RANGES for value in values],
    ids=lambda v: str(v).replace(" ", "")[:24],
)
def test_a_number_out_of_range_is_one_line_with_the_range(
    key: str, kind: str, value: str, allowed: str
) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(toml_of(key, value), "table.toml")
    line = str(caught.value)
    assert line == f"table.toml: {key} = {shown(key, kind, value)}: allowed are {allowed}"


@pytest.mark.parametrize(("key", "kind"), [(key, kind) for key, kind, _, _ in RANGES])
@pytest.mark.parametrize(
    ("value", "got"), [('"1"', "text"), ("true", "true/false"), ("[1]", "a list")]
)
def test_a_number_of_the_wrong_type_is_one_line(key: str, kind: str, value: str, got: str) -> None:
    want = {"whole": "a whole number", "number": "a number"}[kind]
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(toml_of(key, value), "table.toml")
    assert str(caught.value) == f"table.toml: {key} = {value}: must be {want}, got {got}"


@pytest.mark.parametrize("key", [key for key, kind, _, _ in RANGES if kind == "whole"])
def test_a_whole_number_key_refuses_a_fraction(key: str) -> None:
    with pytest.raises(config.ConfigError, match=r"= 1\.5: must be a whole number, got a number$"):
        config.from_text(toml_of(key, "1.5"), "table.toml")


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [(key, value, allowed) for key, values, allowed in TEXTS for value in values],
    ids=lambda v: str(v).replace(" ", "")[:24],
)
def test_a_text_out_of_range_is_one_line_with_the_range(key: str, value: str, allowed: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(toml_of(key, value), "table.toml")
    line = str(caught.value)
    assert line == f"table.toml: {key} = {value}: allowed are {allowed}"
    assert line.isprintable()  # control characters are shown escaped, never sent raw


@pytest.mark.parametrize("key", [key for key, _, _ in TEXTS])
def test_a_text_of_the_wrong_type_is_one_line(key: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(toml_of(key, "7"), "table.toml")
    assert str(caught.value) == f"table.toml: {key} = 7: must be text, got a whole number"


def test_a_very_long_name_is_refused_at_once_and_shown_short() -> None:
    # 5,000 characters stalled start-up; the line shows the start and the length.
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(f'[players]\nB = "{"x" * 5000}"\n', "table.toml")
    assert str(caught.value) == (
        f'table.toml: [players] B = "{"x" * 20}…" (5000 characters): '
        "allowed are 1 to 24 printable characters, not all spaces"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # the default warn_s = 10 cannot be below a 5 s move: the line says why
        ("[game]\nmove_time_s = 5", "[game] warn_s must be below [game] move_time_s (5.0), got 10.0"),
        # the same, with both given
        ("[game]\nmove_time_s = 20\nwarn_s = 20", "[game] warn_s must be below [game] move_time_s (20.0), got 20.0"),
        # two taps must come sooner than a hold
        ("[buttons]\nhold_s = 0.4\ndouble_s = 0.5", "[buttons] double_s must be below [buttons] hold_s (0.4), got 0.5"),
        # a judge call is longer than a draw's hold
        ("[buttons]\ncall_judge_s = 0.5", "[buttons] call_judge_s must be from [buttons] hold_s (1.0) to below [buttons] stuck_s (10.0), got 0.5"),
        # a long hold ends before the button counts as stuck
        ("[buttons]\nstuck_s = 5\nlong_hold_s = 6", "[buttons] long_hold_s must be from [buttons] hold_s (1.0) to below [buttons] stuck_s (5.0), got 6.0"),
        # a storm cap at or below the debounce would settle every press mid-bounce
        ("[buttons]\ndebounce_ms = 60\nstorm_s = 0.05", "[buttons] storm_s must be above [buttons] debounce_ms (60.0 ms), got 0.05"),
        # the starter must sit at the table
        ('[table]\nseats = 3\n[game]\nstarter = "D"', "[game] starter must be one of A, B, C, got D"),
        # a seat's own panel section is named when its value is wrong
        ("[panels.C]\nrotate = 3", "[panels.C] rotate = 3: allowed are 0 and 2 (upside down)"),
        # an unknown player seat
        ('[players]\nE = "Ewa"', "unknown key [players] E: seats are A, B, C, D"),
    ],
)  # fmt: skip
def test_settings_that_do_not_fit_together_say_why(text: str, line: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(text, "table.toml")
    assert str(caught.value) == f"table.toml: {line}"


CHOICES = {"language", "starter", "rules", "timeout", "pin_factory", "sound", "driver", "interface", "link", "serial_channel"}  # fmt: skip
SECRETS = {"[hub] key"}  # tested on their own below: their value is never shown
SEAT_LISTS = {"[table] large", "[hardware] vibration"}  # tested on their own below


@pytest.mark.parametrize("key", sorted(SEAT_LISTS))
@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('["E"]', '["E"]: allowed are a list of distinct seats of "A", "B", "C", "D"'),
        ('"A"', '"A": allowed are a list of distinct seats of "A", "B", "C", "D"'),
        ('["A", "A"]', '["A", "A"]: allowed are a list of distinct seats of "A", "B", "C", "D"'),
    ],
)
def test_a_bad_seat_list_is_one_line(key: str, value: str, says: str) -> None:
    section, name = key[1:].split("] ")
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(f"[{section}]\n{name} = {value}\n", "table.toml")
    assert str(caught.value) == f"table.toml: {key} = {says}"


@pytest.mark.parametrize("key", sorted(SEAT_LISTS))
def test_a_listed_seat_must_be_at_the_table(key: str) -> None:
    section, name = key[1:].split("] ")
    text = f'[table]\nseats = 3\n[{section}]\n{name} = ["A", "D"]\n'
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(text.replace("[table]\nseats = 3\n[table]\n", "[table]\nseats = 3\n"))
    assert str(caught.value) == (
        f'<text>: {key} = ["A", "D"]: seat D is not at this table ([table] seats = 3: A, B, C)'
    )


def test_seat_lists_are_read_in_seat_order() -> None:
    read = config.from_text('[table]\nlarge = ["C", "A"]\n[hardware]\nvibration = ["D", "B"]\n')
    assert (read.table.large, read.hardware.vibration) == (("A", "C"), ("B", "D"))
    assert (config.Config().table.large, config.Config().hardware.vibration) == ((), ())


def test_every_number_and_text_key_has_a_row_above() -> None:
    # The effective config lists every key: one added later without a range fails here.
    rows = {key for key, *_ in RANGES} | {key for key, *_ in TEXTS} | SECRETS | SEAT_LISTS
    effective = tomllib.loads(config.dumps(config.load(None)))
    for section, keys in effective.items():
        for name, value in keys.items():
            if isinstance(value, dict | bool) or name in CHOICES or section == "pins":
                continue  # [panels.X], a flag, a choice; every pin has one range (rows above)
            assert f"[{section}] {name}" in rows, f"[{section}] {name} has no row"
    assert "[players] A" in rows


@pytest.mark.parametrize(
    "text",
    [
        "[buttons]\nhold_s = 0.3\ndouble_s = 0.1\ncall_judge_s = 0.3\nlong_hold_s = 0.3",  # the buttons' low ends
        "[buttons]\nhold_s = 3\ndouble_s = 1\ncall_judge_s = 10\nlong_hold_s = 10\nstuck_s = 120\nrepeat_s = 2",  # and high
        "[buttons]\ndebounce_ms = 0\nstorm_s = 0.05",  # no debounce at all (the virtual table)
        "[game]\nmove_time_s = 600\nwarn_s = 599\npenalty_window_s = 30",  # the game's high ends
        "[game]\nmove_time_s = 5\nwarn_s = 0\npenalty_window_s = 1",  # and low
        '[panels]\nmux_address = 0\ni2c_address = 0x03\ni2c_bus = 0\n[sim]\nport = 65535\nhost = "::1"',  # no mux
        '[table]\nname = "Stół 16 — finał"\n[players]\nA = "Zażółć Gęślą Jaźń"',  # Polish letters print
    ],
)  # fmt: skip
def test_the_ends_of_every_range_are_allowed(text: str) -> None:
    config.from_text(text, "table.toml")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (GestureSettings(storm_s=0.0), "storm_s = 0.0: allowed are 0.05 to 1 s"),  # a bounce became a tap and a double tap
        (GestureSettings(repeat_s=1e-9), "repeat_s = 1e-09: allowed are 0.1 to 2 s"),  # hung the engine at 100% CPU
        (GestureSettings(stuck_s=float("nan")), "stuck_s = nan: allowed are 5 to 120 s"),  # NaN fails every comparison
        (GestureSettings(double_s=100), "double_s = 100: allowed are 0.1 to 1 s"),  # far longer than a hold
        (g.Settings(move_time_s=float("inf")), "move_time_s = inf: allowed are 5 to 600 s"),  # a clock that never runs out
        (g.Settings(penalty_window_s=0.0), "penalty_window_s = 0.0: allowed are 1 to 30 s"),  # no time to hold
        (g.Settings(move_time_s=5), "warn_s must be below move_time_s (5), got 10.0"),  # the default warn_s, said why
        (g.Settings(gestures=GestureSettings(debounce_ms=-1)), "debounce_ms = -1: allowed are 0 to 100 ms"),  # via the game
    ],
)  # fmt: skip
def test_the_engine_refuses_the_same_values_for_scripts(
    settings: GestureSettings | g.Settings, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        settings.check()
    assert str(caught.value) == message


def test_a_config_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    # Windows Notepad starts UTF-8 files with a BOM.
    path = tmp_path / "table.toml"
    path.write_bytes('\ufeff[table]\nname = "Stół 3"\n'.encode())
    assert config.load(path).table.name == "Stół 3"


# --- [hub]: the link to the tournament hub ----------------------------------------------

KEY = "0123456789abcdef" * 4  # a pairing key: 64 lower-case hex digits
PIN = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"
PAIRED = f'[hub]\ntable = 7\ndevice_id = "t-7"\nkey = "{KEY}"\n'


def test_the_link_is_off_by_default() -> None:
    hub = config.load(None).hub
    assert (hub.link, hub.url, hub.table, hub.device_id, hub.key) == ("off", "", 0, "", "")
    assert (hub.serial_port, hub.serial_baud, hub.heartbeat_s) == ("/dev/ttyAMA0", 9600, 2.0)
    assert hub.tls_pin_sha256 == ""


@pytest.mark.parametrize(
    "text",
    [
        PAIRED + 'link = "http"\nurl = "http://10.0.0.5:8000"',  # a hub on the venue's network
        PAIRED + 'link = "http"\nurl = "https://hub.example.org/klik/"',  # behind a proxy, with a base path
        PAIRED + f'link = "http"\nurl = "https://[fe80::1]:8443"\ntls_pin_sha256 = "{PIN}"',  # a pinned laptop; upper case as openssl prints it
        PAIRED + f'link = "http"\nurl = "https://10.0.0.5"\ntls_pin_sha256 = "{PIN.lower()}"',  # or lower case
        PAIRED + 'link = "serial"',  # a serial link needs no url
        PAIRED + 'link = "serial"\nserial_port = "/dev/ttyUSB0"\nserial_baud = 1200\nheartbeat_s = 60',  # the low and high ends
        PAIRED + 'link = "serial"\nserial_baud = 115200\nheartbeat_s = 0.5',  # and the other ends
        f'[hub]\nlink = "serial"\ntable = 1\ndevice_id = "{"a" * 64}"\nkey = "{KEY}"',  # the longest device id, the first table
        f'[hub]\nlink = "serial"\ntable = 999\ndevice_id = "A_-9"\nkey = "{KEY}"',  # the last table; every kind of sign
        '[hub]\ntable = 5\nurl = "http://hub"',  # half paired, but the link is off: nothing is needed yet
    ],
)  # fmt: skip
def test_a_paired_link_is_a_working_config(text: str) -> None:
    c = config.from_text(text, "table.toml")
    assert c.hub.key in ("", KEY)


def test_an_http_link_with_nothing_from_pairing_asks_to_join() -> None:
    c = config.from_text('[hub]\nlink = "http"\nurl = "http://hub"', "table.toml")
    assert c.hub.asks_to_join
    assert config.from_text('[hub]\nurl = "http://hub"').hub.asks_to_join  # the link off: as well
    assert not config.from_text("").hub.asks_to_join  # no address: nobody to ask
    assert not config.from_text(PAIRED + 'link = "http"\nurl = "http://hub"').hub.asks_to_join


def test_a_serial_link_with_nothing_from_pairing_asks_to_join_over_its_port() -> None:
    hub = config.from_text('[hub]\nlink = "serial"\nserial_port = "/dev/ttyUSB0"').hub
    assert hub.asks_to_join
    assert not hub.finds_hub  # no url wanted: it asks over the port
    assert not config.from_text(PAIRED + 'link = "serial"').hub.asks_to_join


def test_an_http_link_with_no_url_and_nothing_from_pairing_finds_the_hub() -> None:
    c = config.from_text('[hub]\nlink = "http"', "table.toml")  # a fresh card: no per-table file
    assert (c.hub.asks_to_join, c.hub.finds_hub, c.hub.name) == (True, True, "")
    named = config.from_text('[hub]\nlink = "http"\nname = "Sędzia główny"', "table.toml")
    assert (named.hub.finds_hub, named.hub.name) == (True, "Sędzia główny")  # one of several
    assert not config.from_text('[hub]\nlink = "http"\nurl = "http://hub"').hub.finds_hub
    assert not config.from_text('[hub]\nlink = "serial"').hub.finds_hub  # asks over its port
    assert not config.from_text('[hub]\nlink = "off"').hub.finds_hub  # off: nobody to look for


@pytest.mark.parametrize("baud", config.BAUD_RATES)
def test_every_standard_baud_rate_is_allowed(baud: int) -> None:
    assert config.from_text(f"[hub]\nserial_baud = {baud}").hub.serial_baud == baud


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # each thing pairing gives is named when it is missing, and how to get it
        (f'[hub]\nlink = "http"\nurl = "http://hub"\ndevice_id = "t-3"\nkey = "{KEY}"', '[hub] table is missing: [hub] link = "http" needs the table\'s number at the tournament, 1 to 999 (run klik pair)'),
        (f'[hub]\nlink = "serial"\ntable = 3\nkey = "{KEY}"', '[hub] device_id is missing: [hub] link = "serial" needs the device id from pairing (run klik pair)'),
        ('[hub]\nlink = "serial"\ntable = 3\ndevice_id = "t-3"', '[hub] key is missing: [hub] link = "serial" needs the key from pairing (run klik pair)'),
        # http needs the hub's address
        (PAIRED + 'link = "http"', '[hub] url is missing: [hub] link = "http" needs the hub\'s address, e.g. "http://10.0.0.5:8000"'),
        # a pin over plain http would check nothing
        (PAIRED + f'link = "http"\nurl = "http://10.0.0.5:8000"\ntls_pin_sha256 = "{PIN}"', '[hub] tls_pin_sha256 is set but [hub] url = "http://10.0.0.5:8000" is not https://; a pinned certificate needs an https:// address'),
    ],
)  # fmt: skip
def test_a_link_that_is_on_needs_what_pairing_gives(text: str, line: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(text, "table.toml")
    assert str(caught.value) == f"table.toml: {line}"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ('"0123456789ab"', "must be 64 lower-case hex digits (got 12 characters)"),  # a key cut short when copied
        (f'"{KEY.upper()}"', "must be 64 lower-case hex digits (got 64 characters, not all 0-9 or a-f)"),  # upper case
        (f'"{KEY[:-1]}g"', "must be 64 lower-case hex digits (got 64 characters, not all 0-9 or a-f)"),  # not hex
        (f'"{KEY}\\n"', "must be 64 lower-case hex digits (got 65 characters)"),  # a newline pasted with it
        (f'" {KEY}"', "must be 64 lower-case hex digits (got 65 characters)"),  # a space before it
        (f'"{KEY * 100}"', "must be 64 lower-case hex digits (got 6400 characters)"),  # far too long, still one short line
        ("1234", "must be text, got a whole number"),  # no quotes
        (f'["{KEY}"]', "must be text, got a list"),  # in a list
        ('"<hidden>"', '"<hidden>" is what klik config prints in place of the key; put the key from pairing here (run klik pair)'),  # klik config's output used as a config
    ],
)  # fmt: skip
def test_a_bad_key_is_named_but_never_shown(value: str, why: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(f"[hub]\nkey = {value}\n", "table.toml")
    line = str(caught.value)
    assert line == f"table.toml: [hub] key: {why}"
    for secret in (KEY, KEY.upper(), KEY[:-1], "0123456789ab", "1234"):
        assert secret not in line


def test_a_long_pin_or_device_id_is_shown_short() -> None:
    # A fingerprint pasted with its colons, as openssl prints it: 95 characters.
    colons = ":".join(PIN[i : i + 2] for i in range(0, 64, 2))
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(f'[hub]\ntls_pin_sha256 = "{colons}"', "table.toml")
    assert str(caught.value) == (
        f'table.toml: [hub] tls_pin_sha256 = "{colons[:20]}…" (95 characters): '
        'allowed are "" (no pin) or 64 hex digits (SHA-256), without colons'
    )
    with pytest.raises(config.ConfigError, match=r"= \"a{20}…\" \(65 characters\): allowed"):
        config.from_text(f'[hub]\ndevice_id = "{"a" * 65}"', "table.toml")


def test_klik_config_prints_the_key_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(PAIRED + 'link = "http"\nurl = "http://10.0.0.5:8000"\n')
    assert main(["config", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert 'key = "<hidden>"' in out
    assert KEY not in out
    hub = tomllib.loads(out)["hub"]
    assert hub == {
        "link": "http",
        "url": "http://10.0.0.5:8000",
        "name": "",
        "table": 7,
        "device_id": "t-7",
        "key": "<hidden>",
        "serial_port": "/dev/ttyAMA0",
        "serial_baud": 9600,
        "serial_channel": "listen",
        "heartbeat_s": 2.0,
        "tls_pin_sha256": "",
    }
    # Neither is the key in the config's repr (a log line, a traceback's locals).
    loaded = config.load(path)
    assert loaded.hub.key == KEY
    assert KEY not in repr(loaded)
    assert KEY not in repr(loaded.hub)


def test_the_printed_config_with_a_key_reads_back_once_the_key_is_put_back() -> None:
    text = (
        PAIRED
        + 'link = "http"\nurl = "https://10.0.0.5:8443/klik"\n'
        + f'tls_pin_sha256 = "{PIN}"\n'
        + '[table]\nname = "Stół 16 — finał"\nstate_dir = "/srv/kl\\\\ik \\"ż\\""\n'
        + '[players]\nA = "Zażółć Gęślą Jaźń"\nC = "Łukasz Źdźbło"\n'
        + '[panels.C]\nrotate = 2\ndriver = "sh1106"\n'
    )
    c = config.from_text(text, "table.toml")
    printed = config.dumps(c)
    assert "Stół 16 — finał" in printed  # Polish letters are written as they are
    assert printed.count('key = "<hidden>"') == 1
    assert KEY not in printed
    with pytest.raises(config.ConfigError, match="is what klik config prints in place of the key"):
        config.from_text(printed)  # "<hidden>" is no key: the printed config says so at once
    assert config.from_text(printed.replace('"<hidden>"', f'"{KEY}"')) == c


def test_an_empty_key_is_printed_as_it_is() -> None:
    # Nothing to hide, and the printed config reads back.
    out = config.dumps(config.load(None))
    assert 'key = ""' in out
    assert config.from_text(out) == config.load(None)
