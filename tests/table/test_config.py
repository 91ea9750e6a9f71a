"""The table config: shipped defaults, the typed schema, and one clear line per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from klik import config
from klik.cli import main


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
        ("[panels]\nrotate = 1", "[panels.A] rotate = 1: allowed are 0 and 2"),
        ("[table]\nseats = 5", "seats must be 2 to 4 seats"),
        ('[table]\nseats = 3\n[game]\nstarter = "D"', "starter must be one of A, B, C, got D"),
        ("[game]\nmove_time_s = 5\nwarn_s = 10", "warn_s must be from 0 to below move_time_s"),
        # pins: twice the same, a bus pin, out of range
        ("[pins]\nbuzzer = 5", "[pins] buzzer = 5: GPIO 5 is already seat_A_button"),
        ("[pins]\nseat_B_led = 3", "[pins] seat_B_led = 3: GPIO 3 is the I2C SCL pin"),
        ("[pins]\nseat_B_led = 14", "GPIO 14 is the UART TXD pin"),
        ("[pins]\njudge_key = 4", "GPIO 4 is the shutdown button"),
        ('[panels]\ninterface = "spi"\n[pins]\nseat_B_led = 10', "GPIO 10 is the SPI MOSI pin"),
        ("[pins]\nbuzzer = 40", "[pins] buzzer = 40: allowed are GPIO 0 to 27"),
        ("[game\nmove_time_s = 5", "not valid TOML"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.from_text(text, "/etc/klik/table.toml")
    line = str(caught.value)
    assert line.startswith("/etc/klik/table.toml: ")
    assert message in line
    assert "\n" not in line


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
