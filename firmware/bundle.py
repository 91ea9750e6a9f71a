"""``make bundle``: everything a table installs, in one folder, for a venue with no internet.

Run from the checkout with the venv's Python (the Makefile does)::

    python firmware/bundle.py [DIR]        # default dist/bundle

The folder holds, each file under its own path:

- ``wheels/``: the klik wheel built from this checkout (the table's package; the hub's extra
  is not installed from it) and every dependency of the table's as a wheel, downloaded from
  the package registry for each target in ``KLIK_BUNDLE_PLATFORMS`` (``PLATFORMS`` below);
- ``firmware/install.sh`` (the installer: ``install.sh --from DIR``), ``firmware/config.txt``
  (the boot fragment), ``firmware/table.toml`` (the shipped default config: no table's own
  settings), ``systemd/klik-table.service``;
- ``SHA256SUMS``: ``sha256  path`` for every other file, sorted by path (``sha256sum -c``
  reads it). The bundle's hash is the SHA-256 of ``SHA256SUMS`` itself: it pins every byte
  of the bundle, and is what an organiser writes down and gives ``install.sh --sha256`` or
  the hub's ``/install`` script.

The same checkout and the same releases on the registry give the same hash: the klik wheel is
built with ``SOURCE_DATE_EPOCH`` fixed (no build time in its zip), from a copy of the sources
without caches, and nothing else in the folder carries a time. Downloads need the registry at
build time only. A Pi needs beyond the bundle what ``install.sh`` takes from Raspberry Pi OS's
apt (``python3-lgpio``, ``python3-rpi.gpio``, ``python3-venv``): present on a card prepared
once with internet (README, "From an empty SD card to a table").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "dist" / "bundle"
SUMS = "SHA256SUMS"
PYTHON_VERSION = "3.11"  # Raspberry Pi OS Bookworm's python3
GLIBC_MINOR = 36  # Bookworm's glibc is 2.36: manylinux wheels up to manylinux_2_36


def _tags(arch: str) -> tuple[str, ...]:
    """pip's ``--platform`` tags for a Pi with ``arch``: pip takes each tag as given only, so
    every manylinux_2_N up to Bookworm's glibc, and ``linux_ARCH``."""
    many = tuple(f"manylinux_2_{n}_{arch}" for n in range(GLIBC_MINOR, 16, -1))
    return (*many, f"manylinux2014_{arch}", f"linux_{arch}")


PLATFORMS = {
    # 64-bit Raspberry Pi OS: Pi 3, 4, 5, Zero 2 W.
    "aarch64": _tags("aarch64"),
    # 32-bit Raspberry Pi OS. PyPI has no armv7l wheel of Pillow: only with an index that
    # has one (PIP_EXTRA_INDEX_URL=https://www.piwheels.org/simple), so not by default.
    "armv7l": _tags("armv7l"),
    # This machine, whatever it is: for testing the bundle here (a venv with --no-index).
    "here": (),
}
DEFAULT_PLATFORMS = "aarch64 here"
# What install.sh --from needs of the checkout, besides the wheels.
FILES = (
    "firmware/install.sh",
    "firmware/config.txt",
    "firmware/table.toml",
    "systemd/klik-table.service",
)
SOURCES = ("pyproject.toml", "README.md", "device", "hub")  # what the klik wheel is built from
EPOCH = "315532800"  # 1980-01-01, the earliest time a zip can hold


class BundleError(Exception):
    """What stops the bundle, in one line."""


def platforms(spec: str) -> list[str]:
    """``KLIK_BUNDLE_PLATFORMS``: names of ``PLATFORMS``, separated by spaces or commas."""
    names = [name for name in spec.replace(",", " ").split() if name]
    unknown = [name for name in names if name not in PLATFORMS]
    if unknown or not names:
        allowed = ", ".join(PLATFORMS)
        raise BundleError(f"KLIK_BUNDLE_PLATFORMS={spec!r}: allowed are {allowed}")
    return names


def build(target: Path, names: list[str], pip: list[str]) -> str:
    """Make the bundle in ``target`` for the platforms ``names``, with the pip command
    ``pip``; its hash (the SHA-256 of its SHA256SUMS). It is made beside ``target`` and put in
    its place only once whole: a failed build leaves the old bundle (or nothing)."""
    if target.exists() and not (target / SUMS).exists() and any(target.iterdir()):
        raise BundleError(f"{target}: not empty and not a bundle; give another folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{target.name}-", dir=target.parent) as temp:
        new = Path(temp) / "bundle"
        wheels = new / "wheels"
        wheels.mkdir(parents=True)
        klik = _klik_wheel(wheels, pip)
        for name in names:
            _download(klik, wheels, name, pip)
        for path in FILES:
            (new / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / path, new / path)
        (new / "firmware" / "install.sh").chmod(0o755)
        digest = write_sums(new)
        if target.exists():
            shutil.rmtree(target)
        new.rename(target)
    return digest


def write_sums(target: Path) -> str:
    """Write ``target``'s SHA256SUMS (every other file, sorted by path); its SHA-256."""
    lines = []
    for path in sorted(p for p in target.rglob("*") if p.is_file() and p.name != SUMS):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path.relative_to(target).as_posix()}\n")
    data = "".join(lines).encode()
    (target / SUMS).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def _klik_wheel(wheels: Path, pip: list[str]) -> Path:
    """The klik wheel, built from a clean copy of the sources (no caches, no build folder
    left in the checkout), with no time of its own."""
    with tempfile.TemporaryDirectory(prefix="klik-bundle-") as temp:
        source = Path(temp) / "src"
        source.mkdir()
        skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")
        for name in SOURCES:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, source / name, ignore=skip)
            else:
                shutil.copy2(ROOT / name, source / name)
        env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
        command = [*pip, "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(source)]
        _pip(command, env, "pip wheel (the klik wheel)")
    (built,) = wheels.glob("klik-*.whl")
    return built


def _download(klik: Path, wheels: Path, name: str, pip: list[str]) -> None:
    """The table's dependencies as wheels for the platform ``name``, into ``wheels``."""
    target: list[str] = []
    if PLATFORMS[name]:
        target = ["--python-version", PYTHON_VERSION, "--implementation", "cp"]
        target += ["--abi", f"cp{PYTHON_VERSION.replace('.', '')}", "--abi", "abi3"]
        target += ["--abi", "none"]
        for tag in PLATFORMS[name]:
            target += ["--platform", tag]
    command = [*pip, "download", "--quiet", "--only-binary=:all:", "-d", str(wheels)]
    _pip([*command, *target, str(klik)], dict(os.environ), f"pip download for {name}")


def _pip(command: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
        first = said[0] if said else (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise BundleError(f"{what}: {first}")


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else DEFAULT_DIR
    try:
        names = platforms(os.environ.get("KLIK_BUNDLE_PLATFORMS", DEFAULT_PLATFORMS))
        digest = build(target.resolve(), names, [sys.executable, "-m", "pip"])
    except BundleError as error:
        print(f"make bundle: {error}", file=sys.stderr)
        return 2
    count = sum(1 for _ in (target / "wheels").iterdir())
    print(f"make bundle: {target} ({', '.join(names)}; {count} wheels)")
    print(f"make bundle: its hash (sha256sum {target / SUMS}): {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
