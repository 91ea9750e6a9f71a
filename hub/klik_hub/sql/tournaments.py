"""The tournaments (``tournaments``): a name, a rule set, a format and a move time each."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from klik_hub.sql.schema import (
    corrections,
    events,
    players,
    results,
    rounds,
    settings,
    tournaments,
)
from klik_hub.sql.settings import IN_PLAY


def create(
    db: Connection,
    *,
    name: str,
    rules: str,
    format_name: str,
    move_time_s: int,
    created_at: str,
    round_time_s: int | None = None,
    release_together: bool = False,
) -> int:
    """Keep a new tournament; its id."""
    new = db.execute(
        insert(tournaments)
        .values(
            name=name,
            rules=rules,
            format=format_name,
            move_time_s=move_time_s,
            created_at=created_at,
            round_time_s=round_time_s,
            release_together=release_together,
        )
        .returning(tournaments.c.id)
    )
    return int(new.scalar_one())


def newest_first(db: Connection) -> Sequence[Any]:
    return db.execute(select(tournaments).order_by(tournaments.c.id.desc())).all()


def in_play_or_newest(db: Connection) -> int | None:
    """The tournament whose log a hall's event goes to: the one the judge marked in play,
    else the newest; None when there is none."""
    marked = db.execute(select(settings.c.value).where(settings.c.name == IN_PLAY)).scalar()
    if marked is not None and str(marked).isdigit() and of(db, int(marked)) is not None:
        return int(marked)
    newest = newest_first(db)
    return int(newest[0].id) if newest else None


def of(db: Connection, tid: int, *, lock: bool = False) -> Any:
    """Tournament ``tid``'s row, or None. ``lock``: the row is locked until the transaction
    ends (``FOR UPDATE`` on PostgreSQL; SQLite's writer lock does the same), so what is
    decided for the tournament is decided one at a time."""
    query = select(tournaments).where(tournaments.c.id == tid)
    return db.execute(query.with_for_update() if lock else query).first()


def revision(db: Connection, tid: int) -> str:
    """What tournament ``tid``'s public pages show, as one short value that changes with any
    of it: a result kept for it (or flagged in conflict), a correction, any of the judge's
    logged events (withdrawals, renames, sanctions, undrawn rounds), a round drawn, a player
    enrolled, the tournament renamed. Every change the office or the hall makes adds or
    changes a row counted here (``tests/hub/test_feed.py`` checks it through whole
    tournaments), so the pages need no counter of their own. Empty if there is no such
    tournament."""
    kept = results.c.tournament_id == tid
    row = db.execute(
        select(
            select(tournaments.c.name).where(tournaments.c.id == tid).scalar_subquery(),
            select(func.max(results.c.id)).where(kept).scalar_subquery(),
            select(func.count()).select_from(results).where(kept).scalar_subquery(),
            select(func.count())
            .select_from(results)
            .where(kept, results.c.conflict)
            .scalar_subquery(),
            select(func.max(corrections.c.id))
            .where(corrections.c.tournament_id == tid)
            .scalar_subquery(),
            select(func.max(events.c.id)).where(events.c.tournament_id == tid).scalar_subquery(),
            select(func.count())
            .select_from(rounds)
            .where(rounds.c.tournament_id == tid)
            .scalar_subquery(),
            select(func.max(rounds.c.round_no))
            .where(rounds.c.tournament_id == tid)
            .scalar_subquery(),
            select(func.count())
            .select_from(players)
            .where(players.c.tournament_id == tid)
            .scalar_subquery(),
        )
    ).one()
    if row[0] is None:
        return ""
    return hashlib.sha256(repr(tuple(row)).encode()).hexdigest()[:16]


def set_check_in(db: Connection, tid: int, state: str) -> None:
    """Tournament ``tid``'s check-in is ``open`` or ``closed`` from now on."""
    db.execute(update(tournaments).where(tournaments.c.id == tid).values(check_in=state))
