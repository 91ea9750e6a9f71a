"""The tables' last heartbeats (``status``): one row a device, its last seq and state.

A heartbeat is kept only if its seq is above the one held for the device, compared in the very
statement that writes it (``upsert``), so a heartbeat replayed later changes nothing, on any
number of hub processes.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.expression import Executable

from klik_hub.sql.schema import status

LAST_BEAT = select(status.c.seq).where(status.c.device == bindparam("device"))


def upsert(dialect: str) -> Executable:
    """A device's heartbeat in the dialect's ``ON CONFLICT``: no row changed when its seq is
    not above the last. Built once per store (``Store``)."""
    insert_of = postgresql.insert if dialect == "postgresql" else sqlite.insert
    beat = insert_of(status)
    return beat.on_conflict_do_update(
        index_elements=["device"],
        set_={c: beat.excluded[c] for c in ("table_no", "seq", "body", "seen_ms")},
        where=status.c.seq < beat.excluded.seq,
    ).execution_options(preserve_rowcount=True)  # an INSERT's rowcount, on psycopg too


def keep(db: Connection, upserted: Executable, beat: dict[str, Any]) -> bool:
    """Keep ``beat`` (``device``, ``table_no``, ``seq``, ``body``, ``seen_ms``) with the
    statement ``upsert`` made; False when its seq was not above the last."""
    # rowcount, not RETURNING: fetching a row back cost about 5 % of the heartbeats a second.
    return bool(db.execute(upserted, beat).rowcount != 0)


def last_seq(db: Connection, device: str) -> int:
    """The seq of the device's heartbeat the hub holds (one is held: ``keep`` met it)."""
    return int(db.execute(LAST_BEAT, {"device": device}).scalar_one())
