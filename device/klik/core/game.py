"""One table's game: the klik move clock, the draw pile, opening, the ending and the count.

Rules (RULES.md §2–7, seeds 000 e–q)
-----------------------------------
Seats move clockwise. Each move has a fixed time that restarts every move. The mover ends a
move with their button: a tap when they laid tiles, a hold when they drew a tile (in the final
round: passed), a double tap when their rack is empty (Rummikub). Only the mover may touch the
clock; any other seat may hold its button to call the judge, which stops the clock. When the
time runs out the seat hands over with a tap (the table stood, no draw) or a hold (the table
was restored, penalty draw). When the last draw tile is taken, or the round's time runs out,
the move in progress finishes and every seat makes exactly one more move; then the game is
exhausted. At the end every seat enters its rack sum with its button and confirms it; when all
have confirmed, the result is scored.

Transition table (phase × event → what happens)
-----------------------------------------------
READY      tap by the seat before the starter / START    → MOVE, the starter's clock runs
           a starter to draw (001: the highest tile starts the first game): the first seat
           to HOLD is the starter; until then taps and START are logged and do nothing
           LONG hold by any seat                          → re-deal request logged
           ROUND_OVER (the round's time ran out before the start) → the first move, when it
           comes, is the final round's first: every seat moves once (RULES.md §5)
MOVE       mover's tap (pressed in their move)            → move ends at the press, no draw
           mover's HOLD                                   → move ended at the press, one tile drawn
           double tap by the seat that just tapped        → that move was a Rummikub → SCORING
           another seat's tap                             → ignored, logged
           another seat's JUDGE hold                      → the judge is called at once; the
                                                            mover finishes the move, and the
                                                            clock stops before the next move
                                                            (000 s, 004 17), with its full time
           the calling seat's tap before the move ends    → the call is withdrawn
           PAUSE (the judge key, the hub)                 → PAUSED, clock stopped at once
           the deadline (no press of the mover pending)   → TIMED_OUT ("wait") or next move ("auto")
TIMED_OUT  timed-out seat's tap / HOLD                    → from the press: no draw / penalty draw
PAUSED     tap by the seat that paused / RESUME           → back, with the time left
           mover's LONG hold / RESTART                    → MOVE with full time from now
           UNDO (also from MOVE, TIMED_OUT, SCORING)      → the last hand-over is taken back
SCORING    tap +1, HOLD and every REPEAT +10, a tap then a hold −10 (to fix an overshoot),
           double tap confirms (adds nothing), a confirmed seat's double tap reopens it;
           a press longer than a tap and shorter than a hold changes nothing (logged);
           a Rummikub's winner is confirmed with 0 from the start, and so is every seat
           that has not opened (charged the penalty: its rack does not count, 000 n); when
           no other seat had opened, the winner confirms its 0 with a double tap;
           sums stay 0 to max_rack; after a Rummikub a seat that did not go out cannot
           confirm 0 (its screen says why until its sum changes): its rack holds a tile
           all confirmed                                  → DONE, result scored
DONE       a seat's tap                                   → its screen: own result / whole table

Illegal or meaningless events never raise: they come back as a ``Note`` effect and leave
the state as it was. Time is data: every event carries ``at`` (monotonic seconds) and the
clock's time left is always computed from a deadline, never by counting ticks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TypedDict, Unpack

from klik.core.gestures import DoubleTap, Gesture, GestureSettings, Held, Mark, Pressed, Stuck, Tap
from klik.core.limits import GAME, refuse_outside
from klik.core.pile import DrawPile
from klik.core.scoring import Ending, Result, RuleSet, SeatRack, score
from klik.errors import InputError

#: The seats' letters, clockwise (000 c); a table of n players uses the first n. Defined here
#: only: the table's config, journal, scripts and score sheets, the wire and the hub use it.
SEATS: tuple[str, ...] = ("A", "B", "C", "D")
SEAT_LETTERS = "".join(SEATS)
#: ``paused_by`` of a table that came back after a crash or power cut: the mover's tap (or the
#: judge) resumes it, since whoever was on the move is the one waiting to go on.
RECOVERY = "recovery"
#: A press that begins sooner than this after a move started was not a reaction to it (no one
#: reacts in under 0.15 s): when several seats slam their buttons at once, the mover's press
#: hands over once and the next seat's press, a few milliseconds later, does not end its move.
REACTION_S = 0.15
#: In the count a tap is released within this (or double_s, if longer): a press between it
#: and hold_s is neither a tap nor a hold, and changes nothing.
COUNT_TAP_S = 0.5
INF = float("inf")


class Phase(Enum):
    READY = "ready"
    MOVE = "move"
    TIMED_OUT = "timed_out"
    PAUSED = "paused"
    SCORING = "scoring"
    DONE = "done"


class EndedBy(Enum):
    TAP = "tap"
    HOLD = "hold"
    TIMEOUT = "timeout"
    RUMMIKUB = "rummikub"


class Exhaustion(Enum):
    """Why a game ended without a Rummikub (the result's ``ended_by``)."""

    PILE = "pile"  # the draw pile ran out, then the final round was played
    ROUND_TIME = "round_time"  # the round's time ran out (round-over), then the final round
    JUDGE = "judge"  # the judge or the hub ended the game at once


class TimeoutMode(Enum):
    WAIT = "wait"  # the clock waits for the timed-out seat to hand over
    AUTO = "auto"  # the next move starts at once; the timed-out seat may hold to record a draw


class Action(Enum):
    """What the judge's key or the hub can order."""

    START = "start"
    PAUSE = "pause"
    RESUME = "resume"
    RESTART = "restart"
    UNDO = "undo"
    ROUND_OVER = "round-over"
    END = "end"


@dataclass(frozen=True, slots=True)
class Settings:
    """One game's settings; seconds unless the name says otherwise."""

    seats: tuple[str, ...] = SEATS
    starter: str = "A"
    move_time_s: float = 60.0
    rules: RuleSet = field(default_factory=RuleSet)  # pl-turniej
    timeout: TimeoutMode = TimeoutMode.WAIT
    penalty_tiles: int = 1
    penalty_window_s: float = 5.0  # "auto": how long the timed-out seat may still hold
    warn_s: float = 10.0  # short beep when this much time is left; 0: none
    gestures: GestureSettings = field(default_factory=GestureSettings)
    #: The starter is not known yet: the seat that drew the highest tile holds its button
    #: before the start (001 PRZYGOTOWANIE GRY); ``starter`` is then that seat.
    draw_starter: bool = False

    def check(self, name: Callable[[str], str] = lambda key: key) -> None:
        """Raise InputError naming the first setting that is not allowed (``klik.core.limits``).

        ``name`` says a setting as the caller's user knows it: ``[game] warn_s`` in a config
        file, plain ``warn_s`` in a game script.
        """
        if not 2 <= len(self.seats) <= 4 or self.seats != tuple(SEAT_LETTERS[: len(self.seats)]):
            raise InputError(
                f"{name('seats')} must be 2 to 4 seats lettered from A, got {self.seats}"
            )
        if self.starter not in self.seats:
            raise InputError(
                f"{name('starter')} must be one of {', '.join(self.seats)}, got {self.starter}"
            )
        for key, allowed in GAME.items():
            refuse_outside(name(key), getattr(self, key), allowed)
        if not self.warn_s < self.move_time_s:
            raise InputError(
                f"{name('warn_s')} must be below {name('move_time_s')} ({self.move_time_s}), "
                f"got {self.warn_s}"
            )
        self.gestures.check(name)


@dataclass(frozen=True, slots=True)
class Order:
    """A judge's key press or a hub request. ``by`` is "judge" or "hub"."""

    action: Action
    at: float
    by: str = "judge"


@dataclass(frozen=True, slots=True)
class Tick:
    """Time has reached ``at``; the table sends one at every moment ``next_due`` names."""

    at: float


Event = Gesture | Order | Tick


# Effects: what the shell must do. Screens and LEDs are drawn from the state instead.
class SoundKind(Enum):
    WARN = "warn"  # short beep: warn_s left
    TIMEOUT = "timeout"  # long beep: the time ran out
    JUDGE = "judge"  # chime: the judge was called
    END = "end"  # the game ended


class NoteKind(Enum):
    IGNORED = "ignored"  # a press or order that means nothing now
    REDEAL = "redeal"  # a seat asked for a re-deal (000 b)
    JUDGE_CALLED = "judge_called"  # a seat called the judge: the clock stops after the move
    CALL_WITHDRAWN = "call_withdrawn"  # the caller tapped before the move ended
    STOPPED_FOR_JUDGE = "stopped_for_judge"  # the move ended: the clock stops for the judge
    STARTER_DRAWN = "starter_drawn"  # the seat that drew the highest tile starts
    STUCK = "stuck"  # a button held past stuck_s
    UNDONE = "undone"
    ORDER = "order"  # the judge or the hub ordered something, and it was done
    LATE = "late"  # an "auto" timeout's penalty hold came after its window closed
    NOT_SEATED = "not_seated"  # an edge from a button of a seat not at this table


@dataclass(frozen=True, slots=True)
class Sound:
    at: float
    kind: SoundKind


class Why(Enum):
    """Why a press or an order was not acted on (a note of kind IGNORED); its ``args``."""

    START_BELONGS_TO = "start_belongs_to"  # starter: the seat whose tap starts the game
    DRAW_FIRST = "draw_first"  # the starter is drawn: whoever drew the highest tile holds
    BEFORE_MOVE_START = "before_move_start"  # the mover's press was meant for the last move
    NOT_YOUR_MOVE = "not_your_move"  # mover: the seat on the move
    HANDING_OVER = "handing_over"  # mover: time is up and that seat hands over
    PAUSED = "paused"  # the clock is stopped
    START_AFTER_DRAW = "start_after_draw"  # by: a start before it is known who starts
    FINAL_ROUND_ALREADY = "final_round_already"  # the final round is on already
    NOT_NOW = "not_now"  # by, action, phase: an order the game's state has no use for
    CALLED_ALREADY = "called_already"  # by: the seat that called the judge first
    UNCLEAR_PRESS = "unclear_press"  # in the count: longer than a tap, shorter than a hold
    OVER_THE_TOP = "over_the_top"  # top: a rack sum past every tile there is
    EMPTY_RACK = "empty_rack"  # in the count: 0 confirmed by a seat that did not go out


@dataclass(frozen=True, slots=True)
class Note:
    """One line for the table's log: what happened, who, and why it was not acted on.

    Typed, never prose: ``kind``, for IGNORED ``why``, and the names the line needs in
    ``args``; the table's log says it in its language (``klik.table.record.notes``)."""

    at: float
    kind: NoteKind
    seat: str | None
    why: Why | None = None
    args: Mapping[str, str | int | float] = field(default_factory=dict)
    order: Order | None = None  # the order an ORDER note reports


@dataclass(frozen=True, slots=True)
class ResultReady:
    at: float
    result: Result


Effect = Sound | Note | ResultReady


@dataclass(frozen=True, slots=True)
class Move:
    """A finished move. ``drew`` is the tiles the seat took (penalty draws included);
    ``paused_s`` the seconds its clock stood (the judge, a call, a power cut), so the time it
    took on the clock is ``end - start - paused_s`` (``klik.core.pace``)."""

    seat: str
    start: float
    end: float
    ended_by: EndedBy
    drew: int = 0
    paused_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Game:
    """The whole state of one table's game. Replace it, never change it."""

    settings: Settings
    pile: DrawPile
    phase: Phase = Phase.READY
    mover: str | None = None
    move_start: float | None = None
    deadline: float | None = None  # MOVE: when the mover's time runs out
    left_s: float | None = None  # PAUSED: the stopped clock's time left
    paused_at: float | None = None  # PAUSED: when the clock stopped
    stood_s: float = 0.0  # MOVE: seconds the clock of the move under way has stood so far
    press_at: float | None = None  # the mover's press that holds the clock until recognised
    warned: bool = False
    opened: frozenset[str] = frozenset()
    moves: tuple[Move, ...] = ()
    final_left: int | None = None  # moves left in the final round, the current one included
    # The round's time ran out: the final round follows this move (in READY: it is the first).
    round_over: bool = False
    final_why: Exhaustion | None = None  # why the final round is played: PILE or ROUND_TIME
    paused_by: str | None = None  # a seat letter, "judge" or "hub"
    called_by: str | None = None  # MOVE, TIMED_OUT: a seat called the judge; stop after the move
    undone: bool = False  # PAUSED: by an undo, which gave the mover their move back
    resume_to: Phase | None = None  # PAUSED: MOVE or TIMED_OUT
    window: tuple[str, float] | None = None  # "auto": (timed-out seat, until) for its draw
    last_tap: tuple[str, float] | None = None  # (seat, press) of the tap that ended the last move
    spent: tuple[tuple[str, float], ...] = ()  # (seat, press): presses already acted on
    ending: Ending | None = None
    exhausted_by: Exhaustion | None = None  # an exhausted game: why it ended
    winner: str | None = None
    scoring_at: float | None = None
    racks: tuple[tuple[str, int], ...] = ()
    confirmed: frozenset[str] = frozenset()
    #: SCORING: seats whose confirmation of 0 was refused (``Why.EMPTY_RACK``); each one's
    #: screen says why until its sum changes.
    refused: frozenset[str] = frozenset()
    result: Result | None = None
    looking: frozenset[str] = frozenset()  # DONE: seats that tapped to see the whole table
    #: The state just before the last hand-over, and the hand-over's moment. Kept as it was
    #: (states are never changed, so this costs nothing) and paused only if undone.
    undo: tuple[Game, float] | None = None

    @property
    def final_round(self) -> bool:
        return self.final_left is not None

    def rack(self, seat: str) -> int:
        return dict(self.racks).get(seat, 0)

    def time_left(self, now: float) -> float | None:
        """Seconds on the mover's clock at ``now``; None when no clock runs or stands."""
        if self.phase is Phase.MOVE and self.deadline is not None:
            until = now if self.press_at is None else min(now, self.press_at)
            return min(self.settings.move_time_s, max(0.0, self.deadline - until))
        if self.phase is Phase.TIMED_OUT:
            return 0.0
        if self.phase is Phase.PAUSED:
            return self.left_s
        return None


class Changes(TypedDict, total=False):
    """What a hand-over changes besides the clock, made in the same copy of the state."""

    pile: DrawPile
    moves: tuple[Move, ...]
    opened: frozenset[str]
    last_tap: tuple[str, float] | None
    spent: tuple[tuple[str, float], ...]
    undo: tuple[Game, float] | None


class MoveChanges(Changes, total=False):
    """And what starting the next move changes on top."""

    final_left: int | None
    round_over: bool
    final_why: Exhaustion | None
    called_by: str | None
    window: tuple[str, float] | None


def nth_starter(seats: Sequence[str], first: str, game_no: int) -> str:
    """Who starts game ``game_no`` (from 1) at a table of ``seats`` whose first game ``first``
    starts: the next seat clockwise each game, round the table (000 f). The one starter rule:
    the table's games, a round's lineup and the printed sheets all follow it."""
    return seats[(list(seats).index(first) + game_no - 1) % len(seats)]


def opener_of(seats: Sequence[str], starter: str) -> str:
    """The seat before ``starter``: its tap starts the game's clock (000 f)."""
    return seats[(list(seats).index(starter) - 1) % len(seats)]


def starter_of(settings: Settings, game_no: int) -> str:
    """Who starts game ``game_no`` (from 1) at a table whose first game ``settings.starter``
    starts (``nth_starter``)."""
    return nth_starter(settings.seats, settings.starter, game_no)


def new_game(settings: Settings) -> Game:
    """A table before the start: the deal is done, nobody moves yet."""
    settings.check()
    return Game(settings=settings, pile=DrawPile.for_seats(len(settings.seats)))


def next_due(game: Game) -> float | None:
    """The next moment the game changes by itself (warning, timeout, end of a draw window)."""
    if game.phase is not Phase.MOVE or game.deadline is None:
        return None
    due = INF
    if game.press_at is None:
        due = game.deadline
    if not game.warned:
        due = min(due, game.deadline - game.settings.warn_s)
    if game.window is not None:
        due = min(due, game.window[1])
    return None if due == INF else due


def step(game: Game, event: Event) -> tuple[Game, tuple[Effect, ...]]:
    """Apply one event; returns the new state and what the shell must do."""
    match event:
        case Tick(at=at):
            return _tick(game, at)
        case Order():
            return _order(game, event)
        case Stuck(seat=seat, at=at):
            return game, (Note(at, NoteKind.STUCK, seat),)
        case _:
            return _gesture(game, event)


# --- time -------------------------------------------------------------------------------


def _tick(game: Game, at: float) -> tuple[Game, tuple[Effect, ...]]:
    effects: list[Effect] = []
    while (due := next_due(game)) is not None and due <= at:
        deadline = game.deadline
        assert deadline is not None
        if game.window is not None and game.window[1] == due:
            game = replace(game, window=None)
        elif not game.warned and due == deadline - game.settings.warn_s:
            game = replace(game, warned=True)
            if game.settings.warn_s > 0:
                effects.append(Sound(due, SoundKind.WARN))
        else:
            game, more = _time_out(game, due)
            effects.extend(more)
    return game, tuple(effects)


def _time_out(game: Game, at: float) -> tuple[Game, tuple[Effect, ...]]:
    assert game.mover is not None
    assert game.move_start is not None
    move = Move(game.mover, game.move_start, at, EndedBy.TIMEOUT, paused_s=game.stood_s)
    sound = (Sound(at, SoundKind.TIMEOUT),)
    if game.settings.timeout is TimeoutMode.WAIT:
        timed_out = replace(
            game, phase=Phase.TIMED_OUT, deadline=None, moves=(*game.moves, move), last_tap=None
        )
        return timed_out, sound
    game, effects = _next_move(game, at, moves=(*game.moves, move), last_tap=None, undo=(game, at))
    if game.phase is Phase.MOVE:
        until = at + game.settings.penalty_window_s
        game = replace(game, window=(move.seat, until))
    return game, sound + effects


# --- gestures ---------------------------------------------------------------------------


def _gesture(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    if _is_spent(game, g):
        return game, ()
    if isinstance(g, DoubleTap) and not _double_means_something(game, g):
        # Its first tap was ignored (it came before this move, or meant nothing), so the
        # second press is a tap like any other: the mover's ends the move. Otherwise the
        # press that stopped the clock would hold it for ever.
        g = Tap(g.seat, g.at)
    phase = game.phase
    if phase is Phase.READY:
        return _ready(game, g)
    if phase is Phase.MOVE:
        return _move(game, g)
    if phase is Phase.TIMED_OUT:
        return _timed_out(game, g)
    if phase is Phase.PAUSED:
        return _paused(game, g)
    if phase is Phase.SCORING:
        return _scoring(game, g)
    if isinstance(g, Tap):
        # DONE: a tap turns the seat's screen between its own result and the whole table's.
        return replace(game, looking=game.looking ^ {g.seat}), ()
    return game, ()


def _ready(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    if game.settings.draw_starter:
        return _draw_starter(game, g)
    seats = game.settings.seats
    before_starter = opener_of(seats, game.settings.starter)
    if isinstance(g, Tap) and g.seat == before_starter:
        return _start(game, g.at)
    if isinstance(g, Held) and Mark.LONG in g.marks:
        note = Note(g.at, NoteKind.REDEAL, g.seat)
        return _spend(game, g.seat, g.pressed_at), (note,)
    if isinstance(g, Tap):
        return game, (_ignored(g.at, g.seat, Why.START_BELONGS_TO, starter=before_starter),)
    return game, ()


def _draw_starter(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    """Before the first game of a round whose starter is drawn: the seat that drew the
    highest tile holds its button and starts; then the seat before it starts the clock."""
    if isinstance(g, Held) and Mark.HOLD in g.marks:
        settings = replace(game.settings, starter=g.seat, draw_starter=False)
        drawn = replace(_spend(game, g.seat, g.pressed_at), settings=settings)
        return drawn, (Note(g.at, NoteKind.STARTER_DRAWN, g.seat),)
    if isinstance(g, Tap):
        return game, (_ignored(g.at, g.seat, Why.DRAW_FIRST),)
    return game, ()


def _move(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    assert game.mover is not None
    assert game.move_start is not None
    assert game.deadline is not None
    window = game.window
    if window is not None and isinstance(g, Held) and g.seat == window[0] and Mark.HOLD in g.marks:
        return _window_draw(game, g)
    if g.seat == game.mover and _pressed_at(g) >= game.move_start + REACTION_S:
        if isinstance(g, Pressed):
            if g.at < game.deadline:
                return replace(game, press_at=g.at), ()
            return game, ()
        if isinstance(g, Tap):
            return _end_move(game, g.at, EndedBy.TAP)
        if isinstance(g, Held) and Mark.HOLD in g.marks:
            # Recognised hold_s after the press, but the move ended at the press (§7): the
            # next seat's clock runs from there, and the record says so.
            spent = _spent(game, g.seat, g.pressed_at)
            return _end_move(game, g.pressed_at, EndedBy.HOLD, spent=spent)
        return game, ()
    if isinstance(g, DoubleTap) and game.last_tap == (g.seat, g.first_at):
        return _rummikub(game, g)
    if isinstance(g, Held) and Mark.JUDGE in g.marks and g.seat != game.mover:
        return _call_judge(game, g)
    if isinstance(g, Tap) and g.seat == game.called_by:
        return _withdraw_call(game, g)
    if isinstance(g, Held) and Mark.HOLD in g.marks and _late_penalty(game, g.seat):
        # The draw is not recorded, but the judge can see that the seat tried.
        late = {"window_s": game.settings.penalty_window_s}
        return game, (Note(g.at, NoteKind.LATE, g.seat, args=late),)
    if isinstance(g, Tap) and g.seat == game.mover:
        # The mover's own press this soon after its clock started was meant for the last move.
        return game, (_ignored(g.at, g.seat, Why.BEFORE_MOVE_START),)
    if isinstance(g, Tap):
        return game, (_ignored(g.at, g.seat, Why.NOT_YOUR_MOVE, mover=game.mover or ""),)
    return game, ()


def _timed_out(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    seat = game.moves[-1].seat
    if g.seat == seat:
        if isinstance(g, Tap):
            return _hand_over(game, g.at, 0, opened=True)
        if isinstance(g, Held) and Mark.HOLD in g.marks:
            spent = _spent(game, seat, g.pressed_at)
            penalty = game.settings.penalty_tiles
            return _hand_over(game, g.pressed_at, penalty, opened=False, spent=spent)
        return game, ()
    if isinstance(g, Held) and Mark.JUDGE in g.marks:
        return _call_judge(game, g)
    if isinstance(g, Tap) and g.seat == game.called_by:
        return _withdraw_call(game, g)
    if isinstance(g, Tap):
        return game, (_ignored(g.at, g.seat, Why.HANDING_OVER, mover=seat),)
    return game, ()


def _paused(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    if isinstance(g, DoubleTap) and game.last_tap == (g.seat, g.first_at):
        # The tap that ended the move before a call's stop was the first of a Rummikub.
        return _rummikub(game, g)
    if isinstance(g, Tap) and (
        g.seat == game.paused_by or (game.paused_by == RECOVERY and g.seat == game.mover)
    ):
        return _resume(game, g.at)
    if isinstance(g, Held) and Mark.LONG in g.marks and g.seat == game.mover:
        game = _spend(game, g.seat, g.pressed_at)
        return _restart(game, g.at)
    if isinstance(g, Tap):
        return game, (_ignored(g.at, g.seat, Why.PAUSED),)
    return game, ()


def _scoring(game: Game, g: Gesture) -> tuple[Game, tuple[Effect, ...]]:
    seat = g.seat
    if isinstance(g, DoubleTap) and game.last_tap == (seat, g.first_at):
        # The tap that ended the last move of the final round was the first of a double tap.
        return _rummikub(game, g)
    if seat == game.winner and seat not in game.confirmed and isinstance(g, DoubleTap):
        return _confirm(game, seat, g.at)  # nobody else had opened: the winner confirms 0
    if seat == game.winner or seat in _penalised(game):
        # A Rummikub's winner has 0 on the rack; a seat that has not opened is charged the
        # penalty whatever it holds: both were confirmed when the count began.
        return game, ()
    assert game.scoring_at is not None
    if seat in game.confirmed:
        if isinstance(g, DoubleTap):
            # Reopened to correct it; the count ends only when the last seat confirms.
            return replace(game, confirmed=game.confirmed - {seat}), ()
        return game, ()
    if isinstance(g, Tap):
        unclear = max(COUNT_TAP_S, game.settings.gestures.double_s)
        if g.released_at is not None and g.released_at - g.at > unclear:
            # Longer than a tap, shorter than a hold: which one was meant is unclear, so the
            # sum stays as it was (the screen shows the four gestures) and can never be
            # confirmed wrong by it. A double tap's first tap is always shorter than this.
            return game, (Note(g.at, NoteKind.IGNORED, seat, Why.UNCLEAR_PRESS),)
        return _add(game, seat, 1, g.at)
    if isinstance(g, Held) and (Mark.HOLD in g.marks or Mark.REPEAT in g.marks):
        if g.after_tap is not None and g.after_tap >= game.scoring_at:
            # "klik, trzymaj": a tap, then a hold counts down by 10, for a seat that overshot.
            # Its tap counted +1: taken back at the first mark.
            return _add(game, seat, -10 - (Mark.HOLD in g.marks), g.at)
        return _add(game, seat, 10, g.at)
    if isinstance(g, DoubleTap):
        if g.first_at >= game.scoring_at:
            game, _ = _add(game, seat, -1, g.at)  # the double tap's first tap counted +1
        if game.rack(seat) == 0 and game.ending is Ending.RUMMIKUB:
            # Someone went out, and only that seat's rack is empty: every tile counts at
            # least 1 (a joker 50), so a 0 from a seat that opened and did not go out is a
            # slip (a double tap before entering the sum). Confirmed, it scored every seat
            # place 1 and a big point beside the one winner (issue 37). Not confirmed: the
            # screen shows the gestures again and says why. (The winner and the seats that
            # never opened were confirmed when the count began; none of them gets here.)
            #
            # An exhausted game's 0 is confirmed. By the rules it cannot happen either (000
            # o: the game ends "before anyone has finished"; a seat that lays out its last
            # tile in the final round ends it with a Rummikub, 000 q, by its double tap), but
            # there a 0 scores a possible game: that seat has the lowest sum and wins, with
            # the small points of the Rummikub it missed (only a not-opened seat's penalty
            # differs). Refusing it would stall the count until the judge undoes the moves
            # back to the missed double tap, and the judge ends games at once (END) with
            # racks still to count; the hub holds any result whose winners and places
            # disagree (``klik_hub.tournament.corrections``).
            refused = Note(g.at, NoteKind.IGNORED, seat, Why.EMPTY_RACK)
            return replace(game, refused=game.refused | {seat}), (refused,)
        return _confirm(game, seat, g.at)
    return game, ()


# --- judge and hub ----------------------------------------------------------------------


def _order(game: Game, order: Order) -> tuple[Game, tuple[Effect, ...]]:
    """Carry out a judge's or hub's order; every order that takes effect is logged."""
    after, effects = _apply_order(game, order)
    if after is game:
        return after, effects
    note = Note(order.at, NoteKind.ORDER, None, order=order)
    return after, (note, *effects)


def _apply_order(game: Game, order: Order) -> tuple[Game, tuple[Effect, ...]]:
    phase, action, at = game.phase, order.action, order.at
    running = phase in (Phase.MOVE, Phase.TIMED_OUT)
    if action is Action.START and phase is Phase.READY and game.settings.draw_starter:
        return game, (_ignored(at, None, Why.START_AFTER_DRAW, by=order.by),)
    if action is Action.START and phase is Phase.READY:
        return _start(game, at)
    if action is Action.PAUSE and running:
        # The judge is at the table: a seat's call waiting for the move's end is answered.
        return _pause(replace(game, called_by=None), at, order.by)
    if action is Action.RESUME and phase is Phase.PAUSED:
        return _resume(game, at)
    if action is Action.RESTART and (running or phase is Phase.PAUSED):
        return _restart(game, at)
    if action is Action.UNDO and game.undo is not None and phase is not Phase.DONE:
        restored = replace(_undo_point(*game.undo), paused_by=order.by, undone=True)
        assert restored.mover is not None
        return restored, (Note(at, NoteKind.UNDONE, restored.mover),)
    if action is Action.ROUND_OVER and (running or phase in (Phase.PAUSED, Phase.READY)):
        if game.final_round or game.round_over:
            return game, (_ignored(at, None, Why.FINAL_ROUND_ALREADY),)
        return replace(game, round_over=True), ()
    if action is Action.END and (running or phase is Phase.PAUSED):
        return _enter_scoring(
            game, at, Ending.EXHAUSTED, None, exhausted_by=Exhaustion.JUDGE, undo=(game, at)
        )
    why = Why.NOT_NOW
    return game, (_ignored(at, None, why, by=order.by, action=action.value, phase=phase.value),)


# --- transitions ------------------------------------------------------------------------


def _start(game: Game, at: float) -> tuple[Game, tuple[Effect, ...]]:
    if game.round_over:
        # The round's time ran out before this game began: there is no move in progress to
        # finish, so every seat makes exactly one move, the starter first (000 o, RULES.md §5).
        final = len(game.settings.seats)
        started = _begin_move(game, game.settings.starter, at, final_left=final,
                              round_over=False, final_why=Exhaustion.ROUND_TIME)  # fmt: skip
        return started, ()
    return _begin_move(game, game.settings.starter, at), ()


def _begin_move(
    game: Game, seat: str, at: float, left_s: float | None = None, **changes: Unpack[MoveChanges]
) -> Game:
    """``seat``'s clock runs from ``at`` with ``left_s`` (default: full time, a new move);
    one copy."""
    left = game.settings.move_time_s if left_s is None else left_s
    return replace(
        game,
        **changes,
        phase=Phase.MOVE,
        mover=seat,
        move_start=at if left_s is None else game.move_start,
        deadline=at + left,
        left_s=None,
        paused_at=None,
        stood_s=0.0 if left_s is None else game.stood_s,
        press_at=None,
        warned=left <= game.settings.warn_s,
        paused_by=None,
        resume_to=None,
        undone=False,
    )


def _end_move(
    game: Game, at: float, ended_by: EndedBy, spent: tuple[tuple[str, float], ...] | None = None
) -> tuple[Game, tuple[Effect, ...]]:
    """The mover ended the move at ``at`` with a tap (no draw) or a hold (a draw)."""
    seat, start = game.mover, game.move_start
    assert seat is not None
    assert start is not None
    drew, pile = 0, game.pile
    if ended_by is EndedBy.HOLD and not game.final_round:
        pile, drew = pile.take(1)
    tapped = ended_by is EndedBy.TAP
    return _next_move(
        game,
        at,
        pile=pile,
        moves=(*game.moves, Move(seat, start, at, ended_by, drew, game.stood_s)),
        opened=game.opened | {seat} if tapped else game.opened,
        last_tap=(seat, at) if tapped else None,
        undo=(game, at),
        spent=game.spent if spent is None else spent,
    )


def _hand_over(
    game: Game,
    at: float,
    drew: int,
    *,
    opened: bool,
    spent: tuple[tuple[str, float], ...] | None = None,
) -> tuple[Game, tuple[Effect, ...]]:
    """The timed-out seat hands the clock on: a tap (the table stood) or a hold (penalty draw)."""
    pile, taken = game.pile.take(drew)
    *done, last = game.moves
    return _next_move(
        game,
        at,
        pile=pile,
        moves=(*done, replace(last, drew=taken)),
        opened=game.opened | {last.seat} if opened else game.opened,
        undo=(game, at),
        spent=game.spent if spent is None else spent,
    )


def _next_move(
    game: Game, at: float, **changes: Unpack[Changes]
) -> tuple[Game, tuple[Effect, ...]]:
    """The last move is over (``changes`` say how): count down the final round, or start the
    next seat's move. The changes and the new move are made in one copy of the state."""
    pile: DrawPile = changes.get("pile", game.pile)
    final_left, why = game.final_left, game.final_why
    if final_left is not None:
        final_left -= 1
        if final_left == 0:
            ended = why or Exhaustion.PILE
            return _enter_scoring(game, at, Ending.EXHAUSTED, None, exhausted_by=ended, **changes)
    elif pile.empty or game.round_over:
        # The final round: every seat makes exactly one more move, the next seat first.
        final_left = len(game.settings.seats)
        why = Exhaustion.PILE if pile.empty else Exhaustion.ROUND_TIME
    seats = game.settings.seats
    assert game.mover is not None
    following = seats[(seats.index(game.mover) + 1) % len(seats)]
    moved = _begin_move(
        game, following, at, final_left=final_left, round_over=False, final_why=why,
        window=None, called_by=None, **changes,
    )  # fmt: skip
    if game.called_by is not None:
        # A seat called the judge during the move just ended: the clock stops before the
        # next move, which keeps its full time; the caller's tap (or the judge) resumes it.
        stopped, _ = _pause(moved, at, game.called_by)
        return stopped, (Note(at, NoteKind.STOPPED_FOR_JUDGE, game.called_by),)
    return moved, ()


def _window_draw(game: Game, g: Held) -> tuple[Game, tuple[Effect, ...]]:
    """An "auto" timeout's seat held within its window, so it drew its penalty tiles."""
    assert game.window is not None
    seat = game.window[0]
    pile, taken = game.pile.take(game.settings.penalty_tiles)
    index = max(i for i, m in enumerate(game.moves) if m.seat == seat)
    moves = list(game.moves)
    moves[index] = replace(moves[index], drew=moves[index].drew + taken)
    final_left, why = game.final_left, game.final_why
    if pile.empty and final_left is None and not game.pile.empty:
        final_left = len(game.settings.seats)  # the move now running is the final round's first
        why = Exhaustion.PILE
    spent = _spent(game, seat, g.pressed_at)
    drawn = replace(
        game, pile=pile, moves=tuple(moves), window=None, final_left=final_left, final_why=why,
        spent=spent,
    )  # fmt: skip
    return drawn, ()


def _rummikub(game: Game, g: DoubleTap) -> tuple[Game, tuple[Effect, ...]]:
    """The double tap's first tap ended the seat's move; the second makes it a Rummikub."""
    *done, last = game.moves
    moves = (*done, replace(last, ended_by=EndedBy.RUMMIKUB))
    return _enter_scoring(game, g.at, Ending.RUMMIKUB, last.seat, moves=moves, last_tap=None)


def _call_judge(game: Game, g: Held) -> tuple[Game, tuple[Effect, ...]]:
    """A seat calls the judge (a dispute, 000 s, 004 17): the judge is called at once, the
    mover finishes the move, and the clock stops before the next move starts."""
    game = _spend(game, g.seat, g.pressed_at)
    if game.called_by is not None:
        called = Note(g.at, NoteKind.IGNORED, g.seat, Why.CALLED_ALREADY, {"by": game.called_by})
        return game, (called,)
    note = Note(g.at, NoteKind.JUDGE_CALLED, g.seat)
    return replace(game, called_by=g.seat), (Sound(g.at, SoundKind.JUDGE), note)


def _withdraw_call(game: Game, g: Tap) -> tuple[Game, tuple[Effect, ...]]:
    """The calling seat taps before the move ends: the call is withdrawn, the clock goes on."""
    note = Note(g.at, NoteKind.CALL_WITHDRAWN, g.seat)
    return replace(game, called_by=None), (note,)


def _pause(game: Game, at: float, by: str) -> tuple[Game, tuple[Effect, ...]]:
    left = game.time_left(at) if game.phase is Phase.MOVE else 0.0
    paused = replace(
        game,
        phase=Phase.PAUSED,
        resume_to=game.phase,
        left_s=left,
        paused_at=_read_at(game, at),
        deadline=None,
        press_at=None,
        paused_by=by,
        window=None,
    )
    return paused, ()


def _resume(game: Game, at: float) -> tuple[Game, tuple[Effect, ...]]:
    assert game.mover is not None
    if game.resume_to is Phase.TIMED_OUT:
        resumed = replace(
            game, phase=Phase.TIMED_OUT, left_s=None, paused_by=None, resume_to=None, undone=False
        )
        return resumed, ()
    # The time the clock stood is the move's, but not the mover's (``Move.paused_s``).
    stood = game.stood_s + (0.0 if game.paused_at is None else max(0.0, at - game.paused_at))
    return _begin_move(replace(game, stood_s=stood), game.mover, at, left_s=game.left_s or 0.0), ()


def _restart(game: Game, at: float) -> tuple[Game, tuple[Effect, ...]]:
    """The move starts again with full time from ``at`` (000 h: the clock was clicked early)."""
    assert game.mover is not None
    moves = game.moves
    if game.phase is Phase.TIMED_OUT or game.resume_to is Phase.TIMED_OUT:
        moves = moves[:-1]  # the timed-out move is played again
    return _begin_move(replace(game, moves=moves), game.mover, at), ()


def _enter_scoring(
    game: Game,
    at: float,
    ending: Ending,
    winner: str | None,
    exhausted_by: Exhaustion | None = None,
    **changes: Unpack[Changes],
) -> tuple[Game, tuple[Effect, ...]]:
    seats = game.settings.seats
    opened = changes.get("opened", game.opened)
    # Nobody waits for a Rummikub's winner (its rack is empty), nor, in a Rummikub, for a seat
    # that has not opened: it is charged the penalty whatever it holds (000 n), unless the
    # rule set counts its rack as any other's (``classic``).
    charged = game.settings.rules.not_opened_penalty is not None
    unasked = frozenset(seats) - opened if charged else frozenset()
    settled = frozenset() if winner is None else frozenset({winner}) | unasked
    game = replace(
        game,
        **changes,
        exhausted_by=exhausted_by,
        called_by=None,  # the game is over: a call waiting for the move's end has its answer
        phase=Phase.SCORING,
        mover=None,
        deadline=None,
        left_s=None,
        press_at=None,
        paused_by=None,
        resume_to=None,
        window=None,
        ending=ending,
        winner=winner,
        scoring_at=at,
        racks=tuple((s, 0) for s in seats),
        confirmed=settled,
        refused=frozenset(),
    )
    if len(settled) == len(seats) and winner is not None:
        # Nobody else had opened, so nothing is counted: the winner confirms its 0 with a
        # double tap, so a slip can still be undone before the result is kept.
        game = replace(game, confirmed=settled - {winner})
    return game, (Sound(at, SoundKind.END),)


def _add(game: Game, seat: str, points: int, at: float) -> tuple[Game, tuple[Effect, ...]]:
    """``points`` on ``seat``'s rack sum, kept from 0 to the largest rack there can be."""
    top = game.settings.rules.max_rack
    rack = game.rack(seat) + points
    notes: tuple[Effect, ...] = ()
    if rack > top:
        over = Note(at, NoteKind.IGNORED, seat, Why.OVER_THE_TOP, {"top": top})
        notes, rack = (over,), game.rack(seat)
    racks = tuple((s, max(0, rack) if s == seat else r) for s, r in game.racks)
    return replace(game, racks=racks, refused=game.refused - {seat}), notes


def _confirm(game: Game, seat: str, at: float) -> tuple[Game, tuple[Effect, ...]]:
    game = replace(game, confirmed=game.confirmed | {seat})
    if len(game.confirmed) < len(game.settings.seats):
        return game, ()
    assert game.ending is not None
    seats: Mapping[str, SeatRack] = {
        s: SeatRack(rack=r, opened=s in game.opened) for s, r in game.racks
    }
    result = score(game.settings.rules, game.ending, seats, game.winner)
    return replace(game, phase=Phase.DONE, result=result), (ResultReady(at, result),)


# --- helpers ----------------------------------------------------------------------------


def _undo_point(game: Game, at: float) -> Game:
    """The state to go back to if the hand-over at ``at`` is undone: paused, time kept."""
    if game.phase is Phase.PAUSED:
        return game
    return replace(
        game,
        phase=Phase.PAUSED,
        resume_to=game.phase,
        left_s=game.time_left(at) if game.phase is Phase.MOVE else 0.0,
        paused_at=_read_at(game, at),
        deadline=None,
        press_at=None,
        window=None,
    )


def _read_at(game: Game, at: float) -> float:
    """The moment a clock stopped at ``at`` shows the time of (``Game.time_left``): a press
    that holds the clock stopped it at the press, and that time is given back."""
    return at if game.press_at is None else min(at, game.press_at)


def _penalised(game: Game) -> frozenset[str]:
    """The seats a Rummikub's count charges the not-opened penalty, their racks unasked."""
    if game.ending is not Ending.RUMMIKUB or game.settings.rules.not_opened_penalty is None:
        return frozenset()
    return frozenset(game.settings.seats) - game.opened - {game.winner}


def _late_penalty(game: Game, seat: str) -> bool:
    last = game.moves[-1] if game.moves else None
    return (
        game.settings.timeout is TimeoutMode.AUTO
        and game.window is None
        and last is not None
        and last.seat == seat
        and last.ended_by is EndedBy.TIMEOUT
    )


def _double_means_something(game: Game, g: DoubleTap) -> bool:
    """A Rummikub (its first tap ended the seat's move) or, in the count, a confirmation."""
    return game.last_tap == (g.seat, g.first_at) or game.phase is Phase.SCORING


def _pressed_at(g: Gesture) -> float:
    return g.pressed_at if isinstance(g, Held | Stuck) else g.at


def _spent(game: Game, seat: str, pressed_at: float) -> tuple[tuple[str, float], ...]:
    """The presses acted on, with this one: its later marks mean nothing."""
    return (*(p for p in game.spent if p[0] != seat), (seat, pressed_at))


def _spend(game: Game, seat: str, pressed_at: float) -> Game:
    return replace(game, spent=_spent(game, seat, pressed_at))


def _is_spent(game: Game, g: Gesture) -> bool:
    return isinstance(g, Held) and (g.seat, g.pressed_at) in game.spent


def _ignored(at: float, seat: str | None, why: Why, **args: str | int | float) -> Note:
    return Note(at, NoteKind.IGNORED, seat, why, args)
