"""Every row of RULES.md §7 through the real table (raw edges in, state and effects out)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from klik.core.game import (
    RECOVERY,
    EndedBy,
    Exhaustion,
    Move,
    Note,
    NoteKind,
    Phase,
    Settings,
    Why,
    starter_of,
)
from klik.core.scoring import Ending

# --- ready ------------------------------------------------------------------------------
from klik.table.record import notes
from klik.words import Language
from tests.helpers.play import Play


def said(note: Note) -> str:
    """The note as the table's log says it in Polish (``klik.table.record.notes``)."""
    return notes.said(note, Language.PL)


def test_the_seat_before_the_starter_starts_the_game() -> None:
    play = Play(move_time_s=60).tap("D", 2.0)
    game = play.game
    assert (game.phase, game.mover, game.move_start, game.deadline) == (Phase.MOVE, "A", 2.0, 62.0)
    assert game.moves == ()
    assert game.pile.tiles_left == 50


def test_game_two_is_started_by_b_so_a_hands_over() -> None:
    play = Play(starter="B").tap("D", 1.0)
    assert play.game.phase is Phase.READY
    assert play.notes[-1].kind is NoteKind.IGNORED
    play.tap("A", 2.0)
    assert (play.game.phase, play.game.mover) == (Phase.MOVE, "B")


def test_the_judge_or_hub_can_start() -> None:
    play = Play().order("start", 3.0, by="hub")
    assert (play.game.phase, play.game.mover, play.game.move_start) == (Phase.MOVE, "A", 3.0)


def test_a_three_second_hold_in_ready_asks_for_a_re_deal() -> None:
    play = Play().hold("B", 1.0, length=3.5)
    assert play.game.phase is Phase.READY
    assert [(n.kind, n.seat, n.at) for n in play.notes] == [(NoteKind.REDEAL, "B", 4.0)]


# --- move -------------------------------------------------------------------------------


def test_a_tap_ends_the_move_at_the_press_without_a_draw() -> None:
    play = Play().start(0.0).tap("A", 12.0)
    game = play.game
    assert game.moves == (Move("A", 0.0, 12.0, EndedBy.TAP, 0),)
    assert (game.mover, game.move_start, game.deadline) == ("B", 12.0, 72.0)
    assert game.opened == {"A"}
    assert game.pile.tiles_left == 50


def test_a_hold_draws_a_tile_and_ends_the_move_at_the_press() -> None:
    # Recognised at 13.0, but the move ended at the press (RULES.md §7): B's clock runs from
    # 12.0, so B does not gain the second A held its button for.
    play = Play().start(0.0).hold("A", 12.0)
    game = play.game
    assert game.moves == (Move("A", 0.0, 12.0, EndedBy.HOLD, 1),)
    assert (game.mover, game.move_start, game.deadline) == ("B", 12.0, 72.0)
    assert game.opened == frozenset()
    assert game.pile.tiles_left == 49


def test_a_double_tap_is_a_rummikub() -> None:
    play = Play().start(0.0).double("A", 20.0)
    game = play.game
    assert game.phase is Phase.SCORING
    assert (game.ending, game.winner) == (Ending.RUMMIKUB, "A")
    assert game.moves == (Move("A", 0.0, 20.0, EndedBy.RUMMIKUB, 0),)
    assert game.opened == {"A"}
    assert play.sounds == [(20.2, "end")]


def test_another_seats_tap_is_ignored_and_logged() -> None:
    play = Play().start(0.0).tap("C", 5.0)
    assert (play.game.mover, play.game.moves) == ("A", ())
    assert [(n.kind, n.seat, n.at) for n in play.notes] == [(NoteKind.IGNORED, "C", 5.0)]


