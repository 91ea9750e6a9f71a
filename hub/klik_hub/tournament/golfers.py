"""The social golfers' schedule: 32 players at 8 tables of 4 over 10 rounds, no pair twice.

A player meets 3 others a round, so 31 others last 10 rounds at the most, and in 10 rounds
without a repeat each player meets all but one, its *partner*. Such a schedule exists (the
social golfer problem 8-4-10, CSPLib problem 010, https://www.csplib.org/Problems/prob010/;
the first was published by Alejandro Aguado in 2004), but it is no partial spread
(``spreads.py`` builds 9 rounds) and the draw's search does not reach it (16 repeats): so one
is kept here, as data, and checked by ``tests/tournament/test_golfers.py``.

How this one was built (once, offline, in well under a second): player 2p + s, for p a vector
of GF(2)^4 (0..15) and s a sign 0 or 1; players 2p and 2p + 1 are partners. The 10 lines
(subspaces {0, u, v, u + v}) of GF(2)^4 noted by the rounds pass through every vector but 0
twice. A line's cosets cut the 16 vectors into 4 quads, and a quad Q seats two tables, the
players 2p + s_Q(p) and the players 2p + 1 − s_Q(p) for p in Q: players 2p + a and 2q + b
meet there when a + b = s_Q(p) + s_Q(q) (mod 2), two of the four pairs between p's and q's.
Vectors p and q share a quad in two rounds (the lines through p + q); signs with s_Q(p) +
s_Q(q) 0 in one of the two quads and 1 in the other seat each of the four pairs exactly once.
The signs are 120 linear equations over GF(2), one for each pair p, q, solved by elimination
(the first such 10 lines a depth-first search found had signs).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

PLAYERS, TABLE, ROUNDS = 32, 4, 10

Tables = list[list[int]]

# A round a line: its tables, each player a digit of base 32 (0–9, then A–V for 10–31).
SCHEDULE = (
    "0246 1357 8ACE 9BDF GIKM HJLN OQSU PRTV",  # the line {0, 1, 2, 3}
    "038B 129A 47CF 56DE GJOR HIPQ KNSV LMTU",  # {0, 1, 4, 5}
    "05GL 14HK 27IN 36JM 8DOT 9CPS AFQV BERU",  # {0, 2, 8, 10}
    "07PU 16OV 25RS 34QT 8FHM 9EGN ADJK BCIL",  # {0, 3, 12, 15}
    "09HO 18GP 2BJQ 3AIR 4DLS 5CKT 6FNU 7EMV",  # {0, 4, 8, 12}
    "0AMS 1BNT 28LV 39KU 4EIO 5FJP 6CHR 7DGQ",  # {0, 5, 11, 14}
    "0CJV 1DIU 2EHT 3FGS 49MR 58NQ 6BKP 7ALO",  # {0, 6, 9, 15}
    "0DNR 1CMQ 2FKO 3ELP 48JU 59IV 6AGT 7BHS",  # {0, 6, 11, 13}
    "0FIT 1EJS 2CGU 3DHV 4ANP 5BMO 69LQ 78KR",  # {0, 7, 9, 14}
    "0EKQ 1FLR 2DMP 3CNO 4BGV 5AHU 68IS 79JT",  # {0, 7, 10, 13}
)


def schedule() -> list[Tables]:
    """The 10 rounds as kept, players 0..31, partners 2p and 2p + 1."""
    return [[[int(p, 32) for p in table] for table in line.split()] for line in SCHEDULE]


def golfer_rounds(
    n: int, sizes: Sequence[int], earlier: Sequence[Tables], rounds: int, rng: Random
) -> list[Tables] | None:
    """``rounds`` rounds for players 0..n−1 that seat no pair together twice, from the
    schedule, its players relabelled, its rounds and tables reordered at random (``rng``);
    more than 10 asked for: the 10, for a search to begin the others from. None where the
    field is not 32 players at tables of 4, earlier rounds were drawn (their labelling is not
    kept), or fewer than 10 rounds are asked for: the partial spread (``spreads.py``) draws
    those, as it did before, so a seed printed then draws the same tables now."""
    if n != PLAYERS or earlier or rounds < ROUNDS or any(s != TABLE for s in sizes):
        return None
    label = list(range(n))
    rng.shuffle(label)  # which player is which of the schedule's
    drawn = schedule()
    rng.shuffle(drawn)
    for tables in drawn:
        tables[:] = [[label[p] for p in table] for table in tables]
        rng.shuffle(tables)
    return drawn
