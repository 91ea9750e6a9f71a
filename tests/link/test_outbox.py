"""The outbox: seqs never reused, durable on return, a full disk and a damaged file survived.

Processes killed with SIGKILL stand in for power cuts: that shows nothing the outbox promised
was still only in the process's memory. (The page cache survives a SIGKILL; that the fsyncs
reach the card is SQLite's ``synchronous=FULL``, not something a test on one machine can cut.)
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from klik.link import protocol as p
from klik.link.outbox import (
    HEARTBEAT_BLOCK,
    MAX_RESULT,
    Conflict,
    Outbox,
    OutboxCorruptError,
    OutboxError,
    Pending,
    move_aside,
)

RESULT = {"table": 7, "game": 3, "winners": ["B"], "seats": {"A": {"name": "Łukasz"}}}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "outbox.sqlite"


def raw(path: Path, query: str) -> list[tuple[Any, ...]]:
    """What the file holds, read past the class (a second reader, as WAL allows)."""
    db = sqlite3.connect(path)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


# --- results -----------------------------------------------------------------------------


def test_results_wait_oldest_first_until_the_hub_acknowledges_them(path: Path) -> None:
    now = [1_000]
    outbox = Outbox(path, clock_ms=lambda: now[0])
    assert (outbox.oldest_waiting(), outbox.waiting(), outbox.last_seq()) == (None, 0, 0)
    assert outbox.keep(RESULT) == 1
    now[0] = 2_000
    assert outbox.keep({"game": 4}) == 2
    assert outbox.oldest_waiting() == Pending(1, RESULT, 1_000, 0)
    outbox.tried(1)
    outbox.tried(1)
    assert outbox.oldest_waiting() == Pending(1, RESULT, 1_000, 2)
    assert (outbox.waiting(), outbox.last_seq(), outbox.receipt(1)) == (2, 2, None)
    outbox.acknowledged(1, "K7QX2")
    assert outbox.oldest_waiting() == Pending(2, {"game": 4}, 2_000, 0)
    assert (outbox.waiting(), outbox.last_seq(), outbox.receipt(1)) == (1, 2, "K7QX2")
    outbox.acknowledged(2, "M3PZ9")
    assert (outbox.oldest_waiting(), outbox.waiting(), outbox.receipt(2)) == (None, 0, "M3PZ9")
    outbox.close()


def test_seqs_are_never_reused_across_restarts_acks_and_removed_rows(path: Path) -> None:
    outbox = Outbox(path)
    assert [outbox.keep({"n": n}) for n in range(3)] == [1, 2, 3]
    outbox.acknowledged(3, "AAAAA")  # the newest acknowledged: its seq is still taken
    outbox.close()
    outbox = Outbox(path)
    assert (outbox.last_seq(), outbox.keep({"n": 3})) == (3, 4)
    outbox.close()
    # A later Klik may prune acknowledged rows; AUTOINCREMENT still never hands 4 out again.
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM results")
    db.close()
    outbox = Outbox(path)
    assert (outbox.last_seq(), outbox.waiting(), outbox.oldest_waiting()) == (4, 0, None)
    assert outbox.keep({"n": 4}) == 5
    outbox.close()


def test_a_body_is_kept_as_canonical_json(path: Path) -> None:
    with Outbox(path) as outbox:
        outbox.keep(RESULT)
        # sorted keys, no spaces, non-ASCII as \\u escapes: the bytes the MAC will cover
        assert raw(path, "SELECT body FROM results") == [(p.canonical(RESULT).decode(),)]
        assert outbox.oldest_waiting() == Pending(1, RESULT, outbox.oldest_waiting().kept_at_ms, 0)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"duration_ms": 1.5}, "duration_ms"),  # a float could never be signed
        (["not", "an", "object"], "body"),  # a result body is a JSON object
        ({"pad": "x" * MAX_RESULT}, "body"),  # too big for an envelope: would block the queue
    ],
)
def test_a_body_that_could_never_be_sent_is_refused_before_anything_is_written(
    path: Path, body: Any, field: str
) -> None:
    with Outbox(path) as outbox:
        with pytest.raises(p.ProtocolError) as caught:
            outbox.keep(body)
        assert caught.value.field == field
        assert (outbox.last_seq(), outbox.waiting()) == (0, 0)
        assert outbox.keep({}) == 1


def test_the_biggest_body_kept_fits_one_envelope(path: Path) -> None:
    body = {"pad": ""}
    body["pad"] = "x" * (MAX_RESULT - len(p.canonical(body)))
    with Outbox(path) as outbox:
        seq = outbox.keep(body)
        with pytest.raises(p.ProtocolError):
            outbox.keep({"pad": body["pad"] + "x"})
    # the longest device id and the largest seq around it: still within MAX_BODY
    envelope = p.Envelope("result", "d" * 64, 2**53 - 1, body)
    assert len(p.seal(envelope, p.key_bytes("ab" * 32))) == p.MAX_BODY
    assert seq == 1


def test_a_second_ack_keeps_the_first_receipt(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with Outbox(path) as outbox:
        outbox.keep(RESULT)
        outbox.acknowledged(1, "K7QX2")
        with caplog.at_level(logging.WARNING):
            outbox.acknowledged(1, "K7QX2")  # the same ack again (a resend): nothing to say
            assert caplog.records == []
            outbox.acknowledged(1, "ZZZZZ")
        assert outbox.receipt(1) == "K7QX2"  # the receipt the players may have seen stays
        assert caplog.messages == [
            f"outbox {path}: result 1 was acknowledged as R-K7QX2, now as R-ZZZZZ; keeping R-K7QX2"
        ]


def test_an_ack_for_a_result_not_kept_here_is_logged_and_ignored(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with Outbox(path) as outbox, caplog.at_level(logging.WARNING):
        outbox.acknowledged(9, "K7QX2")
        assert (outbox.receipt(9), outbox.last_seq()) == (None, 0)
    assert caplog.messages == [f"outbox {path}: the hub acknowledged result 9, not kept here"]


def test_two_threads_keeping_at_once_get_distinct_seqs(path: Path) -> None:
    outbox = Outbox(path)
    seqs: list[int] = []

    def keep_many(who: str) -> None:
        for n in range(40):
            seqs.append(outbox.keep({"who": who, "n": n}))

    threads = [threading.Thread(target=keep_many, args=(who,)) for who in ("engine", "sim")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seqs) == list(range(1, 81))
    assert outbox.waiting() == 80
    outbox.close()


# --- heartbeats and commands -------------------------------------------------------------


def test_heartbeat_seqs_grow_across_restarts_with_one_commit_per_block(path: Path) -> None:
    outbox = Outbox(path)
    assert [outbox.next_heartbeat_seq() for _ in range(HEARTBEAT_BLOCK)] == list(
        range(HEARTBEAT_BLOCK)
    )
    # The whole first block was one commit: the file says where the block ends.
    assert raw(path, "SELECT value FROM counters") == [(HEARTBEAT_BLOCK,)]
    assert outbox.next_heartbeat_seq() == HEARTBEAT_BLOCK
    assert raw(path, "SELECT value FROM counters") == [(2 * HEARTBEAT_BLOCK,)]
    outbox.next_heartbeat_seq()
    outbox.close()
    # A restart skips what was left of the block: never lower, never the same.
    outbox = Outbox(path)
    assert outbox.next_heartbeat_seq() == 2 * HEARTBEAT_BLOCK
    outbox.close()


def test_a_command_is_done_once_even_across_restarts(path: Path) -> None:
    outbox = Outbox(path)
    assert outbox.command_done("cmd-17")
    assert not outbox.command_done("cmd-17")
    assert outbox.command_done("cmd-18")
    outbox.close()
    outbox = Outbox(path)
    assert not outbox.command_done("cmd-17")
    assert not outbox.command_done("cmd-18")
    with pytest.raises(ValueError, match="a command id is text, not empty"):
        outbox.command_done("")
    outbox.close()


# --- a process killed at any moment -----------------------------------------------------

KEEP_THEN_DIE = r"""
import os, signal, sys
from pathlib import Path
from klik.link.outbox import Outbox

