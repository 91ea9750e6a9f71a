"""The table's journal: every engine event, appended and fsynced, so a power cut loses nothing.

One JSON object a line. The first line is the header (which table, which game, the settings
the game was started with); then one line per event: a seat's raw edge, a judge's or hub's
order, a checkpoint of the running clock (written every ``checkpoint_s`` so that after a
power cut the move comes back with the time it had, not the time of the last press), or the
moment a recovery settled the buttons and paused the game (so that a second power cut
replays the first recovery exactly).

Writing never leaves half a line behind: a write that fails part-way (a full disk) is cut
back to the last whole line before anything else is appended, and a journal opened with a
torn last line (a power cut mid-write) is cut back the same way. A failed write is logged
once per streak and the game goes on; the journal tries again with the next event.

Reading back never crashes and trusts nothing: every value is checked (the right type,
finite, in range, in time order) and a line longer than ``MAX_LINE`` is damage, not data. A
last line cut short is ignored. A journal damaged after its header costs only its damaged
tail: the game comes back from the lines before the damage, the whole journal is kept aside
(``*.corrupt-N``) and one clear line says what was dropped. A damaged header is moved aside
the same way and the table starts a fresh game: it never fails in a restart loop.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from klik.core import game as g
from klik.core import tabletop as t
from klik.core.game import SEATS
from klik.core.tabletop import Edge, Event
from klik.errors import KlikError
from klik.link.outbox import sync_folder
from klik.table.game.card import Card
from klik.table.game.durable import write_atomic
from klik.table.game.lineup import LineupError
from klik.table.game.lineup import parse as parse_lineup
from klik.validate import TEXT, TRUE_FALSE, Choice, Number, Voice, check

log = logging.getLogger("klik.table.game.journal")

VERSION = 1
Json = dict[str, Any]

#: The longest line the table ever writes is a header with a tournament's lineup (four names
#: and ids, about 1 KiB at the most); anything much longer is damage (never logged in full).
MAX_LINE = 4096
#: The table clock is monotonic seconds carried on from one journal to the next: it starts
#: near 0 on a new Pi and grows only with time played. A billion seconds is 31 years.
MAX_AT = 1e9
#: Edges are stamped on the GPIO thread and queued, so one may be journalled just after a
#: checkpoint the engine wrote a moment later. More than this back in time is damage.
BACK_S = 10.0
BY = ("judge", "hub", g.RECOVERY)
MAX_GAME_NO = 10**9


class DamageError(KlikError, ValueError):
    """A journal line that cannot be trusted; ``str()`` says which field and why, never the
    line itself (it may be megabytes of garbage)."""


#: How a journal's field is refused: by name, never showing its value (see DamageError).
VOICE = Voice(
    lambda at, line: DamageError(line),
    wrong="{at} is not {allowed}",
    choice="{at} is not one of {allowed}",
)
AT = Number(0, MAX_AT, whole=False, noun="a number of seconds")  # (NaN fails the range too)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The clock was running at ``at``; replaying it moves time on, nothing else."""

    at: float


@dataclass(frozen=True, slots=True)
class Recovery:
    """The table came back from a power cut at ``at``: buttons settled and let go, paused."""

    at: float


Entry = Edge | g.Order | Checkpoint | Recovery


@dataclass(frozen=True, slots=True)
class Recovered:
    header: Json
    entries: tuple[Entry, ...]
    dropped_tail: bool  # the last line was cut short and left out

    @property
    def game_no(self) -> int:
        return int(self.header["game_no"])

    @property
    def at(self) -> float:
        return float(self.header["at"])


def encode(entry: Entry) -> Json:
    at = round(entry.at, 6)
    if isinstance(entry, Edge):
        return {"at": at, "seat": entry.seat, "down": entry.pressed}
    if isinstance(entry, g.Order):
        return {"at": at, "order": entry.action.value, "by": entry.by}
    if isinstance(entry, Recovery):
        return {"at": at, "recovery": True}
    return {"at": at, "checkpoint": True}


def decode(line: Any) -> Entry:
    """One parsed journal line back into its entry; raises DamageError naming what is wrong."""
    if not isinstance(line, dict):
        raise DamageError("not a JSON object")
    at = _at(line)
    keys = set(line)
    if keys == {"at", "seat", "down"}:
        seat = check(line["seat"], Choice(SEATS), VOICE, "seat")
        return Edge(seat, check(line["down"], TRUE_FALSE, VOICE, "down"), at)
    if keys == {"at", "order", "by"}:
        order = check(line["order"], Choice([a.value for a in g.Action]), VOICE, "order")
        by = check(line["by"], Choice(BY), VOICE, "by")
        return g.Order(g.Action(order), at, by)
    if keys == {"at", "checkpoint"} and line["checkpoint"] is True:
        return Checkpoint(at)
    if keys == {"at", "recovery"} and line["recovery"] is True:
        return Recovery(at)
    raise DamageError("not an edge, order, checkpoint or recovery line")


