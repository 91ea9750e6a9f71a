"""The klik-table.service unit: its keys parsed here, and systemd's own verdict where present."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "klik-table.service"
INSTALLER = ROOT / "firmware" / "install.sh"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd = pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="no systemd-analyze here")

Unit = dict[str, list[tuple[str, str]]]


def parse_unit(text: str) -> Unit:
    """Sections to (key, value) pairs in order; repeated keys (DeviceAllow=) are kept."""
    sections: Unit = {}
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections.setdefault(current, [])
            continue
        key, sep, value = line.partition("=")
        assert sep, f"not KEY=VALUE: {raw!r}"
        assert current, f"key before any section: {raw!r}"
        sections[current].append((key.strip(), value.strip()))
    return sections


def values(unit: Unit, section: str, key: str) -> list[str]:
    return [v for k, v in unit.get(section, []) if k == key]


def one(unit: Unit, section: str, key: str) -> str:
    found = values(unit, section, key)
    assert len(found) == 1, f"[{section}] {key}= appears {len(found)} times"
    return found[0]


@pytest.fixture(scope="module")
def unit() -> Unit:
    return parse_unit(UNIT.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("section", "key", "expected"),
    [
        ("Service", "Type", "notify"),  # READY=1 from the daemon, see klik.table.service.notify
        ("Service", "NotifyAccess", "main"),  # only the daemon may notify
        ("Service", "WatchdogSec", "10"),  # pinged every 5 s
        ("Service", "Restart", "always"),
        ("Service", "RestartSec", "2"),
        ("Service", "User", "klik"),
        ("Service", "Group", "klik"),
        ("Service", "StateDirectory", "klik"),  # /var/lib/klik
        ("Service", "RuntimeDirectory", "klik"),  # /run/klik
        ("Service", "WorkingDirectory", "/run/klik"),  # lgpio's FIFOs land here
        ("Service", "ProtectSystem", "strict"),
        ("Service", "ProtectHome", "yes"),
        ("Service", "PrivateTmp", "yes"),
        ("Service", "NoNewPrivileges", "yes"),
        ("Service", "ProtectKernelTunables", "yes"),
        ("Service", "ProtectControlGroups", "yes"),
        ("Service", "DevicePolicy", "closed"),
        ("Install", "WantedBy", "multi-user.target"),
    ],
)
def test_unit_key(unit: Unit, section: str, key: str, expected: str) -> None:
    assert one(unit, section, key) == expected


def test_start_limit_is_in_unit_section(unit: Unit) -> None:
    # In [Service] these are ignored with a warning: the crash loop would never back off.
    burst = int(one(unit, "Unit", "StartLimitBurst"))
    interval_s = int(one(unit, "Unit", "StartLimitIntervalSec"))
    restart_s = int(one(unit, "Service", "RestartSec"))
    assert burst >= 2
    # With restarts restart_s apart, `burst` starts take burst * restart_s: a shorter
    # interval could never hold them all and the limit would never trip.
    assert interval_s > burst * restart_s
    assert not values(unit, "Service", "StartLimitBurst")
    assert not values(unit, "Service", "StartLimitIntervalSec")


def test_supplementary_groups_cover_every_bus(unit: Unit) -> None:
    assert set(one(unit, "Service", "SupplementaryGroups").split()) == {
        "gpio",
        "i2c",
        "spi",
        "dialout",
    }


def test_notify_socket_family_is_allowed(unit: Unit) -> None:
    families = set(one(unit, "Service", "RestrictAddressFamilies").split())
    assert "AF_UNIX" in families  # without it READY=1 never arrives and start-up times out


def test_device_allow_names_only_what_systemd_accepts(unit: Unit) -> None:
    allowed = values(unit, "Service", "DeviceAllow")
    specifiers = {entry.split()[0] for entry in allowed}
    assert specifiers == {
        "char-gpiochip",  # lgpio: /dev/gpiochip*
        "char-*gpiomem*",  # rpigpio: /dev/gpiomem
        "char-i2c",  # /dev/i2c-*, the mux's channels too
        "char-spi",  # /dev/spidev*
        "char-ttyAMA",  # PL011 UART
        "char-ttyS",  # mini UART
        "char-ttyUSB",  # a radio on a USB-serial adapter
        "char-ttyACM",  # a radio on a USB CDC-ACM adapter
    }
    for entry in allowed:
        spec, access = entry.split()
        assert set(access) <= set("rwm"), entry
        # systemd globs only device-group names; a glob in a /dev path silently matches nothing.
        if spec.startswith("/dev/"):
            assert not set(spec) & set("*?["), entry
        else:
            assert spec.startswith(("char-", "block-")), entry


def test_exec_start_uses_the_installers_venv(unit: Unit) -> None:
    exec_start = one(unit, "Service", "ExecStart")
    binary, *args = exec_start.split()
    assert args == ["table", "--config", "/etc/klik/table.toml"]
    installer = INSTALLER.read_text(encoding="utf-8")
    venv = re.search(r"^VENV_PATH=(/\S+)$", installer, re.MULTILINE)
    assert venv, "install.sh defines VENV_PATH=/..."
    assert binary == f"{venv.group(1)}/bin/klik"


def verify(unit_text: str, tmp_path: Path) -> str:
    """Run ``systemd-analyze verify`` on a copy whose ExecStart is an existing program.

    The real binary exists only on an installed Pi; verify would stop at that. Returns all it
    printed about the copy.
    """
    assert SYSTEMD_ANALYZE is not None
    copy = tmp_path / "klik-table.service"
    copy.write_text(
        re.sub(r"^ExecStart=\S+", "ExecStart=/bin/true", unit_text, flags=re.MULTILINE),
        encoding="utf-8",
    )
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    return result.stdout + result.stderr


@needs_systemd
def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    output = verify(UNIT.read_text(encoding="utf-8"), tmp_path)
    assert output.strip() == ""


@needs_systemd
def test_systemd_analyze_verify_would_catch_a_bad_key(tmp_path: Path) -> None:
    # Proves the test above can fail: verify exits 0 on unknown keys, but says so.
    text = UNIT.read_text(encoding="utf-8").replace(
        "WatchdogSec=10", "WatchdogSec=10\nWatchDogSec=10"
    )
    assert "Unknown key 'WatchDogSec'" in verify(text, tmp_path)


@needs_systemd
def test_security_exposure_stays_low(tmp_path: Path) -> None:
    assert SYSTEMD_ANALYZE is not None
    copy = tmp_path / "klik-table.service"
    copy.write_text(UNIT.read_text(encoding="utf-8"), encoding="utf-8")
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "security", "--offline=true", "--no-pager", str(copy)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    found = re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout)
    if found is None:
        pytest.skip("this systemd-analyze cannot score a unit file offline")
    assert float(found.group(1)) <= 2.5
