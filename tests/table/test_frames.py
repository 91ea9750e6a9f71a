"""``klik replay SCRIPT --frames DIR``: every seat's screen at every change, as PNGs."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from PIL import Image

from klik.cli import main
from klik.script import parse
from klik.table.record.replay import run
from klik.table.screens.render import render
from klik.table.screens.view import TableInfo, seat_views

SAMPLE = Path(__file__).parents[2] / "device/klik/samples/sample-game.klik"


def test_frames_are_written_at_every_change_and_end_on_the_final_screens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(SAMPLE), "--frames", str(tmp_path)]) == 0
    assert '"state": "done"' in capsys.readouterr().out
    frames = sorted(tmp_path.glob("*.png"), key=lambda p: int(p.stem.split("-")[1]))
    seats = {p.name[0] for p in frames}
    assert seats == {"A", "B", "C"}  # the sample game has three seats
    replay = run(parse(SAMPLE.read_text()))
    final = {v.seat: render(v) for v in seat_views(replay.tabletop.game, replay.now, TableInfo())}
    for seat in seats:
        mine = [p for p in frames if p.name[0] == seat]
        with Image.open(mine[-1]) as last:
            assert last.size == (128, 64)
            assert last.convert("L").tobytes() == final[seat].convert("L").tobytes()
        # A frame is written only when the picture changed.
        pictures = [Image.open(p).convert("L").tobytes() for p in mine]
        assert all(a != b for a, b in pairwise(pictures))


def test_frames_into_a_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("")
    assert main(["replay", str(SAMPLE), "--frames", str(blocker / "sub")]) == 2
    assert "cannot make the frames folder" in capsys.readouterr().err
