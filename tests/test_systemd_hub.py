"""The klik-hub.service unit: what it runs, and systemd's own verdict on it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from klik.cli import main
from tests.test_systemd import SYSTEMD_ANALYZE, needs_systemd, one, parse_unit, values, verify

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "klik-hub.service"
TEXT = UNIT.read_text(encoding="utf-8")


def test_the_hub_runs_as_a_user_of_its_own_on_loopback_by_default() -> None:
    unit = parse_unit(TEXT)
    assert one(unit, "Service", "DynamicUser") == "yes"
    assert one(unit, "Service", "StateDirectory") == "klik-hub"
    environment = " ".join(values(unit, "Service", "Environment"))
    assert "KLIK_HUB_HOST=127.0.0.1" in environment
    assert "KLIK_HUB_DB=/var/lib/klik-hub/hub.sqlite" in environment


def test_exec_start_is_a_command_klik_takes() -> None:
    exec_start = one(parse_unit(TEXT), "Service", "ExecStart")
    binary, *args = exec_start.split()
    assert binary == "/opt/klik/venv/bin/klik"
    assert args[:2] == ["hub", "--db"]
    filled = {"${KLIK_HUB_DB}": "/tmp/x.sqlite", "${KLIK_HUB_HOST}": "127.0.0.1",
              "${KLIK_HUB_PORT}": "8000"}  # fmt: skip
    argv = [filled.get(a, a) for a in args if a != "$KLIK_HUB_ARGS"]
    # the options parse; --help stops before anything starts
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0


@needs_systemd
def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    assert verify(TEXT, tmp_path).strip() == ""


@needs_systemd
def test_security_exposure_stays_low(tmp_path: Path) -> None:
    assert SYSTEMD_ANALYZE is not None
    copy = tmp_path / "klik-hub.service"
    copy.write_text(TEXT, encoding="utf-8")
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "security", "--offline=true", "--no-pager", str(copy)],
        capture_output=True, text=True, check=False, timeout=30,
    )  # fmt: skip
    found = re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout)
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.5


def test_a_flood_of_connections_does_not_use_up_the_hubs_files() -> None:
    assert int(one(parse_unit(TEXT), "Service", "LimitNOFILE")) >= 65536


def test_a_database_down_at_boot_never_leaves_the_unit_failed() -> None:
    unit = parse_unit(TEXT)
    assert one(unit, "Unit", "StartLimitIntervalSec") == "0"  # no start limit to give up at
    assert one(unit, "Service", "Restart") == "always"
    assert not values(unit, "Service", "RestartPreventExitStatus")  # exit 2 is retried
