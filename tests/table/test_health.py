"""The table's health readings (issue 21, point 4), each from a fake sysfs tree under
``tmp_path``: read, missing (null, one log line: an error on a Pi), garbage (the same), and
read again only every 30 s."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from klik.link import protocol as p
from klik.table.service import health as h
from klik.version import installed

THROTTLED = "sys/devices/platform/soc/soc:firmware/get_throttled"


def tree(root: Path, files: dict[str, str], *, pi: bool = True, timesync: bool = True) -> Path:
    """A fake machine under ``root``: ``files`` by path, a Pi's model, timesyncd's folder."""
    if pi:
        files = {"proc/device-tree/model": "Raspberry Pi 4 Model B Rev 1.5\x00", **files}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="ascii")
    if timesync:
        (root / h.TIMESYNC).mkdir(parents=True, exist_ok=True)
    return root


def statvfs(free_mb: int) -> object:
    return lambda _: os.statvfs_result((4096, 4096, 0, 0, free_mb * 256, 0, 0, 0, 0, 255))


def readings(tmp_path: Path, files: dict[str, str], **more: object) -> h.Readings:
    state = tmp_path / "state"
    state.mkdir()
    (state / h.JOURNAL).write_bytes(b"x" * 5000)
    root = tree(tmp_path / "root", files, **more)  # type: ignore[arg-type]
    return h.Readings(state, root=root, statvfs=statvfs(6000))  # type: ignore[arg-type]


def test_a_pi_s_readings(tmp_path: Path) -> None:
    files = {
        str(h.TEMP): "61834\n",
        THROTTLED: "50005\n",  # under-voltage and throttling now; since boot too
        str(h.SYNCHRONIZED): "",
    }
    found = readings(tmp_path, files)
    assert found.on_pi
    said = found.health(10.0, panels_out={"C"}, stuck=frozenset({"D", "A"}))
    assert said == p.Health(
        version=installed(),
        protocol=p.REVISION,
        clock_synced=True,
        cpu_temp_c=62,
        throttled=p.Throttled(("under_voltage", "throttling"), ("under_voltage", "throttling")),
        free_mb=6000,
        journal_kb=4,
        panels_out=("C",),
        stuck=("A", "D"),
    )
    assert p.Health.decode(said.json()) == said


# get_throttled as the firmware writes it ("%x"), and each flag it names.
@pytest.mark.parametrize(
    ("text", "now", "since_boot"),
    [
        ("0", (), ()),  # a healthy Pi
        ("10000", (), ("under_voltage",)),  # the supply sagged once since boot
        ("80008", ("soft_temp_limit",), ("soft_temp_limit",)),  # hot now
        ("0x2", ("freq_capped",), ()),  # as vcgencmd writes it
        ("e0000", (), ("freq_capped", "throttling", "soft_temp_limit")),
    ],
)
def test_the_firmware_s_flags(
    tmp_path: Path, text: str, now: tuple[str, ...], since_boot: tuple[str, ...]
) -> None:
    found = readings(tmp_path, {THROTTLED: text + "\n"})
    assert found.read().throttled == p.Throttled(now, since_boot)


def test_a_pi_5_s_firmware_node_is_found(tmp_path: Path) -> None:
    pi5 = "sys/devices/platform/soc@107c000000/soc@107c000000:firmware/get_throttled"
    assert readings(tmp_path, {pi5: "1\n"}).read().throttled == p.Throttled(("under_voltage",))


def test_a_missing_reading_on_a_pi_is_null_and_one_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = readings(tmp_path, {str(h.TEMP): "40000\n"}, timesync=False)
    with caplog.at_level(logging.INFO, logger="klik.table.service.health"):
        first = found.health(0.0)
        again = found.health(31.0)  # read again: not said again
    assert (first.throttled, first.clock_synced, first.cpu_temp_c) == (None, None, 40)
    assert again == first
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(" cannot")[0] for r in errors] == [
        "health: clock_synced",
        "health: throttled",
    ]
    assert len(caplog.records) == 2


def test_a_laptop_without_the_files_says_so_once_not_as_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = readings(tmp_path, {}, pi=False, timesync=False)
    assert not found.on_pi
    with caplog.at_level(logging.INFO, logger="klik.table.service.health"):
        said = found.health(0.0)
        found.health(60.0)
    assert (said.cpu_temp_c, said.throttled, said.clock_synced) == (None, None, None)
    assert said.free_mb == 6000  # the state folder is there
    assert sorted(r.levelno for r in caplog.records) == [logging.INFO] * 3
    assert all("on this machine" in r.getMessage() for r in caplog.records)


# Garbage where a number belongs: null and one line, never a made-up value.
@pytest.mark.parametrize(
    ("path", "text", "reading"),
    [
        (str(h.TEMP), "hot\n", "cpu_temp_c"),  # not a number
        (str(h.TEMP), "999999999\n", "cpu_temp_c"),  # no CPU is that hot: a broken sensor
        (str(h.TEMP), "\xff\xfe", "cpu_temp_c"),  # not even text
        (THROTTLED, "throttled=zz\n", "throttled"),  # not hex
        (THROTTLED, "-5\n", "throttled"),
        (THROTTLED, "", "throttled"),  # empty
    ],
)
def test_garbage_is_null_and_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, path: str, text: str, reading: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    root = tree(tmp_path / "root", {})
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_bytes(text.encode("latin-1"))
    found = h.Readings(state, root=root, statvfs=statvfs(100))  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="klik.table.service.health"):
        got = found.read()
        found.read()
    assert getattr(got, reading) is None
    said = [r for r in caplog.records if reading in r.getMessage()]
    assert len(said) == 1
    assert said[0].levelno == logging.ERROR  # on a Pi


def test_the_clock_is_unsynchronised_while_timesyncd_has_no_answer(tmp_path: Path) -> None:
    found = readings(tmp_path, {})
    assert found.read().clock_synced is False
    (found.root / h.SYNCHRONIZED).write_text("")
    assert found.read().clock_synced is True


def test_readings_are_read_again_only_every_30_s_and_said_again_after_coming_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = readings(tmp_path, {str(h.TEMP): "50000\n"})
    temp = found.root / h.TEMP
    assert found.health(100.0).cpu_temp_c == 50
    temp.write_text("70000\n")
    assert found.health(129.9).cpu_temp_c == 50  # the last reading, not the file's
    assert found.health(130.0).cpu_temp_c == 70
    with caplog.at_level(logging.INFO, logger="klik.table.service.health"):
        temp.unlink()
        assert found.health(160.0).cpu_temp_c is None
        temp.write_text("55000\n")
        assert found.health(190.0).cpu_temp_c == 55
        temp.unlink()
        assert found.health(220.0).cpu_temp_c is None
    said = [r for r in caplog.records if "cpu_temp_c" in r.getMessage()]
    assert len(said) == 2  # once as it went, once more as it went again


def test_a_missing_state_folder_and_journal(tmp_path: Path) -> None:
    root = tree(tmp_path / "root", {})
    found = h.Readings(tmp_path / "nowhere", root=root)
    assert (found.read().free_mb, found.read().journal_kb) == (None, None)


def test_the_daemon_s_heartbeat_carries_its_health_with_the_engine_s_alerts(
    tmp_path: Path,
) -> None:
    from klik.table import config as c  # noqa: PLC0415 - the daemon's test only
    from klik.table.service.daemon import Daemon  # noqa: PLC0415
    from klik.table.sim import virtual as sim  # noqa: PLC0415

    root = tree(tmp_path / "root", {str(h.TEMP): "48200\n", THROTTLED: "0\n"})
    config = sim.sim_config(c.load(None), str(tmp_path / "state"))
    table = Daemon(config, screens=sim.open_panels(config), health_root=root)
    table.start()
    try:
        table.engine.session.stuck = frozenset({"B"})
        said = table._status().health
    finally:
        table.stop()
    assert said is not None
    assert (said.version, said.protocol, said.cpu_temp_c) == (installed(), p.REVISION, 48)
    assert (said.throttled, said.clock_synced, said.stuck) == (p.Throttled(), False, ("B",))
    assert said.journal_kb is not None  # the game's journal is there from the start
    assert said.free_mb is not None
