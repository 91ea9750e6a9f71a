"""A table driven by hand in tests: presses and orders at given moments, on a virtual clock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from klik.core import game as g
from klik.core.gestures import GestureSettings
from klik.core.pile import DrawPile
from klik.core.tabletop import Edge, new_tabletop
from klik.rules import RULE_SETS
from klik.table.record.driver import Driver


class Play:
    def __init__(
        self,
        seats: int = 4,
        pile: int | None = None,
        rules: str = "tournament",
        timeout: str = "wait",
        **options: Any,
    ) -> None:
        gesture_keys = set(GestureSettings.__dataclass_fields__)
        gestures = GestureSettings(**{k: v for k, v in options.items() if k in gesture_keys})
        settings = g.Settings(
            seats=tuple("ABCD"[:seats]),
            rules=RULE_SETS[rules],
            timeout=g.TimeoutMode(timeout),
            gestures=gestures,
            **{k: v for k, v in options.items() if k not in gesture_keys},
        )
        tabletop = new_tabletop(settings)
        if pile is not None:
            tabletop = replace(
                tabletop, game=replace(tabletop.game, pile=DrawPile.with_tiles(pile))
            )
        self.driver = Driver(tabletop)

    @property
    def game(self) -> g.Game:
        return self.driver.tabletop.game

    @property
    def notes(self) -> list[g.Note]:
        return [c for c in self.driver.effects if isinstance(c, g.Note)]

    @property
    def sounds(self) -> list[tuple[float, str]]:
        return [(c.at, c.kind.value) for c in self.driver.effects if isinstance(c, g.Sound)]

    def down(self, seat: str, at: float) -> Play:
        self.driver.apply(Edge(seat, True, at))
        return self

    def up(self, seat: str, at: float) -> Play:
        self.driver.apply(Edge(seat, False, at))
        return self

    def press(self, seat: str, at: float, length: float) -> Play:
        """A press of ``length`` seconds, settled (the clock runs on past the release)."""
        self.down(seat, at).up(seat, at + length)
        return self.to(at + length + 0.05)

    def tap(self, seat: str, at: float) -> Play:
        return self.press(seat, at, 0.1)

    def hold(self, seat: str, at: float, length: float = 1.5) -> Play:
        return self.press(seat, at, length)

    def double(self, seat: str, at: float) -> Play:
        self.down(seat, at).up(seat, at + 0.1).down(seat, at + 0.2).up(seat, at + 0.3)
        return self.to(at + 0.35)

    def order(self, action: str, at: float, by: str = "judge") -> Play:
        self.driver.apply(g.Order(g.Action(action), at, by))
        return self

    def to(self, at: float) -> Play:
        self.driver.advance(at)
        return self

    def time_left(self) -> float | None:
        left = self.game.time_left(self.driver.now)
        return None if left is None else round(left, 6)

    def start(self, at: float = 0.0) -> Play:
        """The seat before the starter hands the starter the clock."""
        seats = self.game.settings.seats
        return self.tap(seats[seats.index(self.game.settings.starter) - 1], at)