def test_another_seats_two_second_hold_calls_the_judge_and_the_clock_stops_after_the_move() -> None:
    # 000 s, 004 17: a dispute stops the clock "po zakończeniu ruchu": the mover finishes.
    play = Play(move_time_s=60).start(0.0).hold("C", 10.0, length=2.5)
    game = play.game
    assert (game.phase, game.called_by, game.mover) == (Phase.MOVE, "C", "A")
    assert play.sounds == [(12.0, "judge")]  # the judge is called at once (the hub chimes)
    assert said(play.notes[-1]) == "C wzywa sędziego: zegar stanie po ruchu"
    play.to(30.0)
    assert play.time_left() == 30.0  # the mover's clock goes on
    play.tap("A", 30.0)  # A finishes the disputed move
    game = play.game
    assert (game.phase, game.paused_by, game.mover, game.left_s) == (Phase.PAUSED, "C", "B", 60.0)
    assert game.moves[-1] == Move("A", 0.0, 30.0, EndedBy.TAP, 0)
    play.to(500.0)
    assert play.time_left() == 60.0  # B keeps its full time while the judge looks
    play.tap("C", 510.0)  # the caller's tap resumes: B's move from there
    assert (play.game.phase, play.game.mover, play.game.deadline) == (Phase.MOVE, "B", 570.0)


@pytest.mark.parametrize(
    ("ending", "mover_after"),
    [
        ("hold", "B"),  # the mover drew a tile: the move ends at the press
        ("timeout", "B"),  # the mover's time ran out; its tap hands over
    ],
)
def test_a_call_stops_the_clock_however_the_move_ends(ending: str, mover_after: str) -> None:
    play = Play(move_time_s=30).start(0.0).hold("D", 5.0, length=2.2)
    if ending == "hold":
        play.hold("A", 20.0)
    else:
        play.to(31.0).tap("A", 35.0)
    game = play.game
    assert (game.phase, game.paused_by, game.mover, game.left_s) == (
        Phase.PAUSED, "D", mover_after, 30.0,
    )  # fmt: skip


def test_a_rummikub_during_a_call_ends_the_game() -> None:
    play = Play().start(0.0).hold("C", 5.0, length=2.2).double("A", 20.0)
    # the count begins: the call waits no more (the judge was called when C held)
    assert (play.game.phase, play.game.winner, play.game.called_by) == (Phase.SCORING, "A", None)


def test_the_judge_key_stops_the_clock_at_once_and_answers_a_call() -> None:
    play = Play(move_time_s=60).start(0.0).hold("C", 5.0, length=2.2).order("pause", 15.0)
    assert (play.game.phase, play.game.paused_by, play.game.left_s) == (Phase.PAUSED, "judge", 45)
    play.order("resume", 20.0).tap("A", 25.0)
    assert (play.game.phase, play.game.mover) == (Phase.MOVE, "B")  # no second stop


def test_a_drawn_starter_holds_its_button_then_the_seat_before_it_starts_the_clock() -> None:
    # 001 PRZYGOTOWANIE GRY: whoever drew the highest tile starts the first game.
    play = Play(draw_starter=True).tap("D", 1.0).order("start", 2.0, by="hub")
    assert play.game.phase is Phase.READY  # nobody knows the starter yet: nothing starts
    assert [said(n) for n in play.notes] == [
        "D: pominięto (najpierw: kto ma najwyższą kostkę, trzyma przycisk)",
        "pominięto (hub: start, gdy wiadomo, kto zaczyna)",
    ]
    play.hold("C", 3.0)  # C drew the highest tile
    assert (play.game.settings.starter, play.game.settings.draw_starter) == ("C", False)
    assert said(play.notes[-1]) == "C zaczyna: najwyższa kostka"
    play.tap("B", 6.0)  # B sits before C: its tap starts C's clock
    assert (play.game.phase, play.game.mover) == (Phase.MOVE, "C")


def test_a_press_started_before_the_move_does_not_end_it() -> None:
    # C is holding its button when B's tap hands it the clock: that press is not C's move.
    play = Play().start(0.0).tap("A", 1.0)
    play.down("C", 5.0).tap("B", 5.5).up("C", 6.7).to(7.0)
    assert (play.game.mover, play.game.phase, len(play.game.moves)) == ("C", Phase.MOVE, 2)


