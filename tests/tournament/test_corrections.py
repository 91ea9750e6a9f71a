"""Corrections: events on a result, replayed in order, scored again by the rule set."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.rules import RULE_SETS
from klik_hub.tournament.corrections import Correction, CorrectionError, Kind, check, counted

ENROLLED = {1, 2, 3, 4}
TOURNAMENT = RULE_SETS["tournament"]


def body(ending: str = "rummikub", rules: str = "tournament", **racks: int) -> dict[str, Any]:
    """A stored result as the hub reads it (the players ids, not the wire's text): seats A-D,
    players 1-4; A went out (Rummikub)."""
    racks = racks or {"A": 0, "B": 25, "C": 17, "D": 18}
    return {
        "rules": rules,
        "ending": ending,
        "winners": ["A"],
        "seats": {
            s: {"player": i, "rack": r, "opened": True, "small": 0, "big": 0}
            for i, (s, r) in enumerate(racks.items(), 1)
        },
    }


def fix(kind: Kind, seat: str | None, value: int | bool) -> Correction:
    return Correction(kind, seat, value, "sędzia sprawdził tabliczkę")


def test_an_uncorrected_result_counts_as_its_racks_score() -> None:
    now = counted(body(), None, [], ENROLLED)
    assert (now.counts, now.held, now.corrected) == (True, None, False)
    assert now.small == {"A": 60, "B": -25, "C": -17, "D": -18}  # seed 003's example
    assert now.big == {"A": 1, "B": 0, "C": 0, "D": 0}


def test_a_rack_entered_wrongly_is_scored_again() -> None:
    now = counted(body(), None, [fix(Kind.RACK, "B", 35)], ENROLLED)
    assert now.small == {"A": 70, "B": -35, "C": -17, "D": -18}
    assert now.corrected


def test_the_latest_correction_of_a_rack_wins() -> None:
    now = counted(body(), None, [fix(Kind.RACK, "B", 35), fix(Kind.RACK, "B", 5)], ENROLLED)
    assert now.small["B"] == -5


def test_a_seat_that_could_have_opened_loses_200() -> None:
    result = body()
    result["seats"]["C"]["opened"] = False
    assert counted(result, None, [], ENROLLED).small["C"] == -100
    now = counted(result, None, [fix(Kind.COULD_OPEN, "C", True)], ENROLLED)
    assert (now.small["C"], now.small["A"]) == (-200, 25 + 200 + 18)
    undone = counted(
        result, None, [fix(Kind.COULD_OPEN, "C", True), fix(Kind.COULD_OPEN, "C", False)], ENROLLED
    )
    assert undone.small["C"] == -100


@pytest.mark.parametrize(
    ("held", "made", "counts", "why"),
    [
        (None, [], True, None),
        ("mismatch", [], False, "mismatch"),  # the table's points are not its racks'
        ("mismatch", [(Kind.ACCEPT, True)], True, None),  # the judge settles it
        ("conflict", [(Kind.ACCEPT, True)], True, None),
        ("conflict", [(Kind.ACCEPT, True), (Kind.ACCEPT, False)], False, "conflict"),
        (None, [(Kind.EXCLUDE, True)], False, "excluded"),
        (None, [(Kind.EXCLUDE, True), (Kind.EXCLUDE, False)], True, None),  # counts again
        ("mismatch", [(Kind.ACCEPT, True), (Kind.EXCLUDE, True)], False, "excluded"),
    ],
)
def test_a_held_result_counts_once_the_judge_settles_it(
    held: str | None, made: list[tuple[Kind, bool]], counts: bool, why: str | None
) -> None:
    now = counted(body(), held, [fix(kind, None, value) for kind, value in made], ENROLLED)
    assert (now.counts, now.held) == (counts, why)


def opened(result: dict[str, Any], **flags: bool) -> dict[str, Any]:
    for seat, flag in flags.items():
        result["seats"][seat]["opened"] = flag
    return result


@pytest.mark.parametrize(
    ("result", "why"),
    [
        # Issue 37: A went out and B, C, D, who opened, took 0: every seat place 1.
        (body(A=0, B=0, C=0, D=0), "impossible"),
        # One seat that opened and did not go out with 0: the places agree, the rack cannot.
        (body(A=0, B=0, C=17, D=18), "impossible"),
        # A seat that never opened is charged its penalty: its 0 is the rack it was not asked.
        (opened(body(A=0, B=0, C=17, D=18), B=False), None),
        (opened(body(A=0, B=0, C=0, D=0), B=False, C=False, D=False), None),
        # An exhausted game's 0 is the lowest sum: a winner in first place, as it should be.
        (body("exhausted", A=0, B=5, C=17, D=18), None),
        (body("exhausted", A=0, B=0, C=17, D=18), None),  # two tied winners
        (body("exhausted", A=3, B=3, C=3, D=3), None),  # every seat tied: every seat wins
    ],
)
def test_racks_no_game_ends_with_hold_the_result(result: dict[str, Any], why: str | None) -> None:
    now = counted(result, None, [], ENROLLED)
    assert (now.counts, now.held) == (why is None, why)


def test_an_impossible_result_counts_once_the_judge_corrects_the_rack_not_by_accepting() -> None:
    result = body(A=0, B=0, C=0, D=0)
    accepted = [fix(Kind.ACCEPT, None, True)]
    assert counted(result, "mismatch", accepted, ENROLLED).held == "impossible"
    fixed = [*accepted, *(fix(Kind.RACK, s, r) for s, r in (("B", 25), ("C", 17), ("D", 18)))]
    now = counted(result, "mismatch", fixed, ENROLLED)
    assert (now.counts, now.held, now.winners) == (True, None, ("A",))
    assert now.big == {"A": 1, "B": 0, "C": 0, "D": 0}
    # Corrected, but the table's points still differ from the racks': the judge accepts that.
    assert counted(result, "mismatch", fixed[1:], ENROLLED).held == "mismatch"


def test_a_seat_without_a_known_player_holds_the_result_until_named() -> None:
    result = body()
    result["seats"]["D"]["player"] = None  # a table that played without the round's lineup
    assert counted(result, None, [], ENROLLED).held == "players"
    now = counted(result, None, [fix(Kind.PLAYER, "D", 4)], ENROLLED)
    assert (now.counts, now.players["D"]) == (True, 4)


@pytest.mark.parametrize(
    ("kind", "seat", "value", "reason", "message"),
    [
        (
            "points",
            "B",
            5,
            "x",
            "kind: allowed are rack, could_open, player, exclude, accept, assign",
        ),
        ("rack", "B", 5, "  ", "reason: say why, in 1 to 500 characters"),
        ("rack", "E", 5, "x", "seat: allowed are A, B, C, D"),
        ("rack", None, 5, "x", "seat: allowed are A, B, C, D"),
        ("rack", "B", 829, "x", "value: a rack sum from 0 to 828"),
        ("rack", "B", True, "x", "value: a rack sum from 0 to 828"),
        ("rack", "A", 5, "x", "seat: A went out (Rummikub): its rack is 0"),
        ("player", "B", 0, "x", "value: the player's id (start number), 1 or more"),
        ("exclude", "B", True, "x", "seat: exclude is for the whole game: null"),
        ("accept", None, 1, "x", "value: true or false"),
    ],
)
def test_a_bad_correction_is_refused_in_one_line(
    kind: str, seat: str | None, value: Any, reason: str, message: str
) -> None:
    with pytest.raises(CorrectionError) as raised:
        check({"kind": kind, "seat": seat, "value": value, "reason": reason}, body(), TOURNAMENT)
    assert str(raised.value) == message


@given(st.lists(st.tuples(st.sampled_from("BCD"), st.integers(0, 828)), max_size=6))
def test_after_any_rack_corrections_a_rummikubs_points_sum_to_zero(
    fixes: list[tuple[str, int]],
) -> None:
    now = counted(body(), None, [fix(Kind.RACK, s, r) for s, r in fixes], ENROLLED)
    assert sum(now.small.values()) == 0
    assert now.small["A"] == -sum(v for s, v in now.small.items() if s != "A")