seq = Outbox(Path(sys.argv[1])).keep({"game": 3, "winners": ["B"]})
print(seq, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no close, no exit handlers: as a power cut
"""


def test_a_result_is_kept_once_keep_has_returned(path: Path) -> None:
    for expected in (1, 2):
        run = subprocess.run(
            [sys.executable, "-c", KEEP_THEN_DIE, str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert run.returncode == -signal.SIGKILL, run.stderr
        assert int(run.stdout) == expected
    with Outbox(path) as outbox:
        assert outbox.oldest_waiting() == Pending(1, {"game": 3, "winners": ["B"]},
                                                  outbox.oldest_waiting().kept_at_ms, 0)  # type: ignore[union-attr]  # fmt: skip
        assert (outbox.waiting(), outbox.last_seq()) == (2, 2)


# The child runs the link's whole round (keep, try, ack, heartbeat, commands) and prints
# each step once it has returned; KLIK_KILL_AT says after which printed step it kills
# itself. KLIK_KILL_AFTER_S instead kills it from a timer, in the middle of whatever it is
# doing, while it keeps and acknowledges in a loop.
ROUND = r"""
import json, os, signal, sys, threading
from pathlib import Path
from klik.link.outbox import Outbox

path, run = Path(sys.argv[1]), int(sys.argv[2])
kill_at = int(os.environ.get("KLIK_KILL_AT", "-1"))
steps = 0

def done(**what):
    global steps
    print(json.dumps(what), flush=True)
    if steps == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    steps += 1

outbox = Outbox(path)
done(opened=outbox.last_seq())
if "KLIK_KILL_AFTER_S" in os.environ:
    kill = (os.getpid(), signal.SIGKILL)
    threading.Timer(float(os.environ["KLIK_KILL_AFTER_S"]), os.kill, kill).start()
    for n in range(100_000):
        body = {"run": run, "n": n}
        done(kept=outbox.keep(body), body=body)
        oldest = outbox.oldest_waiting()
        outbox.acknowledged(oldest.seq, f"R{oldest.seq}")
        done(acked=oldest.seq, receipt=f"R{oldest.seq}")
        done(heartbeat=outbox.next_heartbeat_seq())
for n in (1, 2):
    body = {"run": run, "n": n}
    done(kept=outbox.keep(body), body=body)
oldest = outbox.oldest_waiting()
outbox.tried(oldest.seq)
done(tried=oldest.seq)
outbox.acknowledged(oldest.seq, f"R{oldest.seq}")
done(acked=oldest.seq, receipt=f"R{oldest.seq}")
done(heartbeat=outbox.next_heartbeat_seq())
done(command=f"cmd-{run}", first=outbox.command_done(f"cmd-{run}"))
done(command="cmd-shared", first=outbox.command_done("cmd-shared"))
outbox.acknowledged(oldest.seq, "OTHER")  # the hub answers again, with another receipt
done(acked=oldest.seq, receipt="OTHER")
body = {"run": run, "n": 3}
done(kept=outbox.keep(body), body=body)
done(heartbeat=outbox.next_heartbeat_seq())
outbox.close()
done(closed=True)
"""
ROUND_STEPS = 12  # the done() calls above, outside the loop


class Model:
    """What the children printed, that is what the outbox promised, over every run."""

    def __init__(self) -> None:
        self.kept: dict[int, Any] = {}
        self.receipts: dict[int, str] = {}
        self.heartbeats: list[int] = []
        self.commands: dict[str, int] = {}  # id: times it came back as "first"
        self.handed_out = 0  # the highest seq the outbox has shown, kept or skipped

    def take(self, stdout: str) -> None:
        for line in stdout.splitlines():
            step = json.loads(line)
            if "opened" in step:
                assert step["opened"] >= max(self.kept, default=0)
            elif "kept" in step:
                # new, never one given before (nor one skipped after a kill)
                assert step["kept"] > max(max(self.kept, default=0), self.handed_out)
                self.kept[step["kept"]] = step["body"]
            elif "acked" in step:
                self.receipts.setdefault(step["acked"], step["receipt"])  # the first one stays
            elif "heartbeat" in step:
                assert step["heartbeat"] > max(self.heartbeats, default=-1)
                self.heartbeats.append(step["heartbeat"])
            elif "command" in step:
                self.commands[step["command"]] = self.commands.get(step["command"], 0)
                self.commands[step["command"]] += step["first"]

    def check(self, path: Path, in_flight: bool = False) -> None:
        """The file holds every result printed as kept and every receipt printed. With
        ``in_flight`` the step the child was killed in may have got in too (whole) or not:
        at most one result or receipt more, which the model then takes as the file has it."""
        assert raw(path, "PRAGMA integrity_check") == [("ok",)]
        stored = {seq: (body, receipt) for seq, body, receipt in raw(path, "SELECT seq, body, receipt FROM results")}  # fmt: skip
        for seq, body in self.kept.items():
            assert stored[seq][0] == p.canonical(body).decode()
            if seq in self.receipts:
                assert stored[seq][1] == self.receipts[seq]
        new_results = [seq for seq in stored if seq not in self.kept]
        new_receipts = [seq for seq, (_, r) in stored.items() if r and seq not in self.receipts]
        assert len(new_results) + len(new_receipts) <= in_flight
        for seq in new_results:
            assert seq > max(self.kept, default=0)
            self.kept[seq] = json.loads(stored[seq][0])
        for seq in new_receipts:
            assert stored[seq][1] == f"R{seq}"
            self.receipts[seq] = stored[seq][1]
        with Outbox(path) as outbox:
            # A seq handed out (outbox.seq written) whose result the kill kept from its
            # commit is skipped, never handed out again: at most one more than the highest
            # seq handed out before, kept or skipped (kills in a row may skip one each).
            kept = max(self.kept, default=0)
            assert kept <= outbox.last_seq() <= max(kept, self.handed_out) + in_flight
            self.handed_out = max(self.handed_out, outbox.last_seq())
            assert outbox.waiting() == len(self.kept) - len(self.receipts)
        assert all(times <= 1 for times in self.commands.values())


def run_round(path: Path, run: int, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ROUND, str(path), str(run)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


@pytest.mark.slow  # real processes, killed
def test_a_power_cut_after_any_step_loses_nothing_that_was_promised(path: Path) -> None:
    model = Model()
    for run, kill_at in enumerate([*range(ROUND_STEPS), -1]):  # -1: the last run ends well
        done = run_round(path, run, KLIK_KILL_AT=str(kill_at))
        assert done.returncode == (-signal.SIGKILL if kill_at >= 0 else 0), done.stderr
        assert len(done.stdout.splitlines()) == (kill_at + 1 if kill_at >= 0 else ROUND_STEPS)
        model.take(done.stdout)
        model.check(path)
    assert model.commands["cmd-shared"] == 1  # carried out by exactly one of the runs
    assert len(model.kept) > ROUND_STEPS


@pytest.mark.slow  # real processes, killed
@pytest.mark.parametrize("after_s", [0.0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1])
def test_a_power_cut_in_the_middle_of_a_write_leaves_a_sound_outbox(
    path: Path, after_s: float
) -> None:
    model = Model()
    for run in range(3):  # three cuts in a row on the same file
        done = run_round(path, run, KLIK_KILL_AFTER_S=str(after_s))
        assert done.returncode == -signal.SIGKILL, done.stderr
        model.take(done.stdout)
        model.check(path, in_flight=True)  # the step under way may or may not have committed


# --- a full or read-only disk --------------------------------------------------------------

# Runs as root of its own user and mount namespace, so it can mount a real small tmpfs, fill
# it, and remount it read-only. Prints what it saw as one JSON object.
FULL_DISK = r"""
import json, subprocess, sys
from pathlib import Path
from klik.link.outbox import Outbox, OutboxError

folder = Path(sys.argv[1])
outbox = Outbox(folder / "outbox.sqlite")
kept = [outbox.keep({"n": 0})]
with open(folder / "filler", "wb", buffering=0) as filler:  # the card fills up
    try:
        while True:
            filler.write(b"x" * 1024)
    except OSError:
        pass
errors = []
for n in range(1, 100):
    try:
        kept.append(outbox.keep({"n": n, "pad": "x" * 300}))
    except OutboxError as error:
        errors.append(str(error))
        break
outbox.tried(kept[0])  # best effort: logs, never raises
try:
    outbox.acknowledged(kept[0], "K7QX2")
except OutboxError as error:
    errors.append(str(error))
full = {"waiting": outbox.waiting(), "oldest": outbox.oldest_waiting().seq}
(folder / "filler").unlink()  # the organiser frees some space: the outbox goes on
after = outbox.keep({"n": "after"})
outbox.acknowledged(kept[0], "K7QX2")
outbox.close()
outbox = Outbox(folder / "outbox.sqlite")
reopened = {"waiting": outbox.waiting(), "last": outbox.last_seq(), "receipt": outbox.receipt(kept[0])}
outbox.close()
subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)  # the card gives up
try:
    Outbox(folder / "outbox.sqlite")
    read_only = None
