"""The outbox: every finished result, kept on the card until the hub has acknowledged it.

One SQLite file, ``outbox.sqlite`` in the table's state dir, in WAL mode with
``synchronous=FULL``: ``keep`` returns only once its row is committed and the WAL fsynced,
so a result the table has shown as kept survives a power cut the next moment. The link
sends ``oldest_waiting`` again and again (counting ``tried``) until the hub answers with a
receipt (``acknowledged``); results go out one at a time, oldest first.

Sequence numbers (the envelope's ``seq``) come from ``INTEGER PRIMARY KEY AUTOINCREMENT``:
1, 2, 3 … and never reused, not after a restart and not after rows are removed, because
the hub tells a resent result (same seq, same body: "duplicate") from a different one
(same seq, other body: "conflict") by them. SQLite keeps the last one given out in the
database, whose newest commits live in ``outbox.sqlite-wal`` until a checkpoint: a card that
loses that file would hand out 1, 2, … again. So every seq is also written, before its
result is committed, to ``outbox.seq`` beside it (a small file written whole and fsynced,
as the game counter is), and an outbox that opens with a lower count goes on above it.

When there is no ``outbox.seq`` at all (a new card, or one that lost both files), the table
cannot know which seqs the hub already holds from it: the count is *in doubt* (the file says
so with a trailing ``?``) until the hub's signed answer to a heartbeat says the last seq it
holds from this device (``confirm_seqs``). Meanwhile the courier sends no result; after it,
results that wait with a seq the hub holds already are numbered anew above it.

The file also keeps the link's two other small memories: the heartbeat counter (reserved
in blocks of ``HEARTBEAT_BLOCK`` so that a heartbeat every 2 s is not a commit every 2 s;
after a restart counting goes on from the end of the last block, so heartbeat numbers only
grow, as the hub demands: it refuses one not above the last it holds, a replay; a table
whose count was lost jumps past the hub's last, ``heartbeats_after``) and the ids of the
hub's commands already carried out (so each is carried out at most once, even across
restarts).

Errors: any SQLite failure is one ``OutboxError`` line naming the file and what could not
be done (``outbox /var/lib/klik/outbox.sqlite: cannot keep a result (the disk is full)``);
the daemon shows it and goes on, it never dies of a traceback. A file that is not an outbox
or is damaged is ``OutboxCorruptError``: ``Outbox.start_anew`` moves it aside as
``outbox.corrupt-N.sqlite``, as the journal does with a damaged journal, and starts a fresh
one whose numbers carry on above the old ones.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from klik.errors import KlikError
from klik.link.protocol import MAX_BODY, ProtocolError, canonical

log = logging.getLogger("klik.link.outbox")

# PRAGMA user_version; 2 added ``refused``, 3 ``acked_by`` (older ones are migrated on opening)
SCHEMA_VERSION = 4
HEARTBEAT_BLOCK = 1000  # heartbeat numbers reserved per commit
OPEN, SETTLED = "open", "settled"  # a result's conflict, while the judge decides and after

#: The largest result body that still fits one HTTP envelope (``MAX_BODY``) with the
#: longest device id, the largest seq and the MAC around it. A bigger one would be refused
#: by the hub for ever and hold up every result behind it, so ``keep`` refuses it at once.
_LONGEST = {"v": 1, "type": "result", "device": "d" * 64, "seq": 2**53 - 1, "mac": "0" * 64}
MAX_RESULT = MAX_BODY - len(canonical({**_LONGEST, "body": {}})) + len(b"{}")

_SCHEMA = (
    """CREATE TABLE results (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: see the module's docstring
        body TEXT NOT NULL,                     -- canonical JSON (klik.link.protocol)
        kept_at_ms INTEGER NOT NULL,            -- wall clock, for people; order is by seq
        tries INTEGER NOT NULL DEFAULT 0,       -- send attempts so far
        receipt TEXT,                           -- the hub's receipt; NULL: still waiting
        acked_at_ms INTEGER,
        refused TEXT,                           -- the hub's signed reason; set aside
        acked_by TEXT,                          -- the device id whose hub acknowledged it
        conflict TEXT                           -- acknowledged as a conflict: open, settled
    )""",
    "CREATE INDEX results_waiting ON results (seq) WHERE receipt IS NULL",
    "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TABLE done_commands (id TEXT PRIMARY KEY, done_at_ms INTEGER NOT NULL) WITHOUT ROWID",
)
_TABLES = {"results", "counters", "done_commands", "sqlite_sequence"}

# SQLite's primary result codes (the low byte of ``sqlite_errorcode``), in a person's words.
_SQLITE_REASONS = {
    3: "no permission",  # SQLITE_PERM
    5: "another program holds it locked",  # SQLITE_BUSY
    8: "the file or its folder is read-only",  # SQLITE_READONLY
    10: "a disk I/O error",  # SQLITE_IOERR
    13: "the disk is full",  # SQLITE_FULL
    14: "cannot open the file",  # SQLITE_CANTOPEN
}
# The same troubles met by ``outbox.seq``, in the same words.
_OS_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EROFS: "the file or its folder is read-only",
    errno.EACCES: "no permission",
    errno.EIO: "a disk I/O error",
}
_SQLITE_DAMAGE = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_SQLITE_IOERR_SHMSIZE = 4874  # no room to grow the -shm file: a full disk, seen as an I/O error


class OutboxError(KlikError, OSError):
    """The outbox cannot do what was asked; ``str()`` is one line naming the file and why.
    ``errno`` is the card's trouble where known (ENOSPC, EROFS, EACCES: ``klik.table.game.card``
    reads it), else None."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.errno = code  # OSError's own field, set after its args