def test_the_movers_press_at_the_moment_its_clock_starts_is_the_last_moves() -> None:
    # A press within REACTION_S of the start was meant for what came before: logged as such.
    play = Play().order("start", 3.0, by="hub").tap("A", 3.05).to(4.0)
    assert (play.game.mover, play.game.moves) == ("A", ())
    assert said(play.notes[-1]) == "A: pominięto (naciśnięto przed startem ruchu)"
    play.tap("A", 5.0)
    assert play.game.mover == "B"


def test_a_press_in_time_wins_over_the_deadline() -> None:
    # A presses 0.3 s before its time runs out and holds to draw: the hold counts.
    play = Play(move_time_s=30).start(0.0).hold("A", 29.7)
    assert play.game.moves == (Move("A", 0.0, 29.7, EndedBy.HOLD, 1),)
    assert play.sounds == [(20.0, "warn")]


def test_a_bouncing_press_just_before_the_deadline_counts() -> None:
    play = Play(move_time_s=30).start(0.0)
    play.down("A", 29.99).up("A", 29.995).down("A", 29.999).up("A", 30.1).to(31)
    assert play.game.moves == (Move("A", 0.0, 29.99, EndedBy.TAP, 0),)


def test_a_press_at_the_deadline_is_late() -> None:
    play = Play(move_time_s=30).start(0.0).tap("A", 30.0)
    assert play.game.moves[-1].ended_by is EndedBy.TIMEOUT
    assert play.game.mover == "B"  # the tap at the deadline handed over (no draw)


def test_the_warning_beeps_once_at_warn_s_left() -> None:
    play = Play(move_time_s=40, warn_s=10).start(0.0).to(35.0)
    assert play.sounds == [(30.0, "warn")]
    assert play.time_left() == 5.0


def test_time_left_comes_from_the_deadline() -> None:
    play = Play(move_time_s=60).start(0.25).to(17.5)
    assert play.time_left() == 42.75


# --- timeout ----------------------------------------------------------------------------


def test_a_timeout_waits_for_the_seat_to_hand_over() -> None:
    play = Play(move_time_s=30, warn_s=0).start(0.0).to(45.0)
    game = play.game
    assert game.phase is Phase.TIMED_OUT
    assert game.moves == (Move("A", 0.0, 30.0, EndedBy.TIMEOUT, 0),)
    assert play.time_left() == 0.0
    assert play.sounds == [(30.0, "timeout")]


def test_a_tap_after_a_timeout_hands_over_without_a_draw() -> None:
    play = Play(move_time_s=30).start(0.0).to(40).tap("A", 41.0)
    game = play.game
    assert game.moves == (Move("A", 0.0, 30.0, EndedBy.TIMEOUT, 0),)
    assert (game.phase, game.mover, game.move_start) == (Phase.MOVE, "B", 41.0)
    assert game.opened == {"A"}  # the table stood: A's tiles were laid


def test_a_hold_after_a_timeout_draws_the_penalty() -> None:
    play = Play(move_time_s=30, penalty_tiles=2).start(0.0).to(40).hold("A", 41.0)
    game = play.game
    assert game.moves == (Move("A", 0.0, 30.0, EndedBy.TIMEOUT, 2),)
    assert (game.mover, game.move_start, game.pile.tiles_left) == ("B", 41.0, 48)  # the press
    assert game.opened == frozenset()


def test_others_cannot_hand_over_for_the_timed_out_seat() -> None:
    play = Play(move_time_s=30).start(0.0).to(40).tap("B", 41.0)
    assert play.game.phase is Phase.TIMED_OUT
    assert play.notes[-1].kind is NoteKind.IGNORED


def test_auto_timeout_moves_on_and_the_seat_may_hold_for_its_draw() -> None:
    play = Play(move_time_s=30, timeout="auto").start(0.0).to(31.0)
    assert (play.game.phase, play.game.mover, play.game.move_start) == (Phase.MOVE, "B", 30.0)
    play.hold("A", 32.0)  # within the 5 s window: recognised at 33.0
    assert play.game.moves == (Move("A", 0.0, 30.0, EndedBy.TIMEOUT, 1),)
    assert play.game.pile.tiles_left == 49
    assert play.game.mover == "B"