except OutboxError as error:
    read_only = str(error)
print(json.dumps({"kept": kept, "errors": errors, "full": full, "after": after,
                  "reopened": reopened, "read_only": read_only}))
"""

TOO_SMALL = r"""
import sys
from pathlib import Path
from klik.link.outbox import Outbox, OutboxError

try:
    Outbox(Path(sys.argv[1]) / "outbox.sqlite")
except OutboxError as error:
    print(error)
"""


def in_small_tmpfs(tmp_path: Path, script: str, size: str) -> tuple[Path, str]:
    folder = tmp_path / "small"
    folder.mkdir()
    (tmp_path / "script.py").write_text(script)
    run = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            f'mount -t tmpfs -o size={size} tmpfs "$1" && exec "$2" "$3" "$1"',
            "sh",
            str(folder),
            sys.executable,
            str(tmp_path / "script.py"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return folder / "outbox.sqlite", run.stdout


def test_a_full_disk_is_one_line_and_the_outbox_goes_on_once_there_is_room(
    tmp_path: Path,
) -> None:
    # 128 KiB, not the journal's 16: SQLite's WAL index (-shm) alone takes 32 KiB.
    path, out = in_small_tmpfs(tmp_path, FULL_DISK, "128k")
    seen = json.loads(out)
    kept = seen["kept"]
    assert kept == list(range(1, len(kept) + 1))  # whatever fitted, numbered in order
    assert seen["errors"] == [
        f"outbox {path}: cannot keep a result (the disk is full)",
        f"outbox {path}: cannot record the hub's receipt (the disk is full)",
    ]
    assert seen["full"] == {"waiting": len(kept), "oldest": 1}  # nothing lost meanwhile
    assert seen["after"] == kept[-1] + 1  # the refused result took no number
    assert seen["reopened"] == {"waiting": len(kept), "last": kept[-1] + 1, "receipt": "K7QX2"}
    assert seen["read_only"] == (
        f"outbox {path}: cannot open the outbox (the file or its folder is read-only)"
    )


def test_a_disk_too_full_to_open_the_outbox_is_one_line(tmp_path: Path) -> None:
    path, out = in_small_tmpfs(tmp_path, TOO_SMALL, "16k")
    assert out == f"outbox {path}: cannot open the outbox (the disk is full)\n"


def test_an_outbox_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "outbox.sqlite"
    with pytest.raises(OutboxError) as caught:
        Outbox(path)
    assert str(caught.value) == f"outbox {path}: cannot open the outbox (no folder {path.parent})"


# --- a damaged file ---------------------------------------------------------------------


def test_a_file_that_is_no_database_is_moved_aside_and_a_new_outbox_begun(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path.write_bytes(b"\x00" * 100 + b"not SQLite at all" * 300)  # a power cut mid-copy, say
    with pytest.raises(OutboxCorruptError) as caught:
        Outbox(path)
    assert str(caught.value) == (
        f"outbox {path} is damaged (file is not a database); cannot open the outbox"
    )
    assert isinstance(caught.value, OutboxError)
    # A WAL beside it (SQLite itself removes one that holds nothing, as this one, on close):
    # it goes with the damaged file, so the new outbox never replays it.
    (path.parent / "outbox.sqlite-wal").write_bytes(b"an old WAL that must not be replayed")
    with caplog.at_level(logging.ERROR):
        outbox = Outbox.start_anew(path, clock_ms=lambda: 1_700_000_000_123)
    aside = path.parent / "outbox.corrupt-1.sqlite"
    assert aside.read_bytes().endswith(b"not SQLite at all")
    assert (path.parent / "outbox.corrupt-1.sqlite-wal").read_bytes().startswith(b"an old WAL")
    # Nothing readable in it: the new numbers start above the clock's seconds, far above
    # anything a table has counted, so the hub never sees an old seq with a new result.
    assert outbox.keep(RESULT) == 1_700_000_001
    assert outbox.next_heartbeat_seq() == 1_700_000_000
    assert caplog.messages == [
        f"outbox {path} is damaged: moved to {aside}; results not yet sent from it are kept "
        "there only; new results are numbered from 1700000001"
    ]
    outbox.close()
    path.write_bytes(b"damaged again")
    assert move_aside(path) == path.parent / "outbox.corrupt-2.sqlite"


def test_a_damaged_page_is_moved_aside_and_numbering_goes_on_above_it(path: Path) -> None:
    with Outbox(path) as outbox:
        for n in range(30):
            outbox.keep({"n": n, "pad": "x" * 500})
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\x5a" * 4096  # one page of garbage: a card's bad block
    path.write_bytes(bytes(data))
    with pytest.raises(OutboxCorruptError, match="is damaged"):
        Outbox(path)
    with Outbox.start_anew(path, clock_ms=lambda: 0) as outbox:  # a Pi without a clock yet
        assert outbox.keep(RESULT) == 31  # above the last seq still readable in the old file


def test_another_programs_database_is_not_taken_for_an_outbox(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (name TEXT)")
    db.close()
    with pytest.raises(OutboxCorruptError) as caught:
        Outbox(path)
    assert str(caught.value) == f"outbox {path} is not a Klik outbox"


def test_an_outbox_from_a_newer_klik_is_refused_and_left_alone(path: Path) -> None:
    Outbox(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 5")
    db.close()
    before = path.read_bytes()
    with pytest.raises(OutboxError) as caught:
        Outbox(path)
    assert not isinstance(caught.value, OutboxCorruptError)  # not damaged: not to be moved
    assert str(caught.value) == (
        f"outbox {path} was made by a newer Klik (schema 5; this one reads up to 4)"
    )
    assert path.read_bytes() == before


def test_the_outbox_is_in_wal_mode_with_a_schema_version(path: Path) -> None:
    Outbox(path).close()
    assert raw(path, "PRAGMA journal_mode") == [("wal",)]
    assert raw(path, "PRAGMA user_version") == [(4,)]


def test_an_outbox_of_the_first_schema_is_migrated_with_its_results(path: Path) -> None:
    """A card written before results could be set aside opens with every result waiting."""
    with sqlite3.connect(path) as db:
        db.executescript(
            """CREATE TABLE results (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL,
                   kept_at_ms INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0,
                   receipt TEXT, acked_at_ms INTEGER);
               CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
               CREATE TABLE done_commands (id TEXT PRIMARY KEY, done_at_ms INTEGER NOT NULL)
                   WITHOUT ROWID;
               INSERT INTO results (body, kept_at_ms) VALUES ('{"game":1}', 0);
               PRAGMA user_version = 1;"""
        )
    db.close()
    with Outbox(path) as outbox:
        assert outbox.waiting() == 1
        assert outbox.set_aside() == []
        outbox.refused(1, "body.finished_at: not a time")
        assert outbox.waiting() == 0
        assert [(x.seq, x.game) for x in outbox.set_aside()] == [(1, 1)]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (4,)
    db.close()


def test_an_outbox_of_the_second_schema_keeps_its_receipts_and_resends_none(path: Path) -> None:
    """A card written before the hub could ask for acknowledged results again: they were
    acknowledged by no known pairing, so no hub asks for them."""
    with sqlite3.connect(path) as db:
        db.executescript(
            """CREATE TABLE results (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL,
                   kept_at_ms INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0,
                   receipt TEXT, acked_at_ms INTEGER, refused TEXT);
               CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
               CREATE TABLE done_commands (id TEXT PRIMARY KEY, done_at_ms INTEGER NOT NULL)
                   WITHOUT ROWID;
               INSERT INTO results (body, kept_at_ms, receipt) VALUES ('{"game":1}', 0, 'r1');
               PRAGMA user_version = 2;"""
        )
    db.close()
    with Outbox(path) as outbox:
        assert (outbox.receipt(1), outbox.waiting()) == ("r1", 0)
        assert outbox.acked_seq("d1") == 0
        assert outbox.resend_after("d1", 0) == 0
    assert raw(path, "PRAGMA user_version") == [(4,)]


def test_an_outbox_of_the_third_schema_opens_with_no_conflict(path: Path) -> None:
    """A card written before a conflict was kept apart from a receipt: its results are
    sent, none in conflict, and a conflict can be kept from now on."""
    with sqlite3.connect(path) as db:
        db.executescript(
            """CREATE TABLE results (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL,
                   kept_at_ms INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0,
                   receipt TEXT, acked_at_ms INTEGER, refused TEXT, acked_by TEXT);
               CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
               CREATE TABLE done_commands (id TEXT PRIMARY KEY, done_at_ms INTEGER NOT NULL)
                   WITHOUT ROWID;
               INSERT INTO results (body, kept_at_ms, receipt, acked_by)
                   VALUES ('{"game":1}', 0, 'r1', 'd1');
               INSERT INTO results (body, kept_at_ms) VALUES ('{"game":1}', 0);
               PRAGMA user_version = 3;"""
        )
    db.close()
    with Outbox(path) as outbox:
        assert (outbox.receipt(1), outbox.acked_seq("d1"), outbox.conflicts()) == ("r1", 1, [])
        outbox.acknowledged(2, "r2", by="d1", conflict=True)
        assert outbox.conflicts() == [Conflict(2, 1)]
    assert raw(path, "PRAGMA user_version") == [(4,)]


def test_a_conflict_is_kept_until_the_hub_says_the_judge_settled_it(path: Path) -> None:
    with Outbox(path) as outbox:
        for game in (1, 2, 2, 3):
            outbox.keep({"game": game})
        outbox.acknowledged(1, "r1", by="d")
        outbox.acknowledged(2, "r2", by="d", conflict=True)
        outbox.acknowledged(3, "r3", by="d", conflict=True)
        outbox.acknowledged(3, "r3", by="d")  # the same ack again changes nothing
        assert outbox.conflicts() == [Conflict(2, 2), Conflict(3, 2)]
        assert outbox.settled([3, 4, 1]) == 1  # 4 is no result, 1 was never in conflict
        assert outbox.settled([3]) == 0  # settled once
        assert outbox.conflicts() == [Conflict(2, 2)]
    with Outbox(path) as outbox:  # durable
        assert outbox.conflicts() == [Conflict(2, 2)]
        assert outbox.receipt(2) == "r2"


def test_results_the_hub_lost_wait_again_for_this_pairing_only(path: Path) -> None:
    with Outbox(path) as outbox:
        for game in range(1, 6):
            outbox.keep({"game": game})
        outbox.acknowledged(1, "old", by="t3-old")  # before the table was paired again
        for seq in (2, 3, 4):
            outbox.acknowledged(seq, f"r{seq}", by="t3-new")
        outbox.refused(5, "body.game: not a game")
        assert (outbox.acked_seq("t3-new"), outbox.acked_seq("t3-old")) == (4, 1)
        assert outbox.resend_after("t3-new", 2) == 2  # 3 and 4; not 1 (another pairing's)
        assert outbox.waiting() == 2
        pending = outbox.oldest_waiting()
        assert pending is not None
        assert pending.seq == 3
        assert outbox.acked_seq("t3-new") == 2
        outbox.acknowledged(3, "r3", by="t3-new")  # the same receipt, as the hub gives it
        assert (outbox.receipt(3), outbox.acked_seq("t3-new")) == ("r3", 3)
        assert outbox.resend_after("t3-new", 4) == 0


KEEP_FOUR_THEN_DIE = r"""
import os, signal, sys
from pathlib import Path
from klik.link.outbox import Outbox

