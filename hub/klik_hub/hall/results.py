"""A table's results as the hub keeps them: once per send and per game, never changed.

A result is committed before its receipt is returned; a resend is recognised by the unique
constraint on (device, seq, digest), a conflicting result by a taken row in ``claims`` (see
``klik_hub.sql.schema``): the database decides, on any number of hub processes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import Connection

from klik.link import protocol as p
from klik.link import results as r
from klik_hub import sql
from klik_hub.hall.devices import RefusedError, Unbelieved
from klik_hub.sql.devices import Device
from klik_hub.sql.results import Stored, claim_of
from klik_hub.storage.store import Store, utc_iso

__all__ = ["Stored", "keep", "newest"]


def keep(store: Store, db: Connection, envelope: p.Envelope, device: Device) -> Stored:
    """Keep a believed, schema-checked result in ``devices.believed``'s transaction ``db``;
    idempotent per (device, seq, body)."""
    body = envelope.body
    if body["table"] != device.table_no and body["table"] not in sql.devices.carried(
        db, device.device
    ):  # a re-paired table's results under its old number count as that number's
        why = f"device {device.device} is paired with table {device.table_no}"
        raise RefusedError(Unbelieved.FOREIGN, why)
    text = p.canonical(body).decode("ascii")
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    receipt = p.receipt({"device": device.device, "seq": envelope.seq, "body": body})
    game = json.dumps([body.get("tournament"), body.get("round"), body["table"], body["game"]])
    keys = (claim_of(f"send:{device.device}:{envelope.seq}"), claim_of(f"game:{game}"))
    row = {
        "device": device.device,
        "seq": envelope.seq,
        "digest": digest,
        "table_no": body["table"],
        "tournament": body.get("tournament"),
        "named": sql.results.named(body.get("tournament")),
        "round_no": body.get("round"),
        "game": body["game"],
        "body": text,
        "receipt": receipt,
        "points_check": r.points_check(body),
        "conflict": False,
        "received_at": utc_iso(store.now_ms()),
    }
    new_id = sql.results.add(db, store.upserts, row)
    if new_id is None:  # this (device, seq, body) is stored already
        return Stored(p.Status.DUPLICATE, sql.results.receipt_of_send(db, row))
    rivals = [
        sql.results.holder(db, key)
        for key in keys
        if not sql.results.claim(db, store.upserts, key, new_id)
    ]
    same = [rival for rival in rivals if rival.digest == digest]
    if same:
        # The same game sent again under another seq (a table whose outbox was lost): the
        # result the hub has is this one, so it is a duplicate, not a second game.
        transaction = db.get_transaction()
        assert transaction is not None
        transaction.rollback()
        return Stored(p.Status.DUPLICATE, same[0].receipt)
    if not rivals:
        return Stored(p.Status.STORED, receipt)
    sql.results.flag_conflict(db, [new_id, *(rival.id for rival in rivals)])
    return Stored(p.Status.CONFLICT, receipt)


def newest(store: Store, *, table_no: int | None = None, limit: int = 1000) -> list[dict[str, Any]]:
    """The stored results, newest first, as ``GET /api/v1/results`` lists them."""
    with store.reading() as db:
        rows = sql.results.newest(db, table_no=table_no, limit=limit)
        corrected = sql.corrections.corrected_among(db, [row.id for row in rows])
    return [_listed(row, json.loads(row.body), row.id in corrected) for row in rows]


def _listed(row: Any, body: dict[str, Any], corrected: bool) -> dict[str, Any]:
    """A stored result as ``GET /api/v1/results`` lists it."""
    return {
        "id": row.id,
        "table": row.table_no,
        "device": row.device,
        "seq": row.seq,
        "tournament": row.tournament,
        "round": row.round_no,
        "game": row.game,
        "receipt": row.receipt,
        "ending": body["ending"],
        "ended_by": body.get("ended_by"),  # an exhausted game: why; older tables: none
        "winners": body["winners"],
        "names": {s: e["name"] for s, e in body["seats"].items()},
        "racks": r.racks(body),
        "small": r.column(body, "small"),
        "big": r.column(body, "big"),
        "points_check": row.points_check,
        "conflict": row.conflict,
        "corrected": corrected,  # the judge has corrected it since
        "received_at": row.received_at,
        "finished_at": body.get("finished_at"),
        "body": body,
    }
