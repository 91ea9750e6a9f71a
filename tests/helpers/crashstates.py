"""Crash states, as ALICE (OSDI 2014) builds them: every state a card can be left in by a cut
at any instant of the table's writes, and the real recovery started on each.

``Recorder`` wraps the ``os`` calls that change files (``open``, ``write``, ``fsync``,
``ftruncate``, ``truncate``, ``replace``, ``rename``, ``link``, ``unlink``, ``close``) while
real games are played on a real state folder, and keeps a model of that folder as the page
cache holds it (``names``, ``data``) and as the card holds it (``durable_names``:
the names as of the folder's last fsync; ``durable``: each file's bytes as of its last
fsync). After every call it takes a snapshot. A cut at that instant leaves one of these
states (POSIX promises no more; ext4 gives any of them):

- ``kill``: a process killed, the page cache written back later: everything so far;
- ``cut``: the power gone: only what was fsynced (names and bytes);
- ``names``: the folder's changes reached the card, the unsynced bytes did not (renames
  and new names of files whose data never came: the zero-length file after a rename);
- ``data``: the unsynced bytes reached the card, the folder's changes did not (a rename
  undone, its data written);
- ``torn``: after a write, only its first half reached the card (a cut in the middle of a
  page), everything before it there.

The table's outbox is SQLite, whose own crash tests prove its commits: its writes (in C) are
not recorded; each state carries the database as of its last commit (``outbox``), and every
result committed so far counts as sent (``sent``: the courier may send it the next moment).
Its ``outbox.seq`` is written from Python and recorded like the other files.
Markers name what the players saw between the calls: a game begun (its number shown), a
result kept (the screens say so). ``check`` starts the real engine on a state and returns the
invariants it broke.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from klik.core import game as g
from klik.link.outbox import Outbox
from klik.link.protocol import canonical
from klik.table.config import paired
from klik.table.game import keeper as k
from klik.table.game import session as s
from klik.table.game.engine import Engine
from klik.table.service.renumbering import renumbered

OPS = ("open", "write", "fsync", "ftruncate", "truncate", "replace", "rename", "link", "unlink",
       "close")  # fmt: skip
KINDS = ("kill", "cut", "names", "data", "torn")
OUTBOX = "outbox.sqlite"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The folder's model after one call: what each kind of cut would leave."""

    op: str
    names: tuple[tuple[str, int], ...]
    durable_names: tuple[tuple[str, int], ...]
    data: tuple[tuple[int, bytes], ...]
    durable: tuple[tuple[int, bytes], ...]
    kept: tuple[tuple[int, bytes], ...]  # (game, the result file's bytes) the screens said kept
    begun: int  # the highest game number shown so far, or being begun
    torn: tuple[int, bytes] | None = None  # after a write: its file with half the write in
    numbers: tuple[int, ...] = ()  # the table numbers paired.toml may hold (none: no promise)
    outbox: bytes = b""  # the outbox's database as of its last commit (none: no file)
    sent: tuple[tuple[int, str], ...] = ()  # (seq, body) committed so far: maybe sent

    def state(self, kind: str) -> dict[str, bytes] | None:
        """The folder's files (name -> bytes) that a cut of ``kind`` leaves (None: a torn
        write after a call that wrote nothing)."""
        if kind == "torn" and self.torn is None:
            return None
        names = dict(self.durable_names if kind in ("cut", "data") else self.names)
        data = dict(self.data if kind in ("kill", "data", "torn") else self.durable)
        if kind == "torn" and self.torn is not None:
            data[self.torn[0]] = self.torn[1]
        return {name: data.get(inode, b"") for name, inode in names.items()}


