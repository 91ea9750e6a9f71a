"""The table's journal: every engine event, appended and fsynced, so a power cut loses nothing.

One JSON object a line. The first line is the header (which table, which game, the settings
the game was started with); then one line per event: a seat's raw edge, a judge's or hub's
order, or a checkpoint of the running clock (written every ``checkpoint_s`` so that after a
power cut the move comes back with the time it had, not the time of the last press).

Reading back never crashes: a last line cut short by the power cut is ignored; a journal that
is damaged anywhere else is moved aside (``*.corrupt-N``) with one clear line, and the table
starts a fresh game instead of failing in a restart loop. A failed write (a full disk) is
logged once and the game goes on; the journal tries again with the next event.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from klik.core import game as g
from klik.core import table as t
from klik.core.table import Edge, Event

log = logging.getLogger("klik.journal")

VERSION = 1
Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The clock was running at ``at``; replaying it moves time on, nothing else."""

    at: float


Entry = Edge | g.Order | Checkpoint


@dataclass(frozen=True, slots=True)
class Recovered:
    header: Json
    entries: tuple[Entry, ...]
    dropped_tail: bool  # the last line was cut short and left out


def encode(entry: Entry) -> Json:
    at = round(entry.at, 6)
    if isinstance(entry, Edge):
        return {"at": at, "seat": entry.seat, "down": entry.pressed}
    if isinstance(entry, g.Order):
        return {"at": at, "order": entry.action.value, "by": entry.by}
    return {"at": at, "checkpoint": True}


def decode(line: Json) -> Entry:
    """One journal line back into its entry; raises ValueError/KeyError/TypeError if damaged."""
    at = float(line["at"])
    if "seat" in line:
        if not isinstance(line["down"], bool):
            raise TypeError("down must be true or false")
        return Edge(str(line["seat"]), line["down"], at)
    if "order" in line:
        return g.Order(g.Action(line["order"]), at, str(line["by"]))
    if line.get("checkpoint") is True:
        return Checkpoint(at)
    raise ValueError(f"unknown journal line {line}")


class Journal:
    """The journal file of the game in progress. The engine thread is its only writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None
        self.failing = False  # the last write failed (a full disk); logged once per streak
        self.lines = 0

    def start(self, header: Json) -> None:
        """Begin a new game's journal; the previous one is kept as ``game-<n>.jsonl``."""
        self.close()
        if self.path.is_file():  # only a journal of ours is kept aside, never a device
            self.path.replace(_free_name(self.path, "game"))
        self._write(json.dumps({"journal": VERSION, **header}, ensure_ascii=False))

    def append(self, entry: Entry) -> bool:
        """Append and fsync one entry; False (and one log line per failure streak) if it failed."""
        return self._write(json.dumps(encode(entry)))

    def _write(self, text: str) -> bool:
        try:
            if self._file is None:
                self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (kept open)
            self._file.write(text + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as error:
            if not self.failing:
                log.error(
                    "journal %s: cannot write (%s); the game goes on, but a power cut now "
                    "would lose the moves since",
                    self.path,
                    error.strerror or error,
                )
            self.failing = True
            self._drop_file()
            return False
        if self.failing:
            log.warning("journal %s: writing again", self.path)
        self.failing = False
        self.lines += 1
        return True

    def _drop_file(self) -> None:
        # A half-written line may be in the buffer; close without flushing it again.
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                log.error("journal %s: cannot close (%s)", self.path, error)
            self._file = None


def read(path: Path) -> Recovered | None:
    """The journal at ``path``, or None if there is none or it had to be moved aside."""
    if path.exists() and not path.is_file():
        log.error("journal %s is not a file; starting a new game", path)
        return None
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.error("journal %s: cannot read (%s); starting a new game", path, error.strerror)
        return None
    lines = raw.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # a whole journal ends with a newline
    dropped = bool(tail.strip())
    try:
        if not complete:
            raise ValueError("no header line")
        header = json.loads(complete[0])
        if not isinstance(header, dict) or header.get("journal") != VERSION:
            raise ValueError(f"not a version {VERSION} journal header")
        entries = []
        for number, line in enumerate(complete[1:], start=2):
            if not line.strip():
                continue
            try:
                entries.append(decode(json.loads(line)))
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"line {number}: {error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        aside = _free_name(path, "corrupt")
        path.replace(aside)
        log.error(
            "journal %s is damaged (%s): moved to %s; starting a new game", path, error, aside
        )
        return None
    if dropped:
        log.warning("journal %s: the last line was cut short (power cut?) and is left out", path)
    return Recovered(header, tuple(entries), dropped)


def _free_name(path: Path, what: str) -> Path:
    n = 1
    while (candidate := path.with_name(f"{path.stem}.{what}-{n}{path.suffix}")).exists():
        n += 1
    return candidate


def replay_entries(table: t.Table, entries: tuple[Entry, ...]) -> tuple[t.Table, float]:
    """Feed journal entries to a table; returns it and the last moment in the journal."""
    last = -float("inf")
    for entry in entries:
        while (due := t.next_due(table)) is not None and due <= entry.at:
            table, _ = t.step(table, g.Tick(due))
        event: Event = g.Tick(entry.at) if isinstance(entry, Checkpoint) else entry
        table, _ = t.step(table, event)
        last = max(last, entry.at)
    return table, last
