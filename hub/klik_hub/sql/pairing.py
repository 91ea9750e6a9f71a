"""The tables asking to join (``pairing_requests``): one row a request, until it expires."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from klik_hub.sql.schema import pairing_requests as requests


def ask(
    db: Connection, request_id: str, *, table_key: str, hub_nonce: str, link: str, now_ms: int
) -> None:
    db.execute(
        insert(requests).values(
            id=request_id,
            table_key=table_key,
            hub_nonce=hub_nonce,
            link=link,
            state="committed",
            asked_ms=now_ms,
            seen_ms=now_ms,
        )
    )


def of(db: Connection, request_id: str) -> Any | None:
    return db.execute(select(requests).where(requests.c.id == request_id)).first()


def count(db: Connection) -> int:
    return int(db.execute(select(func.count()).select_from(requests)).scalar_one())


def listed(db: Connection, state: str) -> Sequence[Any]:
    """The requests in ``state``, oldest first."""
    found = select(requests).where(requests.c.state == state).order_by(requests.c.asked_ms)
    return db.execute(found).all()


def change(db: Connection, request_id: str, **values: Any) -> None:
    db.execute(update(requests).where(requests.c.id == request_id).values(**values))


def forget(db: Connection, request_id: str) -> None:
    db.execute(delete(requests).where(requests.c.id == request_id))


def expire(db: Connection, asked_before_ms: int) -> None:
    """Delete the requests asked before ``asked_before_ms``."""
    db.execute(delete(requests).where(requests.c.asked_ms < asked_before_ms))
