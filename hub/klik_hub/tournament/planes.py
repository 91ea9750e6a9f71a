"""Complete designs: the fields where everyone can meet everyone exactly once.

16 players at 4 tables of 4 meet 3 new opponents a round, so 5 rounds without a repeat seat
every pair together exactly once: the rounds are the 5 parallel classes of the affine plane
of order 4 (AG(2, 4)). 9 players at 3 tables of 3 over 4 rounds are the plane of order 3. A
search finds such a design only most of the time; built from the plane, it is found always.

Players are the plane's points (x, y) over the field GF(q); a round is a class of parallel
lines: the verticals x = c, or for a slope m the lines y = m·x + b. Earlier rounds fix the
labelling: the first round's tables are the verticals, the second's the lines of slope 0,
and any later earlier round must be a class of the plane so labelled (the 4! × 4! ways to
number the x and y values are tried); if none fits, there is no plane to offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from random import Random

# GF(4) as 0, 1, a, a+1 = 0, 1, 2, 3: addition is XOR, multiplication by logarithms.
_LOG4 = {1: 0, 2: 1, 3: 2}
_EXP4 = (1, 2, 3)


def _mul(q: int, a: int, b: int) -> int:
    if q == 3:
        return a * b % 3
    if a == 0 or b == 0:
        return 0
    return _EXP4[(_LOG4[a] + _LOG4[b]) % 3]


Tables = list[list[int]]


def _classes(q: int, point: dict[tuple[int, int], int]) -> list[Tables]:
    """The plane's q + 1 classes of parallel lines, as tables of players."""
    verticals = [[point[(x, y)] for y in range(q)] for x in range(q)]
    classes = [verticals]
    for m in range(q):
        lines: Tables = [[] for _ in range(q)]
        for x in range(q):
            for y in range(q):
                # y = m·x + b, so b = y − m·x; in GF(4) subtracting is adding, an XOR.
                b = (y - m * x) % 3 if q == 3 else y ^ _mul(4, m, x)
                lines[b].append(point[(x, y)])
        classes.append(lines)
    return classes


def _key(tables: Tables) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(t) for t in tables)


def plane_rounds(
    n: int, sizes: Sequence[int], earlier: Sequence[Tables], rounds: int, rng: Random
) -> list[Tables] | None:
    """``rounds`` more rounds for players 0..n−1 that repeat no pair, after ``earlier`` (each a
    round's tables), taken from an affine plane; None where the field is not a plane's, too
    many rounds are asked for, or the earlier rounds are not classes of one plane."""
    q = sizes[0] if sizes else 0
    if q not in (3, 4) or n != q * q or any(s != q for s in sizes):
        return None
    if len(earlier) + rounds > q + 1 or any(sorted(map(len, e)) != [q] * q for e in earlier):
        return None
    for labelled in _labellings(q, list(earlier), rng):
        classes = _classes(q, labelled)
        keys = [_key(c) for c in classes]
        if all(_key(e) in keys for e in earlier):
            left = [c for c, k in zip(classes, keys, strict=True) if k not in map(_key, earlier)]
            rng.shuffle(left)
            return [[list(t) for t in c] for c in left[:rounds]]
    return None


def _labellings(q: int, earlier: list[Tables], rng: Random) -> list[dict[tuple[int, int], int]]:
    """Ways to put the players on the plane's points that make the first earlier round the
    verticals and the second the lines of slope 0 (random where they leave it open)."""
    if not earlier:
        players = list(range(q * q))
        rng.shuffle(players)
        return [{(k // q, k % q): p for k, p in enumerate(players)}]
    columns = [list(t) for t in earlier[0]]
    if len(earlier) == 1:
        for column in columns:
            rng.shuffle(column)
        return [{(x, y): p for x, column in enumerate(columns) for y, p in enumerate(column)}]
    rows = {p: y for y, table in enumerate(earlier[1]) for p in table}
    if any(sorted(rows[p] for p in column) != list(range(q)) for column in columns):
        return []  # the second round is not the first's crossing: no plane holds both
    found = []
    for xs in permutations(range(q)):
        for ys in permutations(range(q)):
            found.append({(xs[x], ys[rows[p]]): p for x, c in enumerate(columns) for p in c})
    return found
