"""What each seat's screen shows: a pure function from the game to one small view per seat.

The daemon, the virtual table and ``klik replay --frames`` all call ``seat_views``; the
screens module draws a view (``render(view) -> Image``). A view holds only what is drawn,
rounded as it is drawn (whole seconds), so two equal views are the same picture and a
panel is redrawn only when its view changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum

from klik.core import game as g
from klik.words import Language


class Screen(Enum):
    READY = "ready"  # names, who starts, who starts the clock
    MOVE = "move"  # the clock runs: large on the mover's screen, "Ruch: B 0:37" on the others
    TIMED_OUT = "timed_out"
    PAUSED = "paused"  # a seat called the judge, or the judge / hub paused
    SCORING = "scoring"  # this seat enters its rack sum
    WAITING = "waiting"  # this seat confirmed; others still entering
    RESULT = "result"  # small and big points, and whether the hub has it
    FREE = "free"  # a seat of the table that this game does not use (a round's table of 3)


class Delivery(Enum):
    """Where the finished result is on its way to the hub (step 3 sends it)."""

    KEPT = "kept"  # stored on the table, not sent yet
    UNSAVED = "unsaved"  # the outbox could not commit it yet: tried again, never shown as kept
    SENDING = "sending"
    SENT = "sent"  # the hub's receipt is in ``receipt``
    CONFLICT = "conflict"  # the hub holds another result for this game: the judge decides
    UNREACHABLE = "unreachable"
    REFUSED = "refused"  # the hub refused it for good; set aside for the judge
    UNPAIRED = "unpaired"  # the hub does not know this table's key: pair it again
    STRANDED = "stranded"  # kept under the table's old number, which its new pairing lacks
    SERVER_ERROR = "server_error"  # the hub answers with an error: the judge looks at it
    BAD_CERTIFICATE = "bad_certificate"  # not the hub this table was paired with


class PausedBy(StrEnum):
    """Who stopped the clock, unless a seat did (then its letter: the seat called the judge).

    The values are the core's words (``klik.core.game``: an order's ``by``, ``RECOVERY``), so
    a view's ``paused_by`` equals what the game holds and the screens find their words by it.
    """

    JUDGE = "judge"  # the judge key, or the virtual table's pause
    HUB = "hub"  # the judge's console, through the hub
    RECOVERY = g.RECOVERY  # the table came back after a power cut; the mover's tap resumes


#: What a view's ``paused_by`` holds: a ``PausedBy``, or the letter of a seat that called.
Pauser = PausedBy | str


def pauser(by: str | None) -> Pauser | None:
    """The game's ``paused_by`` (a plain string in the core) as a view holds it."""
    if by is None:
        return None
    try:
        return PausedBy(by)
    except ValueError:
        return by  # a seat's letter


class AlertKind(StrEnum):
    """A problem every screen shows as one lit line, until it is over."""

    STUCK = "stuck"  # a seat's button held down past stuck_s
    PANEL = "panel"  # a seat's screen is not answering (not shown on that screen)
    HUB = "hub"  # the hub has not answered lately
    PAIRING = "pairing"  # seat A: the digits of the table's request to join the hub
    PAIRED = "paired"  # seat A, before the game: the judge accepted it as table ``text``
    SEEKING = "seeking"  # seat A: the table asks to join and has not reached a hub yet
    # The card takes no writes (``klik.table.game.card``): no game is being kept, the judge
    # must come. One kind a cause, each its own words.
    CARD_FULL = "card-full"
    CARD_READ_ONLY = "card-read-only"
    CARD_NO_PERMISSION = "card-no-permission"
    POWER = "power"  # the HAT's power-fail line: the supply is failing, the table stops


