"""The hub's store: its database's transactions and clock, and the link's use of them
(pairing, envelopes, results, heartbeats, commands, the paired tables), settings and the
judge's sessions. The SQL itself is ``klik_hub.sql``'s, a module per concept; the
tournament's use of the store is ``klik_hub.office``'s.

Every request's answer comes from the database, never from one process's memory, so two hub
processes on one PostgreSQL serve the same tables. A result is committed before its receipt
is returned; a resend is recognised by the unique constraint on (device, seq, digest), a
conflicting result by a taken row in ``claims`` (see ``schema``).

An envelope is taken in one transaction on one connection (``believed``): the device's key
is read in the same transaction that writes, so a table paired again is refused at once by
every process. Results are durable (``synchronous=FULL`` on SQLite); heartbeats are best
effort (``db.BEST_EFFORT``). SQLite has one writer at a time: the threads of one process
queue for it on a lock here, which hands over at once, instead of in SQLite's busy handler,
which sleeps for milliseconds at a time (processes still meet in the busy handler). Readers
(``db.READ``) take no write lock at all.

A heartbeat is taken only if its seq is above the last one the hub holds for the device,
compared in the very statement that writes it (``sql.heartbeats.upsert``): a heartbeat
captured on the way and replayed later (a dead table looking alive, a judge's call nobody
made) changes nothing, on any number of processes. A hub that loses its last heartbeats in a
power cut (they are best effort) holds an older seq for a moment; the table's next heartbeat
moves it on.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from sqlalchemy import Connection, Engine

from klik.link import protocol as p
from klik.link import results as r
from klik_hub import sql
from klik_hub.db import BEST_EFFORT, READ
from klik_hub.sql.devices import Device
from klik_hub.sql.results import CLAIM_LENGTH, Stored, claim_of

__all__ = [
    "CLAIM_LENGTH",
    "Beat",
    "Device",
    "RefusedError",
    "Store",
    "Stored",
    "Unbelieved",
    "claim_of",
    "utc_iso",
]


@dataclass(frozen=True, slots=True)
class Beat:
    """What a heartbeat came to: taken, with the table's waiting commands, or stale."""

    taken: bool  # False: its seq was not above ``last_seq`` (a replay, or a count lost)
    last_seq: int  # the seq of the device's heartbeat the hub holds now
    commands: list[dict[str, Any]]  # the table's waiting commands; none when stale
    # The last result seq the hub holds from the device, when the heartbeat asked for it
    # (``seq_in_doubt``: a table whose count was lost numbers its results on above it).
    last_result_seq: int | None = None


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


