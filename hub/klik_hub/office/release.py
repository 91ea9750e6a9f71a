"""Results released together (issue 20; a tournament's ``release_together``): the public sees
a round's results, its games' points and the standings that count them, only once every table
of the round has reported all its games, so that no table plays to a standing.

A round is *held* while a table of it owes a game (``counting.missing``): a slot no result
fills. A result the judge excluded fills none, nor does one that belongs to no slot until the
judge assigns it; one held for a points mismatch fills its slot (it came). While a round is
held the public's standings are as they were before its results, a player's page shows their
game of it as waiting, with no points, and its seatings stay public. Each round is released
on its own, the moment its last slot is filled (that result moves the tournament's revision
like any other, so the pages are told at once); the judge's corrections to a released round
show as ever.

Who sees what: the public pages read the tally (``office.tally``), which keeps the released
view; the tournament's reads (standings, results, corrections, sanctions, their CSV, the
printed standings) give it to anyone but the judge (``public=True``); the judge's console sees
all.

The judge's own words stay with the judge too (issue 36): a sanction's or a correction's
``reason`` and who gave it (``by``) are the console's, as the player's page says ("the judge
tells the player"). Anyone else reads what was done (a sanction's kind, points and stage, a
correction's kind, seat and value, an event's kind and what it changed), never why nor by
whom: an answer to anyone on the hall's Wi-Fi must not air "talked during the game"
(``unsigned``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from klik.words import words
from klik_hub import sql
from klik_hub.office import corrections, counting, results, sanctions, standings
from klik_hub.office.errors import ConflictError
from klik_hub.office.tournaments import drawn_round, tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament.standings import Row


def held(
    row: Any,
    drawn: Sequence[Round],
    listed: Sequence[counting.Counted],
    early: frozenset[int] = frozenset(),
) -> frozenset[int]:
    """The rounds whose results the public does not see yet: none unless the tournament
    (``row``) releases results together; else each drawn round a table of which owes a game,
    but those the judge released ``early`` (``sql.events.released_early``)."""
    if not row.release_together:
        return frozenset()
    return frozenset(
        x.round_no for x in drawn if x.round_no not in early and counting.missing(x, listed)
    )


def held_in(
    db: Connection, row: Any, drawn: Sequence[Round], listed: Sequence[counting.Counted]
) -> frozenset[int]:
    """``held``, with the rounds the judge released early read in the caller's transaction."""
    if not row.release_together:
        return frozenset()
    return held(row, drawn, listed, sql.events.released_early(db, row.id))


def release_now(store: Store, tid: int, round_no: int, reason: str, by: str) -> dict[str, Any]:
    """The judge releases round ``round_no``'s results before every table is done (a table
    that cannot finish, a prize-giving that cannot wait), as a logged event ``release``: the
    public sees them at once, and the round's later results as they come. → ``{"round",
    "missing"}`` (the tables that still owe games, as the log keeps them). ConflictError if
    the tournament shows every result at once, or the round is not held (all in, or
    released already); NotFoundError for a round not drawn."""
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        drawn, kept = drawn_round(db, tid, round_no)
        if not row.release_together:
            said = words(
                "round {round}: this tournament shows every result at once; none is held",
                round=round_no,
            )
            raise ConflictError(said)
        counted = counting.counted(db, tid, sql.players.names(db, tid), drawn)
        if round_no not in held_in(db, row, drawn, counted):
            said = words("round {round}: its results are public already", round=round_no)
            raise ConflictError(said)
        missing = sorted(m["table"] for m in counting.missing(kept, counted))
        args = {"round": round_no, "missing": missing}
        at = utc_iso(store.now_ms())
        sql.events.log(db, tid, "release", player_no=None, args=args, reason=reason, by=by, at=at)
    return args


def released(listed: Sequence[counting.Counted], held: frozenset[int]) -> list[counting.Counted]:
    """``listed`` without the results of the ``held`` rounds (their slot's round, or the round
    they name while they fill none)."""
    return [x for x in listed if x.round_no not in held]