def test_auto_timeout_window_closes_after_five_seconds() -> None:
    play = Play(move_time_s=30, timeout="auto").start(0.0).hold("A", 36.0)
    assert play.game.moves == (Move("A", 0.0, 30.0, EndedBy.TIMEOUT, 0),)
    assert play.game.pile.tiles_left == 50


# --- pause, restart, undo ---------------------------------------------------------------


def test_the_caller_withdraws_before_the_move_ends_and_the_clock_never_stops() -> None:
    play = Play(move_time_s=60).start(0.0).hold("C", 10.0, length=2.5).tap("C", 20.0)
    assert (play.game.called_by, said(play.notes[-1])) == (None, "C wycofuje wezwanie sędziego")
    play.tap("A", 30.0)
    game = play.game
    assert (game.phase, game.mover, game.deadline) == (Phase.MOVE, "B", 90.0)


def test_only_the_caller_withdraws_the_call_and_resumes_the_clock() -> None:
    play = Play().start(0.0).hold("C", 10.0, length=2.5).tap("B", 20.0)
    assert play.game.called_by == "C"  # B's tap is not C's
    play.tap("A", 21.0).tap("A", 25.0).tap("B", 26.0)
    assert play.game.phase is Phase.PAUSED
    assert [n.seat for n in play.notes if n.kind is NoteKind.IGNORED] == ["B", "A", "B"]


def test_the_movers_three_second_hold_in_a_pause_restarts_the_move() -> None:
    play = Play(move_time_s=60).start(0.0).hold("C", 10.0, length=2.5).tap("A", 15.0)
    play.hold("B", 20.0, length=3.2)
    game = play.game
    assert (game.phase, game.mover, game.move_start, game.deadline) == (
        Phase.MOVE, "B", 23.0, 83.0,
    )  # fmt: skip
    assert len(game.moves) == 1


def test_judge_pause_resume_and_restart() -> None:
    play = Play(move_time_s=60).start(0.0).order("pause", 15.0)
    assert (play.game.phase, play.game.paused_by, play.game.left_s) == (Phase.PAUSED, "judge", 45)
    play.tap("A", 16.0)  # the mover cannot resume a judge's pause
    assert play.game.phase is Phase.PAUSED
    play.order("resume", 30.0)
    assert play.game.deadline == 75.0
    play.order("restart", 40.0)
    assert (play.game.deadline, play.game.phase) == (100.0, Phase.MOVE)


def test_after_a_power_cut_the_movers_tap_resumes_and_no_one_elses() -> None:
    play = Play(move_time_s=60).start(0.0).order("pause", 15.0, by=RECOVERY)
    play.tap("B", 20.0)  # only the mover goes on after a power cut
    assert play.game.phase is Phase.PAUSED
    play.tap("A", 30.0)
    assert (play.game.phase, play.game.mover, play.game.deadline) == (Phase.MOVE, "A", 75.0)


def test_undo_gives_the_move_back_with_the_time_it_had() -> None:
    play = Play(move_time_s=60).start(0.0).hold("A", 20.0).to(30.0).order("undo", 30.0)
    game = play.game
    # A's press at 20.0 stopped its clock while the hold was recognised: 40 s were left.
    assert (game.phase, game.mover, game.left_s, game.paused_by) == (
        Phase.PAUSED, "A", 40.0, "judge",
    )  # fmt: skip
    assert game.moves == ()
    assert game.pile.tiles_left == 50  # the tile drawn goes back on the pile
    assert game.undone  # the screens say the judge took the move back
    play.order("resume", 35.0)
    assert (play.game.phase, play.game.deadline, play.game.undone) == (Phase.MOVE, 75.0, False)


def test_undo_twice_goes_back_two_hand_overs() -> None:
    play = Play().start(0.0).tap("A", 5.0).tap("B", 9.0).order("undo", 10).order("undo", 11)
    assert (play.game.mover, play.game.moves, play.game.left_s) == ("A", (), 55.0)


