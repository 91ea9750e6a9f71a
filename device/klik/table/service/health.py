"""The table's health readings for its heartbeat (``klik.link.protocol.Health``): the CPU's
temperature, the firmware's throttling flags (under-voltage first of all), whether the clock
is synchronised, the free space in the state folder and the game journal's size.

Each is read from a file under ``root`` (``/`` on a table; a test's fake tree under its
``tmp_path``), never by running a program, and at most every ``every_s`` (30 s): heartbeats
go every 2 s and cost a few file reads each half minute. A reading that cannot be had is null
in the heartbeat and said once in the log (again after it came back and went): on a
Raspberry Pi (``/proc/device-tree/model``) as an error, since a Pi has every one of them; on
a laptop's virtual table as a plain line. Nothing is made up in its place.

Files (under ``root``):

- ``sys/class/thermal/thermal_zone0/temp``: the CPU's temperature, millidegrees Celsius;
- ``sys/devices/platform/soc*/soc*:firmware/get_throttled``: the firmware's flags as a hex
  number (bits 0-3 now, 16-19 since boot; ``klik.link.protocol.Throttled``);
- ``run/systemd/timesync/synchronized``: systemd-timesyncd's flag (as ``finished_at`` uses);
  its folder without it is an unsynchronised clock, no folder at all no reading;
- the state folder (``[table] state_dir``): its free space (``statvfs``) and
  ``journal.jsonl``'s size.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from klik.link import protocol as p
from klik.link.protocol.health import TEMP_C, seats_of
from klik.version import installed

log = logging.getLogger("klik.table.service.health")

EVERY_S = 30.0  # how often the files are read again; a heartbeat between takes the last
TEMP = Path("sys/class/thermal/thermal_zone0/temp")
THROTTLED = "sys/devices/platform/soc*/soc*:firmware/get_throttled"  # soc@107c000000 on a Pi 5
TIMESYNC = Path("run/systemd/timesync")
SYNCHRONIZED = TIMESYNC / "synchronized"
MODEL = Path("proc/device-tree/model")
JOURNAL = "journal.jsonl"
MIB, KIB = 2**20, 2**10


class UnreadError(Exception):
    """A reading that could not be had; ``str()`` says why, for the log."""


@dataclass(frozen=True, slots=True)
class Machine:
    """The readings of the machine, as last read (None: not read)."""

    clock_synced: bool | None = None
    cpu_temp_c: int | None = None
    throttled: p.Throttled | None = None
    free_mb: int | None = None
    journal_kb: int | None = None


def on_a_pi(root: Path) -> bool:
    """Whether the machine under ``root`` is a Raspberry Pi, by its device tree's model."""
    try:
        return "Raspberry Pi" in (root / MODEL).read_text(encoding="ascii", errors="replace")
    except OSError:
        return False


class Readings:
    """The health readings of the table whose state folder is ``state_dir``, on the machine
    under ``root``. Read from the courier's thread only (``health``)."""

    def __init__(
        self,
        state_dir: Path,
        *,
        root: Path = Path("/"),
        on_pi: bool | None = None,
        every_s: float = EVERY_S,
        statvfs: Callable[[Path], os.statvfs_result] = os.statvfs,
    ) -> None:
        self.state_dir = state_dir
        self.root = root
        self.on_pi = on_a_pi(root) if on_pi is None else on_pi
        self.every_s = every_s
        self._statvfs = statvfs
        self._unsaid = {"cpu_temp_c", "throttled", "clock_synced", "free_mb", "journal_kb"}
        self._at: float | None = None
        self._last = Machine()
        found = sorted(root.glob(THROTTLED))  # the firmware's node is found once
        self._throttled = found[0] if found else root / THROTTLED.replace("*", "")

    def health(
        self, now: float, *, panels_out: Collection[str] = (), stuck: Collection[str] = ()
    ) -> p.Health:
        """The heartbeat's ``health`` at ``now`` (seconds, the table clock): the readings,
        read again if ``every_s`` has passed, with the seats whose panel is out and whose
        button is stuck (the engine's alerts)."""
        if self._at is None or now - self._at >= self.every_s or now < self._at:
            self._at = now
            self._last = self.read()
        m = self._last
        return p.Health(
            version=installed(),
            protocol=p.REVISION,
            clock_synced=m.clock_synced,
            cpu_temp_c=m.cpu_temp_c,
            throttled=m.throttled,
            free_mb=m.free_mb,
            journal_kb=m.journal_kb,
            panels_out=seats_of(frozenset(panels_out)),
            stuck=seats_of(frozenset(stuck)),
        )

    def read(self) -> Machine:
        """Every reading, now; each one that fails is None and said once (``_lacking``)."""
        readers: dict[str, Callable[[], object]] = {
            "clock_synced": self._clock_synced,
            "cpu_temp_c": self._cpu_temp_c,
            "throttled": self._throttled_flags,
            "free_mb": self._free_mb,
            "journal_kb": self._journal_kb,
        }
        got: dict[str, Any] = {}
        for name, reader in readers.items():
            try:
                got[name] = reader()
            except UnreadError as why:
                got[name] = None
                self._lacking(name, str(why))
            else:
                self._unsaid.add(name)  # said again if it goes once more
        return Machine(**got)

    def _lacking(self, name: str, why: str) -> None:
        if name not in self._unsaid:
            return
        self._unsaid.discard(name)
        if self.on_pi:
            log.error("health: %s cannot be read on this Pi: %s; reported as null", name, why)
        else:
            log.info("health: no %s on this machine (%s); reported as null", name, why)

    def _text(self, path: Path) -> str:
        try:
            return path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise UnreadError(f"{path}: {getattr(error, 'strerror', None) or error}") from None

    def _cpu_temp_c(self) -> int:
        path = self.root / TEMP
        text = self._text(path)
        try:
            celsius = round(int(text) / 1000)
        except ValueError:
            raise UnreadError(f"{path}: {text[:40]!r} is not millidegrees") from None
        low, high = TEMP_C
        if not low <= celsius <= high:
            raise UnreadError(f"{path}: {celsius} °C is no CPU's temperature")
        return celsius

    def _throttled_flags(self) -> p.Throttled:
        path = self._throttled
        text = self._text(path)
        try:
            bits = int(text.removeprefix("0x"), 16)
        except ValueError:
            raise UnreadError(f"{path}: {text[:40]!r} is not a hex number") from None
        if bits < 0:
            raise UnreadError(f"{path}: {text[:40]!r} is not a hex number")
        return p.Throttled.of_bits(bits)

    def _clock_synced(self) -> bool:
        if (self.root / SYNCHRONIZED).exists():
            return True
        if (self.root / TIMESYNC).is_dir():
            return False  # timesyncd runs and has not reached a time server yet
        raise UnreadError(f"{self.root / TIMESYNC}: no systemd-timesyncd")

    def _free_mb(self) -> int:
        try:
            found = self._statvfs(self.state_dir)
        except OSError as error:
            raise UnreadError(f"{self.state_dir}: {error.strerror or error}") from None
        return found.f_bavail * found.f_frsize // MIB

    def _journal_kb(self) -> int:
        path = self.state_dir / JOURNAL
        try:
            return path.stat().st_size // KIB
        except OSError as error:
            raise UnreadError(f"{path}: {error.strerror or error}") from None
