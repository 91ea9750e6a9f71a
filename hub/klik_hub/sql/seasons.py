"""A league's seasons (``seasons``) and their meetings (``season_meetings``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select

from klik_hub.sql.schema import season_meetings, seasons


def add(db: Connection, name: str, best: int | None, points: str, at: str) -> int:
    made = db.execute(
        insert(seasons)
        .values(name=name, best=best, points=points, created_at=at)
        .returning(seasons.c.id)
    )
    return int(made.scalar_one())


def one(db: Connection, sid: int) -> Any:
    return db.execute(select(seasons).where(seasons.c.id == sid)).first()


def every(db: Connection) -> Sequence[Any]:
    """Every season, newest first."""
    return db.execute(select(seasons).order_by(seasons.c.id.desc())).all()


def meetings(db: Connection, sid: int) -> list[int]:
    """The season's tournaments, oldest first."""
    found = db.execute(
        select(season_meetings.c.tournament_id)
        .where(season_meetings.c.season_id == sid)
        .order_by(season_meetings.c.tournament_id)
    )
    return [int(t) for (t,) in found]


def add_meeting(db: Connection, sid: int, tid: int) -> None:
    db.execute(insert(season_meetings).values(season_id=sid, tournament_id=tid))


def of_tournament(db: Connection, tid: int) -> list[tuple[int, str]]:
    """The seasons tournament ``tid`` is a meeting of: (id, name), oldest first."""
    found = db.execute(
        select(seasons.c.id, seasons.c.name)
        .join(season_meetings, season_meetings.c.season_id == seasons.c.id)
        .where(season_meetings.c.tournament_id == tid)
        .order_by(seasons.c.id)
    )
    return [(int(i), str(n)) for i, n in found]
