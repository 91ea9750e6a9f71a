"""Invariants over random button storms, judge orders and tick rates (hypothesis)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note_case
from hypothesis import strategies as st

from klik.core import game as g
from klik.core.gestures import GestureSettings
from klik.core.pile import DrawPile
from klik.core.tabletop import Edge, Event, Tabletop, new_tabletop, next_due, recover, step
from klik.script import rack_presses

RUNNING = {g.Phase.MOVE, g.Phase.TIMED_OUT, g.Phase.PAUSED}
ACTIONS = list(g.Action)

# One press: (gap before it, seat index, length). Lengths cover bounce, taps, holds, judge
# calls, long holds and stuck buttons; gaps cover double taps and long thinking. A length of
# 0 stands for a double tap, so that games reach Rummikubs and the count.
presses = st.tuples(
    st.sampled_from([0.0, 0.005, 0.05, 0.2, 0.5, 1.0, 3.0, 12.0, 45.0]),
    st.integers(0, 3),
    st.sampled_from([0.0, 0.0, 0.004, 0.1, 0.1, 0.3, 1.2, 1.7, 2.4, 3.3, 11.0]),
)
orders = st.tuples(st.sampled_from([0.0, 0.5, 7.0]), st.sampled_from(ACTIONS))
streams = st.lists(st.one_of(presses, presses, presses, orders), min_size=1, max_size=120)


def build(draw_seats: int, pile: int, timeout: str) -> Tabletop:
    settings = g.Settings(
        seats=tuple("ABCD"[:draw_seats]),
        move_time_s=20.0,
        timeout=g.TimeoutMode(timeout),
        warn_s=5.0,
        gestures=GestureSettings(),
    )
    tabletop = new_tabletop(settings)
    return replace(tabletop, game=replace(tabletop.game, pile=DrawPile.with_tiles(pile)))


def events(
    stream: list[tuple[float, int, float] | tuple[float, g.Action]], seats: int
) -> list[Event]:
    """Edges and orders in time order; the judge starts the game so that most streams play."""
    out: list[Event] = [g.Order(g.Action.START, 0.0, "judge")]
    t = 0.0
    for item in stream:
        t += item[0]
        if len(item) == 3:
            seat = "ABCD"[item[1]]  # may be a seat not at the table: must be shrugged off
            length = item[2]
            taps = [(t, 0.1), (t + 0.2, 0.1)] if length == 0 else [(t, length)]
            # Two buttons' edges never share a microsecond at a real table. At the very same
            # float instant their bursts would settle in one step, and the state between the
            # two taps (which a power cut can leave) would never be seen by ``drive``.
            off = item[1] * 1e-6
            out += [
                e
                for at, n in taps
                for e in (Edge(seat, True, at + off), Edge(seat, False, at + off + n))
            ]
            t = max(t, taps[-1][0])
        else:
            out.append(g.Order(item[1], t, "judge"))
    out.sort(key=lambda e: e.at)
    return out


def drive(
    tabletop: Tabletop,
    evs: list[Event],
    tick_s: float | None,
    until: float | None = None,
    seen: list[g.Game] | None = None,
) -> tuple[Tabletop, list[g.Effect]]:
    """Run the events; with ``tick_s`` also tick at that period, as a daemon's loop would.

    Then time runs on to ``until`` (default: a minute after the last event). Every state
    the game passes through is checked, and added to ``seen`` if given.
    """
    effects: list[g.Effect] = []
    t = 0.0
    end = (evs[-1].at if evs else 0) + 60.0 if until is None else until
    for event in [*evs, g.Tick(end)]:
        while tick_s is not None and t + tick_s < event.at:
            t += tick_s
            tabletop, more = step(tabletop, g.Tick(t))
            effects += more
            check(tabletop, t, seen)
        # A tabletop ticked only at the moments it names must reach the same states. A moment
        # that falls on the event's own instant is ticked too, as the journal's replay does:
        # ``step`` would do that work first anyway, but inside one step, and a state it passes
        # through there (a move that times out at the very instant the judge pauses: the next
        # seat is on the move, for no time at all) must be seen, since a cut can leave it.
        while tick_s is None and (due := next_due(tabletop)) is not None and due <= event.at:
            tabletop, more = step(tabletop, g.Tick(due))
            effects += more
            check(tabletop, due, seen)
        tabletop, more = step(tabletop, event)
        effects += more
        check(tabletop, event.at, seen)
    return tabletop, effects


def check(tabletop: Tabletop, now: float, seen: list[g.Game] | None = None) -> None:
    game = tabletop.game
    if seen is not None:
        seen.append(game)
    # Exactly one seat is on the move while a game runs, none before or after.
    assert (game.mover is not None) == (game.phase in RUNNING)
    if game.mover is not None:
        assert game.mover in game.settings.seats
    # The draw pile never goes below zero.
    assert game.pile.tiles_left >= 0
    assert game.pile.middle >= 0
    assert game.pile.bank_stacks >= 0
    # The clock shows something between 0 and the move time.
    left = game.time_left(now)
    assert (left is None) == (game.phase not in RUNNING)
    if left is not None:
        assert 0.0 <= left <= game.settings.move_time_s
    # Moves come one after another.
    for before, after in zip(game.moves, game.moves[1:], strict=False):
        assert before.end <= after.start or after.start >= before.start
    if game.final_left is not None:
        assert 0 < game.final_left <= len(game.settings.seats)
    # A press that holds the clock is still down (or just let go): every such press ends in
    # a hand-over or lets the clock go, so the clock can never freeze.
    if game.press_at is not None:
        assert game.mover is not None
        button = tabletop.buttons[game.settings.seats.index(game.mover)]
        assert button.down or button.burst_at is not None, "the clock is held by no press"


common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A game: its stream of presses and orders, seats, draw pile, and what a timeout does.
games = (streams, st.integers(2, 4), st.integers(0, 12), st.sampled_from(["wait", "auto"]))


@common
# A seat that did not go out holds at least one tile: a Rummikub's count refuses its 0.
@given(*games, st.lists(st.integers(1, 140), min_size=4, max_size=4))
def test_invariants_hold_after_every_event(
    stream: list[tuple[float, int, float] | tuple[float, g.Action]],
    seats: int,
    pile: int,
    timeout: str,
    racks: list[int],
) -> None:
    tabletop, _ = drive(build(seats, pile, timeout), events(stream, seats), tick_s=None)
    note_case(f"ended in {tabletop.game.phase.value}")
    if tabletop.game.phase is not g.Phase.SCORING:
        return
    note_case(f"scored a {tabletop.game.ending.value if tabletop.game.ending else None} ending")
    # Every seat enters its rack with the real gestures; the winner of a Rummikub has none.
    game = tabletop.game
    # (The random presses may already have entered points, or confirmed a seat.)
    entering = {
        s: 0 if s == game.winner else r
        for s, r in zip(game.settings.seats, racks, strict=False)
        if s not in game.confirmed
    }
    expected = {s: game.rack(s) + entering.get(s, 0) for s in game.settings.seats}
    start = max(tabletop.now, 0.0) + 1.0
    count: list[Event] = []
    for seat, points in entering.items():
        for at, length in rack_presses(game.settings.gestures, points):
            count += [Edge(seat, True, start + at), Edge(seat, False, start + at + length)]
    tabletop, effects = drive(tabletop, sorted(count, key=lambda e: e.at), tick_s=None)
    results = [c.result for c in effects if isinstance(c, g.ResultReady)]
    assert tabletop.game.phase is g.Phase.DONE
    assert len(results) == 1
    result = results[0]
    assert dict(result.rack) == expected
    total = sum(result.small.values())
    if len(result.winners) == 1:
        assert total == 0  # small points sum to zero...
    else:  # ...unless winners tie: each of them is paid the others' differences
        assert total == result.small[result.winners[0]] * (len(result.winners) - 1)


@pytest.mark.slow  # 150 games, each driven three times
@common
@given(*games)
def test_the_same_events_give_the_same_game_whatever_the_tick_rate(
    stream: list[tuple[float, int, float] | tuple[float, g.Action]],
    seats: int,
    pile: int,
    timeout: str,
) -> None:
    evs = events(stream, seats)
    exact, exact_effects = drive(build(seats, pile, timeout), evs, tick_s=None)
    again, again_effects = drive(build(seats, pile, timeout), evs, tick_s=None)
    ticked, ticked_effects = drive(build(seats, pile, timeout), evs, tick_s=0.37)
    assert again.game == exact.game
    assert again_effects == exact_effects
    assert ticked.game == exact.game
    assert ticked_effects == exact_effects


def essence(game: g.Game) -> tuple[object, ...]:
    """What a power cut may not change: whose move, the moves, the pile, the count."""
    return (
        game.mover,
        game.moves,
        game.pile,
        game.opened,
        game.final_left,
        game.round_over,
        game.ending,
        game.winner,
        game.racks,
        game.confirmed,
        game.result,
    )


def count(game: g.Game, seat: str) -> tuple[int, bool]:
    """One seat's part of the count: its rack sum and whether it has confirmed it."""
    return game.rack(seat), seat in game.confirmed


