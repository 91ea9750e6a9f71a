"""The hub's store: pairing, results, heartbeats and commands, over SQLAlchemy Core.

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
compared in the very statement that writes it (``Upserts.status``): a heartbeat captured on
the way and replayed later (a dead table looking alive, a judge's call nobody made) changes
nothing, on any number of processes. A hub that loses its last heartbeats in a power cut (they
are best effort) holds an older seq for a moment; the table's next heartbeat moves it on.
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

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.expression import Executable

from klik.link import protocol as p
from klik.link import results as r
from klik_hub.db import BEST_EFFORT, READ
from klik_hub.schema import (
    claims,
    commands,
    corrections,
    devices,
    results,
    sessions,
    settings,
    status,
)

CLAIM_LENGTH: int = claims.c.claim.type.length  # type: ignore[attr-defined]

# The statements of the hot paths, built once: building a statement and its cache key costs
# more Python than SQLite takes to run it.
DEVICE = select(devices.c.table_no, devices.c.key_hex).where(
    devices.c.device == bindparam("device")
)
RECEIPT_OF_SEND = select(results.c.receipt).where(
    results.c.device == bindparam("device"),
    results.c.seq == bindparam("seq"),
    results.c.digest == bindparam("digest"),
)
HOLDER = (
    select(results.c.id, results.c.digest, results.c.receipt)
    .join(claims, claims.c.result_id == results.c.id)
    .where(claims.c.claim == bindparam("claim"))
)
PENDING = (
    select(commands.c.id, commands.c.table_no, commands.c.kind, commands.c.args)
    .where(commands.c.acked_ms.is_(None))
    .order_by(commands.c.rank, commands.c.id)
)
PENDING_OF_TABLE = PENDING.where(commands.c.table_no == bindparam("table_no"))
LAST_BEAT = select(status.c.seq).where(status.c.device == bindparam("device"))
LAST_RESULT = select(func.max(results.c.seq)).where(results.c.device == bindparam("device"))
ACKED = (
    update(commands)
    .where(
        commands.c.id.in_(bindparam("acks", expanding=True)),
        commands.c.table_no == bindparam("of_table"),
        commands.c.acked_ms.is_(None),
    )
    .values(acked_ms=bindparam("now"))
)


@dataclass(frozen=True, slots=True)
class Upserts:
    """The statements that meet a unique constraint, in the dialect's ``ON CONFLICT``."""

    result: Executable  # a new result's id, or no row when (device, seq, digest) is there
    claim: Executable  # the claim, or no row when another result holds it
    status: Executable  # a device's heartbeat; no row changed when its seq is not above the last

    @classmethod
    def of(cls, dialect: str) -> Upserts:
        insert_of = postgresql.insert if dialect == "postgresql" else sqlite.insert
        beat = insert_of(status)
        return cls(
            insert_of(results)
            .on_conflict_do_nothing(index_elements=["device", "seq", "digest"])
            .returning(results.c.id),
            insert_of(claims)
            .on_conflict_do_nothing(index_elements=["claim"])
            .returning(claims.c.claim),
            beat.on_conflict_do_update(
                index_elements=["device"],
                set_={c: beat.excluded[c] for c in ("table_no", "seq", "body", "seen_ms")},
                where=status.c.seq < beat.excluded.seq,
            ).execution_options(preserve_rowcount=True),  # an INSERT's rowcount, on psycopg too
        )


@dataclass(frozen=True, slots=True)
class Stored:
    """A result kept: ``stored``, ``duplicate`` (the same receipt again) or ``conflict``
    (both kept and flagged for the judge)."""

    outcome: p.Status
    receipt: str


@dataclass(frozen=True, slots=True)
class Device:
    device: str
    table_no: int
    key: bytes


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