def test_undo_of_a_rummikub_brings_the_move_back() -> None:
    play = Play().start(0.0).double("A", 20.0).order("undo", 25.0)
    assert (play.game.phase, play.game.mover, play.game.left_s) == (Phase.PAUSED, "A", 40.0)


def test_nothing_to_undo_is_logged() -> None:
    play = Play().start(0.0).order("undo", 3.0)
    assert play.game.phase is Phase.MOVE
    assert play.notes[-1].kind is NoteKind.IGNORED


@pytest.mark.parametrize(
    ("action", "phase"),
    [
        ("resume", Phase.READY),  # nothing is paused
        ("undo", Phase.READY),  # nothing to undo
        ("end", Phase.READY),
        ("pause", Phase.READY),
    ],
)
def test_orders_that_mean_nothing_now_are_logged(action: str, phase: Phase) -> None:
    play = Play().order(action, 1.0)
    assert play.game.phase is phase
    assert play.notes[-1].kind is NoteKind.IGNORED


# --- the final round --------------------------------------------------------------------


def test_after_the_last_tile_every_seat_moves_once_more() -> None:
    play = Play(seats=3, pile=1).start(0.0).hold("A", 5.0)  # A takes the last tile
    assert (play.game.pile.tiles_left, play.game.final_round, play.game.mover) == (0, True, "B")
    play.tap("B", 10.0).hold("C", 12.0)  # C passes: nothing to draw
    assert play.game.moves[-1] == Move("C", 10.0, 12.0, EndedBy.HOLD, 0)
    assert play.game.phase is Phase.MOVE
    play.tap("A", 20.0)
    assert (play.game.phase, play.game.ending) == (Phase.SCORING, Ending.EXHAUSTED)
    assert [m.seat for m in play.game.moves] == ["A", "B", "C", "A"]


def test_round_over_lets_the_move_finish_then_one_move_each() -> None:
    play = Play(seats=3).start(0.0).order("round-over", 3.0)
    assert play.game.final_round is False
    play.hold("A", 5.0)  # the move in progress finishes with a draw
    assert (play.game.final_round, play.game.final_left, play.game.pile.tiles_left) == (
        True, 3, 63,
    )  # fmt: skip
    play.tap("B", 10).tap("C", 11).tap("A", 12)
    assert play.game.phase is Phase.SCORING


def test_round_over_before_the_start_makes_every_seats_first_move_its_last() -> None:
    """The round's time ran out before the game began (000 o): no move is in progress to
    finish, so every seat moves exactly once, the starter first (RULES.md §5)."""
    play = Play(seats=3).order("round-over", 1.0, by="hub")
    assert (play.game.phase, play.game.round_over, play.game.final_round) == (
        Phase.READY, True, False,
    )  # fmt: skip
    play.order("round-over", 2.0, by="hub")  # the hub's own, after the table's: nothing more
    assert said(play.notes[-1]) == "pominięto (ostatnia runda już trwa)"
    play.start(3.0)
    assert (play.game.mover, play.game.final_left, play.game.round_over) == ("A", 3, False)
    play.hold("A", 5.0).tap("B", 10).tap("C", 11)
    assert (play.game.phase, play.game.exhausted_by) == (Phase.SCORING, Exhaustion.ROUND_TIME)
    assert [m.seat for m in play.game.moves] == ["A", "B", "C"]


def test_the_judge_can_end_the_game() -> None:
    play = Play().start(0.0).order("end", 9.0)
    assert (play.game.phase, play.game.ending, play.game.winner) == (
        Phase.SCORING, Ending.EXHAUSTED, None,
    )  # fmt: skip


# --- scoring ----------------------------------------------------------------------------


