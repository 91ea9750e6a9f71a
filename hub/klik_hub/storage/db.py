"""Opening the hub's database: a file path means SQLite, a ``postgresql://`` URL PostgreSQL.

SQLite is set up for a store that must not lose a result: WAL (readers never wait for the
writer), ``synchronous=FULL`` (a commit is on the disk before the table is told it is kept),
a busy timeout (several hub workers share one file) and ``BEGIN IMMEDIATE`` (a writer takes
the lock when it starts, so two writers never deadlock upgrading a read lock). The file and
its ``-wal`` and ``-shm`` are the hub's user's only (``private``).

A connection's execution options say what its transactions are for (``Engine.
execution_options(**READ)``); the default is a durable write:

- ``READ``: SQLite begins a deferred transaction, which in WAL never waits for the writer
  and never holds up one. It must not write (it would have to upgrade its lock).
- ``BEST_EFFORT``: a write that may be lost in a power cut but never corrupts anything, for
  heartbeats. SQLite commits it with ``synchronous=NORMAL`` (in WAL: no fsync at the commit;
  the next durable commit or checkpoint carries it to the disk), PostgreSQL with
  ``synchronous_commit=off``. A durable commit after it is as durable as ever.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from klik.errors import InputError
from klik_hub.storage import private

BUSY_TIMEOUT_MS = 10_000
WORK = "klik_work"  # the execution option that says what a connection's transactions are for
READ: dict[str, Any] = {WORK: "read"}
BEST_EFFORT: dict[str, Any] = {WORK: "best effort"}


def url_of(db: str) -> str:
    """The SQLAlchemy URL for ``klik hub --db``: a path, or a ``postgresql://`` URL."""
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if "://" in db:
        try:
            url = make_url(db)
        except ArgumentError:
            raise InputError(f"--db {db}: not a database URL") from None
        if url.get_backend_name() not in {"sqlite", "postgresql"}:
            raise InputError(f"--db {db}: allowed are a file path or a postgresql:// URL")
        return db
    path = Path(db).expanduser().absolute()
    if path.is_dir():
        raise InputError(f"--db {db}: is a folder; give the database file's path")
    if not path.parent.is_dir():
        raise InputError(f"--db {db}: the folder {path.parent} does not exist")
    return f"sqlite:///{path}"


def open_engine(db: str, *, pool_size: int = 8) -> Engine:
    """An engine for ``db`` (see ``url_of``), its schema migrated to the newest revision."""
    url = url_of(db)
    path = sqlite_file(url)
    if path is not None:
        private.database(path)  # made 0600 before SQLite makes it with the umask's mode
    if url.startswith("sqlite"):
        engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size)
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
    else:
        engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
        event.listen(engine, "begin", _postgresql_begin)
    migrate(engine)
    if path is not None:
        private.database(path)  # the -wal and -shm the first connection made: 0600 too
    return engine


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite ``url``; None for PostgreSQL or a database in memory."""
    parsed = make_url(url)
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return None
    return None if name.startswith("file:") else Path(name)


def _sqlite_connect(dbapi_connection: Any, record: Any) -> None:
    # pysqlite's own transaction handling starts transactions late and never for reads;
    # SQLAlchemy's documented recipe hands it over to the "begin" event below.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
    record.info["synchronous"] = "FULL"


def _sqlite_begin(connection: Connection) -> None:
    work = connection.get_execution_options().get(WORK)
    if work == READ[WORK]:
        connection.exec_driver_sql("BEGIN")
        return
    # A setting of the connection, said before BEGIN; it stays until changed, so it is only
    # said when this connection's last write wanted the other one.
    synchronous = "NORMAL" if work == BEST_EFFORT[WORK] else "FULL"
    if connection.info.get("synchronous") != synchronous:
        connection.exec_driver_sql(f"PRAGMA synchronous={synchronous}")
        connection.info["synchronous"] = synchronous
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def _postgresql_begin(connection: Connection) -> None:
    if connection.get_execution_options().get(WORK) == BEST_EFFORT[WORK]:
        # For this transaction only: the commit returns without waiting for the WAL flush.
        connection.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")


def migrate(engine: Engine) -> None:
    """Bring the schema to Alembic's head (creating it in a new database)."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(resources.files("klik_hub") / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
