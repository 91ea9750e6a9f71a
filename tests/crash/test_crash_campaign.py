"""The crash campaign: the real daemon (``klik sim``) killed with SIGKILL at the worst moments.

Each kill point plays on the real virtual table through its HTTP API (the same path a press
on the Pi takes: pin → gpiozero → queue → engine → journal), kills the process with
``kill -9`` at one moment, starts it again on the same state folder and checks the promise:

- the game comes back **paused** (a running clock), on the **same move**, with the **same
  draw pile and moves**;
- the **time left** is what the clock showed at the kill, or at most one checkpoint
  interval (1 s) more;
- **no gesture is lost or invented**: a release the journal holds counts; a press still
  down at the kill is let go without meaning anything.

The last campaign runs the daemon in a user and mount namespace of its own whose state
folder is a real 64 KiB tmpfs holding no reserve, fills it up mid-game and kills the daemon
while it is full (tests/crash/test_full_card.py: a card with its reserve).

These tests run in real time (a hold is a real second), as the page tests do.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHECKPOINT_S = 1.0
SLACK_S = 0.25  # HTTP round trips and the engine's loop between reading the clock and the kill
Json = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class VirtualTable:
    """A ``klik sim`` process on a state folder, started again after every kill."""

    def __init__(
        self,
        state_dir: Path,
        prefix: list[str] | None = None,
        config: Path | None = None,
        *,
        dated: bool = False,
    ) -> None:
        self.state_dir = state_dir  # as the daemon sees it
        # Each press says when it happened (``at``), so a gesture keeps its spacing however
        # slowly a loaded machine carries it; its answer then comes before the engine has it
        # (the kills here that follow a press at once need the undated press's answer).
        self.dated = dated
        self.config = config
        self.folder = state_dir  # as this test reads it (through a namespace's root, maybe)
        self.prefix = prefix or []
        self.env: dict[str, str] = {}  # added to the daemon's environment at its next start
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.log = state_dir.parent / f"{state_dir.name}.log"

    def start(self) -> VirtualTable:
        self.port = free_port()
        command = [
            *self.prefix,
            sys.executable,
            "-m",
            "klik.cli",
            "sim",
            "--port",
            str(self.port),
            "--state-dir",
            str(self.state_dir),
            *([] if self.config is None else ["--config", str(self.config)]),
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            with contextlib.suppress(OSError):
                self.state()
                return self
            time.sleep(0.05)  # sleep-ok: the real daemon on the real clock
        raise AssertionError(f"klik sim did not come up: {self.log.read_text()}")

    def kill(self) -> None:
        """kill -9: no journal closed, no buffer flushed, nothing tidied."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def died(self, timeout_s: float = 30.0) -> int:
        """Wait for the daemon to end by itself (at a kill point); its exit status."""
        assert self.process is not None
        status = self.process.wait(timeout_s)
        self.process = None
        return status

    def restart(self) -> Json:
        """Kill, start again on the same folder, and return the recovered state."""
        self.kill()
        return self.start().state()

    def stop(self) -> None:
        if self.process is not None:
            self.kill()

    def _request(self, path: str, body: Json | None = None) -> Json:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: Json = json.loads(response.read())
            return answer

    def state(self) -> Json:
        return self._request("/api/state")

    def down(self, seat: str) -> None:
        self._button(seat, pressed=True)

    def up(self, seat: str) -> None:
        self._button(seat, pressed=False)

    def _button(self, seat: str, *, pressed: bool) -> None:
        body: Json = {"pressed": pressed} | ({"at": time.time()} if self.dated else {})
        self._request(f"/api/seats/{seat}/button", body)

    def tap(self, seat: str) -> None:
        self.down(seat)
        time.sleep(0.1)  # sleep-ok: the real daemon on the real clock
        self.up(seat)
        time.sleep(0.2)  # sleep-ok: past the debounce: the tap is recognised

    def double(self, seat: str, *, settle: bool = True) -> None:
        """Two taps 0.2 s apart; without ``settle`` it returns right after the last release."""
        for _ in range(2):
            self.down(seat)
            time.sleep(0.1)  # sleep-ok: the real daemon on the real clock
            self.up(seat)
            if settle or _ == 0:
                time.sleep(0.1)  # sleep-ok: the real daemon on the real clock

    def hold(self, seat: str, seconds: float) -> None:
        self.down(seat)
        time.sleep(seconds)  # sleep-ok: the real daemon on the real clock
        self.up(seat)
        time.sleep(0.2)  # sleep-ok: the real daemon on the real clock