def test_entering_racks_with_the_buttons() -> None:
    play = Play(seats=3).start(0.0).tap("A", 1.0).tap("B", 2.0).double("C", 3.0)
    assert play.game.phase is Phase.SCORING
    play.hold("A", 10.0, length=1.7)  # +10 at 1.0 s, +10 at 1.5 s
    play.tap("A", 13.0).tap("A", 14.0)  # +1 +1
    assert play.game.rack("A") == 22
    play.double("A", 15.0)  # confirms, adds nothing
    assert play.game.confirmed == {"A", "C"}  # C, who went out, was confirmed with 0
    play.tap("A", 16.0)  # confirmed: no more changes
    assert play.game.rack("A") == 22
    play.tap("C", 17.0).double("C", 17.5)  # the winner has nothing to enter or confirm
    assert (play.game.rack("C"), play.game.confirmed) == (0, {"A", "C"})
    play.tap("B", 18.0).double("B", 19.0)  # the last seat's confirmation ends the count
    game = play.game
    assert game.phase is Phase.DONE
    assert game.result is not None
    assert game.result.small == {"A": -22, "B": -1, "C": 23}
    assert game.result.winners == ("C",)


def test_a_seat_that_never_laid_tiles_is_scored_as_not_opened() -> None:
    play = Play(seats=2).start(0.0).hold("A", 1.0).double("B", 5.0)
    play.tap("A", 10.0).double("A", 11.0).double("B", 12.0)
    assert play.game.result is not None
    assert play.game.result.small == {"A": -100, "B": 100}


def test_judge_orders_are_logged() -> None:
    play = Play().start(0.0).order("pause", 5.0).order("resume", 9.0, by="hub")
    orders = [(n.at, said(n)) for n in play.notes if n.kind is NoteKind.ORDER]
    assert orders == [(5.0, "sędzia: pauza"), (9.0, "hub: wznowienie")]


def test_a_late_penalty_hold_is_logged_not_recorded() -> None:
    play = Play(move_time_s=30, timeout="auto").start(0.0).hold("A", 36.0)
    assert play.game.moves[-1].drew == 0
    assert [(n.kind, n.seat, n.at) for n in play.notes] == [(NoteKind.LATE, "A", 37.0)]


# --- every press that holds the clock ends in a hand-over or lets the clock go -----------


def test_a_double_tap_whose_first_tap_was_before_the_move_is_a_tap() -> None:
    # B tapped in A's move (ignored), A handed over, and B's next tap came within double_s of
    # the ignored one: it is B's move-ending tap, not a Rummikub, and the clock must not freeze.
    play = Play(move_time_s=10, warn_s=3).tap("D", 0.0)
    play.down("B", 5.0).up("B", 5.05).down("A", 5.1).up("A", 5.15)
    play.down("B", 5.3).up("B", 5.35).to(300.0)
    moves = [(m.seat, m.start, m.end, m.ended_by) for m in play.game.moves]
    assert moves[:2] == [("A", 0.0, 5.1, EndedBy.TAP), ("B", 5.1, 5.3, EndedBy.TAP)]
    assert play.game.press_at is None
    assert play.game.phase is Phase.TIMED_OUT
    assert play.game.mover == "C"


# --- the starter of each game -----------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "first", "starters"),
    [
        (("A", "B", "C", "D"), "A", "ABCDA"),  # 000 f: A, then B, C, and so on round the table
        (("A", "B", "C"), "A", "ABCAB"),  # three seats: D never starts
        (("A", "B", "C", "D"), "C", "CDABC"),  # a configured first starter
        (("A", "B"), "B", "BABAB"),
    ],
)
def test_each_game_is_started_by_the_next_seat(
    seats: tuple[str, ...], first: str, starters: str
) -> None:
    settings = Settings(seats=seats, starter=first)
    assert "".join(starter_of(settings, n) for n in range(1, 6)) == starters


def counting(seats: int = 3) -> Play:
    """C went out with a double tap; A and B enter their racks."""
    play = Play(seats=seats).start(0.0).tap("A", 1.0).tap("B", 2.0).double("C", 3.0)
    assert (play.game.phase, play.game.confirmed) == (Phase.SCORING, {"C"})
    return play


