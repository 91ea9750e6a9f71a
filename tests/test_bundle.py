"""`make bundle` and `firmware/install.sh --from DIR` (issue 21): one folder a table installs
from with no internet.

The slow tests build a real bundle for this machine only (``KLIK_BUNDLE_PLATFORMS=here``; the
Pi's wheels are `make bundle`'s, not the tests'), install it with pip ``--no-index`` into a
fresh venv and run ``klik table --check`` from there. The fast ones refuse doctored bundles:
a fake one whose wheel is a few bytes, since the refusal comes before pip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLER = ROOT / "firmware" / "bundle.py"
INSTALLER = ROOT / "firmware" / "install.sh"
FILES = (
    "firmware/install.sh",
    "firmware/config.txt",
    "firmware/table.toml",
    "systemd/klik-table.service",
)
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
SYSTEM_COMMANDS = ("useradd", "usermod", "groupadd", "systemctl", "apt-get", "chgrp")


def offline_env(**more: str) -> dict[str, str]:
    """This process's environment without pip's settings (this machine's pip config adds
    wheel folders and indexes of its own): pip sees the bundle alone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1", **more}


def sums_of(folder: Path) -> str:
    """SHA256SUMS as firmware/bundle.py writes it; its hash."""
    lines = [
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}\n"
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "SHA256SUMS"
    ]
    data = "".join(lines).encode()
    (folder / "SHA256SUMS").write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def fake_bundle(tmp_path: Path) -> tuple[Path, str]:
    """A bundle with the real installer and files and a stand-in klik wheel; its hash."""
    bundle = tmp_path / "bundle"
    for path in FILES:
        (bundle / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, bundle / path)
    (bundle / "wheels").mkdir()
    (bundle / "wheels" / "klik-0.1.0-py3-none-any.whl").write_bytes(b"a wheel")
    return bundle, sums_of(bundle)


def fake_pi(tmp_path: Path) -> Path:
    root = tmp_path / "pi"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text("dtparam=audio=on\n")
    return root