outbox = Outbox(Path(sys.argv[1]))
for game in range(1, 5):
    outbox.keep({"game": game, "winners": ["B"]})
os.kill(os.getpid(), signal.SIGKILL)  # the WAL not yet folded into the file
"""


def test_a_lost_wal_never_makes_the_table_hand_out_a_seq_again(path: Path) -> None:
    """outbox.sqlite-wal deleted, then a power cut: the file alone forgets seqs 1 to 4."""
    run = subprocess.run(
        [sys.executable, "-c", KEEP_FOUR_THEN_DIE, str(path)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert run.returncode == -signal.SIGKILL, run.stderr
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size > 0  # the four results were only in the WAL
    wal.unlink()
    path.with_name(path.name + "-shm").unlink(missing_ok=True)
    with Outbox(path) as outbox:
        assert outbox.keep({"game": 5, "winners": ["B"]}) == 5  # never 1 again
        assert outbox.last_seq() == 5
    # A new outbox no hub has confirmed yet: its count is in doubt (the "?").
    assert path.with_name("outbox.seq").read_text() == "5?\n"


# --- a count in doubt: the hub says which seqs it holds -----------------------------------


def test_a_new_outbox_is_in_doubt_until_the_hub_says_its_last_seq(path: Path) -> None:
    seq_file = path.with_name("outbox.seq")
    with Outbox(path) as outbox:
        assert outbox.seqs_in_doubt
        assert [outbox.keep({"game": g}) for g in (1, 2)] == [1, 2]
        assert seq_file.read_text() == "2?\n"
        assert outbox.confirm_seqs(0) == 0  # the hub holds nothing from it: nothing moves
        assert not outbox.seqs_in_doubt
        assert seq_file.read_text() == "2\n"
        assert outbox.keep({"game": 3}) == 3
    with Outbox(path) as outbox:  # confirmed once, for good
        assert not outbox.seqs_in_doubt
        assert seq_file.read_text() == "3\n"


def test_results_waiting_on_seqs_the_hub_holds_are_numbered_above_them_in_order(
    path: Path,
) -> None:
    """A fresh card kept games 1 to 3 as seqs 1 to 3; the hub holds 1 to 7 from the old
    card: they go as 8, 9, 10, oldest first, with their bodies, and counting goes on."""
    with Outbox(path, clock_ms=lambda: 5) as outbox:
        for game in (1, 2, 3):
            outbox.keep({"game": game})
        assert outbox.confirm_seqs(7) == 3
        assert not outbox.seqs_in_doubt
        assert (outbox.last_seq(), outbox.waiting()) == (10, 3)
        assert outbox.oldest_waiting() == Pending(8, {"game": 1}, 5, 0)
        assert outbox.seq_of_game(3) == 10
        assert outbox.keep({"game": 4}) == 11
    assert raw(path, "SELECT seq, body FROM results ORDER BY seq") == [
        (8, '{"game":1}'), (9, '{"game":2}'), (10, '{"game":3}'), (11, '{"game":4}'),
    ]  # fmt: skip
    assert path.with_name("outbox.seq").read_text() == "11\n"


def test_a_count_above_the_hubs_keeps_its_numbers(path: Path) -> None:
    with Outbox(path, clock_ms=lambda: 5) as outbox:
        for game in (1, 2, 3):
            outbox.keep({"game": game})
        assert outbox.confirm_seqs(0) == 0
        assert outbox.oldest_waiting() == Pending(1, {"game": 1}, 5, 0)
        assert outbox.keep({"game": 4}) == 4


@pytest.mark.parametrize("text", ["", "x", "12a", "?", "9" * 17])
def test_an_unreadable_seq_file_is_a_count_in_doubt(path: Path, text: str) -> None:
    path.with_name("outbox.seq").write_text(text)
    with Outbox(path) as outbox:
        assert outbox.seqs_in_doubt
        assert outbox.high_water() == 0


def test_the_last_game_is_the_highest_game_number_kept(path: Path) -> None:
    """A floor under the table's game counter: game numbers never repeat, even after a card
    lost its counter and its result files but kept its outbox."""
    with Outbox(path) as outbox:
        assert outbox.last_game() == 0
        for game in (3, 7, 5):
            outbox.keep({"game": game})
        outbox.acknowledged(2, "r2", by="d")  # acknowledged or not, it counts
        assert outbox.last_game() == 7
