"""The hub's commands to its tables, queued until a table's heartbeat (or the serial end's
push) carries them and the table acknowledges each one."""

from __future__ import annotations

from typing import Any

from klik.link import protocol as p
from klik_hub import sql
from klik_hub.storage.store import Store


def send(store: Store, table_no: int, kind: str, args: dict[str, Any] | None = None) -> str:
    """Queue a hub → table command; returns its id."""
    (command_id,) = queue(store, [(table_no, kind, args or {})])
    return command_id


def queue(store: Store, orders: list[tuple[int, str, dict[str, Any]]]) -> list[str]:
    """Queue (table, kind, args) commands in one transaction (a round's tables all get theirs,
    or none does); returns their ids."""
    for _, kind, _ in orders:
        if kind not in p.COMMAND_KINDS:
            raise ValueError(f"kind: allowed are {', '.join(p.COMMAND_KINDS)}")
    now = store.now_ms()
    with store.writing() as db:
        return sql.commands.queue(db, orders, now)
