"""The judge key's re-pair on the engine (``klik.core.judgekey``): a 5 s hold on a ready game
calls ``on_repair`` once; a shorter hold, or any hold during a game, never does (it is the
undo it always was). What the daemon then does is tests/hub/test_table_renumbering.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from klik.core import game as g
from klik.table.game import journal as j
from klik.table.game.engine import Engine
from klik.table.hardware.gpio import JudgeEdge
from klik.table.hardware.panels import open_panels
from tests.table.test_engine import CONFIG


def engine(folder: Path, asked: list[float]) -> Engine:
    made = Engine(
        CONFIG, j.Journal(folder / "journal.jsonl"), open_panels(CONFIG, now=0.0),
        on_repair=lambda: asked.append(made.driver.now),
    )  # fmt: skip
    made.start(0.0)
    return made


def hold(made: Engine, at: float, length: float) -> None:
    made.handle(JudgeEdge(True, at), at)
    made.tick(at + length)
    made.handle(JudgeEdge(False, at + length), at + length)


@pytest.mark.parametrize(
    ("length", "repairs"),
    [
        (0.2, False),  # a tap: the game starts
        (3.5, False),  # undo: nothing to take back on a ready game
        (4.99, False),  # just short of 5 s
        (5.0, True),
        (12.0, True),
    ],
)
def test_a_hold_of_5_s_on_a_ready_game_asks_to_re_pair(
    tmp_path: Path, length: float, repairs: bool
) -> None:
    asked: list[float] = []
    made = engine(tmp_path, asked)
    hold(made, 1.0, length)
    assert bool(asked) is repairs
    if length >= 3.0:
        assert made.game.phase is g.Phase.READY  # a hold never starts the game


def test_a_long_hold_during_a_game_is_undo_and_never_re_pairs(tmp_path: Path) -> None:
    asked: list[float] = []
    made = engine(tmp_path, asked)
    hold(made, 1.0, 0.2)  # a tap: A's move runs
    assert made.game.phase is g.Phase.MOVE
    hold(made, 3.0, 9.0)  # 9 s under pressure: still undo (nothing to undo yet: paused)
    assert asked == []
    assert made.game.phase is not g.Phase.READY
