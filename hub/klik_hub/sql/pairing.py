"""The tables asking to join (``pairing_requests``): one row a request, until it expires."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from klik_hub.sql.schema import pairing_requests as requests

UNDECIDED = ("committed", "asking")  # waiting for the table's nonce, or for the judge


def ask(
    db: Connection,
    request_id: str,
    *,
    table_key: str,
    hub_nonce: str,
    link: str,
    address: str | None,
    now_ms: int,
    proves: str | None = None,
) -> None:
    db.execute(
        insert(requests).values(
            id=request_id,
            table_key=table_key,
            hub_nonce=hub_nonce,
            link=link,
            address=address,
            proves=proves,
            state="committed",
            asked_ms=now_ms,
            seen_ms=now_ms,
        )
    )


def of(db: Connection, request_id: str) -> Any | None:
    return db.execute(select(requests).where(requests.c.id == request_id)).first()


def undecided(db: Connection) -> Sequence[Any]:
    """The requests neither accepted nor refused: their address, state and asking."""
    columns = (requests.c.address, requests.c.state, requests.c.asked_ms)
    return db.execute(select(*columns).where(requests.c.state.in_(UNDECIDED))).all()


def forget_undecided(db: Connection, table_key: str) -> None:
    """Drop the undecided requests of ``table_key`` (the table asks anew)."""
    db.execute(
        delete(requests).where(requests.c.table_key == table_key, requests.c.state.in_(UNDECIDED))
    )


def refuse_undecided(db: Connection) -> int:
    """Refuse every request waiting for the judge and drop those waiting for a nonce: the
    count refused."""
    db.execute(delete(requests).where(requests.c.state == "committed"))
    refused = db.execute(
        update(requests).where(requests.c.state == "asking").values(state="refused")
    )
    return int(refused.rowcount)


def listed(db: Connection, state: str) -> Sequence[Any]:
    """The requests in ``state``, oldest first."""
    found = select(requests).where(requests.c.state == state).order_by(requests.c.asked_ms)
    return db.execute(found).all()


def change(db: Connection, request_id: str, **values: Any) -> None:
    db.execute(update(requests).where(requests.c.id == request_id).values(**values))


def forget(db: Connection, request_id: str) -> None:
    db.execute(delete(requests).where(requests.c.id == request_id))


def expire(db: Connection, asked_before_ms: int, committed_before_ms: int) -> None:
    """Delete the requests asked before ``asked_before_ms``, and those still waiting for
    their nonce asked before ``committed_before_ms``."""
    db.execute(delete(requests).where(requests.c.asked_ms < asked_before_ms))
    db.execute(
        delete(requests).where(
            requests.c.state == "committed", requests.c.asked_ms < committed_before_ms
        )
    )