@common
@given(*games, st.data())
def test_a_stream_cut_anywhere_recovers_paused_in_a_state_it_passed_through(
    stream: list[tuple[float, int, float] | tuple[float, g.Action]],
    seats: int,
    pile: int,
    timeout: str,
    data: st.DataObject,
) -> None:
    evs = events(stream, seats)
    cut = data.draw(st.integers(1, len(evs)), label="events before the power cut")
    game = recovers_in_a_state_it_passed_through(evs, build(seats, pile, timeout), cut)
    if game.paused_by == g.RECOVERY:
        note_case("a running clock came back paused")


def test_a_cut_in_the_count_keeps_each_seats_own_count() -> None:
    """Seat A's double tap is decided at the cut while seat B's hold, still short of its
    mark, is dropped: a pair of counts the whole stream never showed at once, and each one a
    count its own seat reached (hypothesis found it)."""
    stream: list[tuple[float, int, float] | tuple[float, g.Action]] = [
        *[(0.0, g.Action.START)] * 4,
        (0.0, g.Action.END),
        *[(0.0, 0, 0.004)] * 4,
        (0.0, 1, 1.2),
        (0.5, g.Action.START),
        (0.2, 0, 0.0),
    ]
    recovered = recovers_in_a_state_it_passed_through(events(stream, 2), build(2, 0, "wait"), 20)
    assert recovered.phase is g.Phase.SCORING
    assert (count(recovered, "A"), count(recovered, "B")) == ((0, True), (0, False))


