"""The tournaments (``tournaments``): a name, a rule set, a format and a move time each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select

from klik_hub.schema import tournaments


def create(
    db: Connection, *, name: str, rules: str, format_name: str, move_time_s: int, created_at: str
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
        )
        .returning(tournaments.c.id)
    )
    return int(new.scalar_one())


def newest_first(db: Connection) -> Sequence[Any]:
    return db.execute(select(tournaments).order_by(tournaments.c.id.desc())).all()


def of(db: Connection, tid: int, *, lock: bool = False) -> Any:
    """Tournament ``tid``'s row, or None. ``lock``: the row is locked until the transaction
    ends (``FOR UPDATE`` on PostgreSQL; SQLite's writer lock does the same), so what is
    decided for the tournament is decided one at a time."""
    query = select(tournaments).where(tournaments.c.id == tid)
    return db.execute(query.with_for_update() if lock else query).first()
