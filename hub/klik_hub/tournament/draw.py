"""Random tables for a round: balanced sizes of 3–4, seats drawn, repeat opponents avoided.

The rules (RULES.md §6, seed 001): players sit at tables of 3 or 4, drawn at random, and the
tables are balanced, so their sizes differ by at most one (37 players: 7 × 4 + 3 × 3). A
tournament of several rounds should not seat the same two players together twice while it can
be helped.

Theory of operation. A draw is a pure function of the players, the earlier rounds and a seed:
the same inputs give the same tables on any machine (``random.Random`` with an int seed is
stable across CPython versions), so a judge can print the seed and anyone can check the draw.

1. Each round starts as a shuffle cut into tables, fours first (tables 1, 2, … hold the fours),
   or, where everyone can meet everyone exactly once (16 players at tables of 4 over up to 5
   rounds, 9 at tables of 3 over up to 4), as the rounds of an affine plane (``planes.py``).
2. A min-conflicts search then swaps players between two tables of one round: it picks a pair
   that has met more than once (in the earlier rounds or the ones being drawn), moves one of
   them to the swap that removes the most repeats, and now and then takes a random swap to leave
   a dead end. It keeps the best arrangement seen and stops when no repeat is left or after a
   fixed number of steps, never a time limit, so the result does not depend on the machine.
3. Seat letters are drawn last: each table's order is shuffled (its first player sits at A).

A *repeat* is one meeting too many: two players who sat together three times make 2 repeats.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from random import Random
from typing import TypeVar

from klik.errors import KlikError
from klik.words import words
from klik_hub.tournament.planes import plane_rounds

P = TypeVar("P", bound=Hashable)
Table = tuple[P, ...]  # players in seat order A, B, C, D
Round = tuple[Table[P], ...]  # tables in table order 1, 2, …

MIN_TABLE, MAX_TABLE = 3, 4
STEPS_PER_PLAYER = 200  # search budget per player and round: 16 players × 5 rounds reach no repeat
MAX_STEPS = 20_000  # and at most this many, so a field where repeats cannot be helped ends soon
RESTARTS = 8  # the budget is shared by this many searches from fresh shuffles
RANDOM_WALK = 0.1  # how often the search takes a random swap instead of the best one
CANDIDATES = 48  # swap partners weighed at each step (all of them for a small field)


class DrawError(KlikError, ValueError):
    """The players cannot be drawn as asked; the message says why and what is allowed."""


def table_sizes(players: int) -> tuple[int, ...]:
    """The table sizes for ``players``: 3 or 4 each, differing by at most one, fours first.

    The fewest tables that hold everyone at 4 or fewer; 5 players fit no such tables.
    """
    if players < MIN_TABLE:
        raise DrawError(
            words("{n} players: a table needs at least {least}", n=players, least=MIN_TABLE)
        )
    tables = -(-players // MAX_TABLE)
    fours = players - MIN_TABLE * tables
    if fours < 0:
        raise DrawError(
            words(
                "{n} players cannot sit at tables of {least}–{most}: "
                "allowed are {least}, {most} or 6 and more",
                n=players,
                least=MIN_TABLE,
                most=MAX_TABLE,
            )
        )
    return (MAX_TABLE,) * fours + (MIN_TABLE,) * (tables - fours)


def draw_round(
    players: Sequence[P],
    earlier: Sequence[Round[P]],
    seed: int,
    *,
    ahead: int = 0,
    steps: int | None = None,
) -> Round[P]:
    """One round's tables for ``players``, after the ``earlier`` rounds, from ``seed``.

    ``ahead``: how many more random rounds the stage will have after this one. They are
    planned with it (and thrown away), so this round leaves room for them: drawn one at a
    time with no look ahead, 16 players reach a fifth round without a repeat only by luck.
    """
    return _draw(players, earlier, 1 + ahead, seed, steps)[0]


def draw_rounds(
    players: int, rounds: int, seed: int, *, steps: int | None = None
) -> list[Round[int]]:
    """``rounds`` rounds for players 1..``players`` planned together (``klik draw``).

    Planning every round at once can reach arrangements that drawing one round at a time
    cannot: 16 players at 4 tables meet everyone exactly once in 5 rounds only if the earlier
    rounds left room for the last.
    """
    if rounds < 1:
        raise DrawError(words("{n} rounds: allowed are 1 or more", n=rounds))
    return _draw(list(range(1, players + 1)), (), rounds, seed, steps)


def repeats(rounds: Sequence[Round[P]]) -> int:
    """How many meetings are one too many: a pair that sat together k times counts k − 1."""
    seen: dict[frozenset[P], int] = {}
    for one in rounds:
        for table in one:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    pair = frozenset((a, b))
                    seen[pair] = seen.get(pair, 0) + 1
    return sum(count - 1 for count in seen.values())


def _draw(
    players: Sequence[P], earlier: Sequence[Round[P]], rounds: int, seed: int, steps: int | None
) -> list[Round[P]]:
    if len(set(players)) != len(players):
        raise DrawError(words("a player is listed twice"))
    sizes = table_sizes(len(players))
    rng = Random(seed)
    index = {p: i for i, p in enumerate(players)}
    met = [[index[p] for p in table if p in index] for one in earlier for table in one]
    budget = min(STEPS_PER_PLAYER * len(players) * rounds, MAX_STEPS) if steps is None else steps
    # A few short searches from fresh shuffles reach a clean draw far more often than one long
    # walk, which can wander a plateau for ever; the best of them is kept.
    # Where everyone can meet everyone exactly once, the design is built, not searched for.
    earlier_tables = [[[index[p] for p in table] for table in one] for one in earlier]
    plane = None
    if all(p in index for one in earlier for table in one for p in table):
        plane = plane_rounds(len(players), sizes, earlier_tables, rounds, rng)
    search: _Search | None = None
    for _ in range(RESTARTS):
        attempt = _Search(len(players), sizes, rounds, rng, plane)
        for table in met:
            attempt.met(table)
        attempt.run(max(1, budget // RESTARTS))
        if search is None or attempt.best_cost < search.best_cost:
            search = attempt
        if search.solved:
            break
    assert search is not None
    drawn: list[Round[P]] = []
    for tables in search.best:
        seated = []
        for drawn_table in tables:
            order = list(drawn_table)
            rng.shuffle(order)  # the seat letters
            seated.append(tuple(players[i] for i in order))
        drawn.append(tuple(seated))
    return drawn


class _Search:
    """Min-conflicts search over the rounds being drawn, players as 0..n-1."""

    def __init__(
        self,
        n: int,
        sizes: tuple[int, ...],
        rounds: int,
        rng: Random,
        start: list[list[list[int]]] | None = None,
    ) -> None:
        """``start``: the rounds to begin from (a plane's), else each a fresh shuffle."""
        self.n, self.rng = n, rng
        self.meet = [0] * (n * n)  # meetings of each ordered pair, earlier rounds included
        self.tables: list[list[list[int]]] = []  # round -> table -> players
        self.where: list[list[int]] = []  # round -> player -> its table
        for k in range(rounds):
            tables: list[list[int]] = []
            if start is not None:
                tables = [list(t) for t in start[k]]
            else:
                order = list(range(n))
                rng.shuffle(order)
                begin = 0
                for size in sizes:
                    tables.append(order[begin : begin + size])
                    begin += size
            self.tables.append(tables)
            where = [0] * n
            for t, table in enumerate(tables):
                for p in table:
                    where[p] = t
            self.where.append(where)
        self.best: list[list[list[int]]] = []
        self.best_cost = 0
        self.solved = False  # no repeat left that a swap could undo

    def met(self, table: Sequence[int]) -> None:
        """Count one meeting of every pair at ``table``."""
        n, meet = self.n, self.meet
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                meet[a * n + b] += 1
                meet[b * n + a] += 1

    def run(self, steps: int) -> None:
        for tables in self.tables:
            for table in tables:
                self.met(table)
        conflicts = self._conflicts()
        cost = best_cost = self._cost()
        self.best = [[list(t) for t in tables] for tables in self.tables]
        rng = self.rng
        for _ in range(steps):
            if not conflicts:
                break
            a, b = rng.choice(sorted(conflicts))
            rounds = [r for r, where in enumerate(self.where) if where[a] == where[b]]
            r = rng.choice(rounds)
            mover = rng.choice((a, b))
            swap = self._pick_swap(r, mover)
            if swap is None:
                continue
            other, delta = swap
            self._swap(r, mover, other, conflicts)
            cost += delta
            if cost < best_cost:
                best_cost = cost
                self.best = [[list(t) for t in tables] for tables in self.tables]
        if cost <= best_cost:
            self.best = [[list(t) for t in tables] for tables in self.tables]
            best_cost = cost
        self.best_cost = best_cost
        self.solved = not conflicts and cost == best_cost

    def _cost(self) -> int:
        n, meet = self.n, self.meet
        return sum(max(0, meet[a * n + b] - 1) for a in range(n) for b in range(a + 1, n))

    def _conflicts(self) -> set[tuple[int, int]]:
        """Pairs that met more than once and sit together in a round being drawn (so a swap
        can part them); repeats within the earlier rounds alone cannot be helped."""
        out = set()
        for tables in self.tables:
            for table in tables:
                for i, a in enumerate(table):
                    for b in table[i + 1 :]:
                        if self.meet[a * self.n + b] > 1:
                            out.add((min(a, b), max(a, b)))
        return out

    def _pick_swap(self, r: int, a: int) -> tuple[int, int] | None:
        """The partner for ``a`` in round ``r`` whose swap removes the most repeats (ties at
        random), or now and then a random partner; with the swap's change of cost."""
        where, rng = self.where[r], self.rng
        others = [p for p in range(self.n) if where[p] != where[a]]
        if not others:
            return None
        if rng.random() < RANDOM_WALK:
            b = rng.choice(others)
            return b, self._delta(r, a, b)
        if len(others) > CANDIDATES:
            others = rng.sample(others, CANDIDATES)
        best: list[int] = []
        best_delta = 0
        for b in others:
            delta = self._delta(r, a, b)
            if not best or delta < best_delta:
                best, best_delta = [b], delta
            elif delta == best_delta:
                best.append(b)
        return rng.choice(best), best_delta

    def _delta(self, r: int, a: int, b: int) -> int:
        """The change in repeats if ``a`` and ``b`` swap tables in round ``r``."""
        n, meet = self.n, self.meet
        x_table, y_table = self.tables[r][self.where[r][a]], self.tables[r][self.where[r][b]]
        delta = 0
        for x in x_table:
            if x != a:
                delta += (meet[b * n + x] >= 1) - (meet[a * n + x] >= 2)
        for y in y_table:
            if y != b:
                delta += (meet[a * n + y] >= 1) - (meet[b * n + y] >= 2)
        return delta

    def _swap(self, r: int, a: int, b: int, conflicts: set[tuple[int, int]]) -> None:
        n, meet, where = self.n, self.meet, self.where[r]
        ta, tb = where[a], where[b]
        x_table, y_table = self.tables[r][ta], self.tables[r][tb]
        x_rest = [x for x in x_table if x != a]
        y_rest = [y for y in y_table if y != b]
        for x in x_rest:
            meet[a * n + x] -= 1
            meet[x * n + a] -= 1
            meet[b * n + x] += 1
            meet[x * n + b] += 1
        for y in y_rest:
            meet[b * n + y] -= 1
            meet[y * n + b] -= 1
            meet[a * n + y] += 1
            meet[y * n + a] += 1
        x_table[x_table.index(a)] = b
        y_table[y_table.index(b)] = a
        where[a], where[b] = tb, ta
        for p in (a, b):
            for q in (*x_rest, *y_rest):
                self._recheck(p, q, conflicts)

    def _recheck(self, p: int, q: int, conflicts: set[tuple[int, int]]) -> None:
        pair = (min(p, q), max(p, q))
        together = any(where[p] == where[q] for where in self.where)
        if together and self.meet[p * self.n + q] > 1:
            conflicts.add(pair)
        else:
            conflicts.discard(pair)