def test_a_cut_as_a_resumed_move_runs_out_keeps_the_next_seats_move() -> None:
    """The judge's undo gives A back a move that had run out, with nothing left on its clock;
    the judge resumes it and pauses at once. The move runs out at the instant of the resume,
    so B is on the move when the judge's pause comes. A cut after the resume brings B's move
    back, paused, with its full time: a state the game passed through inside the pause's own
    step, which the oracle once missed (hypothesis found it)."""
    stream: list[tuple[float, int, float] | tuple[float, g.Action]] = [
        (0.0, 0, 0.1),
        (0.0, g.Action.START),
        (0.0, 0, 0.0),
        (0.0, 0, 0.0),
        (0.0, g.Action.START),
        (0.0, g.Action.START),
        (45.0, 0, 0.004),
        (0.0, g.Action.START),
        (0.0, 0, 0.0),
        (0.0, g.Action.UNDO),
        (0.5, g.Action.RESUME),  # at 46.1 s, the instant A's given-back move runs out
        (0.0, g.Action.PAUSE),
    ]
    evs = events(stream, 2)
    resume = evs[22]  # the last event before the cut
    assert isinstance(resume, g.Order)
    assert resume.action is g.Action.RESUME
    assert resume.at == pytest.approx(46.1)
    recovered = recovers_in_a_state_it_passed_through(evs, build(2, 1, "auto"), 23)
    assert (recovered.phase, recovered.resume_to) == (g.Phase.PAUSED, g.Phase.MOVE)
    assert recovered.paused_by == g.RECOVERY
    assert recovered.mover == "B"
    assert [(m.seat, m.ended_by) for m in recovered.moves] == [
        ("A", g.EndedBy.TAP),
        ("B", g.EndedBy.TIMEOUT),
        ("A", g.EndedBy.TIMEOUT),
    ]
    assert recovered.left_s == pytest.approx(20.0)


def recovers_in_a_state_it_passed_through(evs: list[Event], start: Tabletop, cut: int) -> g.Game:
    """Cut the power after ``cut`` events: what comes back is paused in a state it reached."""
    seen = [start.game]
    drive(start, evs, tick_s=None, seen=seen)  # every state the whole stream passes through
    last = evs[cut - 1].at
    tabletop, _ = drive(start, evs[:cut], tick_s=None, until=last)
    recovered, _ = recover(tabletop, last)
    check(recovered, last)
    game = recovered.game
    # Every button is up: nothing still pressed, nothing half-settled.
    assert all(not b.down and not b.raw_down and b.burst_at is None for b in recovered.buttons)
    assert game.press_at is None
    if game.paused_by == g.RECOVERY:
        assert game.phase is g.Phase.PAUSED
        matches = [s for s in seen if s.phase is game.resume_to and essence(s) == essence(game)]
        assert matches, "recovered to a move the whole stream never reached"
        if game.resume_to is g.Phase.MOVE:
            # The time left is the time the clock showed at the cut: a press holding the
            # clock gives its time back, since what it would have become is lost.
            assert any(s.time_left(last) == game.left_s for s in matches)
    elif game.phase in (g.Phase.SCORING, g.Phase.DONE):
        # The seats count at once, each on its own button. A cut decides one seat's
        # unsettled tap at once and drops another's hold short of its mark, so the pair may
        # be new; each seat's own count must be one that seat reached, and the rest as seen.
        shared = [
            s
            for s in seen
            if s.phase in (g.Phase.SCORING, g.Phase.DONE) and essence(s)[:8] == essence(game)[:8]
        ]
        assert shared, "recovered to a count the whole stream never began"
        for seat in game.settings.seats:
            assert any(count(s, seat) == count(game, seat) for s in shared), seat
    else:
        assert game.phase not in (g.Phase.MOVE, g.Phase.TIMED_OUT)
        matches = [s for s in seen if s.phase is game.phase and essence(s) == essence(game)]
        assert matches, "recovered to a state the whole stream never passed through"
    return game
