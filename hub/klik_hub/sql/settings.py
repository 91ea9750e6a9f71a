"""The hub's own settings (``settings``): a value by name, such as the judge's password's
hash or the tournament in play."""

from __future__ import annotations

from sqlalchemy import Connection, delete, insert, select

from klik_hub.sql.schema import settings

IN_PLAY = "tournament_in_play"  # the id of the tournament in play (the console's, projector's)


def value(db: Connection, name: str) -> str | None:
    """The setting ``name``, or None if it was never set."""
    found = db.execute(select(settings.c.value).where(settings.c.name == name)).scalar()
    return None if found is None else str(found)


def put(db: Connection, name: str, value: str) -> None:
    """Set ``name`` to ``value``, replacing what it was."""
    db.execute(delete(settings).where(settings.c.name == name))
    db.execute(insert(settings).values(name=name, value=value))
