"""The journal: fsynced lines, a cut-short tail ignored, damage moved aside, a full disk survived."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from klik.core import game as g
from klik.core import tabletop as t
from klik.core.tabletop import Edge
from klik.table.game import journal as j

HEADER = {"table": "7", "game_no": 3, "seats": ["A", "B", "C", "D"], "at": 0.0}
ENTRIES: list[j.Entry] = [
    Edge("D", True, 1.0),
    Edge("D", False, 1.1),
    j.Checkpoint(2.0),
    g.Order(g.Action.PAUSE, 5.0, "judge"),
    g.Order(g.Action.RESUME, 9.0, g.RECOVERY),
]


def written(path: Path) -> j.Journal:
    journal = j.Journal(path)
    journal.start(HEADER)
    for entry in ENTRIES:
        assert journal.append(entry)
    journal.close()
    return journal


def test_what_is_written_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)
    recovered = j.read(path)
    assert recovered is not None
    assert recovered.header == {"journal": 1, **HEADER}
    assert list(recovered.entries) == ENTRIES
    assert not recovered.dropped_tail


def test_a_last_line_cut_short_is_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)
    with path.open("a") as f:
        f.write('{"at": 12.0, "seat": "A", "do')
    recovered = j.read(path)
    assert recovered is not None
    assert list(recovered.entries) == ENTRIES
    assert recovered.dropped_tail
    assert "cut short" in caplog.text


@pytest.mark.parametrize(
    "damage",
    [
        b'{"at": 3.0, "seat": "A", "down": "yes"}\n',  # a field of the wrong type
        b'{"at": 3.0, "order": "explode", "by": "judge"}\n',  # an order that does not exist
        b"\x00\x00\x00\x00\n",  # a block of zeros from a power cut mid-write
        b'{"at": 3.0}\n',  # neither edge, order nor checkpoint
    ],
)
def test_a_damaged_journal_costs_only_its_damaged_tail(
    tmp_path: Path, damage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)
    sound = path.read_bytes()
    with path.open("ab") as f:
        f.write(damage)
        f.write(b'{"at": 20.0, "checkpoint": true}\n')
    whole = path.read_bytes()
    lines = whole.count(b"\n")
    with caplog.at_level(logging.ERROR):
        recovered = j.read(path)
    assert recovered is not None
    assert recovered.entries == tuple(ENTRIES)  # every line before the damage
    assert path.read_bytes() == sound  # the live journal is its sound prefix
    assert (tmp_path / "journal.corrupt-1.jsonl").read_bytes() == whole
    assert len(caplog.records) == 1
    said = caplog.records[0].getMessage()
    assert said.startswith(f"journal {path}: line {lines - 1} is damaged (")
    assert said.endswith(
        f"): 2 of {lines} lines dropped (the whole journal is in journal.corrupt-1.jsonl); "
        f"the game goes on from the {lines - 2} lines before it"
    )
    journal = j.Journal(path)  # what is appended from now on follows the sound lines
    assert journal.append(j.Checkpoint(30.0))
    again = j.read(path)
    assert again is not None
    assert again.entries == (*ENTRIES, j.Checkpoint(30.0))


def test_a_journal_without_a_header_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text('{"at": 1.0, "checkpoint": true}\n')
    assert j.read(path) is None
    assert (tmp_path / "journal.corrupt-1.jsonl").exists()


def test_a_new_game_keeps_the_last_journal_named_by_its_game(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = written(path)  # game 3
    journal.start({**HEADER, "game_no": 4})
    journal.close()
    kept = (tmp_path / "journal.game-3.jsonl").read_text().splitlines()
    assert json.loads(kept[0])["game_no"] == 3
    assert json.loads(path.read_text())["game_no"] == 4
    # game 4 again (a round's lineup replaced a game never played): never over game 4's
    journal.start({**HEADER, "game_no": 4})
    journal.start({**HEADER, "game_no": 5})
    journal.close()
    assert sorted(p.name for p in tmp_path.glob("journal.game-*")) == [
        "journal.game-3.jsonl",
        "journal.game-4.1.jsonl",
        "journal.game-4.jsonl",
    ]


def test_a_journal_whose_header_cannot_tell_its_game_is_kept_as_unknown(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b"\x00" * 40 + b"\n")
    journal = j.Journal(path)
    journal.start({**HEADER, "game_no": 4})
    journal.close()
    assert (tmp_path / "journal.unknown-1.jsonl").read_bytes() == b"\x00" * 40 + b"\n"
    assert json.loads(path.read_text())["game_no"] == 4


def test_a_new_journal_is_made_durable_with_its_folder(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    synced = mocker.patch.object(j, "sync_folder")
    journal = j.Journal(tmp_path / "journal.jsonl")
    journal.start(HEADER)
    synced.assert_called_once_with(tmp_path)


def test_a_full_disk_is_logged_once_and_the_game_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    journal = j.Journal(Path("/dev/full"))  # every write to /dev/full fails with ENOSPC
    with caplog.at_level(logging.ERROR):
        assert not journal.append(Edge("A", True, 1.0))
        assert not journal.append(Edge("A", False, 1.1))
    assert journal.failing
    assert len(caplog.records) == 1
    assert "No space left on device" in caplog.text


def test_replaying_entries_gives_the_same_tabletop() -> None:
    settings = g.Settings(move_time_s=30)
    tabletop, last = j.replay_entries(t.new_tabletop(settings), tuple(ENTRIES[:4]))
    assert last == 5.0
    assert (tabletop.game.phase, tabletop.game.mover, tabletop.game.left_s) == (
        g.Phase.PAUSED,
        "A",
        26.0,
    )


# --- nothing read from a journal is trusted ---------------------------------------------


THREE = {
    "tournament": "7", "round": 1, "games": 1, "rules": "league", "move_time_s": 45,
    "begun": 0, "seats": {s: {"player": s, "name": s} for s in "ABC"},
}  # fmt: skip


def header_line(**fields: object) -> bytes:
    return json.dumps({"journal": 1, **HEADER, **fields}).encode() + b"\n"


@pytest.mark.parametrize(
    "journal",
    [
        header_line(at="soon"),  # the header's moment is text
        header_line(lineup={"tournament": "7"}),  # a round's lineup with most of it missing
        header_line(seats=["A", "B"], lineup=THREE),  # a lineup of three, a header of two
        header_line(at=None),  # ...or null
        header_line(at=1e17),  # ...or so far on that adding a second changes nothing
        header_line(game_no="3"),  # the game number is text
        header_line(game_no=0),  # ...or below 1
        header_line(game_no=True),  # ...or true
        header_line(seats=["A", "C"]),  # seats with a gap
        header_line(table=7),  # the table's name is a number
        b"[" * 5000 + b"]" * 5000 + b"\n",  # nested past the recursion limit
    ],
)
def test_a_damaged_header_is_moved_aside_in_one_short_line(
    tmp_path: Path, journal: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(journal + b'{"at": 3.0, "checkpoint": true}\n')
    with caplog.at_level(logging.ERROR):
        assert j.read(path) is None
    assert not path.exists()
    assert (tmp_path / "journal.corrupt-1.jsonl").read_bytes().startswith(journal)
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "damaged" in message
    # The damage is named, never copied into the log: short but for the two paths it names
    # (a test's temporary folder, longer as pytest numbers its runs on).
    assert len(message.replace(str(tmp_path), "")) < 200


@pytest.mark.parametrize(
    "damage",
    [
        b'{"at": Infinity, "checkpoint": true}\n',  # a checkpoint at infinity
        b'{"at": NaN, "checkpoint": true}\n',  # ...or at no time at all
        b'{"at": 1e17, "checkpoint": true}\n',  # ...or in a billion years
        b'{"at": -5.0, "checkpoint": true}\n',  # ...or before the clock began
        b'{"at": 90.0, "checkpoint": true}\n{"at": 20.0, "checkpoint": true}\n',  # back in time
        b"[" * 5000 + b"]" * 5000 + b"\n",  # nested past the recursion limit
        b"[" * 500 + b"]" * 500 + b"\n",  # nested, and not an object
        b'{"at": 3.0, "seat": "' + b"A" * 100_000 + b'", "down": true}\n',
        b'{"at": 3.0, "seat": "E", "down": true}\n',  # a seat that is no seat
        b'{"at": 3.0, "order": "start", "by": "someone"}\n',  # an unknown orderer
        b'{"at": 3.0, "checkpoint": true, "extra": 1}\n',  # a field too many
        b'{"at": 3.0, "recovery": false}\n',  # a recovery that is not one
        b'{"at": 3.0, "seat": "A", "down": 1}\n',  # 1 is not true
    ],
)
def test_every_value_is_checked_and_a_damaged_line_ends_the_sound_prefix_in_one_short_line(
    tmp_path: Path, damage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    sound = header_line() + b'{"at": 1.0, "checkpoint": true}\n'
    path.write_bytes(sound + damage)
    with caplog.at_level(logging.ERROR):
        recovered = j.read(path)
    assert recovered is not None
    assert recovered.entries[:1] == (j.Checkpoint(1.0),)
    assert path.read_bytes().startswith(sound)
    assert (tmp_path / "journal.corrupt-1.jsonl").read_bytes() == sound + damage
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "is damaged" in message
    assert len(message.replace(str(tmp_path), "")) < 300


def test_entries_a_little_out_of_order_are_not_damage(tmp_path: Path) -> None:
    # An edge stamped on the GPIO thread can be journalled just after a later checkpoint.
    path = tmp_path / "journal.jsonl"
    path.write_bytes(
        header_line()
        + b'{"at": 5.0, "checkpoint": true}\n{"at": 4.98, "seat": "A", "down": true}\n'
    )
    recovered = j.read(path)
    assert recovered is not None
    assert recovered.entries == (j.Checkpoint(5.0), Edge("A", True, 4.98))


def test_a_recovery_line_replays_the_recovery() -> None:
    # B's press was down when the power went; the recovery let it go and paused B's move.
    entries = (
        Edge("D", True, 1.0),
        Edge("D", False, 1.1),
        Edge("A", True, 5.0),
        Edge("A", False, 5.1),
        Edge("B", True, 9.0),
        j.Checkpoint(9.5),
        j.Recovery(9.5),
        j.Checkpoint(20.0),
    )
    tabletop, last = j.replay_entries(t.new_tabletop(g.Settings(move_time_s=30)), entries)
    assert last == 20.0
    game = tabletop.game
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "B", g.RECOVERY)
    assert game.left_s == pytest.approx(26.0)  # B's clock stopped at B's press, at 9.0
    assert not any(b.down for b in tabletop.buttons)


# --- a failed write never leaves half a line ---------------------------------------------


def test_a_journal_with_a_torn_last_line_is_cut_back_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)
    with path.open("ab") as f:
        f.write(b'{"at": 12.0, "seat": "A", "do')  # the power went mid-write
    journal = j.Journal(path)
    assert journal.append(j.Checkpoint(13.0))
    journal.close()
    recovered = j.read(path)
    assert recovered is not None
    assert list(recovered.entries) == [*ENTRIES, j.Checkpoint(13.0)]
    assert not recovered.dropped_tail


# Runs as root of its own user and mount namespace, so it can mount a real 16 KiB tmpfs.
FULL_DISK = r"""
import json, os, sys
from pathlib import Path
from klik.table.game import journal as j
from klik.core.tabletop import Edge