def test_a_tap_then_a_hold_counts_down_by_ten_to_fix_an_overshoot() -> None:
    play = counting().hold("A", 10.0, length=2.2)  # +10 at 1.0, 1.5 and 2.0 s: 30
    assert play.game.rack("A") == 30
    # The seat wanted 23: "klik, trzymaj" takes 10 off (its tap's +1 too), then three taps.
    play.tap("A", 13.0).hold("A", 13.3, length=1.2)
    assert play.game.rack("A") == 20
    play.tap("A", 16.0).tap("A", 17.0).tap("A", 18.0)
    assert play.game.rack("A") == 23
    play.tap("A", 20.0).hold("A", 20.3, length=2.7)  # counts down every 0.5 s, never below 0
    assert play.game.rack("A") == 0


@pytest.mark.parametrize(
    ("length", "rack"),
    [
        (0.1, 1),  # a tap: +1
        (0.45, 1),  # still a tap (up to 0.5 s)
        (0.6, 0),  # neither a tap nor a hold: nothing, so a wrong sum can never be confirmed
        (0.95, 0),  # just short of the hold
        (1.05, 10),  # a hold: +10
    ],
)
def test_in_the_count_a_press_between_a_tap_and_a_hold_changes_nothing(
    length: float, rack: int
) -> None:
    play = counting().press("A", 10.0, length).to(12.0)
    assert play.game.rack("A") == rack
    if rack == 0:
        assert said(play.notes[-1]) == "A: ani klik, ani trzymanie: suma bez zmian"
    play.tap("A", 12.5).double("A", 13.0)  # the confirmation still works after an unclear press
    assert ("A" in play.game.confirmed, play.game.rack("A")) == (True, rack + 1)


def test_a_hold_long_after_a_tap_still_counts_up() -> None:
    play = counting().tap("A", 10.0).hold("A", 11.0, length=1.2)  # 0.9 s between: not a pair
    assert play.game.rack("A") == 11


def test_a_confirmed_sum_is_reopened_by_a_double_tap_until_the_last_seat_confirms() -> None:
    play = counting().tap("A", 10.0).double("A", 11.0)
    assert (play.game.rack("A"), play.game.confirmed) == (1, {"A", "C"})
    play.double("A", 12.0)  # reopened, with its sum
    assert (play.game.rack("A"), play.game.confirmed) == (1, {"C"})
    play.tap("A", 13.0).double("A", 14.0).tap("B", 15.0).double("B", 16.0)
    assert play.game.phase is Phase.DONE
    assert play.game.result is not None
    assert play.game.result.rack == {"A": 2, "B": 1, "C": 0}


