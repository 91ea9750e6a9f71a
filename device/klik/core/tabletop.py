"""One tabletop: the seat buttons' gestures feeding the game, in the order things took effect.

This is the function the daemon and the replay call: ``step(tabletop, event)`` with a raw
``Edge``, a judge's or hub's ``Order`` or a ``Tick``. Before an event is applied, everything
that fell due up to its moment is done, oldest first: a burst of contact bounce settling, a
hold reaching its mark, the move clock running out, a warning beep. A button burst that began
before a deadline but is not settled yet holds the deadline back until it is: a player who
pressed in time was in time, however long the contact bounced.

So the outcome depends only on the events and their timestamps, never on how often the shell
ticks (a property test checks exactly that). ``next_due`` tells the shell when to tick next.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from klik.core import game as g
from klik.core import gestures
from klik.core.gestures import Button

INF = float("inf")


@dataclass(frozen=True, slots=True)
class Edge:
    """A raw edge of a seat's button: ``pressed`` True when the contact closed."""

    seat: str
    pressed: bool
    at: float


Event = Edge | g.Order | g.Tick


@dataclass(frozen=True, slots=True)
class Tabletop:
    """One table's game and its seat buttons' gesture state: what ``step`` advances."""

    game: g.Game
    buttons: tuple[Button, ...]
    now: float = -INF  # the latest moment the tabletop has seen; time never runs backwards here


def new_tabletop(settings: g.Settings) -> Tabletop:
    game = g.new_game(settings)
    return Tabletop(game, tuple(Button(seat) for seat in settings.seats))


def step(tabletop: Tabletop, event: Event) -> tuple[Tabletop, tuple[g.Effect, ...]]:
    """Apply one event; returns the new tabletop and what the shell must do, in order."""
    # A timestamp older than one already seen (two threads racing to the queue) is taken
    # as happening now, so the clock never runs backwards.
    at = max(event.at, tabletop.now)
    tabletop, effects = _settle(tabletop, at)
    if isinstance(event, Edge):
        seats = tabletop.game.settings.seats
        if event.seat not in seats:
            note = g.Note(at, g.NoteKind.NOT_SEATED, None, args={"button": event.seat})
            return tabletop, (*effects, note)
        i = seats.index(event.seat)
        button = gestures.edge(tabletop.buttons[i], event.pressed, at)
        buttons = (*tabletop.buttons[:i], button, *tabletop.buttons[i + 1 :])
        return Tabletop(tabletop.game, buttons, tabletop.now), effects
    if isinstance(event, g.Order):
        game, more = g.step(tabletop.game, replace(event, at=at))
        return replace(tabletop, game=game), effects + more
    return tabletop, effects


def recover(tabletop: Tabletop, at: float) -> tuple[Tabletop, tuple[g.Effect, ...]]:
    """After a power cut: settle what the journal holds, let every button go, then pause.

    ``tabletop`` is the journal replayed; ``at`` its last moment. A release the journal holds
    but whose contact bounce had not settled is decided now, as if the contact had gone
    quiet, so the tap it ends is not lost. A press still down is dropped: whatever it would
    have become happened after the journal's last line, and no one is holding it after the
    reboot. Then every button is up, and a running clock is paused for its mover (or the
    judge) to resume, with the time it showed at ``at``.
    """
    tabletop, effects = _settle(tabletop, at, cut=True)
    released = tuple(Button(b.seat, last_tap_at=b.last_tap_at) for b in tabletop.buttons)
    game = tabletop.game
    if game.phase in (g.Phase.MOVE, g.Phase.TIMED_OUT):
        game, more = g.step(game, g.Order(g.Action.PAUSE, at, g.RECOVERY))
        effects += more
    return Tabletop(game, released, max(at, tabletop.now)), effects


def next_due(tabletop: Tabletop) -> float | None:
    """When the tabletop must next be ticked, or None if nothing happens until an event comes."""
    first = _first(tabletop.game, tabletop.buttons)
    return None if first is None else first[1]


def _first(game: g.Game, buttons: tuple[Button, ...]) -> tuple[float, float, int] | None:
    """The work that takes effect first: (effective, decidable at, button index or -1 = game).

    Nothing after it may be done before it, so the moment it can be decided is the next
    moment anything can happen at this table.
    """
    engine_due = g.next_due(game)
    first = None if engine_due is None else (engine_due, engine_due, -1)
    settings = game.settings.gestures
    for i, button in enumerate(buttons):
        if button.burst_at is None and not button.down:
            continue  # idle: most buttons, most of the time (the hottest loop of the table)
        item = gestures.next_item(button, settings)
        # On a tie the game goes first: a press exactly at the deadline is late.
        if item is not None and (first is None or item.effective < first[0]):
            first = (item.effective, item.decided, i)
    return first


def _settle(
    tabletop: Tabletop, now: float, *, cut: bool = False
) -> tuple[Tabletop, tuple[g.Effect, ...]]:
    """Do all work due up to ``now`` in the order it takes effect.

    With ``cut`` (a power cut at ``now``) every burst that began by ``now`` is decided at
    once, without waiting for the quiet that will not come: a release as if the contact had
    gone quiet, a press that had not settled dropped.
    """
    game, buttons = tabletop.game, tabletop.buttons
    settings = game.settings.gestures
    effects: list[g.Effect] = []
    when = 0 if cut else 1  # by the moment work takes effect, or the moment it is decided
    while (first := _first(game, buttons)) is not None and first[when] <= now:
        effective, _, i = first
        if i < 0:
            game, more = g.step(game, g.Tick(effective))
        else:
            button = buttons[i]
            if cut and button.burst_at is not None and button.raw_down and not button.down:
                button, gesture = Button(button.seat, last_tap_at=button.last_tap_at), None
            else:
                button, gesture = gestures.process(button, settings)
            buttons = (*buttons[:i], button, *buttons[i + 1 :])
            if gesture is None:
                continue
            game, more = g.step(game, gesture)
        effects.extend(more)
    return Tabletop(game, buttons, max(now, tabletop.now)), tuple(effects)