def claim_of(key: str) -> str:
    """``key`` as a ``claims`` row holds it: itself, or when longer than the column, ``sha256:``
    and its SHA-256 in hex. Any result the protocol allows has a claim that fits: a tournament
    of 200 letters such as "ż", each written ``\\u017c``, makes a key of over 1,200.

    Keys that fit are kept as they were, so the claims of results stored before are still
    met; no key of its own starts with ``sha256:`` (each starts ``send:`` or ``game:``).
    """
    if len(key) <= CLAIM_LENGTH:
        return key
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def utc_iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class Store:
    """One hub's database. ``now_ms`` is the hub's clock (ms since the epoch; tests pass one)."""

    def __init__(self, engine: Engine, now_ms: Callable[[], int]) -> None:
        self.engine = engine
        self.now_ms = now_ms
        self.upserts = Upserts.of(engine.dialect.name)
        self._writer: AbstractContextManager[Any] = (
            threading.Lock() if engine.dialect.name == "sqlite" else nullcontext()
        )
        self._reader = engine.execution_options(**READ)
        self._beats = engine.execution_options(**BEST_EFFORT)

    @contextmanager
    def writing(self, engine: Engine | None = None) -> Iterator[Connection]:
        """A write transaction (durable unless ``engine`` says otherwise), committed on exit;
        one at a time on SQLite. The tournament's module (``tournaments``) writes through it
        too."""
        with self._writer, (engine or self.engine).begin() as connection:
            yield connection

    def reading(self) -> Connection:
        """A connection for reads (a snapshot on PostgreSQL), closed by its ``with``."""
        return self._reader.connect()

    # --- settings ------------------------------------------------------------------------

    def setting(self, name: str) -> str | None:
        with self.reading() as db:
            found = db.execute(select(settings.c.value).where(settings.c.name == name))
            value = found.scalar()
        return None if value is None else str(value)

    def set_setting(self, name: str, value: str) -> None:
        with self.writing() as db:
            db.execute(delete(settings).where(settings.c.name == name))
            db.execute(insert(settings).values(name=name, value=value))

    # --- the judge's sessions ---------------------------------------------------------------

    def open_session(self, token_sha256: str, password_sha256: str, expires_ms: int) -> None:
        """Keep a new session (and forget the expired ones, so the table stays small)."""
        with self.writing() as db:
            db.execute(delete(sessions).where(sessions.c.expires_ms <= self.now_ms()))
            db.execute(
                insert(sessions).values(
                    token_sha256=token_sha256,
                    password_sha256=password_sha256,
                    expires_ms=expires_ms,
                )
            )

    def session(self, token_sha256: str) -> str | None:
        """The password digest a live session was opened with; None if none or expired."""
        with self.reading() as db:
            found = db.execute(
                select(sessions.c.password_sha256).where(
                    sessions.c.token_sha256 == token_sha256,
                    sessions.c.expires_ms > self.now_ms(),
                )
            ).scalar()
        return None if found is None else str(found)

    def close_session(self, token_sha256: str) -> None:
        with self.writing() as db:
            db.execute(delete(sessions).where(sessions.c.token_sha256 == token_sha256))

    # --- pairing -------------------------------------------------------------------------

    def pair(self, table_no: int) -> tuple[str, str]:
        """A new device id and 256-bit key for table ``table_no``; replaces an earlier pairing."""
        device = f"t{table_no}-{secrets.token_hex(4)}"
        key_hex = secrets.token_hex(32)
        with self.writing() as db:
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
        with self.reading() as db:
            return self._device(db, device)

    def paired(self, table_no: int) -> bool:
        """Whether table ``table_no`` is paired with this hub (a command needs a table)."""
        with self.reading() as db:
            found = db.execute(select(devices.c.device).where(devices.c.table_no == table_no))
            return found.first() is not None

    @staticmethod
    def _device(db: Connection, device: str) -> Device | None:
        row = db.execute(DEVICE, {"device": device}).first()
        return None if row is None else Device(device, row.table_no, bytes.fromhex(row.key_hex))

    @contextmanager
    def believed(self, envelope: p.Envelope, mac: str) -> Iterator[tuple[Connection, Device]]:
        """The transaction that takes ``envelope``, and the paired device that signed it.

        RefusedError (401) for an unknown device or a bad MAC. A result's transaction is
        durable, a heartbeat's best effort. Committed when the block ends, rolled back if it
        raises.
        """
        best_effort = envelope.type == "heartbeat"
        with self.writing(self._beats if best_effort else None) as db:
            known = self._device(db, envelope.device)
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
        new_id = db.execute(self.upserts.result, row).scalar()
        if new_id is None:  # this (device, seq, body) is stored already
            return Stored(p.Status.DUPLICATE, self._receipt_of_send(db, row))
        rivals = [
            self._holder(db, key)
            for key in keys
            if db.execute(self.upserts.claim, {"claim": key, "result_id": new_id}).first() is None
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
        flagged = [new_id, *(rival.id for rival in rivals)]
        db.execute(update(results).where(results.c.id.in_(flagged)).values(conflict=True))
        return Stored(p.Status.CONFLICT, receipt)

    @staticmethod
    def _receipt_of_send(db: Connection, row: dict[str, Any]) -> str:
        found = db.execute(RECEIPT_OF_SEND, row).scalar_one()
        return str(found)

    @staticmethod
    def _holder(db: Connection, key: str) -> Any:
        return db.execute(HOLDER, {"claim": key}).one()

    def results(self, *, table_no: int | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """The stored results, newest first, as ``GET /api/v1/results`` lists them."""
        query = select(results).order_by(results.c.id.desc()).limit(limit)
        if table_no is not None:
            query = query.where(results.c.table_no == table_no)
        with self.reading() as db:
            rows = db.execute(query).all()
            ids = [row.id for row in rows]
            corrected = set(
                db.execute(
                    select(corrections.c.result_id).where(corrections.c.result_id.in_(ids))
                ).scalars()
            )
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
                    "ended_by": body.get("ended_by"),  # an exhausted game: why; older tables: none
                    "winners": body["winners"],
                    "names": {s: e["name"] for s, e in body["seats"].items()},
                    "racks": r.racks(body),
                    "small": r.column(body, "small"),
                    "big": r.column(body, "big"),
                    "points_check": row.points_check,
                    "conflict": row.conflict,
                    "corrected": row.id in corrected,  # the judge has corrected it since
                    "received_at": row.received_at,
                    "finished_at": body.get("finished_at"),
                    "body": body,
                }
            )
        return listed

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
        # rowcount, not RETURNING: fetching a row back cost about 5 % of the heartbeats a second.
        last_result = None
        if said.seq_in_doubt:  # asked for only by a table that lost its count
            found = db.execute(LAST_RESULT, {"device": device.device}).scalar()
            last_result = 0 if found is None else int(found)
        if db.execute(self.upserts.status, beat).rowcount == 0:
            last = db.execute(LAST_BEAT, {"device": device.device}).scalar_one()
            return Beat(taken=False, last_seq=int(last), commands=[], last_result_seq=last_result)
        if acks:
            db.execute(ACKED, {"acks": acks, "of_table": device.table_no, "now": now})
        rows = db.execute(PENDING_OF_TABLE, {"table_no": device.table_no}).all()
        commands = [_command(row) for row in rows]
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
            # Ranks grow strictly, whatever the clock does: a table carries its commands out
            # in the order the judge gave them.
            last = db.execute(select(func.max(commands.c.rank))).scalar() or 0
            first = max(last + 1, now * 1000)
            rows: list[dict[str, Any]] = [
                {
                    "id": secrets.token_hex(8),
                    "table_no": table_no,
                    "kind": kind,
                    "args": p.canonical(args).decode("ascii"),
                    "created_ms": now,
                    "rank": first + k,
                }
                for k, (table_no, kind, args) in enumerate(orders)
            ]
            db.execute(insert(commands), rows)
        return [str(row["id"]) for row in rows]

    def tables(self) -> list[dict[str, Any]]:
        """Every paired table with its last heartbeat and pending commands, by table number."""
        now = self.now_ms()
        with self.reading() as db:
            rows = db.execute(
                select(devices, status.c.body, status.c.seen_ms)
                .outerjoin(status, status.c.device == devices.c.device)
                .order_by(devices.c.table_no)
            ).all()
            pending: dict[int, list[dict[str, Any]]] = {}
            for command in db.execute(PENDING).all():
                pending.setdefault(command.table_no, []).append(_command(command))
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


def _command(row: Any) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "args": json.loads(row.args)}