@pytest.fixture
def table(tmp_path: Path) -> Iterator[VirtualTable]:
    folder = tmp_path / "state"
    folder.mkdir()
    virtual = VirtualTable(folder).start()
    yield virtual
    virtual.stop()


def assert_recovered(after: Json, before: Json, *, moves: int, mover: str, lost_s: float) -> None:
    """The promise, against the state read just before the kill (``lost_s`` before it)."""
    assert after["state"] == "paused", after
    assert after["paused_by"] == "recovery", after
    assert after["mover"] == mover, after
    assert len(after["moves"]) == moves, after["moves"]
    assert after["moves"][: len(before["moves"])] == before["moves"][:moves]
    assert after["game_no"] == before["game_no"]
    left = before["time_left_s"] - lost_s
    assert left - SLACK_S <= after["time_left_s"] <= left + CHECKPOINT_S + SLACK_S, (
        f"time left {after['time_left_s']} s; the clock showed about {left:.2f} s at the kill"
    )


def killed_at(table: VirtualTable) -> tuple[Json, float]:
    """The state just before a kill and how long it was read before the kill."""
    read = time.monotonic()
    before = table.state()
    table.kill()
    return before, time.monotonic() - read


def restarted(table: VirtualTable) -> Json:
    return table.start().state()


def test_kills_through_a_game(table: VirtualTable) -> None:
    table.tap("D")  # D starts the game: A's clock runs
    assert table.state()["mover"] == "A"

    # Right after a hand-over: B's clock has just started.
    table.tap("A")
    time.sleep(0.3)  # sleep-ok: the real daemon on the real clock
    before, lost = killed_at(table)
    assert before["mover"] == "B"
    after = restarted(table)
    assert_recovered(after, before, moves=1, mover="B", lost_s=lost)

    # The mover's tap resumes; the move goes on with its time.
    table.tap("B")
    assert (table.state()["state"], len(table.state()["moves"])) == ("move", 1)

    # During a hold: B holds to draw, and the power goes before the hold is a draw.
    time.sleep(1.2)  # sleep-ok: more than one checkpoint interval into the resumed move
    table.down("B")
    time.sleep(0.5)  # sleep-ok: the real daemon on the real clock
    before, lost = killed_at(table)
    after = restarted(table)
    # The press held the clock; it is let go without drawing, and gives its time back.
    assert_recovered(after, before, moves=1, mover="B", lost_s=0.0)
    assert after["draw_tiles_left"] == before["draw_tiles_left"]
    time.sleep(3.5)  # sleep-ok: a press left down would now be a long hold: the move would restart
    assert table.state()["state"] == "paused"
    table.tap("B")  # resumes
    assert table.state()["state"] == "move"

    # Right after a release: B's move-ending tap is in the journal, not yet debounced.
    table.down("B")
    time.sleep(0.1)  # sleep-ok: the real daemon on the real clock
    table.up("B")
    before, lost = killed_at(table)
    after = restarted(table)
    assert after["moves"][-1]["seat"] == "B"
    assert after["moves"][-1]["ended_by"] == "tap"
    assert (after["state"], after["mover"], len(after["moves"])) == ("paused", "C", 2)
    table.tap("C")  # C's tap resumes C's move; it does not end it
    assert (table.state()["state"], table.state()["mover"]) == ("move", "C")

    # During a draw: C's hold is a draw at 1 s; the power goes at 1.3 s, still held.
    table.down("C")
    time.sleep(1.3)  # sleep-ok: the real daemon on the real clock
    before, lost = killed_at(table)
    assert before["mover"] == "D"
    assert before["moves"][-1]["drew"] == 1
    after = restarted(table)
    assert_recovered(after, before, moves=3, mover="D", lost_s=lost)
    assert after["draw_tiles_left"] == before["draw_tiles_left"]
    table.tap("D")  # resumes
    time.sleep(0.3)  # sleep-ok: the real daemon on the real clock

    # During a double tap: D's Rummikub, cut right after the second release.
    table.double("D", settle=False)
    killed_at(table)
    after = restarted(table)
    assert after["state"] == "scoring", after
    assert after["moves"][-1] == {**after["moves"][-1], "seat": "D", "ended_by": "rummikub"}
    assert len(after["moves"]) == 4
    assert (tuple(table.folder.glob("journal.corrupt-*"))) == ()


