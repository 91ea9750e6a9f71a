"""The driver: one tabletop stepped through events and time, with every effect it gave.

The live table's session (``klik.table.game.session``) drives its game with one, the journal's
replay and ``klik replay`` (``klik.table.record.replay``) theirs. It only calls the pure core
(``klik.core.tabletop``); what the effects mean is its caller's business. Time is the
caller's numbers: ``now`` never runs backwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from klik.core import game as g
from klik.core import tabletop as t
from klik.core.haptics import Pulse, pulses


@dataclass
class Driver:
    """A tabletop and every effect its steps gave, in order (``effects`` only grows), and the
    vibration pulses those steps mean for the seats (``pulses``, only grows too)."""

    tabletop: t.Tabletop
    now: float = 0.0
    effects: list[g.Effect] = field(default_factory=list)
    pulses: list[Pulse] = field(default_factory=list)

    def apply(self, event: t.Event) -> None:
        """Whatever fell due up to ``event.at``, then the event itself."""
        self.advance(event.at)
        self._step(event)
        self.now = max(self.now, event.at)

    def advance(self, until: float) -> None:
        """Tick at every moment the tabletop names, up to ``until``."""
        while (due := t.next_due(self.tabletop)) is not None and due <= until:
            self._step(g.Tick(due))
        self._step(g.Tick(until))
        self.now = max(self.now, until)

    def _step(self, event: t.Event) -> None:
        before = self.tabletop.game
        self.tabletop, effects = t.step(self.tabletop, event)
        self.effects.extend(effects)
        if effects or self.tabletop.game is not before:
            self.pulses.extend(pulses(before, self.tabletop.game, effects, event.at))

    def recover(self, at: float) -> None:
        """The table comes back from a power cut at ``at`` (``klik.core.tabletop.recover``)."""
        self.advance(at)
        self.tabletop, effects = t.recover(self.tabletop, at)
        self.effects.extend(effects)
