"""The players' ratings on this hub (``tournament.ratings``: OpenSkill's Plackett–Luce):
every game that counts, in every tournament, oldest first, by the people who sat at it.

A game's finishing order is its places as the tournament's rule set scored it after the
judge's corrections (1, 2, 2, 4: tied seats share); its day is the day the hub received it. A
seat whose player is unknown, or a reserve's seat that counts for nobody, is left out of its
table. The ratings are worked out again whenever any tournament's pages would change (their
revision): a result, a correction, a round undone, a person linked; else from memory.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from klik.rules import RULE_SETS
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.tally import Tallies
from klik_hub.storage.store import Store
from klik_hub.tournament.ratings import Game, Rating, ranked, rate

Kept = tuple[tuple[tuple[int, str], ...], dict[int, Rating], dict[int, str]]
PAGES_KEPT = 64  # (tournament, revision) tables of players' ratings kept
FRESH_S = 1.0  # how long the ratings are taken as they were without a look at the database


class Ratings:
    """The hub's ratings, kept while no tournament changed (one per app: ``app.state``).

    After a result a hall of phones asks at once: the first works the ratings out, the rest
    wait on the lock and take them (``_working``). Each tournament's games are kept by its
    revision, read from its tally (``office.tally``: the one the pages read anyway), so a
    result costs its own tournament's games and the rating of them all, never every other
    tournament's counting again."""

    def __init__(self, store: Store, tallies: Tallies | None = None) -> None:
        self.store = store
        self.tallies = tallies or Tallies(store)
        self._lock = threading.Lock()
        self._working = threading.Lock()
        self._kept: Kept | None = None
        self._checked = 0.0  # time.monotonic() of the last read of the revisions
        self._games: dict[int, tuple[str, list[tuple[int, Game]]]] = {}
        # The ratings of a tournament's players as their pages show them, by (tournament,
        # revision): player -> JSON. A hall of phones reads them from memory; they are made
        # once a revision, for every player at once. Games of other tournaments reach a page
        # when its own tournament changes next.
        self._pages: dict[tuple[int, str], dict[int, bytes]] = {}
        self._making = threading.Lock()

    def page_known(self, tid: int, player: int, revision: str) -> bytes | None:
        """A player's page's rating as JSON, from memory alone (None: not made yet)."""
        table = self._pages.get((tid, revision))
        return None if table is None else table.get(player, b"null")

    def page_made(self, tid: int, player: int, revision: str) -> bytes:
        """``page_known``, made for every player of the tournament at ``revision`` if it is
        not yet (one thread makes them, the others wait and take them)."""
        with self._making:
            table = self._pages.get((tid, revision))
            if table is None:
                rated, _ = self.now(own=tid)
                with self.store.reading() as db:
                    people = sql.people.of_players(db, tid)
                table = {p: json.dumps(self._shown(rated.get(who))).encode()
                         for (_, p), who in people.items()}  # fmt: skip
                if len(self._pages) >= PAGES_KEPT:
                    self._pages.clear()  # old revisions: made again if ever asked
                self._pages[(tid, revision)] = table
        return table.get(player, b"null")

    def now(self, *, own: int | None = None) -> tuple[dict[int, Rating], dict[int, str]]:
        """Every rated person's rating, and every person's name. ``own``: for a player's
        page (a hall of phones asks every few seconds), only the page's tournament is looked
        at each time; the others' games reach it within ``FRESH_S``."""
        with self._lock:
            kept = self._kept
            recent = kept is not None and time.monotonic() - self._checked < FRESH_S
        if own is not None and kept is not None and recent:
            with self.store.reading() as db:
                if dict(kept[0]).get(own) == sql.tournaments.revision(db, own):
                    return kept[1], kept[2]
        with self._working:
            with self.store.reading() as db:
                revision = tuple(
                    (x.id, sql.tournaments.revision(db, x.id))
                    for x in sql.tournaments.newest_first(db)
                )
                with self._lock:
                    if self._kept is not None and self._kept[0] == revision:
                        self._checked = time.monotonic()
                        return self._kept[1], self._kept[2]
                names = {x.id: x.name for x in sql.people.every(db)}
                people = sql.people.of_players(db)
            found = [g for tid, rev in revision for g in self._games_of(tid, rev, people)]
            rated = rate(
                [g for _, g in sorted(found, key=lambda kept: kept[0])], self.store.now_day()
            )
            with self._lock:
                self._kept = (revision, rated, names)
                self._checked = time.monotonic()
            return rated, names

    def _games_of(
        self, tid: int, revision: str, people: Mapping[tuple[int, int], int]
    ) -> list[tuple[int, Game]]:
        """Tournament ``tid``'s counted games at ``revision``, each with its result's id."""
        kept = self._games.get(tid)
        if kept is not None and kept[0] == revision:
            return kept[1]
        tally = self.tallies.at(tid, revision)
        person_of = {p: who for (t, p), who in people.items() if t == tid}
        found = games_of(tally.listed, person_of, RULE_SETS[tally.row.rules].winner_sign)
        self._games[tid] = (revision, found)
        return found

    def listed(self) -> list[dict[str, Any]]:
        """The rating list, best first (``GET /api/v1/ratings``)."""
        rated, names = self.now()
        return [shown(r, names.get(r.person, "")) for r in ranked(rated)]

    def ranked_players(self, tid: int) -> list[int]:
        """Tournament ``tid``'s players best-rated first (a draw that keeps the strong apart);
        players with no rating yet after every rated one, by start number."""
        rated, _ = self.now()
        with self.store.reading() as db:
            person_of = {p: who for (_, p), who in sql.people.of_players(db, tid).items()}
        value = {p: rated[who].value for p, who in person_of.items() if who in rated}
        return sorted(person_of, key=lambda p: (p not in value, -value.get(p, 0.0), p))

    def of(self, person: int | None, tid: int) -> dict[str, Any] | None:
        """A person's rating as their page in tournament ``tid`` shows it; None before their
        first rated game."""
        rated, _ = self.now(own=tid)
        return self._shown(None if person is None else rated.get(person))

    @staticmethod
    def _shown(found: Rating | None) -> dict[str, Any] | None:
        if found is None:
            return None
        return {
            "value": round(found.value, 2),
            "change_today": round(found.change_today, 2),
            "provisional": found.provisional,
        }


def shown(r: Rating, name: str) -> dict[str, Any]:
    return {
        "person": r.person,
        "name": name,
        "rating": round(r.value, 2),
        "mu": round(r.mu, 4),
        "sigma": round(r.sigma, 4),
        "games": r.games,
        "provisional": r.provisional,
    }


def games_of(
    listed: Iterable[counting.Counted], person_of: Mapping[int, int], sign: int
) -> list[tuple[int, Game]]:
    """The games that count among ``listed`` (a tournament's results as counted), each with
    its result's id, by the people who sat at them; ``sign``: the rule set's winner's."""
    found: list[tuple[int, Game]] = []
    for x in listed:
        if not x.now.counts or x.placed.slot is None:
            continue
        merit = {s: sign * points for s, points in x.now.small.items()}
        places = {
            person_of[player]: 1 + sum(other > m for other in merit.values())
            for s, m in merit.items()
            if (player := x.credit.get(s)) is not None and player in person_of
        }
        found.append((x.row.id, Game(str(x.row.received_at)[:10], places)))
    return found


def by_person(rated: Mapping[int, Rating]) -> dict[int, float]:
    """Each rated person's shown figure (a draw that seeds by rating reads it)."""
    return {p: r.value for p, r in rated.items()}
