"""Each seat's moves, draws, timeouts and move times (``klik.core.pace``): the time on the
clock, whatever stopped it, and figures that add up over any game."""

from __future__ import annotations

from hypothesis import given

from klik.core import game as g
from klik.core.game import EndedBy, Move
from klik.core.pace import Pace, move_ms, pace
from tests.core.test_properties import RUNNING, build, common, drive, events, games
from tests.helpers.play import Play


def test_each_seats_moves_draws_timeouts_and_times() -> None:
    play = Play(seats=3, move_time_s=60).start(0.0)
    play.tap("A", 12.0).hold("B", 20.0).to(80.0 + 0.2).tap("C", 81.0)  # C timed out at 80
    play.tap("A", 90.5).hold("B", 100.0)
    assert pace(play.game.moves, ("A", "B", "C", "D")) == {
        "A": Pace(count=2, draws=0, timeouts=0, total_ms=21_500, longest_ms=12_000),
        "B": Pace(count=2, draws=2, timeouts=0, total_ms=17_500, longest_ms=9_500),
        "C": Pace(count=1, draws=0, timeouts=1, total_ms=60_000, longest_ms=60_000),
        "D": Pace(),  # not at the table
    }
    assert pace(play.game.moves, "A")["A"].json() == {
        "count": 2, "draws": 0, "timeouts": 0, "mean_ms": 10_750, "longest_ms": 12_000,
    }  # fmt: skip


def test_a_timeouts_penalty_draw_is_a_draw_and_the_wait_to_hand_over_is_no_ones() -> None:
    play = Play(seats=2, move_time_s=30).start(0.0).to(45.0).hold("A", 45.0)  # penalty draw
    play.tap("B", 50.0)  # B's clock ran from A's hand-over at 45
    figures = pace(play.game.moves, ("A", "B"))
    assert figures["A"] == Pace(count=1, draws=1, timeouts=1, total_ms=30_000, longest_ms=30_000)
    assert figures["B"] == Pace(count=1, draws=0, timeouts=0, total_ms=5_000, longest_ms=5_000)


def test_the_clock_stopped_for_a_judges_call_is_not_the_next_movers_time() -> None:
    # C calls the judge during A's move; the clock stops before B's move, which keeps its
    # full time; C's tap resumes it 100 s later, and B moves in 8 s of its clock.
    play = Play(move_time_s=60).start(0.0).hold("C", 5.0, length=2.2).tap("A", 10.0)
    assert (play.game.phase, play.game.paused_by) == (g.Phase.PAUSED, "C")
    play.tap("C", 110.0).tap("B", 118.0)
    b = play.game.moves[-1]
    assert (b.seat, b.start, b.end, b.paused_s) == ("B", 10.0, 118.0, 100.0)
    assert move_ms(b) == 8_000


def test_a_pause_in_the_move_is_not_the_movers_time_and_a_restart_counts_from_itself() -> None:
    play = Play(move_time_s=60).start(0.0).order("pause", 15.0).order("resume", 75.0)
    play.order("pause", 80.0).order("resume", 90.0).tap("A", 95.0)
    assert move_ms(play.game.moves[-1]) == 25_000  # 15 + 5 + 5 s on the clock, 70 s stood
    play.order("pause", 100.0).order("restart", 130.0).tap("B", 140.0)
    assert (play.game.moves[-1].start, move_ms(play.game.moves[-1])) == (130.0, 10_000)


def test_an_undone_hand_over_gives_the_move_back_with_the_time_it_had() -> None:
    play = Play(move_time_s=60).start(0.0).tap("A", 20.0).order("undo", 30.0)
    play.order("resume", 50.0).tap("A", 55.0)  # A's move: 20 s, then 5 s more
    assert [(m.seat, move_ms(m)) for m in play.game.moves] == [("A", 25_000)]


def test_times_are_rounded_once_per_move_and_the_mean_half_up() -> None:
    moves = [Move("A", 0.0, 1.0004, EndedBy.TAP), Move("A", 2.0, 4.0006, EndedBy.TAP)]
    assert [move_ms(m) for m in moves] == [1_000, 2_001]
    assert pace(moves, "A")["A"] == Pace(count=2, total_ms=3_001, longest_ms=2_001)
    assert Pace(count=2, total_ms=3).mean_ms == 2  # 1.5 → 2
    assert Pace(count=3, total_ms=4).mean_ms == 1  # 1.33 → 1
    assert Pace().mean_ms == 0


@common
@given(*games)
def test_the_figures_add_up_and_every_move_is_within_its_time(
    stream: list[tuple[float, int, float] | tuple[float, g.Action]],
    seats: int,
    pile: int,
    timeout: str,
) -> None:
    seen: list[g.Game] = []
    drive(build(seats, pile, timeout), events(stream, seats), tick_s=None, seen=seen)
    for game in seen:
        limit_ms = round(game.settings.move_time_s * 1000)
        for move in game.moves:
            # The time on the clock: never below 0, never past the move time, pauses aside.
            assert 0 <= move_ms(move) <= limit_ms, move
            assert move.paused_s >= 0.0
        figures = pace(game.moves, game.settings.seats)
        assert sum(f.count for f in figures.values()) == len(game.moves)
        assert sum(f.timeouts for f in figures.values()) == sum(
            m.ended_by is EndedBy.TIMEOUT for m in game.moves
        )
        for f in figures.values():
            assert f.draws <= f.count
            assert f.timeouts <= f.count
            assert f.longest_ms >= f.mean_ms >= 0
            assert f.total_ms <= f.count * f.longest_ms
        if game.phase in RUNNING:
            assert game.stood_s >= 0.0