def test_a_seat_that_did_not_go_out_cannot_confirm_0() -> None:
    """Issue 37: after A's Rummikub, B, C and D (each opened) double-tapped 0 at once, and
    the count scored every seat place 1 and a big point. A rack that did not go out holds at
    least one tile: the 0 is not confirmed, the seat keeps counting and is told why."""
    play = Play().start(0.0).tap("A", 1.0).tap("B", 2.0).tap("C", 3.0).tap("D", 4.0)
    play.double("A", 5.0)
    assert (play.game.phase, play.game.winner, play.game.confirmed) == (
        Phase.SCORING, "A", {"A"},
    )  # fmt: skip
    play.double("B", 10.0).double("C", 11.0).double("D", 12.0)
    game = play.game
    assert (game.phase, game.result, game.confirmed, game.refused) == (
        Phase.SCORING, None, {"A"}, {"B", "C", "D"},
    )  # fmt: skip
    assert game.racks == (("A", 0), ("B", 0), ("C", 0), ("D", 0))
    refused = [n for n in play.notes if n.why is not None]
    assert [(n.at, n.seat, n.why) for n in refused] == [
        (10.2, "B", Why.EMPTY_RACK), (11.2, "C", Why.EMPTY_RACK), (12.2, "D", Why.EMPTY_RACK),
    ]  # fmt: skip
    assert said(refused[0]) == "B: 0 nie przyjęte: na tabliczce zostaje co najmniej jedna kostka"
    play.tap("B", 13.0)  # the sum changes: the screen no longer says why
    assert (play.game.rack("B"), play.game.refused) == (1, {"C", "D"})
    play.double("B", 14.0).tap("C", 15.0).double("C", 16.0).tap("D", 17.0).double("D", 18.0)
    game = play.game
    assert (game.phase, game.refused) == (Phase.DONE, frozenset())
    assert game.result is not None
    assert (game.result.winners, game.result.small) == (
        ("A",), {"A": 3, "B": -1, "C": -1, "D": -1},
    )  # fmt: skip
    assert (game.result.places, game.result.big) == (
        {"A": 1, "B": 2, "C": 2, "D": 2}, {"A": 1, "B": 0, "C": 0, "D": 0},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("end", "why"),
    [
        # The pile ran out, then the final round.
        (
            lambda play: play.hold("A", 1.0).tap("B", 3.0).tap("C", 4.0).tap("A", 5.0),
            Exhaustion.PILE,
        ),
        # The round's time ran out, then the final round.
        (
            lambda play: (
                play.order("round-over", 0.5)
                .tap("A", 1.0)
                .tap("B", 2.0)
                .tap("C", 3.0)
                .tap("A", 4.0)
            ),
            Exhaustion.ROUND_TIME,
        ),
        # The judge ended the game at once.
        (lambda play: play.order("end", 1.0), Exhaustion.JUDGE),
    ],
)
def test_an_exhausted_games_0_is_confirmed_and_wins(
    end: Callable[[Play], Play], why: Exhaustion
) -> None:
    """The decision in ``klik.core.game._scoring``: nobody went out, so a 0 (a final round's
    Rummikub missed, say) is the lowest sum and wins; it scores a possible game, and the count
    is not stalled by it."""
    play = end(Play(seats=3, pile=1).start(0.0))
    assert (play.game.phase, play.game.ending, play.game.exhausted_by) == (
        Phase.SCORING, Ending.EXHAUSTED, why,
    )  # fmt: skip
    play.double("A", 10.0).tap("B", 11.0).double("B", 12.0)
    play.tap("C", 13.0).tap("C", 14.0).double("C", 15.0)
    game = play.game
    assert (game.phase, game.refused) == (Phase.DONE, frozenset())
    assert game.result is not None
    assert (game.result.winners, game.result.small) == (("A",), {"A": 3, "B": -1, "C": -2})


def test_the_winner_alone_opened_confirms_its_0() -> None:
    """Nobody else had opened: the winner's 0 is confirmed by its double tap, as before."""
    play = Play(seats=2).start(0.0).hold("A", 1.0).double("B", 5.0)
    assert (play.game.confirmed, play.game.winner) == ({"A"}, "B")
    play.double("B", 12.0)
    assert (play.game.phase, play.game.refused) == (Phase.DONE, frozenset())


def test_a_rack_sum_above_every_tile_of_the_set_is_refused() -> None:
    play = counting()
    tabletop = play.driver.tabletop
    play.driver.tabletop = replace(
        tabletop, game=replace(tabletop.game, racks=(("A", 825), ("B", 0), ("C", 0)))
    )
    play.hold("A", 10.0, length=1.2)
    assert play.game.rack("A") == 825  # +10 would pass 828
    play.tap("A", 12.0).tap("A", 13.0).tap("A", 14.0).tap("A", 15.0)
    assert play.game.rack("A") == 828
    refused = [n for n in play.notes if n.kind is NoteKind.IGNORED and n.seat == "A"]
    assert [n.at for n in refused] == [11.0, 15.0]
    assert "828" in said(refused[0])


def test_after_the_count_a_tap_turns_a_seats_screen_to_the_whole_table_and_back() -> None:
    play = counting().tap("A", 9.0).double("A", 10.0).tap("B", 10.5).double("B", 11.0)
    assert (play.game.phase, play.game.looking) == (Phase.DONE, frozenset())
    play.tap("B", 20.0).tap("A", 21.0).tap("B", 22.0)
    assert play.game.looking == {"A"}