def hidden_in(db: Connection, tid: int) -> frozenset[int]:
    """The results of tournament ``tid`` the public does not see yet (their ids), read in the
    caller's transaction."""
    row = tournament(db, tid)
    if not row.release_together:
        return frozenset()
    drawn = sql.rounds.drawn(db, tid)
    counted = counting.counted(db, tid, sql.players.names(db, tid), drawn)
    kept = held_in(db, row, drawn, counted)
    return frozenset(x.row.id for x in counted if x.round_no in kept)


def stored(store: Store, found: list[dict[str, Any]], *, public: bool) -> list[dict[str, Any]]:
    """The hall's stored results ``found`` (``GET /api/v1/results``); if ``public``, without
    those the public does not see yet, of any tournament. (Read after ``found``: a result that
    comes meanwhile releases its round, or is not in ``found``.)"""
    if not public:
        return found
    with store.reading() as db:
        together = [x.id for x in sql.tournaments.newest_first(db) if x.release_together]
        hide = frozenset().union(*(hidden_in(db, tid) for tid in together))
    return [x for x in found if x["id"] not in hide]


def ranked(store: Store, tid: int, stage: str | None = None, *, public: bool) -> list[Row]:
    """``standings.ranked``; if ``public``, as the public sees it: without the results of
    the rounds held (``held``)."""
    if not public:
        return standings.ranked(store, tid, stage)
    with store.reading() as db:
        row = tournament(db, tid)
        drawn = sql.rounds.drawn(db, tid)
        counted = counting.counted(db, tid, sql.players.names(db, tid), drawn)
        shown = released(counted, held_in(db, row, drawn, counted))
        return standings.ranked_in(db, tid, stage, listed=shown)


def listed(store: Store, tid: int, *, public: bool) -> list[dict[str, Any]]:
    """``results.listed``; if ``public``, without the results of the rounds held and with
    their corrections ``unsigned``. (What is held is read first: a result that comes
    meanwhile is of a round held then, or released.)"""
    if not public:
        return results.listed(store, tid)
    hide = _hidden(store, tid)
    return [
        {**x, "corrections": [unsigned(c) for c in x["corrections"]]}
        for x in results.listed(store, tid)
        if x["id"] not in hide
    ]


def log(store: Store, tid: int, *, public: bool) -> list[dict[str, Any]]:
    """``corrections.log``; if ``public``, without the corrections to results it hides and
    the judge's own events (``JUDGES_EVENTS``), and every entry ``unsigned``."""
    if not public:
        return corrections.log(store, tid)
    hide = _hidden(store, tid)
    return [
        unsigned(x)
        for x in corrections.log(store, tid)
        if x["result"] not in hide and x["kind"] not in JUDGES_EVENTS
    ]


def given(store: Store, tid: int, *, public: bool) -> list[dict[str, Any]]:
    """``sanctions.listed``; if ``public``, each ``unsigned``."""
    found = sanctions.listed(store, tid)
    return [unsigned(x) for x in found] if public else found


#: The keys of a logged entry (a correction, a sanction, another event of the judge's) that
#: are the judge's words: why and who.
JUDGES_OWN = frozenset({"reason", "by"})
# Events the public does not read at all: a family label is the judge's note for the draw
# (who is kept apart), not news about a player.
JUDGES_EVENTS = frozenset({"family", "needs"})  # a player's needs are theirs, not the hall's


def unsigned(entry: dict[str, Any]) -> dict[str, Any]:
    """A logged ``entry`` as anyone but the judge reads it: without the judge's words
    (``JUDGES_OWN``), its other keys as they are."""
    return {k: v for k, v in entry.items() if k not in JUDGES_OWN}


def _hidden(store: Store, tid: int) -> frozenset[int]:
    with store.reading() as db:
        return hidden_in(db, tid)
