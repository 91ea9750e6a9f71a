"""A league's season: its meetings (tournaments on this hub) ranked together by person, by
the organiser's rule (``tournament.seasons``): each meeting's classification gives a person
its big points or the points for their place, and their best N meetings count.

The table is worked out from the meetings' classifications as they are now: a correction in
a meeting, or a person the judge linked, changes it at once.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from klik.words import words
from klik_hub import sql
from klik_hub.office.errors import ConflictError, NotFoundError, TournamentError
from klik_hub.office.standings import ranked_in, status
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import seasons as ss
from klik_hub.tournament.standings import Status


def create(store: Store, name: str, best: int | None, points: str | list[int]) -> int:
    """A new season; its id. ``points``: ``"big"``, or the points for place 1, 2, …, none
    above the one before."""
    if isinstance(points, list) and any(b > a for a, b in pairwise(points)):
        raise TournamentError(words("points: a place gives no more than the place before it"))
    with store.writing() as db:
        return sql.seasons.add(db, name, best, json.dumps(points), utc_iso(store.now_ms()))


def add_meeting(store: Store, sid: int, tid: int) -> dict[str, Any]:
    """Tournament ``tid`` is a meeting of season ``sid``; the season as ``one`` gives it."""
    with store.writing() as db:
        _season(db, sid)
        tournament(db, tid)
        if tid in sql.seasons.meetings(db, sid):
            said = words("tournament {tid} is a meeting of season {sid} already", tid=tid, sid=sid)
            raise ConflictError(said)
        sql.seasons.add_meeting(db, sid, tid)
        # Logged in the tournament: its pages (the board's link to the season) change with it.
        sql.events.log(db, tid, "season", player_no=None, args={"season": sid},
                       reason="", by="judge", at=utc_iso(store.now_ms()))  # fmt: skip
    return one(store, sid)


def one(store: Store, sid: int) -> dict[str, Any]:
    with store.reading() as db:
        row = _season(db, sid)
        return _shown(row, sql.seasons.meetings(db, sid))


def listed(store: Store) -> list[dict[str, Any]]:
    """Every season, newest first."""
    with store.reading() as db:
        return [_shown(x, sql.seasons.meetings(db, x.id)) for x in sql.seasons.every(db)]


def standings(store: Store, sid: int) -> list[dict[str, Any]]:
    """The season's table: ``[{"place", "person", "name", "points", "meetings"}]``."""
    with store.reading() as db:
        row = _season(db, sid)
        meetings = []
        for tid in sql.seasons.meetings(db, sid):
            person_of = {p: who for (_, p), who in sql.people.of_players(db, tid).items()}
            meetings.append([
                ss.Seat(person_of[x.player], None if status(x) is not Status.CLASSIFIED
                        else x.place, x.big)
                for x in ranked_in(db, tid) if x.player in person_of
            ])  # fmt: skip
        names = {x.id: x.name for x in sql.people.every(db)}
    rule = _rule(row)
    return [
        {"place": x.place, "person": x.person, "name": x.name, "points": x.points,
         "meetings": x.meetings}
        for x in ss.table(rule, meetings, names)
    ]  # fmt: skip


def _rule(row: Any) -> ss.Rule:
    points = json.loads(row.points)
    return ss.Rule(points if points == ss.BIG else tuple(points), row.best)


def _shown(row: Any, meetings: list[int]) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "best": row.best,
        "points": json.loads(row.points),
        "meetings": meetings,
    }


def _season(db: Any, sid: int) -> Any:
    row = sql.seasons.one(db, sid)
    if row is None:
        raise NotFoundError(words("no season {sid}", sid=sid))
    return row
