"""The journal: fsynced lines, a cut-short tail ignored, damage moved aside, a full disk survived."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from klik import journal as j
from klik.core import game as g
from klik.core import table as t
from klik.core.table import Edge

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
def test_a_damaged_journal_is_moved_aside(
    tmp_path: Path, damage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    written(path)
    with path.open("ab") as f:
        f.write(damage)
        f.write(b'{"at": 20.0, "checkpoint": true}\n')
    with caplog.at_level(logging.ERROR):
        assert j.read(path) is None
    assert not path.exists()
    assert (tmp_path / "journal.corrupt-1.jsonl").read_bytes().endswith(b"true}\n")
    assert len(caplog.records) == 1
    assert "moved to" in caplog.records[0].getMessage()


def test_a_journal_without_a_header_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text('{"at": 1.0, "checkpoint": true}\n')
    assert j.read(path) is None
    assert (tmp_path / "journal.corrupt-1.jsonl").exists()


def test_a_new_game_keeps_the_last_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = written(path)
    journal.start({**HEADER, "game_no": 4})
    journal.close()
    assert (
        json.loads((tmp_path / "journal.game-1.jsonl").read_text().splitlines()[0])["game_no"] == 3
    )
    assert json.loads(path.read_text())["game_no"] == 4


def test_a_full_disk_is_logged_once_and_the_game_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    journal = j.Journal(Path("/dev/full"))  # every write to /dev/full fails with ENOSPC
    with caplog.at_level(logging.ERROR):
        assert not journal.append(Edge("A", True, 1.0))
        assert not journal.append(Edge("A", False, 1.1))
    assert journal.failing
    assert len(caplog.records) == 1
    assert "No space left on device" in caplog.text


def test_replaying_entries_gives_the_same_table() -> None:
    settings = g.Settings(move_time_s=30)
    table, last = j.replay_entries(t.new_table(settings), tuple(ENTRIES[:4]))
    assert last == 5.0
    assert (table.game.phase, table.game.mover, table.game.left_s) == (g.Phase.PAUSED, "A", 26.0)
