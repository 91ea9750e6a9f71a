"""The driver: one table stepped through events and time, with every command it gave.

The live table's session (``klik.table.session``) drives its game with one, the journal's
replay and ``klik replay`` (``klik.table.replay``) theirs. It only calls the pure core
(``klik.core.table``); what the commands mean is its caller's business. Time is the
caller's numbers: ``now`` never runs backwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from klik.core import game as g
from klik.core import table as t


@dataclass
class Driver:
    """A table and everything its commands said, in order (``commands`` only grows)."""

    table: t.Table
    now: float = 0.0
    commands: list[g.Command] = field(default_factory=list)

    def apply(self, event: t.Event) -> None:
        """Whatever fell due up to ``event.at``, then the event itself."""
        self.advance(event.at)
        self.table, commands = t.step(self.table, event)
        self.commands.extend(commands)
        self.now = max(self.now, event.at)

    def advance(self, until: float) -> None:
        """Tick at every moment the table names, up to ``until``."""
        while (due := t.next_due(self.table)) is not None and due <= until:
            self.table, commands = t.step(self.table, g.Tick(due))
            self.commands.extend(commands)
        self.table, commands = t.step(self.table, g.Tick(until))
        self.commands.extend(commands)
        self.now = max(self.now, until)

    def recover(self, at: float) -> None:
        """The table comes back from a power cut at ``at`` (``klik.core.table.recover``)."""
        self.advance(at)
        self.table, commands = t.recover(self.table, at)
        self.commands.extend(commands)
