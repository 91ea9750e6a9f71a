"""The throwaway PostgreSQL the hub's tests stand on: it keeps what is committed, keeps each
test's database to itself, and says in one line what is missing when it cannot run.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, inspect, text

from tests.helpers.pgserver import MAX_CONNECTIONS, MISSING, Cluster, find_bindir, fresh_database


def write_row(url: str, note: str) -> None:
    """Create the table `notes` and commit one row, on an engine of its own."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:  # commits on leaving the block
            conn.execute(text("CREATE TABLE notes (id serial PRIMARY KEY, note text NOT NULL)"))
            conn.execute(text("INSERT INTO notes (note) VALUES (:note)"), {"note": note})
    finally:
        engine.dispose()


def read_rows(url: str) -> list[str]:
    """Every note, read on a new engine (a new connection sees only what was committed)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text("SELECT note FROM notes ORDER BY id")).scalars())
    finally:
        engine.dispose()


def test_a_committed_row_reads_back(pg_url: str) -> None:
    assert pg_url.startswith("postgresql+psycopg://")
    assert "@127.0.0.1:" in pg_url
    write_row(pg_url, "round 1: seat A wins")
    assert read_rows(pg_url) == ["round 1: seat A wins"]


def test_two_databases_are_separate(postgres: Cluster, pg_url: str) -> None:
    with fresh_database(postgres, "other") as other_url:
        assert other_url != pg_url
        write_row(pg_url, "only here")
        other = create_engine(other_url)
        assert inspect(other).get_table_names() == []
        other.dispose()
        write_row(other_url, "and only there")
        assert read_rows(pg_url) == ["only here"]
        assert read_rows(other_url) == ["and only there"]


def test_a_database_is_dropped_with_its_open_connections(postgres: Cluster) -> None:
    with fresh_database(postgres, "left open") as url:
        engine = create_engine(url)
        left_open = engine.connect()  # a test that forgets to close must not block the drop
        left_open.execute(text("SELECT 1"))
        name = url.rsplit("/", 1)[1]
    with postgres.admin() as admin:
        found = admin.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,))
        assert found.fetchone() == (0,)
    left_open.invalidate()  # its server side is gone: close it without the pool's rollback
    engine.dispose()


def test_the_cluster_is_durable_and_local_only(pg_url: str) -> None:
    engine = create_engine(pg_url)
    try:
        with engine.connect() as conn:

            def show(setting: str) -> str:
                return str(conn.execute(text(f"SHOW {setting}")).scalar_one())

            assert show("fsync") == "on"
            assert show("synchronous_commit") == "on"
            assert show("listen_addresses") == "127.0.0.1"
            assert show("max_connections") == str(MAX_CONNECTIONS)
    finally:
        engine.dispose()


def test_a_committed_row_survives_a_crash(postgres: Cluster, pg_url: str) -> None:
    write_row(pg_url, "committed before the crash")
    postgres.stop("immediate")  # no checkpoint: the row comes back from the WAL alone
    try:
        with pytest.raises(psycopg.OperationalError):
            postgres.admin()
    finally:
        postgres.start()  # the session's other tests need it running
    assert read_rows(pg_url) == ["committed before the crash"]


def test_the_highest_version_is_used(tmp_path: Path) -> None:
    for version in ("9", "15", "13"):  # by number 15 wins; by string "9" would
        (tmp_path / version / "bin").mkdir(parents=True)
        (tmp_path / version / "bin" / "initdb").touch()
    (tmp_path / "16" / "bin").mkdir(parents=True)  # a bin without initdb: a half-removed version
    assert find_bindir(tmp_path) == tmp_path / "15" / "bin"


def test_missing_postgresql_fails_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        find_bindir(tmp_path)
    assert str(failed.value) == MISSING
