"""The heartbeat as a typed message: what the courier builds is what the hub decodes, and a
body that is not a heartbeat is one line naming its field."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core import game as g
from klik.core.pace import Pace
from klik.link import protocol as p
from klik.link.protocol import messages as m

seats = st.sampled_from(m.SEATS)
NEEDS = ("large", "quiet", "vibration")  # a seat's needs on the wire (issue 40)
whole = st.integers(min_value=0, max_value=m.BIG)


def seat_figures(n: int) -> st.SearchStrategy[dict[str, int]]:
    """A seat's figures as the core makes them: ``n`` moves, some drawn, some timed out."""
    times = st.lists(st.integers(0, 600_000), min_size=n, max_size=n)
    return st.builds(
        lambda draws, timeouts, ms: Pace(n, draws, timeouts, sum(ms), max(ms, default=0)).json(),
        st.integers(0, n),
        st.integers(0, n),
        times,
    )


figures = st.integers(0, 200).flatmap(seat_figures)
beats = st.builds(
    p.Heartbeat,
    game=st.none() | whole,
    state=st.none() | st.sampled_from(p.STATES),
    mover=st.none() | seats,
    left_ms=st.none() | whole,
    draw_tiles=st.none() | whole,
    judge=st.booleans(),
    paused_by=st.none() | st.sampled_from((*m.SEATS, *m.PAUSERS)),
    called_by=st.none() | seats,
    names=st.dictionaries(seats, st.text(max_size=m.MAX_NAME)),
    move_time_ms=st.none() | st.integers(1, m.BIG),
    moves=st.dictionaries(seats, figures),
    outbox=whole,
    last_seq=whole,
    acks=st.lists(st.text(min_size=1, max_size=p.MAX_COMMAND_ID)).map(tuple),
    refused=st.lists(
        st.builds(
            p.Refusal,
            seq=st.integers(1, m.BIG),
            game=st.none() | st.integers(1, 999),
            error=st.text(max_size=m.MAX_REASON),
        ),
        max_size=p.MAX_REFUSED,
    ).map(tuple),
    seq_in_doubt=st.booleans(),
    conflicts=st.lists(
        st.builds(p.Conflict, seq=st.integers(1, m.BIG), game=st.none() | st.integers(1, 999)),
        max_size=p.MAX_CONFLICTS,
    ).map(tuple),
)


@given(beats)
def test_what_the_table_sends_the_hub_decodes_as_it_was(beat: p.Heartbeat) -> None:
    assert p.Heartbeat.decode(beat.json()) == beat


def test_the_states_and_pausers_are_the_cores() -> None:
    assert tuple(phase.value for phase in g.Phase) == p.STATES
    assert set(m.PAUSERS) == {"judge", "hub", g.RECOVERY}


def test_an_older_tables_heartbeat_without_the_newer_fields_is_taken() -> None:
    old = {"game": 3, "state": "move", "mover": "B", "left_ms": 41_000, "draw_tiles": 28,
           "judge": False, "paused_by": None, "called_by": None, "outbox": 0, "last_seq": 2}  # fmt: skip
    beat = p.Heartbeat.decode(old)
    assert (beat.names, beat.acks, beat.refused, beat.seq_in_doubt) == ({}, (), (), False)
    assert beat.conflicts == ()
    assert (beat.move_time_ms, beat.moves) == (None, {})


