"""The draw pile: one stack in the middle of the table, refilled from the bank.

Before a game the 106 tiles stand in 14 stacks of 7 and one stack of 8 (seed 000 a). Every
seat is dealt two 7-stacks; the 8-stack goes to the middle first and, once it is used up,
the player who must draw puts the next 7-stack from the bank in the middle (000 e, l).
So 2 seats leave 78 tiles to draw, 3 seats 64 and 4 seats 50.
"""

from __future__ import annotations

from dataclasses import dataclass

TILES = 106
STACK = 7
FIRST_STACK = 8
STACKS_OF_SEVEN = 14


@dataclass(frozen=True, slots=True)
class DrawPile:
    """Tiles left in the middle stack, and 7-stacks still waiting in the bank."""

    middle: int
    bank_stacks: int

    @classmethod
    def for_seats(cls, seats: int) -> DrawPile:
        """The pile after the deal at a table of ``seats`` players (2 to 4)."""
        return cls(middle=FIRST_STACK, bank_stacks=STACKS_OF_SEVEN - 2 * seats)

    @classmethod
    def with_tiles(cls, tiles: int) -> DrawPile:
        """A pile of ``tiles`` drawable tiles, as a judge's correction states it.

        The middle stack holds what does not fill whole 7-stacks; a count that is a
        multiple of 7 keeps a full stack in the middle.
        """
        if tiles <= 0:
            return cls(middle=0, bank_stacks=0)
        middle = tiles % STACK or STACK
        return cls(middle=middle, bank_stacks=(tiles - middle) // STACK)

    @property
    def tiles_left(self) -> int:
        return self.middle + STACK * self.bank_stacks

    @property
    def empty(self) -> bool:
        return self.tiles_left == 0

    def take(self, wanted: int) -> tuple[DrawPile, int]:
        """Take up to ``wanted`` tiles; returns the new pile and how many were taken."""
        middle, bank, taken = self.middle, self.bank_stacks, 0
        while taken < wanted:
            if middle == 0:
                if bank == 0:
                    break
                # The player who must draw sets the next stack from the bank in the middle.
                bank -= 1
                middle = STACK
            middle -= 1
            taken += 1
        return DrawPile(middle, bank), taken