def install(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The bundle's install.sh (``--root``: the system steps printed), with stubs on PATH
    that record any system command that would run anyway; asserts none did."""
    stubs = tmp_path / "stubs"
    log = tmp_path / "ran.log"
    if not stubs.exists():
        stubs.mkdir()
        for name in SYSTEM_COMMANDS:
            (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
            (stubs / name).chmod(0o755)
    done = subprocess.run(
        ["bash", *args],
        capture_output=True,
        text=True,
        env={**(env or offline_env()), "PATH": f"{stubs}:{os.environ['PATH']}", "LC_ALL": "C"},
        check=False,
        timeout=120,
    )
    assert not log.exists(), f"system commands ran: {log.read_text()}"
    return done


# --- refusals: a doctored bundle installs nothing --------------------------------------------


def _changed_file(bundle: Path) -> None:
    (bundle / "firmware" / "table.toml").write_text('[hub]\nurl = "http://evil"\n')


def _stray_wheel(bundle: Path) -> None:
    (bundle / "wheels" / "gpiozero-9.9-py3-none-any.whl").write_bytes(b"not listed")


def _no_sums(bundle: Path) -> None:
    (bundle / "SHA256SUMS").unlink()


def _another_bundle(bundle: Path) -> None:
    _changed_file(bundle)
    sums_of(bundle)


@pytest.mark.parametrize(
    ("doctor", "pin", "said"),
    [
        # a file changed after make bundle: named, with sha256sum's own word
        (_changed_file, True, "firmware/table.toml: FAILED (against SHA256SUMS): refused"),
        # a wheel slipped in that SHA256SUMS does not list: pip would take it
        (_stray_wheel, True, "wheels/gpiozero-9.9-py3-none-any.whl is not in SHA256SUMS"),
        # not a bundle at all
        (_no_sums, False, "no SHA256SUMS there: not a bundle"),
        # a whole other bundle (a new SHA256SUMS to match): the organiser's hash catches it
        (_another_bundle, True, "the bundle's hash is "),
    ],
)
def test_a_doctored_bundle_is_refused_before_anything_is_written(
    tmp_path: Path, doctor: object, pin: bool, said: str
) -> None:
    bundle, digest = fake_bundle(tmp_path)
    assert callable(doctor)
    doctor(bundle)
    root = fake_pi(tmp_path)
    before = sorted(p for p in root.rglob("*"))
    pinned = ["--sha256", digest] if pin else []
    done = install(tmp_path, str(INSTALLER), "--from", str(bundle), *pinned, "--root", str(root))
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()  # one line
    assert line.startswith(f"install.sh: --from {bundle}: ")
    assert said in line
    assert sorted(p for p in root.rglob("*")) == before


def test_sha256_without_from_is_refused(tmp_path: Path) -> None:
    done = install(tmp_path, str(INSTALLER), "--sha256", "0" * 64, "--root", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == "install.sh: --sha256 pins a bundle: give --from DIR too\n"


def test_a_checked_bundle_is_the_source_of_every_file_and_of_pip(tmp_path: Path) -> None:
    bundle, digest = fake_bundle(tmp_path)
    root = fake_pi(tmp_path)
    # The bundle's own installer, as on a card: install.sh --from the folder it is in.
    args = ("--from", str(bundle), "--sha256", digest, "--root", str(root))
    done = install(tmp_path, str(bundle / "firmware" / "install.sh"), *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"install.sh: bundle {digest} checked: {bundle}"
    table = root / "etc/klik/table.toml"
    assert table.read_bytes() == (ROOT / "firmware/table.toml").read_bytes()  # the default
    wheel = bundle / "wheels" / "klik-0.1.0-py3-none-any.whl"
    pip = [line for line in done.stdout.splitlines() if " -m pip " in line]
    assert pip == [
        "would run: /opt/klik/venv/bin/python -m pip install --quiet --no-index --find-links "
        f"{bundle}/wheels --upgrade {wheel}",
        "would run: /opt/klik/venv/bin/python -m pip install --quiet --no-index --no-deps "
        f"--force-reinstall {wheel}",
    ]
    # A card's own config is never overwritten by an update from a bundle.
    table.write_text('[table]\nname = "7"\n')
    again = install(tmp_path, str(bundle / "firmware" / "install.sh"), *args)
    assert again.returncode == 0, again.stderr
    assert "install.sh: kept /etc/klik/table.toml" in again.stdout
    assert table.read_text() == '[table]\nname = "7"\n'


# --- a real bundle, built for this machine ---------------------------------------------------


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`make bundle` for this machine only: the folder and the hash it printed."""
    folder = tmp_path_factory.mktemp("dist") / "bundle"
    env = {**os.environ, "KLIK_BUNDLE_PLATFORMS": "here"}
    done = subprocess.run(
        [sys.executable, str(BUNDLER), str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[0].startswith(f"make bundle: {folder} (here; ")
    digest = said[1].rpartition(": ")[2]
    return folder, digest


def fresh_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    return where / "bin"


@pytest.mark.slow
@pytest.mark.timeout(300)  # a cold pip cache downloads the wheels
def test_the_bundle_holds_the_table_and_a_manifest_of_it(bundle: tuple[Path, str]) -> None:
    folder, digest = bundle
    sums = (folder / "SHA256SUMS").read_bytes()
    assert hashlib.sha256(sums).hexdigest() == digest  # the hash is SHA256SUMS's
    listed = [line.split("  ", 1) for line in sums.decode().splitlines()]
    paths = [path for _, path in listed]
    assert paths == sorted(paths)
    on_disk = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != "SHA256SUMS"
    )
    assert paths == on_disk
    for sha, path in listed:
        assert hashlib.sha256((folder / path).read_bytes()).hexdigest() == sha
    for path in FILES:
        assert (folder / path).read_bytes() == (ROOT / path).read_bytes()
    wheels = {path.split("/")[1].split("-")[0].lower() for path in paths if "wheels/" in path}
    assert {"klik", "gpiozero", "luma_oled", "luma_core", "pillow", "pyserial"} <= wheels
    assert {"smbus2", "tomli_w"} <= wheels
    assert not {"fastapi", "uvicorn", "sqlalchemy", "starlette"} & wheels  # not the hub's
    # The same sources make the same wheel: no build time in it.
    (klik,) = folder.glob("wheels/klik-*.whl")
    with zipfile.ZipFile(klik) as wheel:
        assert {info.date_time for info in wheel.infolist()} == {(1980, 1, 1, 0, 0, 0)}


@pytest.mark.slow
@pytest.mark.timeout(300)  # a cold pip cache downloads the wheels
def test_the_bundle_installs_offline_into_a_fresh_venv_and_checks_a_config(
    bundle: tuple[Path, str], tmp_path: Path
) -> None:
    folder, _ = bundle
    bin_ = fresh_venv(tmp_path / "venv")
    (klik,) = folder.glob("wheels/klik-*.whl")
    pip = [str(bin_ / "python"), "-m", "pip", "install", "--quiet", "--no-index"]
    done = subprocess.run(
        [*pip, "--find-links", str(folder / "wheels"), str(klik)],
        capture_output=True,
        text=True,
        env=offline_env(),
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    config = folder / "firmware" / "table.toml"
    check = subprocess.run(
        [str(bin_ / "klik"), "table", "--check", "--config", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (check.returncode, check.stderr) == (0, "")
    assert check.stdout == f"klik table: {config}: in order (klik {VERSION}, 4 seats)\n"
    # --check opens nothing: a config it cannot load is one line and exit 2.
    bad = tmp_path / "bad.toml"
    bad.write_text("[game]\nmove_time_s = -1\n")
    refused = subprocess.run(
        [str(bin_ / "klik"), "table", "--check", "--config", str(bad)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert refused.returncode == 2
    assert len(refused.stderr.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.timeout(300)  # a cold pip cache downloads the wheels
def test_install_sh_from_the_bundle_fills_a_venv_offline(
    bundle: tuple[Path, str], tmp_path: Path
) -> None:
    folder, digest = bundle
    root = fake_pi(tmp_path)
    venv = tmp_path / "venv"
    env = offline_env(KLIK_VENV=str(venv))
    args = ("--from", str(folder), "--sha256", digest, "--root", str(root))
    done = install(tmp_path, str(folder / "firmware" / "install.sh"), *args, env=env)
    assert done.returncode == 0, done.stderr
    config = root / "etc" / "klik" / "table.toml"
    check = subprocess.run(
        [str(venv / "bin" / "klik"), "table", "--check", "--config", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert check.stdout == f"klik table: {config}: in order (klik {VERSION}, 4 seats)\n"


def test_make_bundle_makes_the_folder_the_readme_names() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "\n\t$(BIN)/python firmware/bundle.py dist/bundle\n" in makefile
    readme = (ROOT / "README.md").read_text()
    assert "make bundle " in readme
    assert "install.sh --from /boot/firmware/klik-bundle --sha256 HASH" in readme
    line = '/install -o klik-install.sh && echo "SCRIPT  klik-install.sh" | sha256sum -c - && '
    assert line + "sudo sh klik-install.sh BUNDLE" in readme


def test_check_names_a_module_the_table_lacks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from klik import cli  # noqa: PLC0415 - the command line, as the bundle's venv runs it

    config = str(ROOT / "firmware" / "table.toml")
    assert cli.main(["table", "--check", "--config", config]) == 0
    assert capsys.readouterr().out == f"klik table: {config}: in order (klik {VERSION}, 4 seats)\n"
    monkeypatch.setattr(cli, "TABLE_MODULES", (*cli.TABLE_MODULES, "klik_missing_adapter"))
    assert cli.main(["table", "--check", "--config", config]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        "klik table: the table's software is incomplete: No module named 'klik_missing_adapter'\n"
    )
