"""Partial spreads: 32 players at 8 tables of 4 over up to 9 rounds without a repeat.

The players are the 32 vectors of GF(2)^5. A *line* is a subspace of two dimensions: 0 and
three vectors u, v, u + v. A line's cosets x + {0, u, v, u + v} cut the players into 8 tables
of 4, a round; two players sit together in it when their sum (their difference: in GF(2)
they are the same) is on the line. Lines that share no vector but 0 (a *partial spread*) make
rounds that seat no pair together twice. 31 vectors hold at most 10 disjoint threes, but
GF(2)^5 holds no more than 9 disjoint lines (a classical bound for PG(4, 2)), so this builds
up to 9 rounds; the social golfers' 8-4-10 schedule exists, but is no such design: one is
kept as data in ``golfers.py``.

The same holds for any 2^k players at tables of 4 (16 players: 5 rounds, as the affine plane
of order 4 gives); the field sizes for which it is used are ``FIELDS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from random import Random

FIELDS = {32: 5}  # players -> k: the fields built from GF(2)^k (16 is the plane's)
TABLE = 4

Tables = list[list[int]]


@cache
def _spread(k: int) -> tuple[tuple[int, int, int], ...]:
    """The most disjoint lines GF(2)^k holds (a spread for even k, (2^k − 5) / 3 lines for
    odd k), in a fixed order: a depth-first search over the lines by their smallest vector,
    which finds them at once for the fields used."""
    lines: list[tuple[int, int, int]] = []
    size = 1 << k
    most = (size - 1) // 3 if k % 2 == 0 else (size - 5) // 3
    used = [False] * size

    def extend(start: int) -> bool:
        if len(lines) == most:
            return True
        for u in range(start, size):
            if used[u]:
                continue
            for v in range(u + 1, size):
                w = u ^ v
                if used[v] or used[w] or w < u:
                    continue
                used[u] = used[v] = used[w] = True
                lines.append((u, v, w))
                if extend(u + 1):
                    return True
                lines.pop()
                used[u] = used[v] = used[w] = False
        return False

    found = extend(1)
    assert found
    return tuple(lines)


def spread_rounds(
    n: int, sizes: Sequence[int], earlier: Sequence[Tables], rounds: int, rng: Random
) -> list[Tables] | None:
    """``rounds`` rounds for players 0..n−1 that seat no pair together twice, from a partial
    spread; None where the field is not one of ``FIELDS`` at tables of 4, earlier rounds were
    drawn (their labelling is not kept). More rounds asked for than the spread has: only
    the spread's (9), for a search to begin the others from."""
    k = FIELDS.get(n)
    if k is None or earlier or any(s != TABLE for s in sizes):
        return None
    lines = list(_spread(k))
    label = list(range(n))
    rng.shuffle(label)  # which player is which vector
    rng.shuffle(lines)
    drawn = []
    for line in lines[:rounds]:
        seen: set[int] = set()
        tables = []
        for x in range(n):
            if x not in seen:
                coset = [x, x ^ line[0], x ^ line[1], x ^ line[2]]
                seen.update(coset)
                tables.append([label[v] for v in coset])
        rng.shuffle(tables)
        drawn.append(tables)
    return drawn