@dataclass
class Recorder:
    """Records the state folder's file calls, in a model of the folder (see the module)."""

    folder: Path
    names: dict[str, int] = field(default_factory=dict)
    durable_names: dict[str, int] = field(default_factory=dict)
    data: dict[int, bytes] = field(default_factory=dict)
    durable: dict[int, bytes] = field(default_factory=dict)
    fds: dict[int, list[Any]] = field(default_factory=dict)  # fd -> [inode or None, offset, append]
    snapshots: list[Snapshot] = field(default_factory=list)
    kept: dict[int, bytes] = field(default_factory=dict)
    begun: int = 0
    numbers: tuple[int, ...] = ()
    outbox: bytes = b""
    sent: dict[int, str] = field(default_factory=dict)
    _next_inode: int = 1

    def __post_init__(self) -> None:
        for path in sorted(self.folder.iterdir()):
            inode = self._new_inode()
            self.names[path.name] = inode
            self.data[inode] = self.durable[inode] = path.read_bytes()
        self.durable_names = dict(self.names)
        self.snap("start")

    def _new_inode(self) -> int:
        self._next_inode += 1
        return self._next_inode

    def _name(self, path: Any) -> str | None:
        """The name in the state folder of ``path``; "" for the folder; None for elsewhere."""
        if isinstance(path, int):
            return None
        full = Path(os.fsdecode(path))
        if full == self.folder:
            return ""
        if full.name.startswith(OUTBOX):  # SQLite's own: ``outbox`` stands for them
            return None
        return full.name if full.parent == self.folder else None

    def snap(self, op: str, torn: tuple[int, bytes] | None = None) -> None:
        self.snapshots.append(
            Snapshot(
                op,
                tuple(self.names.items()),
                tuple(self.durable_names.items()),
                tuple(self.data.items()),
                tuple(self.durable.items()),
                tuple(sorted(self.kept.items())),
                self.begun,
                torn,
                self.numbers,
                self.outbox,
                tuple(sorted(self.sent.items())),
            )
        )

    # --- the calls, as the model sees them ---------------------------------------------

    def opened(self, path: Any, flags: int, fd: int) -> None:
        name = self._name(path)
        if name is None:
            return
        if name == "":
            self.fds[fd] = [None, 0, False]
            return
        inode = self.names.get(name)
        if inode is None:
            inode = self.names[name] = self._new_inode()
            self.data[inode] = b""
        if flags & os.O_TRUNC:
            self.data[inode] = b""
        self.fds[fd] = [inode, 0, bool(flags & os.O_APPEND)]
        self.snap(f"open {name}")

    def wrote(self, fd: int, data: bytes, done: int) -> None:
        entry = self.fds.get(fd)
        if entry is None or entry[0] is None:
            return
        inode, offset, append = entry
        now = self.data[inode]
        at = len(now) if append else offset
        self.data[inode] = now[:at] + bytes(data[:done]) + now[at + done :]
        entry[1] = at + done
        half = now[:at] + bytes(data[: done // 2]) + now[at + done // 2 :]
        self.snap("write", torn=(inode, half))

    def synced(self, fd: int) -> None:
        entry = self.fds.get(fd)
        if entry is None:
            return
        if entry[0] is None:  # the folder: its names as they are now
            self.durable_names = dict(self.names)
        else:
            self.durable[entry[0]] = self.data[entry[0]]
        self.snap("fsync")

    def cut_to(self, inode: int | None, size: int) -> None:
        if inode is not None:
            self.data[inode] = self.data[inode][:size]
            self.snap("truncate")

    def moved(self, src: Any, dst: Any, *, keep: bool) -> None:
        old, new = self._name(src), self._name(dst)
        if old is None or new is None or old not in self.names:
            return
        self.names[new] = self.names[old] if keep else self.names.pop(old)
        self.snap("link" if keep else f"rename {old} {new}")

    def removed(self, path: Any) -> None:
        name = self._name(path)
        if name is not None and self.names.pop(name, None) is not None:
            self.snap(f"unlink {name}")

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """The ``os`` calls recorded while inside."""
        real = {name: getattr(os, name) for name in OPS}

        def do_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
            fd: int = (
                real["open"](path, flags, mode)
                if dir_fd is None
                else real["open"](path, flags, mode, dir_fd=dir_fd)
            )
            self.opened(path, flags, fd)
            return fd

        def do_write(fd: int, data: bytes) -> int:
            done: int = real["write"](fd, data)
            self.wrote(fd, data, done)
            return done

        def do_fsync(fd: int) -> None:
            real["fsync"](fd)
            self.synced(fd)

        def do_ftruncate(fd: int, size: int) -> None:
            real["ftruncate"](fd, size)
            entry = self.fds.get(fd)
            self.cut_to(None if entry is None else entry[0], size)

        def do_truncate(path: Any, size: int) -> None:
            real["truncate"](path, size)
            name = self._name(path)
            self.cut_to(None if name is None else self.names.get(name), size)

        def do_replace(src: Any, dst: Any, **kw: Any) -> None:
            real["replace"](src, dst, **kw)
            self.moved(src, dst, keep=False)

        def do_rename(src: Any, dst: Any, **kw: Any) -> None:
            real["rename"](src, dst, **kw)
            self.moved(src, dst, keep=False)

        def do_link(src: Any, dst: Any, **kw: Any) -> None:
            real["link"](src, dst, **kw)
            self.moved(src, dst, keep=True)

        def do_unlink(path: Any, **kw: Any) -> None:
            real["unlink"](path, **kw)
            self.removed(path)

        def do_close(fd: int) -> None:
            real["close"](fd)
            self.fds.pop(fd, None)

        mine: dict[str, Callable[..., Any]] = {
            "open": do_open, "write": do_write, "fsync": do_fsync, "ftruncate": do_ftruncate,
            "truncate": do_truncate, "replace": do_replace, "rename": do_rename,
            "link": do_link, "unlink": do_unlink, "close": do_close,
        }  # fmt: skip
        for name, call in mine.items():
            setattr(os, name, call)
        try:
            yield
        finally:
            for name, call in real.items():
                setattr(os, name, call)

    # --- what the players saw -----------------------------------------------------------

    def beginning(self, game_no: int) -> None:
        """A game's number is about to be shown (a cut from here may come back on it)."""
        self.begun = max(self.begun, game_no)

    def result_kept(self, game_no: int) -> None:
        """The screens say game ``game_no``'s result is kept: its file must never be lost."""
        for name, inode in self.names.items():
            if name == f"result-{game_no}.json":
                self.kept[game_no] = self.data[inode]
        self.snap(f"kept {game_no}")

    def committed(self, image: bytes, seq: int, body: str) -> None:
        """The outbox committed result ``seq``: its database is now ``image``, and the
        courier may send the result the next moment, so its seq and body are fixed."""
        self.outbox = image
        self.sent[seq] = body
        self.snap(f"committed {seq}")

    def renumbering(self, old: int, new: int) -> None:
        """The hub's renumber is being carried out: ``paired.toml`` holds either number."""
        self.numbers = (old, new)

    def renumbered(self, new: int) -> None:
        """The table shows its new number: ``paired.toml`` must hold it from now on."""
        self.numbers = (new,)
        self.snap(f"renumbered {new}")

    # --- the states and their checks ----------------------------------------------------

    def states(self) -> Iterator[tuple[int, str, Snapshot, dict[str, bytes]]]:
        """Every distinct crash state: (the call's index, the cut's kind, its snapshot, the
        files), each state once (many calls leave the same files, and the same players'
        knowledge: what was kept and shown, which the checks hold it to)."""
        seen: set[Any] = set()
        for at, snapshot in enumerate(self.snapshots):
            for kind in KINDS:
                files = snapshot.state(kind)
                if files is None:
                    continue
                key = (tuple(sorted(files.items())), snapshot.kept, snapshot.begun,
                       snapshot.numbers, snapshot.outbox)  # fmt: skip
                if key in seen:
                    continue
                seen.add(key)
                yield at, kind, snapshot, files


@dataclass(frozen=True, slots=True)
class Violation:
    at: int  # the call's index
    kind: str
    op: str
    broke: str

    def __str__(self) -> str:
        return f"after call {self.at} ({self.op}), a {self.kind}: {self.broke}"


def check(
    snapshot: Snapshot,
    files: dict[str, bytes],
    recover: Callable[[Path], Any],
) -> list[str]:
    """Start the real recovery (``recover(folder)``, returning the engine) on ``files`` and
    say which invariants it broke: no result the screens called kept is lost or changed, no
    game number comes back that a kept result has (unless it is that finished game), none
    past the highest shown or being begun, and recovery never raises."""
    folder = Path(tempfile.mkdtemp(prefix="klik-crash-"))
    broke: list[str] = []
    try:
        for name, data in files.items():
            (folder / name).write_bytes(data)
        if snapshot.outbox:
            (folder / OUTBOX).write_bytes(snapshot.outbox)
        try:
            engine = recover(folder)
        except Exception as error:  # the invariant is exactly that nothing is raised
            return [f"recovery raised {type(error).__name__}: {error}"]
        kept = dict(snapshot.kept)
        for game_no, body in kept.items():
            now = [p.read_bytes() for p in folder.glob(f"result-{game_no}*.json")]
            if body not in now:
                broke.append(f"game {game_no}'s kept result is lost or changed")
        game_no = engine.info.game_no
        game = engine.game
        if game_no in kept and game.phase is not g.Phase.DONE:
            broke.append(f"game {game_no} is played again, though its result is kept")
        if game_no > max(snapshot.begun, 1):
            broke.append(f"game {game_no} comes back, past the highest shown {snapshot.begun}")
        broke += _seqs_broken(folder, dict(snapshot.sent))
        if snapshot.numbers and _paired_number(files.get(paired.FILE)) not in snapshot.numbers:
            broke.append(
                f"paired.toml does not hold table {' or '.join(map(str, snapshot.numbers))}"
            )
        journal = folder / "journal.jsonl"
        lines = journal.read_bytes().splitlines() if journal.exists() else []
        if not all(_json(line) for line in lines):
            broke.append("the journal holds a line that is not JSON after recovery")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return broke


def _image(outbox: Outbox) -> bytes:
    """The outbox's database as a file of it would hold it after its last commit (SQLite's
    own crash tests prove a commit is whole: the harness takes that, not SQLite's writes)."""
    return outbox._db.serialize()


def _seqs_broken(folder: Path, sent: dict[int, str]) -> list[str]:
    """What the recovered outbox breaks of the seqs that may have gone to the hub: a body
    changed under its seq, or a next seq not above them all (one handed out twice)."""
    outbox = Outbox(folder / OUTBOX)
    try:
        top = max(outbox.last_seq(), outbox.high_water())
    finally:
        outbox.close()
    with contextlib.closing(sqlite3.connect(folder / OUTBOX)) as db:
        bodies = dict(db.execute("SELECT seq, body FROM results").fetchall())
    broke = [f"seq {seq} holds another result than the one sent" for seq, body in sent.items()
             if bodies.get(seq) not in (None, body)]  # fmt: skip
    if sent and top < max(sent):
        broke.append(f"the next seq is {top + 1}, though {max(sent)} may have been sent")
    return broke


def _paired_number(data: bytes | None) -> int | None:
    """The table number in ``paired.toml``'s bytes, if they are this table's whole pairing."""
    try:
        hub = tomllib.loads((data or b"").decode())["hub"]
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError):
        return None
    return hub["table"] if hub.get("device_id") == DEVICE else None


def _json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


# --- whole games, recorded -------------------------------------------------------------

BOOT = 3.0
#: Which game takes the round's lineup when it stands ready (3 seats, two games).
LINEUP_AT = 2
#: Before which game the hub renumbers the table (paired at the table as 3, then 8).
RENUMBER_AT = 3
DEVICE, KEY = "t3-0a1b2c3d", "6f" * 32


def play(folder: Path, games: int, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """``games`` whole games at a table on ``folder`` (a round's lineup taken at game
    ``LINEUP_AT``), each begun by the judge's next-game tap, every file call recorded."""
    from tests.table.test_engine import CONFIG, Table  # noqa: PLC0415 - the engine's test table
    from tests.table.test_lineup import finish_three as finish  # noqa: PLC0415 - any seats
    from tests.table.test_lineup import lineup, received  # noqa: PLC0415

    hub = replace(CONFIG.hub, device_id=DEVICE, key=KEY)
    config = replace(CONFIG, hub=hub, table=replace(CONFIG.table, state_dir=str(folder)))
    paired.keep(config, {"table": 3, "device_id": DEVICE, "key": KEY})  # paired at the table
    outbox = Outbox(folder / OUTBOX)
    table = Table(folder, outbox=outbox)
    recorder = Recorder(folder)
    recorder.numbers = (3,)
    recorder.outbox = _image(outbox)
    new_game, keep, commit = s.Session._new_game, k.Keeper.keep, Outbox.keep

    def committing(box: Outbox, body: dict[str, Any]) -> int:
        seq = commit(box, body)
        recorder.committed(_image(box), seq, canonical(body).decode("ascii"))
        return seq

    monkeypatch.setattr(Outbox, "keep", committing)

    def beginning(session: s.Session, now: float, game_no: int) -> None:
        recorder.beginning(game_no)
        new_game(session, now, game_no)

    def kept(keeper: k.Keeper, ready: Any, game: Any, played: k.Played) -> None:
        keep(keeper, ready, game, played)
        recorder.result_kept(played.game_no)

    monkeypatch.setattr(s.Session, "_new_game", beginning)
    monkeypatch.setattr(k.Keeper, "keep", kept)
    at = 100.0
    with recorder.recording():
        table.engine.start(at)
        for n in range(1, games + 1):
            if n == LINEUP_AT:
                received(table, lineup(), at)  # the game standing ready gives way
            if n == RENUMBER_AT and games >= RENUMBER_AT:  # the hub's renumber, between games
                recorder.renumbering(3, 8)
                renumbered(config, 8)
                recorder.renumbered(8)
            seats = table.game.settings.seats
            starter = table.game.settings.starter
            table.press(seats[seats.index(starter) - 1], at + 1)  # the clock starts
            table.press(starter, at + 5)  # the starter's move ends
            finish(table, at + 10)
            at += 30.0
            if n < games:
                assert table.engine.new_game(at)  # the judge's next-game tap
            at += 1.0
    table.journal.close()
    outbox.close()
    # Recovery commits results too; it must not add states to the list being checked.
    monkeypatch.setattr(Outbox, "keep", commit)
    return recorder


def recover(folder: Path) -> Engine:
    """The table that comes back on ``folder``: the real engine's start."""
    from tests.table.test_engine import Table  # noqa: PLC0415

    outbox = Outbox(folder / OUTBOX)
    try:
        table = Table(folder, outbox=outbox)
        table.engine.start(BOOT)
        table.journal.close()
    finally:
        outbox.close()
    return table.engine


def violations(recorder: Recorder) -> Iterator[tuple[int, Violation | None]]:
    """Each distinct state's violations (None: it held); with the count so far."""
    for checked, (at, kind, snapshot, files) in enumerate(recorder.states(), start=1):
        broke = check(snapshot, files, recover)
        if not broke:
            yield checked, None
        for said in broke:
            yield checked, Violation(at, kind, snapshot.op, said)
