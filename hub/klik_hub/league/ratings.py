"""The players' ratings on this hub (``tournament.ratings``: OpenSkill's Plackett–Luce):
every game that counts, in every tournament, oldest first, by the people who sat at it.

A game's finishing order is its places as the tournament's rule set scored it after the
judge's corrections (1, 2, 2, 4: tied seats share); its day is the day the hub received it. A
seat whose player is unknown, or a reserve's seat that counts for nobody, is left out of its
table. The ratings are worked out again whenever any tournament's pages would change (their
revision): a result, a correction, a round undone, a person linked; else from memory.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection

from klik.rules import RULE_SETS
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.storage.store import Store
from klik_hub.tournament.ratings import Game, Rating, ranked, rate

Kept = tuple[tuple[tuple[int, str], ...], dict[int, Rating], dict[int, str]]
FRESH_S = 1.0  # how long the ratings are taken as they were without a look at the database


class Ratings:
    """The hub's ratings, kept while no tournament changed (one per app: ``app.state``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._kept: Kept | None = None
        self._checked = 0.0  # time.monotonic() of the last read of the revisions

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
        with self.store.reading() as db:
            revision = tuple(
                (x.id, sql.tournaments.revision(db, x.id)) for x in sql.tournaments.newest_first(db)
            )
            with self._lock:
                if self._kept is not None and self._kept[0] == revision:
                    self._checked = time.monotonic()
                    return self._kept[1], self._kept[2]
            today = self.store.now_day()
            rated = rate(games(db), today)
            names = {x.id: x.name for x in sql.people.every(db)}
        with self._lock:
            self._kept = (revision, rated, names)
            self._checked = time.monotonic()
        return rated, names

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
        found = None if person is None else rated.get(person)
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


def games(db: Connection) -> list[Game]:
    """Every counted game of every tournament, as the ratings read it, oldest first."""
    found: list[tuple[int, Game]] = []
    for tournament in sql.tournaments.newest_first(db):
        tid = tournament.id
        person_of = {p: person for (_, p), person in sql.people.of_players(db, tid).items()}
        names = sql.players.names(db, tid)
        drawn = sql.rounds.drawn(db, tid)
        sign = RULE_SETS[tournament.rules].winner_sign
        for x in counting.counted(db, tid, names, drawn):
            if not x.now.counts or x.placed.slot is None:
                continue
            merit = {s: sign * points for s, points in x.now.small.items()}
            places = {
                person_of[player]: 1 + sum(other > m for other in merit.values())
                for s, m in merit.items()
                if (player := x.credit.get(s)) is not None and player in person_of
            }
            found.append((x.row.id, Game(str(x.row.received_at)[:10], places)))
    return [game for _, game in sorted(found, key=lambda kept: kept[0])]


def by_person(rated: Mapping[int, Rating]) -> dict[int, float]:
    """Each rated person's shown figure (a draw that seeds by rating reads it)."""
    return {p: r.value for p, r in rated.items()}
