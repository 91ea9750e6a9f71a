"""A table's outbox and courier over a state folder, driven by hand: the test moves the clock
and calls the courier's steps, so back-off and heartbeats are checked without waiting."""

from __future__ import annotations

import random
from pathlib import Path

from klik.link import protocol as p
from klik.link.courier import Command, Courier, Link, Tracking
from klik.link.outbox import Outbox
from tests.helpers.hubkit import result_body


class Clock:
    """The courier's clock, in seconds, where the test sets it."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Table:
    """The table's side: an outbox, a courier over ``link``, and what the courier told the
    engine (``news``, ``commands``); ``state`` is what its heartbeats say."""

    def __init__(
        self,
        folder: Path,
        link: Link,
        device: str,
        key: str,
        state: p.Heartbeat | None = None,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.outbox = Outbox(folder / "outbox.sqlite")
        self.clock = Clock()
        self.news: list[Tracking] = []
        self.commands: list[Command] = []
        self.state = state or p.Heartbeat(state="move", mover="B", left_ms=41_000)
        self.courier = Courier(
            self.outbox,
            link,
            device,
            p.key_bytes(key),
            heartbeat_s=2.0,
            status=lambda: self.state,
            on_tracking=self.news.append,
            on_command=self.commands.append,
            clock=self.clock,
            rng=random.Random(7),
        )

    def keep(self, game: int, table: int = 3) -> int:
        """A finished game's result kept, and the courier woken."""
        seq = self.outbox.keep(result_body(table=table, game=game))
        self.courier.wake()
        return seq

    def step(self, at: float | None = None) -> float:
        """The courier's round at ``at`` (or now); the seconds until the next is due."""
        if at is not None:
            self.clock.now = at
        return self.courier.step(self.clock.now)

    def beat(self) -> None:
        """The next heartbeat (the courier's step when it is due)."""
        self.step(self.courier.next_heartbeat)

    def close(self) -> None:
        self.courier.link.close()
        self.outbox.close()
