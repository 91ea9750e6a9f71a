"""The paired tables: pairing one, whose envelope to believe, and every table's state.

An envelope is taken in one transaction on one connection (``believed``): the device's key is
read in the same transaction that writes, so a table paired again is refused at once by every
hub process. A result's transaction is durable, a heartbeat's best effort.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Any

from sqlalchemy import Connection

from klik.link import protocol as p
from klik_hub import sql
from klik_hub.hall.health import warnings
from klik_hub.hall.heartbeats import watch
from klik_hub.sql.devices import Device
from klik_hub.storage.store import Store, utc_iso

__all__ = ["Device", "RefusedError", "Unbelieved", "believed", "of", "pair", "paired", "tables"]


class Unbelieved(Enum):
    """Why the hub does not believe an envelope (the serial end counts each)."""

    UNKNOWN = "unknown"  # no device paired with that id
    MAC = "mac"  # not signed with the device's key
    FOREIGN = "foreign"  # a result for a table the device is not paired with


class RefusedError(Exception):
    """An envelope the hub does not believe (401); ``why`` says which way."""

    def __init__(self, why: Unbelieved, message: str) -> None:
        super().__init__(message)
        self.why = why


def pair(store: Store, table_no: int) -> tuple[str, str]:
    """A new device id and 256-bit key for table ``table_no``; replaces an earlier pairing."""
    device = f"t{table_no}-{secrets.token_hex(4)}"
    key_hex = secrets.token_hex(32)
    with store.writing() as db:
        sql.devices.pair(db, device, table_no, key_hex, utc_iso(store.now_ms()))
    return device, key_hex


def of(store: Store, device: str) -> Device | None:
    """The pairing of ``device``, or None if no table is paired under that id."""
    with store.reading() as db:
        return sql.devices.of(db, device)


def paired(store: Store, table_no: int) -> bool:
    """Whether table ``table_no`` is paired with this hub (a command needs a table)."""
    with store.reading() as db:
        return sql.devices.is_paired(db, table_no)


@contextmanager
def believed(store: Store, envelope: p.Envelope, mac: str) -> Iterator[tuple[Connection, Device]]:
    """The transaction that takes ``envelope``, and the paired device that signed it.

    RefusedError (401) for an unknown device or a bad MAC. A result's transaction is durable,
    a heartbeat's best effort. Committed when the block ends, rolled back if it raises.
    """
    best_effort = envelope.type == "heartbeat"
    with store.writing(store.best_effort if best_effort else None) as db:
        known = sql.devices.of(db, envelope.device)
        if known is None:
            raise RefusedError(Unbelieved.UNKNOWN, "unknown device")
        if not p.verify(envelope, mac, known.key):
            raise RefusedError(Unbelieved.MAC, "bad mac")
        yield db, known


def tables(store: Store) -> list[dict[str, Any]]:
    """Every paired table with its last heartbeat, the seats its judge should watch
    (``heartbeats.watch``: slow movers, repeated timeouts), its health's warnings
    (``health.warnings``), its pending commands and, if the hub lost results it had
    acknowledged to it, the seq they are resent after, by table number."""
    now = store.now_ms()
    with store.reading() as db:
        rows = sql.devices.with_heartbeats(db)
        pending = sql.commands.pending_by_table(db)
        held = sql.results.last_seqs(db)
        carried = sql.devices.carried_by_device(db)
    listed = []
    for row in rows:
        status = None if row.body is None else json.loads(row.body)
        acked = status.get("acked_seq", 0) if status else 0
        lost = type(acked) is int and acked > held.get(row.device, 0)
        listed.append(
            {
                "table": row.table_no,
                "device": row.device,
                "paired_at": row.paired_at,
                "seen_s_ago": None if row.seen_ms is None else (now - row.seen_ms) / 1000,
                "status": status,
                "watch": watch(status),
                "warnings": warnings(status),
                "commands": pending.get(row.table_no, []),
                # Until its next heartbeat after they are back: the table resends at once.
                "resending_after": held.get(row.device, 0) if lost else None,
                "carried": carried.get(row.device, []),
            }
        )
    return listed
