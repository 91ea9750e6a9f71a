"""The judge's requests answered once (``once``, ``klik_hub.door.once``): each key's first
answer on its route."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, insert, select

from klik_hub.sql.schema import once


@dataclass(frozen=True, slots=True)
class Kept:
    fingerprint: str
    status: int
    content_type: str
    body: bytes


def find(db: Connection, key: str, route: str, since_ms: int) -> Kept | None:
    """The answer kept for ``key`` on ``route`` since ``since_ms``, if any."""
    row = db.execute(
        select(once).where(once.c.key == key, once.c.route == route, once.c.kept_ms >= since_ms)
    ).first()
    if row is None:
        return None
    return Kept(row.fingerprint, row.status, row.content_type, bytes(row.body))


def keep(db: Connection, key: str, route: str, answer: Kept, *, now_ms: int, since_ms: int) -> None:
    """Keep ``answer`` for ``key`` on ``route`` (one kept before ``since_ms`` is replaced),
    and forget the keys older than ``since_ms``."""
    db.execute(delete(once).where(once.c.kept_ms < since_ms))
    db.execute(
        insert(once).values(
            key=key,
            route=route,
            fingerprint=answer.fingerprint,
            status=answer.status,
            content_type=answer.content_type,
            body=answer.body,
            kept_ms=now_ms,
        )
    )
