"""A table's heartbeat: its state and its acks kept, the commands waiting for it handed back.

A heartbeat is taken only if its seq is above the last one the hub holds for the device,
compared in the very statement that writes it (``sql.heartbeats.upsert``): a heartbeat
captured on the way and replayed later (a dead table looking alive, a judge's call nobody
made) changes nothing, on any number of processes. A hub that loses its last heartbeats in a
power cut (they are best effort) holds an older seq for a moment; the table's next heartbeat
moves it on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from klik.link import protocol as p
from klik_hub import sql
from klik_hub.sql.devices import Device
from klik_hub.store import Store


@dataclass(frozen=True, slots=True)
class Beat:
    """What a heartbeat came to: taken, with the table's waiting commands, or stale."""

    taken: bool  # False: its seq was not above ``last_seq`` (a replay, or a count lost)
    last_seq: int  # the seq of the device's heartbeat the hub holds now
    commands: list[dict[str, Any]]  # the table's waiting commands; none when stale
    # The last result seq the hub holds from the device, when the heartbeat asked for it
    # (``seq_in_doubt``: a table whose count was lost numbers its results on above it).
    last_result_seq: int | None = None


def take(store: Store, db: Connection, envelope: p.Envelope, device: Device) -> Beat:
    """Keep a heartbeat's state and its acks in ``devices.believed``'s transaction ``db``,
    with the table's pending commands; or nothing at all for a stale heartbeat, one whose seq
    is not above the last the hub holds for the device (a replay, or the same one twice).

    ProtocolError (422) for a body that is not a heartbeat (``p.Heartbeat.decode``).
    """
    now = store.now_ms()
    body = envelope.body
    said = p.Heartbeat.decode(body)  # an older table's may lack names, acks, refused
    acks = list(said.acks)
    beat = {
        "device": device.device,
        "table_no": device.table_no,
        "seq": envelope.seq,
        "body": p.canonical(body).decode("ascii"),
        "seen_ms": now,
    }
    last_result = None
    if said.seq_in_doubt:  # asked for only by a table that lost its count
        last_result = sql.results.last_seq(db, device.device)
    if not sql.heartbeats.keep(db, store.beat_upsert, beat):
        last = sql.heartbeats.last_seq(db, device.device)
        return Beat(taken=False, last_seq=last, commands=[], last_result_seq=last_result)
    if acks:
        sql.commands.acknowledge(db, acks, device.table_no, now)
    commands = sql.commands.pending(db, device.table_no)
    return Beat(True, envelope.seq, commands, last_result)
