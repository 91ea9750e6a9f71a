"""The paired tables (``devices``): each table's device id and key, one row a table.

``of`` is on the hot path (every envelope reads its device in the transaction that takes it),
so its statement is built once: building a statement and its cache key costs more Python than
SQLite takes to run it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from klik_hub.sql.schema import device_links, devices, status

DEVICE = select(devices.c.table_no, devices.c.key_hex).where(
    devices.c.device == bindparam("device")
)


@dataclass(frozen=True, slots=True)
class Device:
    device: str
    table_no: int
    key: bytes


def pair(db: Connection, device: str, table_no: int, key_hex: str, paired_at: str) -> None:
    """Pair ``device`` with table ``table_no``, replacing the table's earlier pairing."""
    db.execute(delete(devices).where(devices.c.table_no == table_no))
    db.execute(
        insert(devices).values(
            device=device,
            table_no=table_no,
            key_hex=key_hex,
            paired_at=paired_at,
        )
    )


def of(db: Connection, device: str) -> Device | None:
    """The paired device ``device``, or None if no table is paired with it."""
    row = db.execute(DEVICE, {"device": device}).first()
    return None if row is None else Device(device, row.table_no, bytes.fromhex(row.key_hex))


def link(db: Connection, device: str, old: Device, *, new_no: int, at: str) -> None:
    """``device``, paired as ``new_no``, takes over the old device ``old``'s results under
    its number and those it had taken over itself (a table re-paired twice); none under
    ``new_no``, which are its own."""
    db.execute(
        update(device_links).where(device_links.c.device == old.device).values(device=device)
    )
    db.execute(
        insert(device_links).values(
            device=device, table_no=old.table_no, old_device=old.device, linked_at=at
        )
    )
    mine = (device_links.c.device == device, device_links.c.table_no == new_no)
    db.execute(delete(device_links).where(*mine))


def carried(db: Connection, device: str) -> list[int]:
    """The earlier table numbers whose results ``device`` sends (``link``), lowest first."""
    rows = db.execute(
        select(device_links.c.table_no)
        .where(device_links.c.device == device)
        .order_by(device_links.c.table_no)
    )
    return [int(row.table_no) for row in rows]


def carried_by_device(db: Connection) -> dict[str, list[int]]:
    """``carried`` for every device that carries an earlier number."""
    found: dict[str, list[int]] = {}
    rows = db.execute(select(device_links).order_by(device_links.c.table_no))
    for row in rows:
        found.setdefault(row.device, []).append(int(row.table_no))
    return found


def forget(db: Connection, device: str) -> None:
    """Let ``device`` go: its envelopes are refused from now on, as an unpaired device's."""
    db.execute(delete(devices).where(devices.c.device == device))


def holder(db: Connection, table_no: int) -> Any | None:
    """The device paired as table ``table_no`` with when it was last heard (``seen_ms``,
    None before its first heartbeat), or None when no table has that number."""
    return db.execute(
        select(devices.c.device, status.c.seen_ms)
        .outerjoin(status, status.c.device == devices.c.device)
        .where(devices.c.table_no == table_no)
    ).first()


def is_paired(db: Connection, table_no: int) -> bool:
    found = db.execute(select(devices.c.device).where(devices.c.table_no == table_no))
    return found.first() is not None


def paired_tables(db: Connection) -> set[int]:
    """The numbers of every paired table."""
    return set(db.execute(select(devices.c.table_no)).scalars())


def with_heartbeats(db: Connection) -> Sequence[Any]:
    """Every paired device, by table number, with its last heartbeat's ``body`` and
    ``seen_ms`` (both None before its first)."""
    return db.execute(
        select(devices, status.c.body, status.c.seen_ms)
        .outerjoin(status, status.c.device == devices.c.device)
        .order_by(devices.c.table_no)
    ).all()


def renumber(db: Connection, device: str, new_no: int) -> None:
    """Device ``device`` becomes table ``new_no``, its last heartbeat too (its id and key
    stay)."""
    db.execute(update(devices).where(devices.c.device == device).values(table_no=new_no))
    db.execute(update(status).where(status.c.device == device).values(table_no=new_no))


def status_of(db: Connection, table_no: int) -> Any:
    """Table ``table_no``'s device with its last heartbeat's ``body`` (None before its
    first), or None if no table is paired under that number."""
    return db.execute(
        select(devices.c.device, status.c.body)
        .outerjoin(status, status.c.device == devices.c.device)
        .where(devices.c.table_no == table_no)
    ).first()
