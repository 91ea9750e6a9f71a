"""Copies of a SQLite hub that hold every result: checkpoints, backups, a check at start.

A SQLite database in WAL mode keeps its newest commits in ``hub.sqlite-wal`` until a
checkpoint folds them into the file; a judge who copies only ``hub.sqlite`` (or a card that
loses the ``-wal``) would lose them. So the hub folds the WAL in at least every
``CHECKPOINT_S`` (a passive checkpoint: it never waits for a reader or the writer) and when
it stops; ``klik hub backup`` and the hub itself write consistent copies with SQLite's online
backup API, which copies a database in use as one snapshot. The hub keeps its own copies in
``backups/`` beside the database: one when a round's last result arrives, the newest
``KEPT_BACKUPS`` of them. A PostgreSQL hub is backed up with ``pg_dump``. Every copy is
0600 and ``backups/`` 0700: a copy holds every key the database does (``private``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine

from klik.errors import InputError
from klik_hub.storage import private

log = logging.getLogger("klik_hub")

CHECKPOINT_S = 10.0
KEPT_BACKUPS = 10
FOLDER = private.BACKUPS


def write(source: Path, target: Path) -> None:
    """A consistent copy of the SQLite database ``source`` at ``target`` (replaced whole:
    written beside it, fsynced, then renamed, so a copy is never half a database), 0600:
    it holds every key the database does (``private``)."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)  # a link planted there goes, not what it points at
    if not private.create(partial):  # made again meanwhile: not ours to write into
        raise InputError(f"{partial}: appeared while the copy was being made; try again")
    # Not read-only: a read-only connection to a WAL database leaves its -wal and -shm behind.
    with closing(sqlite3.connect(source)) as reading:
        copy = sqlite3.connect(partial)
        try:
            reading.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one file: no -wal beside the copy
        finally:
            copy.close()
    with partial.open("rb") as written:
        os.fsync(written.fileno())
    partial.replace(target)


def keep(source: Path, why: str) -> Path:
    """A copy of ``source`` in its ``backups/`` folder, named by the time and ``why``; the
    oldest are removed past ``KEPT_BACKUPS``. Returns the copy's path."""
    folder = source.parent / FOLDER
    private.folder(folder)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    target = folder / f"{source.stem}-{stamp}-{why}.sqlite"
    write(source, target)
    for old in sorted(folder.glob(f"{source.stem}-*.sqlite"))[:-KEPT_BACKUPS]:
        old.unlink(missing_ok=True)
    return target


def newest(source: Path) -> Path | None:
    """The newest copy the hub kept of ``source``, if any."""
    copies = sorted((source.parent / FOLDER).glob(f"{source.stem}-*.sqlite"))
    return copies[-1] if copies else None


def check(source: Path) -> None:
    """Refuse a damaged database before anything is served from it (``PRAGMA quick_check``
    reads every page): InputError in one line, naming the newest backup to take instead."""
    try:
        with closing(sqlite3.connect(source)) as reading:
            found = reading.execute("PRAGMA quick_check(1)").fetchone()
        verdict = " ".join(str(found[0]).split()) if found else "no answer"
    except sqlite3.DatabaseError as error:
        verdict = " ".join(str(error).split())
    if verdict == "ok":
        return
    copy = newest(source)
    instead = f"; the newest backup is {copy}" if copy else "; there is no backup in backups/"
    wal = source.with_name(source.name + "-wal")
    if copy and wal.exists():
        instead += f" (put it in the file's place and delete {wal.name})"
    raise InputError(f"--db {source}: the database is damaged ({verdict}){instead}")


class Checkpoints:
    """Folds the WAL into the database file every ``CHECKPOINT_S`` in a thread of its own,
    then calls ``also`` (the round backups' check)."""

    def __init__(self, engine: Engine, also: Callable[[], object] | None = None) -> None:
        self.engine = engine
        self.also = also
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="checkpoints", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(CHECKPOINT_S):
            self.once()
            if self.also is not None:
                try:
                    self.also()
                except Exception:  # a failed backup is tried again; it never stops the hub
                    log.exception("hub: a backup failed")

    def once(self) -> None:
        try:
            # The driver's own connection, in autocommit: a checkpoint inside a transaction
            # (SQLAlchemy would begin one) cannot fold anything in.
            raw = self.engine.raw_connection()
            try:
                raw.cursor().execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                raw.close()
        except Exception as error:  # a failed checkpoint is tried again; never fatal
            log.warning("hub: a checkpoint of the database failed (%s)", error)
