"""The hub's store: its database's transactions and its clock, the hub's settings and the
judge's sessions. The SQL itself is ``klik_hub.sql``'s, a module per concept; the tables' use
of the store is ``klik_hub.hall``'s, the tournament's ``klik_hub.office``'s.

Every request's answer comes from the database, never from one process's memory, so two hub
processes on one PostgreSQL serve the same tables. Results are durable (``synchronous=FULL``
on SQLite); heartbeats are best effort (``best_effort``, ``db.BEST_EFFORT``). SQLite has one
writer at a time: the threads of one process queue for it on a lock here, which hands over at
once, instead of in SQLite's busy handler, which sleeps for milliseconds at a time (processes
still meet in the busy handler). Readers (``db.READ``) take no write lock at all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine

from klik_hub import sql
from klik_hub.storage.db import BEST_EFFORT, READ

__all__ = ["Store", "utc_iso"]


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
        self.best_effort = engine.execution_options(**BEST_EFFORT)  # heartbeats'

    @contextmanager
    def writing(self, engine: Engine | None = None) -> Iterator[Connection]:
        """A write transaction (durable unless ``engine`` says otherwise), committed on exit;
        one at a time on SQLite."""
        with self._writer, (engine or self.engine).begin() as connection:
            yield connection

    def now_day(self) -> str:
        """Today by the hub's clock, ``2026-11-28`` (UTC, as every time the hub keeps)."""
        return utc_iso(self.now_ms())[:10]

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
