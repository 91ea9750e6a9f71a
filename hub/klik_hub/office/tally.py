"""A tournament as its public pages read it (the players' pages, the public board), worked
out once for each of its revisions.

Why: when a result comes, every phone in the hall that has a page of the tournament open is
told at once (``klik_hub.api.feed``) and asks again; three hundred phones asking in the same
second must not count the tournament three hundred times. A ``Tally`` is read in one
transaction and worked out once; ``Tallies`` keeps the latest of each tournament while its
revision (``sql.tournaments.revision``, read from the database on every request) is the
same. So every answer still comes from the database as it is now: two hub processes on one
PostgreSQL answer alike, each keeping its own tallies.

A tally is the public's view: of a tournament that releases results together
(``office.release``), the classification leaves out the rounds still ``held``, and the pages
show no points of them. The result that releases a round moves the revision as any result
does, so the pages are told at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection

from klik.core.game import SEATS
from klik_hub import sql
from klik_hub.office import counting, release, sanctions, standings
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store
from klik_hub.tournament.standings import Row

KEPT = 16  # tournaments whose tally is kept: a hub runs one or a few at a time
KNOWN_CODES = 100_000  # players' codes remembered (a code never changes once given)


@dataclass(frozen=True)
class Tally:
    """Tournament ``tid`` at ``revision``: its row, players, rounds, what every result counts
    for, the classification, and the judge's log as it touches players."""

    tid: int
    revision: str
    row: Any
    names: dict[int, str]
    clubs: dict[int, str]
    checked_in: frozenset[int]  # the players who have checked in
    drawn: list[Round]  # as drawn: what the results are counted by
    sitting: list[Round]  # as they sit now: each reserve in the seat they took (the pages)
    listed: list[counting.Counted]
    owing: frozenset[tuple[int, int]]  # (round, table) whose games are not all in
    held: frozenset[int]  # rounds whose results the public does not see yet (``release``)
    ranked: list[Row]  # the classification as the public sees it: without the held rounds
    events: list[Any]  # the judge's events (withdrawals, renames, sanctions), oldest first
    corrections: list[Any]  # oldest first
    deductions: dict[int, int]  # event id: big points a deduction took
    seasons: list[tuple[int, str]]  # the league's seasons it is a meeting of: (id, name)
    # What the pages made of it, each worked out on the first request: a player's page by
    # ("player", id), the board by "board".
    memo: dict[object, Any] = field(default_factory=dict)


def read(db: Connection, tid: int, revision: str) -> Tally:
    """Tournament ``tid``'s tally, in ``db``'s transaction."""
    row = tournament(db, tid)
    names = sql.players.names(db, tid)
    listed_players = sql.players.by_number(db, tid)
    drawn = sql.rounds.drawn(db, tid)
    listed = counting.counted(db, tid, names, drawn)
    owing = frozenset((x.round_no, m["table"]) for x in drawn for m in counting.missing(x, listed))
    held = release.held_in(db, row, drawn, listed)
    return Tally(
        tid=tid,
        revision=revision,
        row=row,
        names=names,
        clubs={x.player_no: x.club for x in listed_players},
        checked_in=frozenset(x.player_no for x in listed_players if x.checked_in),
        drawn=drawn,
        sitting=_sitting(drawn, sql.rounds.replacements(db, tid)),
        listed=listed,
        owing=owing,
        held=held,
        ranked=standings.ranked_in(db, tid, listed=release.released(listed, held)),
        events=list(sql.events.of_tournament(db, tid)),
        corrections=list(sql.corrections.of_tournament(db, tid)),
        deductions={x["id"]: x["big"] for x in sanctions.given(db, tid) if x["big"]},
        seasons=sql.seasons.of_tournament(db, tid),
    )


def _sitting(drawn: list[Round], reserves: Sequence[Any]) -> list[Round]:
    """The ``drawn`` rounds as they sit now: each reserve (``sql.rounds.replacements``) in
    the seat they took, where the pages send them and name them."""
    sitting = []
    for kept in drawn:
        tables = [list(t) for t in kept.tables]
        for r in reserves:
            if r.round_no == kept.round_no and r.table_no <= len(tables):
                seats = tables[r.table_no - 1]
                if (at := SEATS.index(r.seat)) < len(seats):
                    seats[at] = r.reserve_no
        sitting.append(replace(kept, tables=tuple(tuple(t) for t in tables)))
    return sitting


class Tallies:
    """The latest tally of each tournament read lately, kept while its revision holds."""

    def __init__(self, store: Store, kept: int = KEPT) -> None:
        self.store = store
        self.kept = kept
        self._tallies: OrderedDict[int, Tally] = OrderedDict()
        self._codes: dict[str, tuple[int, int]] = {}  # code: (tournament, player)
        # One tally is worked out at a time: the phones that ask while it is worked out
        # wait for it, rather than each working out its own.
        self._lock = threading.Lock()

    def player(self, code: str) -> tuple[int, int] | None:
        """The tournament and player whose code is ``code``, or None: asked of the database
        once per code (a code is given at enrolment and never changes)."""
        known = self._codes.get(code)
        if known is not None:
            return known
        with self.store.reading() as db:
            found = sql.players.by_code(db, code)
        if found is None:
            return None  # not remembered: a code may be given later
        known = (found.tournament_id, found.player_no)
        if len(self._codes) < KNOWN_CODES:
            self._codes[code] = known
        return known

    def known(self, code: str) -> tuple[int, int] | None:
        """``player``, from memory only (None: ask ``player``)."""
        return self._codes.get(code)

    def cached(self, tid: int, revision: str | None) -> Tally | None:
        """Tournament ``tid``'s tally of ``revision`` if it is kept (from memory only)."""
        kept = self._tallies.get(tid)
        return kept if kept is not None and kept.revision == revision else None

    def at(self, tid: int, revision: str | None) -> Tally:
        """Tournament ``tid``'s tally of ``revision``, the one the pages' feed has just read
        (None: unknown, as ``of``). A hall of phones asks in the same instant after each
        result: the first reads the tally, the rest wait on the lock and take it, with no
        read of the revision each. The database may have moved on since the feed read it;
        such a tally is newer than its label, and the next revision replaces it."""
        if revision is None:
            return self.of(tid)
        kept = self.cached(tid, revision)
        if kept is not None:
            return kept
        # No connection is held while waiting for the lock, and the one holding it takes its
        # own: a hall of phones waiting here holds none of the pool, so results, heartbeats
        # and the console go on beside them, and the lock's holder always gets a connection.
        with self._lock:
            kept = self.cached(tid, revision)
            if kept is not None:
                return kept
            with self.store.reading() as db:
                tally = read(db, tid, revision)
            self._tallies[tid] = tally
            self._tallies.move_to_end(tid)
            while len(self._tallies) > self.kept:
                self._tallies.popitem(last=False)
            return tally

    def of(self, tid: int) -> Tally:
        """Tournament ``tid``'s tally as the database has it now; NotFoundError if none."""
        with self.store.reading() as db:
            revision = sql.tournaments.revision(db, tid)
            if not revision:
                tournament(db, tid)  # NotFoundError, in its own words
        return self.at(tid, revision)