#: The card's states (``klik.table.game.card``) that the seats show, by their alert.
CARD_ALERTS = {
    "full": AlertKind.CARD_FULL,
    "read-only": AlertKind.CARD_READ_ONLY,
    "no-permission": AlertKind.CARD_NO_PERMISSION,
}


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert of a seat's screen: its kind and the seat it is about, if any
    (``klik.table.screens.render`` finds its words by the kind)."""

    kind: AlertKind
    seat: str | None = None
    text: str = ""  # PAIRING: the six digits; PAIRED: the table's number

    def __str__(self) -> str:  # the log's short code: "stuck:B", "panel:C", "hub"
        return self.kind.value if self.seat is None else f"{self.kind.value}:{self.seat}"


@dataclass(frozen=True, slots=True)
class SeatScore:
    seat: str
    name: str
    rack: int  # the rack sum the seat entered
    small: int  # small points, signed
    big: int
    place: int
    opened: bool = True


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What the daemon knows besides the game: names, numbers, the hub and the hardware."""

    table: str = "1"  # the table's number or name, as the hub knows it
    game_no: int = 1
    names: tuple[tuple[str, str], ...] = ()  # (seat, player name)
    language: Language = Language.PL
    stuck: frozenset[str] = frozenset()  # seats whose button is held down past stuck_s
    panels_out: frozenset[str] = frozenset()  # seats whose screen is not answering
    delivery: Delivery = Delivery.KEPT
    receipt: str | None = None  # the hub's receipt for the result, e.g. "R-7KQ2M"
    waiting: int = 0  # results kept on the table that the hub has not acknowledged yet
    hub_down: bool = False  # the hub has not answered lately
    seats: tuple[str, ...] = ()  # the table's seats (with a screen each), used or not
    # When the round's time is up (the table's clock, seconds), while the hub's round clock
    # runs for this game's round (``klik.table.game.roundclock``); None without one.
    round_ends: float | None = None
    # Pairing at the table (``klik.link.joining``): the digits while it asks the hub to join;
    # ``paired``: the judge accepted it since the daemon started.
    pairing_digits: str | None = None
    paired: bool = False
    seeking_hub: bool = False  # it asks to join, and no hub has answered yet (no digits)
    card: str = "ok"  # the card's state (``klik.table.game.card.CardState``)
    power_failing: bool = False  # the supply is failing: the table is stopping
    # The seats set up for their players (issue 40; ``Session.seat_setup``): in large type,
    # with a pulsing motor; and a buzzer kept quiet for the game.
    large: frozenset[str] = frozenset()
    felt: frozenset[str] = frozenset()
    quiet: bool = False

    def name(self, seat: str) -> str:
        return dict(self.names).get(seat, "")


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's screen. Equal views draw equal pictures."""

    seat: str
    name: str
    table: str
    game_no: int
    screen: Screen
    language: Language = Language.PL
    mover: str | None = None  # whose move it is (or was, when paused or timed out)
    mover_name: str = ""
    seconds_left: int | None = None  # the mover's clock in whole seconds, rounded up
    round_left: int | None = None  # MOVE, TIMED_OUT: the round's time, whole seconds, rounded up
    warn: bool = False  # the clock is in its last warn_s seconds
    tiles_left: int = 0  # in the draw pile
    final_round: bool = False
    starter: str | None = None  # READY: who moves first
    opener: str | None = None  # READY: the seat whose tap starts the clock
    draw_starter: bool = False  # READY: who starts is drawn: the highest tile's seat holds
    paused_by: Pauser | None = None  # PAUSED: who stopped the clock
    rack: int = 0  # SCORING / WAITING: this seat's rack sum so far
    waiting_for: tuple[str, ...] = ()  # WAITING: seats that have not confirmed yet
    scores: tuple[SeatScore, ...] = ()  # RESULT, in seat order
    ending: str | None = None  # SCORING, WAITING, RESULT: "rummikub" or "exhausted"
    winner: str | None = None  # SCORING, WAITING: the seat that went out (a Rummikub)
    winner_name: str = ""
    penalty: int | None = None  # WAITING: a Rummikub's seat that never opened: its points
    refused: bool = False  # SCORING: this seat's 0 was not confirmed (it did not go out)
    whole_table: bool = False  # RESULT: this seat tapped to see every seat's points
    first_round: bool = False  # MOVE: every seat's first move, when the mover gets hints
    penalty_tiles: int = 1  # TIMED_OUT: what a hold draws
    joker: int = 50  # SCORING: what a joker on the rack counts under the rule set
    undone: bool = False  # PAUSED: the judge or hub took the last hand-over back
    calling: int | None = None  # this seat holds its button to call the judge: 1..STEPS
    called_by: str | None = None  # MOVE, TIMED_OUT: this seat called the judge; stop after the move
    delivery: Delivery = Delivery.KEPT
    receipt: str | None = None
    waiting: int = 0
    alerts: tuple[Alert, ...] = field(default=())  # problems to show, one line each
    large: bool = False  # the seat's player reads large type (issue 40): the large screens

    @property
    def is_mover(self) -> bool:
        return self.mover == self.seat