def utc_iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class Store:
    """One hub's database. ``now_ms`` is the hub's clock (ms since the epoch; tests pass one)."""

    def __init__(self, engine: Engine, now_ms: Callable[[], int]) -> None:
        self.engine = engine
        self.now_ms = now_ms
        self.upserts = sql.results.Upserts.of(engine.dialect.name)
        self.beat_upsert = sql.heartbeats.upsert(engine.dialect.name)
        self._writer: AbstractContextManager[Any] = (
            threading.Lock() if engine.dialect.name == "sqlite" else nullcontext()
        )
        self._reader = engine.execution_options(**READ)
        self._beats = engine.execution_options(**BEST_EFFORT)

    @contextmanager
    def writing(self, engine: Engine | None = None) -> Iterator[Connection]:
        """A write transaction (durable unless ``engine`` says otherwise), committed on exit;
        one at a time on SQLite. The tournament's use cases (``klik_hub.office``) write
        through it too."""
        with self._writer, (engine or self.engine).begin() as connection:
            yield connection

    def reading(self) -> Connection:
        """A connection for reads (a snapshot on PostgreSQL), closed by its ``with``."""
        return self._reader.connect()

    # --- settings and the judge's sessions -------------------------------------------------

    def setting(self, name: str) -> str | None:
        with self.reading() as db:
            return sql.settings.value(db, name)

    def set_setting(self, name: str, value: str) -> None:
        with self.writing() as db:
            sql.settings.put(db, name, value)

    def open_session(self, token_sha256: str, password_sha256: str, expires_ms: int) -> None:
        """Keep a new session (and forget the expired ones, so the table stays small)."""
        with self.writing() as db:
            sql.sessions.forget_expired(db, self.now_ms())
            sql.sessions.keep(db, token_sha256, password_sha256, expires_ms)

    def session(self, token_sha256: str) -> str | None:
        """The password digest a live session was opened with; None if none or expired."""
        with self.reading() as db:
            return sql.sessions.password_of(db, token_sha256, self.now_ms())

    def close_session(self, token_sha256: str) -> None:
        with self.writing() as db:
            sql.sessions.close(db, token_sha256)

    # --- pairing -------------------------------------------------------------------------

    def pair(self, table_no: int) -> tuple[str, str]:
        """A new device id and 256-bit key for table ``table_no``; replaces an earlier pairing."""
        device = f"t{table_no}-{secrets.token_hex(4)}"
        key_hex = secrets.token_hex(32)
        with self.writing() as db:
            sql.devices.pair(db, device, table_no, key_hex, utc_iso(self.now_ms()))
        return device, key_hex

    def device(self, device: str) -> Device | None:
        with self.reading() as db:
            return sql.devices.of(db, device)

    def paired(self, table_no: int) -> bool:
        """Whether table ``table_no`` is paired with this hub (a command needs a table)."""
        with self.reading() as db:
            return sql.devices.is_paired(db, table_no)

    @contextmanager
    def believed(self, envelope: p.Envelope, mac: str) -> Iterator[tuple[Connection, Device]]:
        """The transaction that takes ``envelope``, and the paired device that signed it.

        RefusedError (401) for an unknown device or a bad MAC. A result's transaction is
        durable, a heartbeat's best effort. Committed when the block ends, rolled back if it
        raises.
        """
        best_effort = envelope.type == "heartbeat"
        with self.writing(self._beats if best_effort else None) as db:
            known = sql.devices.of(db, envelope.device)
            if known is None:
                raise RefusedError(Unbelieved.UNKNOWN, "unknown device")
            if not p.verify(envelope, mac, known.key):
                raise RefusedError(Unbelieved.MAC, "bad mac")
            yield db, known

    # --- results -------------------------------------------------------------------------

    def keep_result(self, db: Connection, envelope: p.Envelope, device: Device) -> Stored:
        """Store a believed, schema-checked result in ``believed``'s transaction ``db``;
        idempotent per (device, seq, body)."""
        body = envelope.body
        if body["table"] != device.table_no:
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
            "round_no": body.get("round"),
            "game": body["game"],
            "body": text,
            "receipt": receipt,
            "points_check": r.points_check(body),
            "conflict": False,
            "received_at": utc_iso(self.now_ms()),
        }
        new_id = sql.results.add(db, self.upserts, row)
        if new_id is None:  # this (device, seq, body) is stored already
            return Stored(p.Status.DUPLICATE, sql.results.receipt_of_send(db, row))
        rivals = [
            sql.results.holder(db, key)
            for key in keys
            if not sql.results.claim(db, self.upserts, key, new_id)
        ]
        same = [rival for rival in rivals if rival.digest == digest]
        if same:
            # The same game sent again under another seq (a table whose outbox was lost):
            # the result the hub has is this one, so it is a duplicate, not a second game.
            transaction = db.get_transaction()
            assert transaction is not None
            transaction.rollback()
            return Stored(p.Status.DUPLICATE, same[0].receipt)
        if not rivals:
            return Stored(p.Status.STORED, receipt)
        sql.results.flag_conflict(db, [new_id, *(rival.id for rival in rivals)])
        return Stored(p.Status.CONFLICT, receipt)

    def results(self, *, table_no: int | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """The stored results, newest first, as ``GET /api/v1/results`` lists them."""
        with self.reading() as db:
            rows = sql.results.newest(db, table_no=table_no, limit=limit)
            corrected = sql.corrections.corrected_among(db, [row.id for row in rows])
        return [_result_json(row, json.loads(row.body), row.id in corrected) for row in rows]

    # --- heartbeats and commands -----------------------------------------------------------

    def heartbeat(self, db: Connection, envelope: p.Envelope, device: Device) -> Beat:
        """Keep a heartbeat's state and its acks in ``believed``'s transaction ``db``, with
        the table's pending commands; or nothing at all for a stale heartbeat, one whose seq is
        not above the last the hub holds for the device (a replay, or the same one twice).

        ProtocolError (422) for a body that is not a heartbeat (``p.Heartbeat.decode``).
        """
        now = self.now_ms()
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
        if not sql.heartbeats.keep(db, self.beat_upsert, beat):
            last = sql.heartbeats.last_seq(db, device.device)
            return Beat(taken=False, last_seq=last, commands=[], last_result_seq=last_result)
        if acks:
            sql.commands.acknowledge(db, acks, device.table_no, now)
        commands = sql.commands.pending(db, device.table_no)
        return Beat(True, envelope.seq, commands, last_result)

    def command(self, table_no: int, kind: str, args: dict[str, Any] | None = None) -> str:
        """Queue a hub → table command; returns its id."""
        (command_id,) = self.commands([(table_no, kind, args or {})])
        return command_id

    def commands(self, orders: list[tuple[int, str, dict[str, Any]]]) -> list[str]:
        """Queue (table, kind, args) commands in one transaction (a round's tables all get
        theirs, or none does); returns their ids."""
        for _, kind, _ in orders:
            if kind not in p.COMMAND_KINDS:
                raise ValueError(f"kind: allowed are {', '.join(p.COMMAND_KINDS)}")
        now = self.now_ms()
        with self.writing() as db:
            return sql.commands.queue(db, orders, now)

    def tables(self) -> list[dict[str, Any]]:
        """Every paired table with its last heartbeat and pending commands, by table number."""
        now = self.now_ms()
        with self.reading() as db:
            rows = sql.devices.with_heartbeats(db)
            pending = sql.commands.pending_by_table(db)
        return [
            {
                "table": row.table_no,
                "device": row.device,
                "paired_at": row.paired_at,
                "seen_s_ago": None if row.seen_ms is None else (now - row.seen_ms) / 1000,
                "status": None if row.body is None else json.loads(row.body),
                "commands": pending.get(row.table_no, []),
            }
            for row in rows
        ]


def _result_json(row: Any, body: dict[str, Any], corrected: bool) -> dict[str, Any]:
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
