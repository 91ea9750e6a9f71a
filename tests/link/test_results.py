"""The result body: what the table builds, the hub accepts, and whose points the hub checks."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.game import EndedBy, Move
from klik.core.scoring import Ending, SeatRack, score
from klik.link.protocol import ProtocolError
from klik.link.results import check_result, make_result, points_check
from klik.rules import RULE_SETS

MOVES = (
    Move("A", 0.0, 30.0, EndedBy.TAP),
    Move("B", 30.0, 90.0, EndedBy.TIMEOUT, drew=1),
    Move("C", 90.0, 95.0, EndedBy.RUMMIKUB),
)


def body_of(rules: str, ending: Ending, racks: dict[str, int], opened: set[str]) -> dict[str, Any]:
    winner = min(racks, key=lambda s: racks[s]) if ending is Ending.RUMMIKUB else None
    seats = {s: SeatRack(r, opened=s in opened) for s, r in racks.items()}
    result = score(RULE_SETS[rules], ending, seats, winner)
    return make_result(
        table=12,
        game=3,
        rules=rules,
        result=result,
        names={"A": "Łucja", "B": "Zenon"},
        opened=opened,
        moves=tuple(m for m in MOVES if m.seat in racks),  # the seated seats move
        duration_ms=95_000,
        finished_at="2026-11-23T14:05:09Z",
    )


def test_a_tables_body_holds_what_the_contract_lists() -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    check_result(body)
    assert body["seats"]["A"] == {
        "name": "Łucja", "player": None, "rack": 10, "opened": True, "small": -10, "big": 0,
        "moves": {"count": 1, "draws": 0, "timeouts": 0, "mean_ms": 30_000, "longest_ms": 30_000},
    }  # fmt: skip
    assert body["seats"]["B"]["moves"] == {
        "count": 1, "draws": 1, "timeouts": 1, "mean_ms": 60_000, "longest_ms": 60_000,
    }  # fmt: skip
    assert body["winners"] == ["C"]
    assert (body["moves"], body["timeouts"], body["duration_ms"]) == (3, 1, 95_000)
    assert points_check(body) == "ok"


@given(
    rules=st.sampled_from(sorted(RULE_SETS)),
    ending=st.sampled_from(Ending),
    racks=st.lists(st.integers(0, 300), min_size=2, max_size=4),
    opened=st.sets(st.sampled_from("ABCD")),
)
def test_every_scored_game_passes_the_schema_and_its_points_check(
    rules: str, ending: Ending, racks: list[int], opened: set[str]
) -> None:
    seats = dict(zip("ABCD", racks, strict=False))
    if ending is Ending.RUMMIKUB:
        seats["A"] = 0
    body = body_of(rules, ending, seats, opened & set(seats))
    check_result(body)
    assert points_check(body) == "ok"


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b["seats"]["A"].update(small=b["seats"]["A"]["small"] + 1),  # one point off
        lambda b: b["seats"]["B"].update(big=1),  # a big point for a loser
        lambda b: b.update(rules="league"),  # scored by the other rule set
        lambda b: b["seats"]["A"].update(opened=False),  # the penalty not charged
    ],
)
def test_points_that_are_not_the_rule_sets_are_a_mismatch(change: Any) -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    changed = copy.deepcopy(body)
    change(changed)
    check_result(changed)
    assert points_check(changed) == "mismatch"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b.pop("table"), "body.table"),
        (lambda b: b.update(table=0), "body.table"),
        (lambda b: b.update(game=True), "body.game"),  # a bool is not a number here
        (lambda b: b.update(round=0), "body.round"),
        (lambda b: b.update(tournament="x" * 201), "body.tournament"),
        (lambda b: b.update(rules="house"), "body.rules"),
        (lambda b: b.update(ending="draw"), "body.ending"),
        (lambda b: b.update(seats={"A": b["seats"]["A"]}), "body.seats"),  # one seat
        (lambda b: b["seats"].update(E=b["seats"]["A"]), "body.seats"),  # a fifth seat letter
        (lambda b: b["seats"]["A"].pop("rack"), "body.seats.A.rack"),
        (lambda b: b["seats"]["B"].update(rack=-1), "body.seats.B.rack"),
        (lambda b: b["seats"]["B"].update(rack=829), "body.seats.B.rack"),  # more than the set
        (lambda b: b["seats"]["B"].update(opened="yes"), "body.seats.B.opened"),
        (lambda b: b["seats"]["B"].update(name=None), "body.seats.B.name"),
        (lambda b: b.update(winners=[]), "body.winners"),
        (lambda b: b.update(winners=["C", "C"]), "body.winners"),
        (lambda b: b.update(winners=["A", "C"]), "body.winners"),  # two winners of a Rummikub
        (lambda b: b.update(moves=-1), "body.moves"),
        (lambda b: b.update(finished_at="yesterday"), "body.finished_at"),
        (
            lambda b: b.update(finished_at="2026-99-99T99:99:99Z"),
            "body.finished_at",
        ),  # the shape only
        (
            lambda b: b.update(finished_at="2026-02-29T12:00:00Z"),
            "body.finished_at",
        ),  # not a leap year
        (lambda b: b.update(finished_at="2026-11-23T24:00:00Z"), "body.finished_at"),
        (
            lambda b: b.update(finished_at="2016-12-31T23:59:60Z"),
            "body.finished_at",
        ),  # a leap second: no POSIX clock shows it
        (
            lambda b: b.update(finished_at="２０２６-11-23T14:05:09Z"),
            "body.finished_at",
        ),  # fullwidth digits
        (lambda b: b.update(round_game=0), "body.round_game"),
        (lambda b: b.update(round_game=10), "body.round_game"),  # a round has at most 9 games
        (lambda b: b.update(ended_by="pile"), "body.ended_by"),  # a Rummikub has no such why
        (lambda b: b.update(ending="exhausted", winners=["C"], ended_by="dinner"), "body.ended_by"),
        # a seat's moves (``docs/protocol.md``, A seat's moves)
        (lambda b: b["seats"]["B"].pop("moves"), "body.seats.B.moves"),  # on some seats only
        (lambda b: b["seats"]["A"].update(moves=[1, 0, 0]), "body.seats.A.moves"),
        (lambda b: b["seats"]["A"]["moves"].pop("draws"), "body.seats.A.moves.draws"),
        (lambda b: b["seats"]["A"]["moves"].update(count=-1), "body.seats.A.moves.count"),
        (lambda b: b["seats"]["A"]["moves"].update(mean_ms=30_000.0), "body.seats.A.moves.mean_ms"),
        (lambda b: b["seats"]["A"]["moves"].update(draws=2), "body.seats.A.moves.draws"),
        (lambda b: b["seats"]["B"]["moves"].update(timeouts=2), "body.seats.B.moves.timeouts"),
        (lambda b: b["seats"]["A"]["moves"].update(mean_ms=30_001), "body.seats.A.moves.mean_ms"),
        (lambda b: b["seats"]["C"]["moves"].update(count=0), "body.seats.C.moves.longest_ms"),
        (lambda b: b.update(moves=4), "body.seats.A.moves.count"),  # the seats' add up to 3
        (lambda b: b.update(timeouts=0), "body.seats.A.moves.timeouts"),  # theirs add up to 1
    ],
)
def test_a_body_that_breaks_the_schema_names_the_field(change: Any, field: str) -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    change(body)
    with pytest.raises(ProtocolError) as raised:
        check_result(body)
    assert raised.value.field == field


@pytest.mark.parametrize(
    "finished_at",
    [
        "2024-02-29T23:59:59Z",  # a leap day
        "2026-11-23T14:05:09.123456Z",  # with a fraction of a second
        None,  # a table whose clock is not synchronised
    ],
)
def test_a_real_utc_time_is_a_finished_at(finished_at: str | None) -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    check_result({**body, "finished_at": finished_at})


def test_what_a_tables_clock_writes_is_a_finished_at() -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    for second in (0, 951_782_400, 1_795_000_000, 4_102_444_799):  # 2000-02-29 .. 2099-12-31
        written = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))  # as daemon.wall_clock
        check_result({**body, "finished_at": written})


def test_the_largest_rack_is_every_tile_of_the_set() -> None:
    body = body_of("tournament", Ending.EXHAUSTED, {"A": 828, "B": 20, "C": 0}, {"A", "B", "C"})
    check_result(body)  # 828 passes; 829 is refused (above)


def test_an_older_tables_body_without_the_seats_moves_is_taken() -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    for entry in body["seats"].values():
        del entry["moves"]
    check_result(body)
    assert points_check(body) == "ok"


def test_a_seats_moves_keep_a_key_they_do_not_know() -> None:
    body = body_of("tournament", Ending.RUMMIKUB, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    body["seats"]["A"]["moves"]["median_ms"] = 30_000  # a newer table's
    check_result(body)


@pytest.mark.parametrize("why", ["pile", "round_time", "judge", None])
def test_an_exhausted_game_says_why_it_ended(why: str | None) -> None:
    body = body_of("tournament", Ending.EXHAUSTED, {"A": 10, "B": 20, "C": 0}, {"A", "B", "C"})
    body["ended_by"] = why
    check_result(body)