#: A seat holding its button to call the judge sees a bar fill in this many steps.
STEPS = 8
#: ...from this long into the hold (a tap or a quick press shows nothing).
CALLING_FROM_S = 0.25


def seat_views(
    game: g.Game, now: float, info: TableInfo, pressed: Mapping[str, float] | None = None
) -> tuple[SeatView, ...]:
    """Every seat's view at ``now`` (monotonic seconds), in seat order. ``pressed`` is when
    each button that is down now was pressed (the judge-call progress bar)."""
    playing = game.settings.seats
    free = tuple(SeatView(s, "", info.table, info.game_no, Screen.FREE, info.language)
                 for s in info.seats if s not in playing)  # fmt: skip
    return tuple(seat_view(game, now, info, seat, pressed) for seat in playing) + free


def calling_step(game: g.Game, now: float, seat: str, pressed: Mapping[str, float]) -> int | None:
    """How far ``seat``'s hold to call the judge has come, 1..STEPS, or None when it is not
    holding one: only a seat that is not on the move, while a clock runs or stands timed out."""
    at = pressed.get(seat)
    if at is None or seat == game.mover or game.phase not in (g.Phase.MOVE, g.Phase.TIMED_OUT):
        return None
    held, judge_s = now - at, game.settings.gestures.call_judge_s
    if not CALLING_FROM_S <= held < judge_s:
        return None
    return min(STEPS, 1 + int(held / judge_s * STEPS))


def seat_view(
    game: g.Game,
    now: float,
    info: TableInfo,
    seat: str,
    pressed: Mapping[str, float] | None = None,
) -> SeatView:
    settings = game.settings
    left = game.time_left(now)
    seconds = None if left is None else math.ceil(left - 1e-9)
    phase_is_move = game.phase is g.Phase.MOVE
    alerts = tuple(
        [Alert(AlertKind.STUCK, s) for s in sorted(info.stuck)]
        + [Alert(AlertKind.PANEL, s) for s in sorted(info.panels_out) if s != seat]
        + ([Alert(AlertKind.POWER)] if info.power_failing else [])
        + ([Alert(CARD_ALERTS[info.card])] if info.card in CARD_ALERTS else [])
        + ([Alert(AlertKind.HUB)] if info.hub_down else [])
        + _pairing(game, info, seat)
    )
    base = SeatView(
        seat=seat,
        name=info.name(seat),
        table=info.table,
        game_no=info.game_no,
        screen=Screen.READY,
        language=info.language,
        mover=game.mover,
        mover_name=info.name(game.mover) if game.mover else "",
        seconds_left=seconds,
        warn=phase_is_move and left is not None and 0 < left <= settings.warn_s,
        tiles_left=game.pile.tiles_left,
        final_round=game.final_round or game.round_over,
        paused_by=pauser(game.paused_by),
        alerts=alerts,
        calling=calling_step(game, now, seat, pressed or {}),
        called_by=game.called_by,
        large=seat in info.large,
    )
    phase = game.phase
    if phase is g.Phase.READY:
        opener = g.opener_of(settings.seats, settings.starter)
        starter = settings.starter
        return _with(
            base,
            screen=Screen.READY,
            starter=starter,
            opener=opener,
            mover=starter,  # the starter's clock runs first: the screens name them
            mover_name=info.name(starter),
            draw_starter=settings.draw_starter,
        )
    round_left = round_seconds(game, now, info.round_ends)
    if phase is g.Phase.MOVE:
        first_round = len(game.moves) < len(settings.seats)
        return _with(base, screen=Screen.MOVE, first_round=first_round, round_left=round_left)
    if phase is g.Phase.TIMED_OUT:
        return _with(base, screen=Screen.TIMED_OUT, penalty_tiles=settings.penalty_tiles,
                     round_left=round_left)  # fmt: skip
    if phase is g.Phase.PAUSED:
        return _with(base, screen=Screen.PAUSED, undone=game.undone)
    if phase is g.Phase.SCORING:
        assert game.ending is not None
        count = _with(
            base,
            rack=game.rack(seat),
            ending=game.ending.value,
            winner=game.winner,
            winner_name=info.name(game.winner) if game.winner else "",
        )
        if seat in game.confirmed:
            waiting = tuple(s for s in settings.seats if s not in game.confirmed)
            # Not opened when another went out: the penalty, not the rack (000 n), so its
            # sum is never asked; its screen says so.
            unopened = game.winner is not None and seat != game.winner and seat not in game.opened
            rules = settings.rules
            fine = rules.not_opened_penalty if unopened else None
            penalty = None if fine is None else -rules.winner_sign * fine
            return _with(count, screen=Screen.WAITING, waiting_for=waiting, penalty=penalty)
        joker = settings.rules.joker_value
        return _with(count, screen=Screen.SCORING, refused=seat in game.refused, joker=joker)
    result = game.result
    assert result is not None
    scores = tuple(
        SeatScore(
            s,
            info.name(s),
            result.rack.get(s, 0),
            result.small.get(s, 0),
            result.big.get(s, 0),
            result.places.get(s, 0),
            s in game.opened,
        )
        for s in settings.seats
    )
    return _with(
        base,
        screen=Screen.RESULT,
        scores=scores,
        ending=result.ending.value,
        delivery=info.delivery,
        receipt=info.receipt,
        waiting=info.waiting,
        seconds_left=None,
        whole_table=seat in game.looking,
    )


