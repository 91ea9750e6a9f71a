"""What pairing at the table gave, kept in the state folder (``config.paired``): written
atomically with 0600, laid over ``[hub]`` and ``[table] name`` at start, only while the
config itself asks to join; a damaged file is one line saying to delete it."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from klik.table import config as c
from klik.table.config import paired

KEY = "ab" * 32
PIN = "cd" * 32


def asking(folder: Path, url: str = "https://10.0.0.5:8000") -> c.Config:
    config = c.from_text(f'[hub]\nlink = "http"\nurl = "{url}"\n')
    return replace(config, table=replace(config.table, state_dir=str(folder)))


def test_what_pairing_gave_is_kept_0600_and_laid_over_the_config(tmp_path: Path) -> None:
    config = asking(tmp_path)
    given = {"table": 7, "device_id": "t7-0a1b2c3d", "key": KEY, "tls_pin_sha256": PIN}
    path = paired.keep(config, given)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert not path.with_name(path.name + ".partial").exists()
    hub = paired.applied(config).hub
    assert (hub.link, hub.table, hub.device_id, hub.key, hub.tls_pin_sha256) == (
        "http", 7, "t7-0a1b2c3d", KEY, PIN
    )  # fmt: skip
    assert paired.applied(config).table.name == "7"
    assert not paired.applied(config).hub.asks_to_join


def test_no_file_changes_nothing_and_a_config_paired_by_klik_pair_wins(tmp_path: Path) -> None:
    config = asking(tmp_path)
    assert paired.applied(config) == config
    paired.keep(config, {"table": 7, "device_id": "t7-x", "key": KEY})
    by_klik_pair = replace(config, hub=replace(config.hub, table=3, device_id="t3-y", key=KEY))
    assert paired.applied(by_klik_pair) == by_klik_pair


@pytest.mark.parametrize(
    "text",
    [
        "[hub\n",  # not TOML
        '[hub]\nurl = "http://elsewhere"\n',  # a url alone: not what the judge's accept gives
        f'[hub]\ntable = 7\ndevice_id = "t7"\nkey = "{KEY}"\nlink = "serial"\n',  # a key pairing never writes
        '[hub]\ntable = 7\ndevice_id = "t7"\nkey = "short"\n',  # a key that is not one
    ],
)
def test_a_damaged_file_is_one_line_saying_to_delete_it(tmp_path: Path, text: str) -> None:
    (tmp_path / paired.FILE).write_text(text, encoding="utf-8")
    with pytest.raises(c.ConfigError, match=r"delete it to pair again$"):
        paired.applied(asking(tmp_path))


def test_a_table_that_found_its_hub_keeps_its_url_and_goes_on_with_it(tmp_path: Path) -> None:
    config = c.from_text('[hub]\nlink = "http"\n')  # no url: the hub was found by DNS-SD
    config = replace(config, table=replace(config.table, state_dir=str(tmp_path)))
    assert config.hub.finds_hub
    url = "https://10.0.0.5:8000"
    paired.keep(
        config, {"url": url, "table": 7, "device_id": "t7-x", "key": KEY, "tls_pin_sha256": PIN}
    )
    hub = paired.applied(config).hub
    assert (hub.url, hub.table, hub.device_id, hub.tls_pin_sha256) == (url, 7, "t7-x", PIN)
    assert not hub.asks_to_join
    assert not hub.finds_hub
    # A card whose own [hub] url names the hub wins over the url kept with the pairing.
    moved = asking(tmp_path, url="https://10.0.0.9:8000")
    assert paired.applied(moved).hub.url == "https://10.0.0.9:8000"


def test_a_kept_pairing_without_a_url_on_a_card_without_one_says_to_pair_again(
    tmp_path: Path,
) -> None:
    config = c.from_text('[hub]\nlink = "http"\n')
    config = replace(config, table=replace(config.table, state_dir=str(tmp_path)))
    paired.keep(config, {"table": 7, "device_id": "t7-x", "key": KEY})  # an older table's file
    with pytest.raises(c.ConfigError, match=r"\[hub\] url is missing.*delete it to pair again$"):
        paired.applied(config)


def test_a_table_that_asked_over_serial_stays_on_its_serial_link(tmp_path: Path) -> None:
    text = '[hub]\nlink = "serial"\nserial_port = "/dev/ttyUSB0"\nserial_baud = 19200\n'
    config = c.from_text(text)  # no url: a serial link asks over its port
    config = replace(config, table=replace(config.table, state_dir=str(tmp_path)))
    assert config.hub.asks_to_join
    assert not config.hub.finds_hub
    paired.keep(config, {"url": "", "table": 4, "device_id": "t4-x", "key": KEY})
    hub = paired.applied(config).hub
    assert (hub.link, hub.serial_port, hub.serial_baud, hub.serial_channel) == (
        "serial", "/dev/ttyUSB0", 19200, "listen"
    )  # fmt: skip
    assert (hub.table, hub.device_id, hub.key) == (4, "t4-x", KEY)
    assert not hub.asks_to_join