FIGURES = {"count": 3, "draws": 2, "timeouts": 2, "mean_ms": 55_000, "longest_ms": 60_000}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"acks": "abc"}, "body.acks: must be a list of command ids (text of 1 to 32 characters)"),
        ({"acks": [""]}, "body.acks: must be a list of command ids (text of 1 to 32 characters)"),
        ({"state": "running"}, "body.state: must be one of ready, move, timed_out, paused, "
                               "scoring, done"),
        ({"mover": "E"}, "body.mover: must be a seat (A, B, C, D) or null"),
        ({"paused_by": "someone"}, "body.paused_by: must be one of A, B, C, D, judge, hub, "
                                   "recovery, or null"),
        ({"left_ms": -1}, "body.left_ms: must be a whole number from 0, or null"),
        ({"left_ms": 1.5}, "body.left_ms: must be a whole number from 0, or null"),
        ({"game": True}, "body.game: must be a whole number from 0, or null"),
        ({"judge": "yes"}, "body.judge: must be true or false"),
        ({"names": {"E": "Ewa"}}, "body.names: must map seats to names of at most 40"),
        ({"names": {"A": "x" * 41}}, "body.names: must map seats to names of at most 40"),
        ({"refused": {}}, "body.refused: must be a list of at most 10 set-aside results"),
        ({"refused": [{"seq": 0, "game": 1, "error": "x"}]},
         "body.refused[0].seq: must be a whole number from 1"),
        ({"refused": [{"seq": 4, "game": 1, "error": None}]},
         "body.refused[0].error: must be text of at most 200"),
        ({"seq_in_doubt": 1}, "body.seq_in_doubt: must be true or false"),
        ({"conflicts": {}}, "body.conflicts: must be a list of at most 20 results"),
        ({"conflicts": [{"seq": 1}] * 21}, "body.conflicts: must be a list of at most 20 results"),
        ({"conflicts": [5]}, "body.conflicts[0]: must be an object"),
        ({"conflicts": [{"seq": 0, "game": 1}]}, "body.conflicts[0].seq: must be a whole number from 1"),
        ({"conflicts": [{"seq": 2, "game": "1"}]},
         "body.conflicts[0].game: must be a whole number from 1, or null"),
        ({"move_time_ms": 0}, "body.move_time_ms: must be a whole number from 1, or null"),
        ({"moves": []}, "body.moves: must map seats (A, B, C, D) to their moves"),
        ({"moves": {"E": FIGURES}}, "body.moves: must map seats (A, B, C, D) to their moves"),
        ({"moves": {"A": {**FIGURES, "count": "3"}}},
         "body.moves.A.count: must be a whole number from 0 to 1000000000"),
        ({"moves": {"B": {**FIGURES, "timeouts": 4}}}, "body.moves.B.timeouts: must be at most count (3)"),
        ({"moves": {"B": {**FIGURES, "mean_ms": 60_001}}}, "body.moves.B.mean_ms: must be at most longest_ms"),
    ],
)  # fmt: skip
def test_a_body_that_is_not_a_heartbeat_is_one_line_naming_its_field(
    change: dict[str, Any], message: str
) -> None:
    body = {**p.Heartbeat(game=1, state="move", mover="A").json(), **change}
    with pytest.raises(p.ProtocolError) as refused:
        p.Heartbeat.decode(body)
    assert str(refused.value) == message


@given(
    st.integers(2, 4),
    st.lists(st.text(min_size=1, max_size=200), min_size=4, max_size=4, unique=True),
    st.lists(st.text(max_size=200), min_size=4, max_size=4),
    st.sampled_from(p.FIRST_STARTERS),
    st.lists(st.sets(st.sampled_from(NEEDS)), min_size=4, max_size=4),
)
def test_a_lineup_the_hub_builds_the_table_decodes_as_it_was(
    size: int, players: list[str], names: list[str], first_starter: str, needs: list[set[str]]
) -> None:
    seats = m.SEATS[:size]
    needed = tuple(
        (s, tuple(w for w in NEEDS if w in n)) for s, n in zip(seats, needs, strict=False) if n
    )
    lineup = p.RoundLineup(
        tournament="7", round_no=3, games=2, rules="league", move_time_s=60, seats=seats,
        players=tuple(zip(seats, players, strict=False)),
        names=tuple(zip(seats, names, strict=False)), first_starter=first_starter,
        needs=needed,
    )  # fmt: skip
    assert p.RoundLineup.decode(lineup.json(), m.SEATS) == lineup
    assert ("first_starter" in lineup.json()) is (first_starter == "draw")  # older tables
    sent = lineup.json()["seats"]
    assert [s for s in seats if "needs" in sent[s]] == [s for s, _ in needed]  # only where any


@pytest.mark.parametrize(
    ("needs", "message"),
    [
        ("large", "args.seats.B.needs: must be a list of large, quiet, vibration"),
        (["large", "loud"], "args.seats.B.needs[1]: allowed are large, quiet, vibration"),
        (["quiet", "quiet"], "args.seats.B.needs: names a need twice"),
        ([1], "args.seats.B.needs[0]: allowed are large, quiet, vibration"),
    ],
)
def test_a_seats_bad_needs_are_one_line_naming_the_field(needs: Any, message: str) -> None:
    args = p.RoundLineup(
        tournament="7", round_no=1, games=1, rules="league", move_time_s=60, seats=("A", "B"),
        players=(("A", "1"), ("B", "2")), names=(("A", "Ala"), ("B", "Ola")),
    ).json()  # fmt: skip
    args["seats"]["B"]["needs"] = needs
    with pytest.raises(p.ProtocolError) as refused:
        p.RoundLineup.decode(args, m.SEATS)
    assert str(refused.value) == message
    assert p.NEEDS == NEEDS