def _pairing(game: g.Game, info: TableInfo, seat: str) -> list[Alert]:
    """Seat A's line while the table asks to join (its digits, or that it looks for the hub
    before one answers), and once it was accepted, until the first game starts."""
    if seat != g.SEATS[0]:
        return []
    if info.pairing_digits is not None:
        digits = info.pairing_digits
        return [Alert(AlertKind.PAIRING, text=f"{digits[:3]} {digits[3:]}")]
    if info.seeking_hub:
        return [Alert(AlertKind.SEEKING)]
    if info.paired and game.phase is g.Phase.READY:
        return [Alert(AlertKind.PAIRED, text=info.table)]
    return []


def _with(view: SeatView, **changes: object) -> SeatView:
    return replace(view, **changes)  # type: ignore[arg-type]


def round_seconds(game: g.Game, now: float, round_ends: float | None) -> int | None:
    """The round's time left as the status line shows it, in whole seconds rounded up; None
    when it shows none: no round clock, or the final round is on (the round's time is over).

    While the mover's clock runs it is read at that clock's last whole second, so both change
    in one redraw a second, never two (drawing is the engine's dearest work); else at ``now``.
    So it may show up to a second more than is left; the round-over is not delayed by it.
    """
    if round_ends is None or game.final_round or game.round_over:
        return None
    if game.phase not in (g.Phase.MOVE, g.Phase.TIMED_OUT):
        return None
    beat = _next_second(game, now)
    at = now if beat is None else min(now, beat - 1.0)
    return max(0, math.ceil(round_ends - at - 1e-9))


def next_view_change(
    game: g.Game,
    now: float,
    pressed: Mapping[str, float] | None = None,
    *,
    round_ends: float | None = None,
) -> float | None:
    """When time next changes a view by itself: the mover's whole seconds tick down, the
    round's when the mover's do not (``round_seconds``), or a judge-call progress bar takes
    its next step."""
    due = [_next_second(game, now)]
    if due[0] is None and round_seconds(game, now, round_ends):
        assert round_ends is not None
        left = round_ends - now
        due.append(round_ends - (math.ceil(left - 1e-9) - 1))
    judge_s = game.settings.gestures.call_judge_s
    for seat, at in (pressed or {}).items():
        if seat != game.mover and game.phase in (g.Phase.MOVE, g.Phase.TIMED_OUT):
            steps = [at + CALLING_FROM_S] + [at + judge_s * k / STEPS for k in range(STEPS + 1)]
            due.append(min((t for t in steps if t > now + 1e-9), default=None))
    times = [t for t in due if t is not None]
    return min(times) if times else None


def _next_second(game: g.Game, now: float) -> float | None:
    if game.phase is not g.Phase.MOVE or game.deadline is None or game.press_at is not None:
        return None
    left = game.deadline - now
    if left <= 0:
        return None
    seconds = math.ceil(left - 1e-9)
    return game.deadline - (seconds - 1)