folder = Path(sys.argv[1])
filler = folder / "filler"
with open(filler, "wb") as f:  # everything but the journal's first page
    try:
        f.write(b"x" * (12 * 1024))
    except OSError:
        pass
journal = j.Journal(folder / "journal.jsonl")
journal.start({"table": "1", "game_no": 1, "seats": ["A", "B", "C", "D"], "at": 0.0})
kept, failed = [], 0
for i in range(400):  # about 40 bytes a line: the page is full after about 100
    entry = Edge("ABCD"[i % 4], i % 8 < 4, 1.0 + i)
    if journal.append(entry):
        kept.append(entry)
    else:
        failed += 1
    if i == 300:
        filler.unlink()  # the organiser frees some space; the journal writes again
journal.close()
recovered = j.read(folder / "journal.jsonl")
assert recovered is not None, "the journal was damaged"
assert list(recovered.entries) == kept, (len(recovered.entries), len(kept))
assert not recovered.dropped_tail
print(json.dumps({"kept": len(kept), "failed": failed}))
"""


def test_a_full_disk_leaves_whole_lines_on_a_real_tmpfs(tmp_path: Path) -> None:
    folder = tmp_path / "small"
    folder.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK)
    run = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            'mount -t tmpfs -o size=16k tmpfs "$1" && exec "$2" "$3" "$1"',
            "sh",
            str(folder),
            sys.executable,
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    counts = json.loads(run.stdout)
    assert counts["failed"] > 0  # the disk did fill up
    assert counts["kept"] > 150  # and the journal went on once space was freed


def test_a_last_journal_that_cannot_be_kept_aside_is_written_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)

    def refuse(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "replace", refuse)  # a card gone read-only for renames
    journal = j.Journal(path)
    with caplog.at_level(logging.ERROR):
        journal.start({**HEADER, "game_no": 4})
        assert journal.append(j.Checkpoint(1.0))
    journal.close()
    assert "cannot keep the last game's journal" in caplog.text
    recovered = j.read(path)
    assert recovered is not None
    assert (recovered.game_no, recovered.entries) == (4, (j.Checkpoint(1.0),))


@pytest.mark.parametrize("raw", [b"", b'{"journal": 1, "table": "7", "ga'])
def test_a_journal_cut_before_its_header_got_in_is_no_game_and_no_damage(
    tmp_path: Path, raw: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(raw)
    assert not j.begun(path)
    with caplog.at_level(logging.WARNING):
        assert j.read(path) is None
    assert "no whole header" in caplog.text
    assert list(tmp_path.iterdir()) == []  # nothing moved aside as damaged
    path.write_bytes(b"\x00\n")
    assert j.begun(path)  # a line: a game may have begun in it (damaged, it is moved aside)
