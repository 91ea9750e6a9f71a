"""The hub → table commands (``commands``): queued by the judge, carried to a table in the
answer to its heartbeats until the table acknowledges them.

The statements of the heartbeat's path (``pending``, ``acknowledge``) are built once: the
hub answers a heartbeat from every table every 2 s.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select, update

from klik.link import protocol as p
from klik_hub.sql.schema import commands

PENDING = (
    select(commands.c.id, commands.c.table_no, commands.c.kind, commands.c.args)
    .where(commands.c.acked_ms.is_(None))
    .order_by(commands.c.rank, commands.c.id)
)
PENDING_OF_TABLE = PENDING.where(commands.c.table_no == bindparam("table_no"))
ACKED = (
    update(commands)
    .where(
        commands.c.id.in_(bindparam("acks", expanding=True)),
        commands.c.table_no == bindparam("of_table"),
        commands.c.acked_ms.is_(None),
    )
    .values(acked_ms=bindparam("now"))
)


def queue(
    db: Connection, orders: Sequence[tuple[int, str, dict[str, Any]]], now_ms: int
) -> list[str]:
    """Queue (table, kind, args) commands, created at ``now_ms``; their new ids."""
    # Ranks grow strictly, whatever the clock does: a table carries its commands out in the
    # order the judge gave them.
    last = db.execute(select(func.max(commands.c.rank))).scalar() or 0
    first = max(last + 1, now_ms * 1000)
    rows: list[dict[str, Any]] = [
        {
            "id": secrets.token_hex(8),
            "table_no": table_no,
            "kind": kind,
            "args": p.canonical(args).decode("ascii"),
            "created_ms": now_ms,
            "rank": first + k,
        }
        for k, (table_no, kind, args) in enumerate(orders)
    ]
    db.execute(insert(commands), rows)
    return [str(row["id"]) for row in rows]


def acknowledge(db: Connection, acks: list[str], table_no: int, now_ms: int) -> None:
    """Mark done the commands ``acks`` of table ``table_no`` still waiting."""
    db.execute(ACKED, {"acks": acks, "of_table": table_no, "now": now_ms})


def pending(db: Connection, table_no: int) -> list[dict[str, Any]]:
    """Table ``table_no``'s waiting commands, in order, as a heartbeat's answer carries them."""
    return [_command(row) for row in db.execute(PENDING_OF_TABLE, {"table_no": table_no}).all()]


def pending_by_table(db: Connection) -> dict[int, list[dict[str, Any]]]:
    """Every table's waiting commands, in order, by table number."""
    waiting: dict[int, list[dict[str, Any]]] = {}
    for command in db.execute(PENDING).all():
        waiting.setdefault(command.table_no, []).append(_command(command))
    return waiting


def sent_games(db: Connection, tables: list[int]) -> Sequence[Any]:
    """Every ``game`` command (a round's lineup) ever queued for ``tables``: ``table_no`` and
    ``args`` (canonical JSON)."""
    return db.execute(
        select(commands.c.table_no, commands.c.args).where(
            commands.c.kind == "game", commands.c.table_no.in_(tables)
        )
    ).all()


def _command(row: Any) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "args": json.loads(row.args)}


def move_pending(db: Connection, table_no: int, new_no: int) -> None:
    """Table ``table_no``'s waiting commands wait for table ``new_no`` (the same table,
    renumbered): they go to the device, whatever number it has."""
    db.execute(
        update(commands)
        .where(commands.c.table_no == table_no, commands.c.acked_ms.is_(None))
        .values(table_no=new_no)
    )