class OutboxCorruptError(OutboxError):
    """The outbox file is damaged or no outbox at all: ``Outbox.start_anew`` moves it aside."""


@dataclass(frozen=True, slots=True)
class SetAside:
    """A result the hub refused for good (its signed reason): kept, shown, not sent again."""

    seq: int
    game: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """A result the hub acknowledged as a conflict and the judge has not settled yet."""

    seq: int
    game: int | None


@dataclass(frozen=True, slots=True)
class Pending:
    """A result the hub has not acknowledged yet."""

    seq: int
    body: dict[str, Any]
    kept_at_ms: int  # wall clock, milliseconds since 1970
    tries: int  # send attempts so far (best effort: a full disk may not count one)


def wall_ms() -> int:
    """The wall clock in whole milliseconds: when a result was kept, for the people."""
    return time.time_ns() // 1_000_000


class Outbox:
    """The outbox file at ``path``, created with its schema if new.

    Safe to share between the engine's thread (``keep``) and the link's thread (the rest).
    Every method raises ``OutboxError`` (``OutboxCorruptError`` for a damaged file) when SQLite
    fails, except ``tried``, which only logs.
    """

    def __init__(
        self, path: Path, *, clock_ms: Callable[[], int] = wall_ms, busy_s: float = 5.0
    ) -> None:
        self.path = Path(path)
        self._clock_ms = clock_ms
        self._lock = threading.RLock()
        self._heartbeat_next = 0  # the next heartbeat number to give out
        self._heartbeat_end = 0  # the end of the reserved block (not given out)
        self._tries_failing = False  # `tried` failed last time: logged once per streak
        self._confirmed = self._read_high_water()[1]  # the hub confirmed the count
        new = not self.path.exists()
        try:
            # isolation_level=None: no hidden BEGIN; every write is an explicit transaction.
            self._db = sqlite3.connect(
                self.path, timeout=busy_s, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise self._error("open the outbox", error) from None
        try:
            self._set_up(new)
        except BaseException:
            self._db.close()
            raise

    # --- results -----------------------------------------------------------------------

    def keep(self, body: dict[str, Any]) -> int:
        """Keep a finished result until the hub acknowledges it; returns its seq (1, 2 …).

        Durable when it returns: the row is committed and the WAL fsynced. Raises
        ProtocolError, before anything is written, for a body that could never be sent (a
        float in it, or too big for an envelope), and OutboxError if it cannot be kept.
        """
        if not isinstance(body, dict):
            raise ProtocolError("body", "must be a JSON object")
        data = canonical(body)
        if len(data) > MAX_RESULT:
            raise ProtocolError("body", f"{len(data)} bytes, over the {MAX_RESULT} that fit")
        with self._transaction("keep a result") as db:
            cursor = db.execute(
                "INSERT INTO results (body, kept_at_ms) VALUES (?, ?)",
                (data.decode("ascii"), self._clock_ms()),
            )
            seq = cursor.lastrowid
            assert seq is not None
            # Durable before the commit: a seq is never handed out twice, whatever the WAL.
            self._write_high_water(seq)
        return seq

    def oldest_waiting(self) -> Pending | None:
        """The oldest result the hub has not acknowledged, or None if none waits."""
        with self._reading("read the outbox") as db:
            row = db.execute(
                "SELECT seq, body, kept_at_ms, tries FROM results "
                "WHERE receipt IS NULL AND refused IS NULL ORDER BY seq LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        seq, text, kept_at_ms, tries = row
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise OutboxCorruptError(
                f"outbox {self.path}: result {seq} is damaged (not a JSON object)"
            )
        return Pending(seq, body, kept_at_ms, tries)

    def tried(self, seq: int) -> None:
        """Count one attempt to send result ``seq``. Best effort: a failure is only logged
        (once per streak), because a missed count costs nothing but a number on a screen."""
        try:
            with self._transaction("count a try") as db:
                db.execute("UPDATE results SET tries = tries + 1 WHERE seq = ?", (seq,))
        except OutboxError as error:
            if not self._tries_failing:
                log.warning("%s; sending goes on", error)
            self._tries_failing = True
            return
        self._tries_failing = False

    def acknowledged(
        self, seq: int, receipt: str, by: str | None = None, *, conflict: bool = False
    ) -> None:
        """The hub has stored result ``seq`` and answered with ``receipt`` to device ``by``
        (the pairing it was sent under); durable on return. ``conflict``: the hub holds
        another result for the same send or game, and both wait for the judge (``conflicts``).

        Idempotent: the same receipt again changes nothing. A different receipt for a result
        already acknowledged keeps the first (the one the players may have seen) and logs
        both. An acknowledgement for a seq this outbox does not have is logged and ignored.
        """
        if not isinstance(receipt, str) or not receipt:
            raise ValueError("a receipt is text, not empty")
        with self._transaction("record the hub's receipt") as db:
            row = db.execute("SELECT receipt FROM results WHERE seq = ?", (seq,)).fetchone()
            if row is None:
                log.warning(
                    "outbox %s: the hub acknowledged result %d, not kept here", self.path, seq
                )
            elif row[0] is None:
                db.execute(
                    "UPDATE results SET receipt = ?, acked_at_ms = ?, acked_by = ?, conflict = ? "
                    "WHERE seq = ?",
                    (receipt, self._clock_ms(), by, OPEN if conflict else None, seq),
                )
            elif row[0] != receipt:
                log.warning(
                    "outbox %s: result %d was acknowledged as R-%s, now as R-%s; keeping R-%s",
                    self.path,
                    seq,
                    row[0],
                    receipt,
                    row[0],
                )

    def acked_seq(self, by: str) -> int:
        """The newest seq the hub acknowledged to device ``by`` (0: none), which every
        heartbeat tells the hub: a hub holding less has lost results it acknowledged."""
        with self._reading("read the acknowledged seqs") as db:
            (seq,) = db.execute(
                "SELECT max(seq) FROM results WHERE acked_by = ? AND receipt IS NOT NULL", (by,)
            ).fetchone()
        return 0 if seq is None else int(seq)

    def resend_after(self, by: str, after: int) -> int:
        """The hub (device ``by``'s) holds this pairing's results up to seq ``after`` only:
        those it acknowledged above it wait again, to be sent as they were (the hub stores
        each once, with the receipt it had). Durable on return; how many wait again."""
        with self._transaction("send acknowledged results again") as db:
            again = db.execute(
                "UPDATE results SET receipt = NULL, acked_at_ms = NULL "
                "WHERE acked_by = ? AND seq > ? AND receipt IS NOT NULL AND refused IS NULL",
                (by, after),
            )
        return int(again.rowcount)

    def refused(self, seq: int, reason: str) -> None:
        """The hub refused result ``seq`` for good (its signed reason): set it aside, kept
        in the file with the reason, so the results after it go on. Durable on return."""
        with self._transaction("set a refused result aside") as db:
            db.execute(
                "UPDATE results SET refused = ? WHERE seq = ? AND receipt IS NULL",
                (reason[:500], seq),
            )

    def set_aside(self) -> list[SetAside]:
        """The results the hub refused, oldest first."""
        with self._reading("read the refused results") as db:
            rows = db.execute(
                "SELECT seq, json_extract(body, '$.game'), refused FROM results "
                "WHERE refused IS NOT NULL ORDER BY seq"
            ).fetchall()
        return [SetAside(int(s), g if isinstance(g, int) else None, str(r)) for s, g, r in rows]

    def conflicts(self) -> list[Conflict]:
        """The results acknowledged as a conflict that the judge has not settled, oldest
        first."""
        with self._reading("read the results in conflict") as db:
            rows = db.execute(
                "SELECT seq, json_extract(body, '$.game') FROM results WHERE conflict = ? "
                "ORDER BY seq",
                (OPEN,),
            ).fetchall()
        return [Conflict(int(s), g if isinstance(g, int) else None) for s, g in rows]

    def settled(self, seqs: list[int]) -> int:
        """The hub says the judge settled the conflicts of these results; how many were open."""
        if not seqs:
            return 0
        with self._transaction("record the settled conflicts") as db:
            done = db.executemany(
                "UPDATE results SET conflict = ? WHERE seq = ? AND conflict = ?",
                [(SETTLED, seq, OPEN) for seq in seqs],
            )
        return max(0, done.rowcount)

    def receipt(self, seq: int) -> str | None:
        """The hub's receipt for result ``seq``; None while it waits (or if there is none)."""
        with self._reading("read a receipt") as db:
            row = db.execute("SELECT receipt FROM results WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else row[0]

    def seq_of_game(self, game: int) -> int | None:
        """The newest kept result of the table's game number ``game``, or None."""
        with self._reading("find a game's result") as db:
            row = db.execute(
                "SELECT seq FROM results WHERE json_extract(body, '$.game') = ? "
                "ORDER BY seq DESC LIMIT 1",
                (game,),
            ).fetchone()
        return None if row is None else int(row[0])

    def last_game(self) -> int:
        """The highest game number of any result kept here (0 if none): game numbers never
        repeat, and this is a floor under the table's counter (a card that was full)."""
        with self._reading("find the last game") as db:
            (game,) = db.execute("SELECT max(json_extract(body, '$.game')) FROM results").fetchone()
        return game if isinstance(game, int) else 0

    def waiting(self) -> int:
        """How many results wait for the hub."""
        with self._reading("count the waiting results") as db:
            (count,) = db.execute(
                "SELECT count(*) FROM results WHERE receipt IS NULL AND refused IS NULL"
            ).fetchone()
        return int(count)

    def last_seq(self) -> int:
        """The highest seq ever given out (0 if none), even if its row has been removed."""
        with self._reading("read the last seq") as db:
            row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'results'").fetchone()
        return 0 if row is None else int(row[0])

    # --- the link's other memories ------------------------------------------------------

    def next_heartbeat_seq(self) -> int:
        """The next heartbeat's seq: grows with every call, across restarts too (with gaps).

        A commit only every ``HEARTBEAT_BLOCK`` calls: a restart skips what was left of the
        block, which keeps the numbers growing without writing each one.
        """
        with self._lock:
            if self._heartbeat_next >= self._heartbeat_end:
                self._reserve_heartbeats(self._heartbeat_next)
            seq = self._heartbeat_next
            self._heartbeat_next += 1
            return seq

    def heartbeats_after(self, seq: int) -> bool:
        """Number the next heartbeats after ``seq``, the last one the hub holds; False (and
        nothing changed) if the count is past it already.

        The courier calls it when the hub refuses a heartbeat as stale: this table's count
        was lost (a new card) or fell behind. Durable on return: past the reserved block it is
        one commit of a new block, inside it nothing needs writing (a restart starts after the
        block anyway).
        """
        with self._lock:
            if seq < self._heartbeat_next:
                return False
            if seq + 1 < self._heartbeat_end:
                self._heartbeat_next = seq + 1
            else:
                self._reserve_heartbeats(seq + 1)
            return True

    def _reserve_heartbeats(self, least: int) -> None:
        """Reserve ``HEARTBEAT_BLOCK`` numbers from ``least``, or from the end of the block the
        file last reserved if that is higher (one commit); the caller holds the lock.

        A card that refuses the commit (read-only, full) must not silence the table: the
        block is then counted in memory only, with one log line, and should a restart reuse
        numbers, the hub's stale answer says where to go on (``heartbeats_after``)."""
        try:
            with self._transaction("reserve heartbeat numbers") as db:
                row = db.execute("SELECT value FROM counters WHERE name = 'heartbeat'").fetchone()
                start = max(0 if row is None else int(row[0]), least)
                db.execute(
                    "INSERT OR REPLACE INTO counters (name, value) VALUES ('heartbeat', ?)",
                    (start + HEARTBEAT_BLOCK,),
                )
        except OutboxError as error:
            log.error("%s; heartbeats are numbered in memory meanwhile", error)
            start = least
        self._heartbeat_next, self._heartbeat_end = start, start + HEARTBEAT_BLOCK

    def command_seen(self, command_id: str) -> bool:
        """Whether the hub's command ``command_id`` is recorded as carried out."""
        with self._reading("read the commands done") as db:
            row = db.execute("SELECT 1 FROM done_commands WHERE id = ?", (command_id,)).fetchone()
        return row is not None

    def command_done(self, command_id: str) -> bool:
        """Record the hub's command ``command_id`` as carried out; False if it already was.

        The courier records a command once the engine has carried it out (and journalled
        it), and acknowledges it only then: a power cut in between carries it out again
        after the restart, when the hub sends it again. Once, or in that case twice, never
        lost: a lineup again is the same lineup, a pause of a paused clock nothing (a lost
        ``game`` played a round without its names, its results counting nowhere).
        """
        if not isinstance(command_id, str) or not command_id:
            raise ValueError("a command id is text, not empty")
        with self._transaction("record a command as done") as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO done_commands (id, done_at_ms) VALUES (?, ?)",
                (command_id, self._clock_ms()),
            )
        return cursor.rowcount == 1

    # --- opening, closing, starting anew -------------------------------------------------

    def close(self) -> None:
        """Close the file (idempotent). The WAL is checkpointed into it if SQLite can."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()

    def __enter__(self) -> Outbox:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @classmethod
    def start_anew(cls, path: Path, *, clock_ms: Callable[[], int] = wall_ms) -> Outbox:
        """Move a damaged outbox aside (``move_aside``) and open a fresh one in its place.

        The fresh outbox's result and heartbeat numbers start above the old ones, so the hub
        never sees a seq again with another result: above the last seq still readable in the
        damaged file, and above the wall clock in seconds (about 1.7e9 in 2024, far above
        any table's count of results) when nothing could be read. Raises OutboxError if the
        file cannot be moved or the new one made.
        """
        path = Path(path)
        floor = max(_salvage_last_seq(path), clock_ms() // 1000)
        aside = move_aside(path)
        log.error(
            "outbox %s is damaged: moved to %s; results not yet sent from it are kept there "
            "only; new results are numbered from %d",
            path,
            aside,
            floor + 1,
        )
        outbox = cls(path, clock_ms=clock_ms)
        try:
            floor = max(floor, outbox.high_water())
            with outbox._transaction("start the new outbox's numbers") as db:
                db.execute("DELETE FROM sqlite_sequence WHERE name = 'results'")
                db.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES ('results', ?)", (floor,)
                )
                db.execute(
                    "INSERT OR REPLACE INTO counters (name, value) VALUES ('heartbeat', ?)",
                    (floor,),
                )
        except BaseException:
            outbox.close()
            raise
        return outbox

    @property
    def high_water_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".seq")

    def high_water(self) -> int:
        """The highest seq ``outbox.seq`` says was handed out (0 if none, or unreadable)."""
        return self._read_high_water()[0]

    @property
    def seqs_in_doubt(self) -> bool:
        """Whether the hub may hold seqs this outbox would hand out again: no ``outbox.seq``
        was found, and the hub has not said its last seq from this device since."""
        return not self._confirmed

    def _read_high_water(self) -> tuple[int, bool]:
        """``outbox.seq``: the highest seq handed out, and whether the count is known good
        (no trailing ``?``); (0, False) if the file is missing or unreadable."""
        try:
            text = self.high_water_path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return 0, False
        except (OSError, UnicodeDecodeError) as error:
            log.error("outbox %s: cannot read (%s)", self.high_water_path, error)
            return 0, False
        digits = text.removesuffix("?")
        if not digits.isdigit() or len(digits) > 16:
            return 0, False
        return int(digits), not text.endswith("?")

    def confirm_seqs(self, hub_last: int) -> int:
        """The hub's signed word: the last result seq it holds from this device is
        ``hub_last``. Number on above it; the results waiting here (none has left the table
        while the count was in doubt) keep their order and, if any has a seq the hub already
        holds, are all numbered anew above it. Durable on return; how many were renumbered."""
        with self._lock:
            with self._transaction("number on above the hub's results") as db:
                waiting = [
                    seq
                    for (seq,) in db.execute(
                        "SELECT seq FROM results WHERE receipt IS NULL ORDER BY seq"
                    )
                ]
                row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'results'")
                top = max(hub_last, self.high_water(), int((row.fetchone() or (0,))[0]))
                moved = waiting if waiting and waiting[0] <= hub_last else []
                for n, seq in enumerate(moved, 1):
                    db.execute("UPDATE results SET seq = ? WHERE seq = ?", (top + n, seq))
                top += len(moved)
                db.execute("DELETE FROM sqlite_sequence WHERE name = 'results'")
                db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('results', ?)", (top,))
                self._write_high_water(top)  # still in doubt, should the commit fail
            self._confirmed = True
            self._write_high_water(top)
        if moved:
            log.warning(
                "outbox %s: the hub holds results up to %d from this table; results %s are "
                "numbered from %d",
                self.path,
                hub_last,
                ", ".join(map(str, moved)),
                top - len(moved) + 1,
            )
        return len(moved)

    def _write_high_water(self, seq: int) -> None:
        """``outbox.seq`` := ``seq`` (``?`` after it while the count is in doubt), whole and
        fsynced (OutboxError if the card refuses)."""
        path = self.high_water_path
        partial = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            try:
                os.write(fd, f"{seq}{'' if self._confirmed else '?'}\n".encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(partial, path)
            sync_folder(path.parent)
        except OSError as error:
            with contextlib.suppress(OSError):
                partial.unlink()
            why = _OS_REASONS.get(error.errno or 0, error.strerror or str(error))
            raise OutboxError(
                f"outbox {self.path}: cannot keep a result ({why})", error.errno
            ) from None

    def _above_high_water(self) -> None:
        """Go on above ``outbox.seq`` if the database's own count is lower (its WAL lost)."""
        mark = self.high_water()
        if mark <= self.last_seq():
            return
        log.error(
            "outbox %s: its last seq is %d but %d was handed out (outbox.sqlite-wal lost?); "
            "new results are numbered from %d",
            self.path,
            self.last_seq(),
            mark,
            mark + 1,
        )
        with self._transaction("go on above the seqs handed out") as db:
            db.execute("DELETE FROM sqlite_sequence WHERE name = 'results'")
            db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('results', ?)", (mark,))

    def _set_up(self, new: bool) -> None:
        with self._reading("open the outbox") as db:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=FULL")
            (check,) = db.execute("PRAGMA quick_check").fetchone()
        if check != "ok":
            raise OutboxCorruptError(f"outbox {self.path} is damaged ({check})")
        if mode != "wal":  # a file system without shared memory; still durable, slower
            log.warning("outbox %s: journal mode %s, not wal", self.path, mode)
        with self._transaction("create the outbox") as db:
            (version,) = db.execute("PRAGMA user_version").fetchone()
            tables = {
                row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if version == 0 and not tables:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version in (1, 2, 3) and tables <= _TABLES:  # an older outbox: columns added
                if version == 1:  # before results could be set aside
                    db.execute("ALTER TABLE results ADD COLUMN refused TEXT")
                if version <= 2:  # before an acknowledgement named its pairing
                    db.execute("ALTER TABLE results ADD COLUMN acked_by TEXT")
                db.execute("ALTER TABLE results ADD COLUMN conflict TEXT")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version > SCHEMA_VERSION:
                raise OutboxError(
                    f"outbox {self.path} was made by a newer Klik (schema {version}; "
                    f"this one reads up to {SCHEMA_VERSION})"
                )
            elif version != SCHEMA_VERSION or not tables <= _TABLES:
                raise OutboxCorruptError(f"outbox {self.path} is not a Klik outbox")
        if new:  # the new file's name must survive a power cut too
            try:
                sync_folder(self.path.parent)
            except OSError as error:
                raise OutboxError(
                    f"outbox {self.path}: cannot create the outbox ({error.strerror or error})"
                ) from None
        self._above_high_water()

    # --- SQLite, with its errors made one line ----------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, doing: str) -> Iterator[sqlite3.Connection]:
        """A write transaction, committed (durably) when the block ends, or rolled back."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except sqlite3.Error as error:
                self._roll_back()
                raise self._error(doing, error) from None
            except BaseException:
                self._roll_back()
                raise

    @contextlib.contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as error:
                raise self._error(doing, error) from None

    def _roll_back(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def _error(self, doing: str, error: sqlite3.Error) -> OutboxError:
        """One line for a SQLite error: the file, what could not be done, why in plain words."""
        extended = getattr(error, "sqlite_errorcode", None) or 0
        code = extended & 0xFF
        if code in _SQLITE_DAMAGE:
            return OutboxCorruptError(f"outbox {self.path} is damaged ({error}); cannot {doing}")
        code_of_card: int | None = None
        if extended == _SQLITE_IOERR_SHMSIZE or code == 13:
            reason, code_of_card = "the disk is full", errno.ENOSPC
        elif code in (8, 14) and not self.path.parent.is_dir():
            reason = f"no folder {self.path.parent}"
        elif code == 8 or (code == 14 and not os.access(self.path.parent, os.W_OK)):
            # SQLite says "cannot open" when it cannot make the -wal file beside the outbox
            reason, code_of_card = "the file or its folder is read-only", refusal(self.path.parent)
        else:
            reason = _SQLITE_REASONS.get(code) or str(error) or type(error).__name__
        return OutboxError(f"outbox {self.path}: cannot {doing} ({reason})", code_of_card)


def refusal(folder: Path) -> int:
    """Why ``folder`` takes no writes (an errno): its file system is read-only, or a
    permission."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return errno.EROFS if read_only else errno.EACCES


def move_aside(path: Path) -> Path:
    """Rename a damaged outbox to the first free ``outbox.corrupt-N.sqlite``; returns it.

    Its WAL goes with it (a fresh outbox must never read the old one's WAL); the shared
    memory file is only an index of the WAL and is removed. Raises OutboxError if the file
    cannot be moved.
    """
    path = Path(path)
    n = 1
    while (aside := path.with_name(f"{path.stem}.corrupt-{n}{path.suffix}")).exists():
        n += 1
    try:
        path.replace(aside)
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            wal.replace(aside.with_name(aside.name + "-wal"))
        path.with_name(path.name + "-shm").unlink(missing_ok=True)
        sync_folder(path.parent)
    except OSError as error:
        raise OutboxError(
            f"outbox {path} is damaged and cannot be moved aside ({error.strerror or error})"
        ) from None
    return aside


def _salvage_last_seq(path: Path) -> int:
    """The highest result or heartbeat number a damaged outbox still shows; 0 if none."""
    highest = 0
    try:
        uri = path.resolve().as_uri() + "?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=1.0)
    except (sqlite3.Error, ValueError, OSError):
        return 0
    queries = (
        "SELECT seq FROM sqlite_sequence WHERE name = 'results'",
        "SELECT max(seq) FROM results",
        "SELECT value FROM counters WHERE name = 'heartbeat'",
    )
    try:
        for query in queries:
            with contextlib.suppress(sqlite3.Error):
                row = db.execute(query).fetchone()
                if row is not None and isinstance(row[0], int):
                    highest = max(highest, row[0])
    finally:
        db.close()
    return highest


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a file created or renamed in it is still there after a power cut."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