def check_header(header: Any) -> Json:
    """The header's fields, checked; raises DamageError naming the first one that is wrong."""
    if not isinstance(header, dict) or header.get("journal") != VERSION:
        raise DamageError(f"not a version {VERSION} journal header")
    _at(header)
    check(header.get("game_no"), Number(1, MAX_GAME_NO), VOICE, "header game_no")
    seats = header.get("seats")
    if not isinstance(seats, list) or seats not in [list(SEATS[:n]) for n in (2, 3, 4)]:
        raise DamageError("header seats are not A, B[, C[, D]]")
    check(header.get("table"), TEXT, VOICE, "header table")
    # Journals written before the starter rotated per game have none: it follows from game_no.
    if "starter" in header:
        check(header["starter"], Choice(seats), VOICE, "header starter")
    if "lineup" in header:
        try:
            lineup = parse_lineup(header["lineup"], SEATS)
        except LineupError as error:
            raise DamageError(f"header lineup: {error}") from None
        if list(lineup.seats) != seats:
            raise DamageError("header lineup seats differ from the header's seats")
    return header


def _at(line: Json) -> float:
    at: float = check(line.get("at"), AT, VOICE, "at")
    return float(at)


class Journal:
    """The journal file of the game in progress. The engine thread is its only writer."""

    def __init__(self, path: Path, card: Card | None = None) -> None:
        self.path = path
        self.card = card or Card()  # how the card takes the journal's writes
        self._fd: int | None = None
        self._end = 0  # where the last whole line ends: a failed write is cut back to it
        self.failing = False  # the last write failed (a full disk); logged once per streak
        self.lines = 0

    def start(self, header: Json) -> None:
        """Begin a new game's journal; the previous one is kept as ``game-<its game>.jsonl``.

        The folder is fsynced after both steps: a cut may leave the old journal in place or
        kept aside with no new one, never a new journal that vanishes after the game began
        (``klik.table.game.session`` mends either at the restart).
        """
        self.close()
        if self.path.is_file():  # only a journal of ours is kept aside, never a device
            try:
                self.path.replace(_archive_name(self.path))
            except OSError as error:
                # The last game's result is kept apart; its journal is not worth a crash.
                log.error(
                    "journal %s: cannot keep the last game's journal (%s); writing over it",
                    self.path,
                    error.strerror or error,
                )
                with contextlib.suppress(OSError):
                    os.truncate(self.path, 0)
        self._write(json.dumps({"journal": VERSION, **header}, ensure_ascii=False))
        with contextlib.suppress(OSError):  # the header's fsync failing is logged already
            sync_folder(self.path.parent)

    def append(self, entry: Entry) -> bool:
        """Append and fsync one entry; False (and one log line per failure streak) if it failed."""
        return self._write(json.dumps(encode(entry)))

    def _open(self) -> int:
        """Open for appending, cutting a torn last line (a power cut mid-write) back first."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            end = os.fstat(fd).st_size
            whole = self.path.read_bytes()[:end].rfind(b"\n") + 1 if end else 0
            if whole != end:
                os.ftruncate(fd, whole)
                os.fsync(fd)
                end = whole
        except OSError:
            os.close(fd)
            raise
        self._end = end
        return fd

    def _write(self, text: str) -> bool:
        data = (text + "\n").encode()
        try:
            self.card.attempt(lambda: self._put(data))
        except OSError as error:
            said = self.card.failed(error, "the game's moves")  # the card's state, once
            if not self.failing and not said:
                log.error(
                    "journal %s: cannot write (%s); the game goes on, but a power cut now "
                    "would lose the moves since",
                    self.path,
                    error.strerror or error,
                )
            self.failing = True
            return False
        self.card.wrote()
        self._end += len(data)
        if self.failing:
            log.warning("journal %s: writing again", self.path)
        self.failing = False
        self.lines += 1
        return True

    def _put(self, data: bytes) -> None:
        """Append ``data`` (whole lines) and fsync; a part that got in is taken back if not."""
        try:
            if self._fd is None:
                self._fd = self._open()
            done = 0
            while done < len(data):  # a nearly full disk takes part of a line, then refuses
                done += os.write(self._fd, data[done:])
            os.fsync(self._fd)
        except OSError:
            self._cut_back()
            raise

    def _cut_back(self) -> None:
        """Take back the part of a line that got in, so the next line starts a line of its own.

        If even that fails, the file is closed: opening it again cuts the torn line first.
        """
        if self._fd is None:
            return
        try:
            if os.fstat(self._fd).st_size != self._end:
                os.ftruncate(self._fd, self._end)
                os.fsync(self._fd)
        except OSError:
            self.close()

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


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
    if not complete:  # a cut as the game began: its header never got in, nothing was played
        log.warning("journal %s has no whole header (a cut as its game began); a new one", path)
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    try:
        recovered, damage = _parse(complete, dropped)
    except DamageError as error:  # the header: nothing says which game this was
        aside = _free_name(path, "corrupt")
        try:
            path.replace(aside)
        except OSError as move_error:
            log.error(
                "journal %s is damaged (%s) and cannot be moved aside (%s); starting a new game",
                path,
                error,
                move_error.strerror,
            )
            return None
        log.error(
            "journal %s is damaged (%s): moved to %s; starting a new game", path, error, aside
        )
        return None
    if damage is not None:
        return _sound_prefix(path, complete, recovered, damage)
    if dropped:
        log.warning("journal %s: the last line was cut short (power cut?) and is left out", path)
    return recovered


@dataclass(frozen=True, slots=True)
class _Damage:
    line: int  # the first damaged line (1 is the header)
    why: DamageError


def _sound_prefix(
    path: Path, complete: list[bytes], recovered: Recovered, damage: _Damage
) -> Recovered:
    """A journal damaged after its header: the game comes back from the lines before the
    damage. The whole journal is kept aside (``corrupt-N``) for whoever looks into it, and
    the live one becomes its sound prefix (atomically), so that what is appended from now on
    follows it and is never lost behind the damage at the next start."""
    dropped = len(complete) - damage.line + 1
    aside = _free_name(path, "corrupt")
    prefix = b"".join(line + b"\n" for line in complete[: damage.line - 1])
    try:
        os.link(path, aside)
        write_atomic(path, prefix)
    except OSError as error:
        log.error(
            "journal %s: line %d is damaged (%s); the game goes on from the %d lines before "
            "it, but the journal cannot be mended (%s)",
            path,
            damage.line,
            damage.why,
            damage.line - 1,
            error.strerror or error,
        )
        return recovered
    log.error(
        "journal %s: line %d is damaged (%s): %d of %d lines dropped (the whole journal is "
        "in %s); the game goes on from the %d lines before it",
        path,
        damage.line,
        damage.why,
        dropped,
        len(complete),
        aside.name,
        damage.line - 1,
    )
    return recovered


def begun(path: Path) -> bool:
    """Whether a journal is there with a whole line: a game was begun in it (it may be
    damaged); False for none, or one cut before its header got in."""
    try:
        with path.open("rb") as f:
            return b"\n" in f.readline(MAX_LINE + 1)
    except OSError:
        return path.exists()


def _parse(complete: list[bytes], dropped: bool) -> tuple[Recovered, _Damage | None]:
    """The journal's game: its header (DamageError if that is damaged) and every entry up to
    the first damaged line, which is returned with it (None: all sound)."""
    if not complete:
        raise DamageError("no header line")
    header = check_header(_json(complete[0], 1))
    entries: list[Entry] = []
    latest = float(header["at"])
    for number, line in enumerate(complete[1:], start=2):
        if not line.strip():
            continue
        try:
            entry = decode(_json(line, number))
            if entry.at < latest - BACK_S:
                raise DamageError(f"at goes back {latest - entry.at:.0f} s in time")
        except DamageError as error:
            return Recovered(header, tuple(entries), True), _Damage(number, error)
        latest = max(latest, entry.at)
        entries.append(entry)
    return Recovered(header, tuple(entries), dropped), None


def _json(line: bytes, number: int) -> Any:
    if len(line) > MAX_LINE:
        raise DamageError(f"line {number} is {len(line)} bytes long (at most {MAX_LINE})")
    try:
        return json.loads(line, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise DamageError(f"line {number} is not JSON") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _free_name(path: Path, what: str) -> Path:
    n = 1
    while (candidate := path.with_name(f"{path.stem}.{what}-{n}{path.suffix}")).exists():
        n += 1
    return candidate


def _archive_name(path: Path) -> Path:
    """Where a finished game's journal is kept: ``journal.game-<its game>.jsonl`` (then
    ``.1``, ``.2`` ... beside it, never over another); ``journal.unknown-N`` if its header
    cannot tell (a damaged journal a new game replaced)."""
    try:
        with path.open("rb") as f:
            game_no = check_header(json.loads(f.readline(MAX_LINE)))["game_no"]
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, DamageError):
        return _free_name(path, "unknown")
    candidate, n = path.with_name(f"{path.stem}.game-{game_no}{path.suffix}"), 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.game-{game_no}.{n}{path.suffix}")
        n += 1
    return candidate


def replay_entries(tabletop: t.Tabletop, entries: tuple[Entry, ...]) -> tuple[t.Tabletop, float]:
    """Feed journal entries to a tabletop; returns it and the last moment in the journal."""
    last = -math.inf
    for entry in entries:
        while (due := t.next_due(tabletop)) is not None and due <= entry.at:
            tabletop, _ = t.step(tabletop, g.Tick(due))
        if isinstance(entry, Recovery):
            tabletop, _ = t.step(tabletop, g.Tick(entry.at))
            tabletop, _ = t.recover(tabletop, entry.at)
        else:
            event: Event = g.Tick(entry.at) if isinstance(entry, Checkpoint) else entry
            tabletop, _ = t.step(tabletop, event)
        last = max(last, entry.at)
    return tabletop, last