def test_kills_during_the_count(table: VirtualTable) -> None:
    table.tap("D")
    table.tap("A")  # A lays tiles: it has opened, so the count asks for its rack
    table.double("B")  # a Rummikub
    assert table.state()["state"] == "scoring"
    # A holds: +10 at 1 s and +10 every 0.5 s after; the power goes at 1.7 s, still held.
    table.down("A")
    time.sleep(1.7)  # sleep-ok: the real daemon on the real clock
    before, _ = killed_at(table)
    assert before["racks"]["A"] == 20
    after = restarted(table)
    assert after["state"] == "scoring"
    assert after["racks"] == before["racks"]
    time.sleep(1.2)  # sleep-ok: a press left down would go on adding 10 every half second
    assert table.state()["racks"] == before["racks"]
    # The count goes on: A confirms with a double tap, the last (C and D never opened).
    table.double("A")
    time.sleep(0.2)  # sleep-ok: the real daemon on the real clock
    done = table.state()
    assert (done["state"], done["result"]["rack"]["A"]) == ("done", 20)


# Holds a user and mount namespace open (with a small tmpfs) while daemons come and go in it.
HOLDER = 'mount -t tmpfs -o size="$2" tmpfs "$1" && echo mounted && exec sleep 600'


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[tuple[Path, list[str]]]:
    """``folder`` on a real tmpfs of ``size`` in a namespace of its own: its path as this
    test reads it (through the namespace's root), and the nsenter prefix for a daemon in it."""
    folder.mkdir()
    holder = subprocess.Popen(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", HOLDER, "sh", folder,
         size],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout is not None
    assert holder.stdout.readline() == b"mounted\n"
    inside = Path(f"/proc/{holder.pid}/root") / folder.relative_to("/")
    prefix = ["nsenter", f"--target={holder.pid}", "--user", "--mount", "--preserve-credentials"]
    try:
        yield inside, prefix
    finally:
        holder.kill()
        holder.wait(10)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    """A state folder on a real 64 KiB tmpfs: its path from outside, and the nsenter prefix."""
    with small_tmpfs(tmp_path / "small", "64k") as disk:
        yield disk


def fill(folder: Path) -> Path:
    """Write a file until the disk refuses; returns it, to be removed when space is wanted."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"x" * 512)
    return filler


def test_a_full_disk_then_a_kill_keeps_the_game(
    tmp_path: Path, small_disk: tuple[Path, list[str]]
) -> None:
    inside, prefix = small_disk
    # No reserve (``klik.table.game.card``): what a full card costs when none could be held.
    # tests/crash/test_full_card.py has the reserve.
    config = tmp_path / "table.toml"
    config.write_text("[table]\nreserve_mib = 0\n", encoding="utf-8")
    table = VirtualTable(tmp_path / "small", prefix=prefix, config=config)
    table.folder = inside  # the test reads the files through the namespace's root
    table.start()
    try:
        table.tap("D")
        table.tap("A")
        table.tap("B")
        before = table.state()
        assert before["mover"] == "C"
        filler = fill(inside)
        # tmpfs keeps files in whole pages: bounces on A's button (a press shorter than the
        # debounce means nothing in play) fill the journal's last page with their edges.
        for _ in range(300):
            if "the card is full" in table.log.read_text():
                break
            table.down("A")
            table.up("A")
        assert table.state()["moves"] == before["moves"]
        # The disk is full: C's tap and D's hold go on in play, the journal cannot keep them.
        table.tap("C")
        table.hold("D", 1.3)
        time.sleep(1.5)  # sleep-ok: checkpoints try to write, and fail
        assert table.state()["mover"] == "A"
        assert table.state()["card"] == "full"  # the seats and the hub are told
        table.kill()
        os.unlink(filler)  # the organiser frees some space before the table comes back
        after = restarted(table)
        # Nothing written before the disk filled is lost, and the journal was not damaged.
        assert after["state"] == "paused"
        assert after["card"] == "ok"
        assert after["game_no"] == before["game_no"]
        kept = len(before["moves"])
        assert after["moves"][:kept] == before["moves"]
        # The disk did fill up. (Once per streak of failures: a short line that still fits in
        # the last page, after a longer one failed, ends a streak, so it may say so twice.)
        assert table.log.read_text().count("the card is full") >= 1
        assert tuple(inside.glob("journal.corrupt-*")) == ()
        journal = (inside / "journal.jsonl").read_bytes()
        assert journal.endswith(b"\n")
        assert all(json.loads(line) for line in journal.splitlines())
        table.tap(after["mover"])  # and the game goes on
        assert table.state()["state"] == "move"
    finally:
        table.stop()
