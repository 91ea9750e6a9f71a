"""The hub's store: pairing, results, heartbeats and commands, over SQLAlchemy Core.

Every request's answer comes from the database, never from one process's memory, so two hub
processes on one PostgreSQL serve the same tables. A result is committed before its receipt
is returned; a resend is recognised by the unique constraint on (device, seq, digest), a
conflicting result by a taken row in ``claims`` (see ``schema``).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from klik.link import protocol as p
from klik.link import results as r
from klik_hub.schema import claims, commands, devices, results, status

COMMAND_KINDS = ("pause", "resume", "round-over", "start", "players")


class Outcome(Enum):
    STORED = "stored"  # 201
    DUPLICATE = "duplicate"  # 200: the same result again, the same receipt
    CONFLICT = "conflict"  # 409: both kept and flagged for the judge


@dataclass(frozen=True, slots=True)
class Stored:
    outcome: Outcome
    receipt: str


@dataclass(frozen=True, slots=True)
class Device:
    device: str
    table_no: int
    key: bytes


class RefusedError(Exception):
    """An envelope the hub does not believe (401): unknown device, bad MAC, foreign table."""


def utc_iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class Store:
    """One hub's database. ``now_ms`` is the hub's clock (ms since the epoch; tests pass one)."""

    def __init__(self, engine: Engine, now_ms: Callable[[], int]) -> None:
        self.engine = engine
        self.now_ms = now_ms

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.begin() as connection:
            yield connection

    # --- pairing -------------------------------------------------------------------------

    def pair(self, table_no: int) -> tuple[str, str]:
        """A new device id and 256-bit key for table ``table_no``; replaces an earlier pairing."""
        device = f"t{table_no}-{secrets.token_hex(4)}"
        key_hex = secrets.token_hex(32)
        with self._write() as db:
            db.execute(delete(devices).where(devices.c.table_no == table_no))
            db.execute(
                insert(devices).values(
                    device=device,
                    table_no=table_no,
                    key_hex=key_hex,
                    paired_at=utc_iso(self.now_ms()),
                )
            )
        return device, key_hex

    def device(self, device: str) -> Device | None:
        with self.engine.connect() as db:
            row = db.execute(select(devices).where(devices.c.device == device)).first()
        return None if row is None else Device(row.device, row.table_no, bytes.fromhex(row.key_hex))

    def believe(self, envelope: p.Envelope, mac: str) -> Device:
        """The paired device that signed ``envelope``; RefusedError (401) otherwise."""
        known = self.device(envelope.device)
        if known is None:
            raise RefusedError("unknown device")
        if not p.verify(envelope, mac, known.key):
            raise RefusedError("bad mac")
        return known

    # --- results -------------------------------------------------------------------------

    def keep_result(self, envelope: p.Envelope, device: Device) -> Stored:
        """Store a believed, schema-checked result; idempotent per (device, seq, body)."""
        body = envelope.body
        if body["table"] != device.table_no:
            raise RefusedError(f"device {device.device} is paired with table {device.table_no}")
        text = p.canonical(body).decode("ascii")
        digest = hashlib.sha256(text.encode("ascii")).hexdigest()
        receipt = p.receipt({"device": device.device, "seq": envelope.seq, "body": body})
        game = json.dumps([body.get("tournament"), body.get("round"), body["table"], body["game"]])
        keys = (f"send:{device.device}:{envelope.seq}", f"game:{game}")
        row = {
            "device": device.device,
            "seq": envelope.seq,
            "digest": digest,
            "table_no": body["table"],
            "tournament": body.get("tournament"),
            "round_no": body.get("round"),
            "game": body["game"],
            "body": text,
            "receipt": receipt,
            "points_check": r.points_check(body),
            "conflict": False,
            "received_at": utc_iso(self.now_ms()),
        }
        with self.engine.connect() as db, db.begin() as transaction:
            try:
                with db.begin_nested():
                    new_id = db.execute(
                        insert(results).values(**row).returning(results.c.id)
                    ).scalar_one()
            except IntegrityError:
                return Stored(Outcome.DUPLICATE, self._receipt_of_send(db, row))
            rivals = []
            for key in keys:
                try:
                    with db.begin_nested():
                        db.execute(insert(claims).values(claim=key, result_id=new_id))
                except IntegrityError:
                    rivals.append(self._holder(db, key))
            same = [rival for rival in rivals if rival.digest == digest]
            if same:
                # The same game sent again under another seq (a table whose outbox was lost):
                # the result the hub has is this one, so it is a duplicate, not a second game.
                transaction.rollback()
                return Stored(Outcome.DUPLICATE, same[0].receipt)
            if not rivals:
                return Stored(Outcome.STORED, receipt)
            flagged = [new_id, *(rival.id for rival in rivals)]
            db.execute(update(results).where(results.c.id.in_(flagged)).values(conflict=True))
            return Stored(Outcome.CONFLICT, receipt)

    def _receipt_of_send(self, db: Connection, row: dict[str, Any]) -> str:
        found = db.execute(
            select(results.c.receipt).where(
                results.c.device == row["device"],
                results.c.seq == row["seq"],
                results.c.digest == row["digest"],
            )
        ).scalar_one()
        return str(found)

    def _holder(self, db: Connection, key: str) -> Any:
        return db.execute(
            select(results.c.id, results.c.digest, results.c.receipt)
            .join(claims, claims.c.result_id == results.c.id)
            .where(claims.c.claim == key)
        ).one()

    def results(self, *, table_no: int | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """The stored results, newest first, as ``GET /api/v1/results`` lists them."""
        query = select(results).order_by(results.c.id.desc()).limit(limit)
        if table_no is not None:
            query = query.where(results.c.table_no == table_no)
        with self.engine.connect() as db:
            rows = db.execute(query).all()
        listed = []
        for row in rows:
            body = json.loads(row.body)
            listed.append(
                {
                    "id": row.id,
                    "table": row.table_no,
                    "device": row.device,
                    "seq": row.seq,
                    "tournament": row.tournament,
                    "round": row.round_no,
                    "game": row.game,
                    "receipt": row.receipt,
                    "ending": body["ending"],
                    "winners": body["winners"],
                    "names": {s: e["name"] for s, e in body["seats"].items()},
                    "racks": r.racks(body),
                    "small": r.column(body, "small"),
                    "big": r.column(body, "big"),
                    "points_check": row.points_check,
                    "conflict": row.conflict,
                    "received_at": row.received_at,
                    "finished_at": body.get("finished_at"),
                    "body": body,
                }
            )
        return listed

    # --- heartbeats and commands -----------------------------------------------------------

    def heartbeat(self, envelope: p.Envelope, device: Device) -> list[dict[str, Any]]:
        """Keep a heartbeat's state and its acks; returns the table's pending commands."""
        now = self.now_ms()
        body = envelope.body
        acks = [a for a in body.get("acks", []) if isinstance(a, str)]
        text = p.canonical(body).decode("ascii")
        with self._write() as db:
            updated = db.execute(
                update(status)
                .where(status.c.device == device.device)
                .values(table_no=device.table_no, seq=envelope.seq, body=text, seen_ms=now)
            ).rowcount
            if not updated:
                try:
                    with db.begin_nested():
                        db.execute(
                            insert(status).values(
                                device=device.device,
                                table_no=device.table_no,
                                seq=envelope.seq,
                                body=text,
                                seen_ms=now,
                            )
                        )
                except IntegrityError:
                    pass  # another hub process kept this device's first heartbeat a moment ago
            if acks:
                db.execute(
                    update(commands)
                    .where(
                        commands.c.id.in_(acks),
                        commands.c.table_no == device.table_no,
                        commands.c.acked_ms.is_(None),
                    )
                    .values(acked_ms=now)
                )
            return self._pending(db, device.table_no)

    def _pending(self, db: Connection, table_no: int) -> list[dict[str, Any]]:
        rows = db.execute(
            select(commands)
            .where(commands.c.table_no == table_no, commands.c.acked_ms.is_(None))
            .order_by(commands.c.created_ms, commands.c.id)
        ).all()
        return [{"id": row.id, "kind": row.kind, "args": json.loads(row.args)} for row in rows]

    def command(self, table_no: int, kind: str, args: dict[str, Any] | None = None) -> str:
        """Queue a hub → table command; returns its id."""
        if kind not in COMMAND_KINDS:
            raise ValueError(f"kind: allowed are {', '.join(COMMAND_KINDS)}")
        command_id = secrets.token_hex(8)
        with self._write() as db:
            db.execute(
                insert(commands).values(
                    id=command_id,
                    table_no=table_no,
                    kind=kind,
                    args=p.canonical(args or {}).decode("ascii"),
                    created_ms=self.now_ms(),
                )
            )
        return command_id

    def tables(self) -> list[dict[str, Any]]:
        """Every paired table with its last heartbeat and pending commands, by table number."""
        now = self.now_ms()
        with self.engine.connect() as db:
            rows = db.execute(
                select(devices, status.c.body, status.c.seen_ms)
                .outerjoin(status, status.c.device == devices.c.device)
                .order_by(devices.c.table_no)
            ).all()
            listed = []
            for row in rows:
                listed.append(
                    {
                        "table": row.table_no,
                        "device": row.device,
                        "paired_at": row.paired_at,
                        "seen_s_ago": None if row.seen_ms is None else (now - row.seen_ms) / 1000,
                        "status": None if row.body is None else json.loads(row.body),
                        "commands": self._pending(db, row.table_no),
                    }
                )
        return listed
