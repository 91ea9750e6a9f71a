"""The hub's store on both databases: migrations, pairing, concurrency, two hub processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select, text

from klik_hub import hall, office
from klik_hub.sql.schema import metadata, results
from klik_hub.storage.db import open_engine, url_of
from klik_hub.storage.store import Store
from tests.helpers.hubkit import at_revision, post, result_body, sealed

KLIK = Path(sys.executable).with_name("klik")


def test_the_migrations_make_the_schema_the_code_describes(store: Store) -> None:
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_opening_a_database_twice_migrates_once_and_keeps_what_it_had(db: str) -> None:
    first = Store(open_engine(db), lambda: 0)
    device, _ = hall.devices.pair(first, 3)
    first.engine.dispose()
    again = Store(open_engine(db), lambda: 0)
    assert hall.devices.of(again, device) is not None
    again.engine.dispose()


@pytest.mark.slow  # a real `klik pair` process
def test_klik_pair_on_a_new_database_prints_only_its_own_lines(tmp_path: Path) -> None:
    # Opening the new database runs every migration; Alembic's INFO lines, one per step
    # (some of several lines), are not the command's: its stderr is empty.
    done = subprocess.run(
        [str(KLIK), "pair", "--db", str(tmp_path / "hub.sqlite"), "--table", "1",
         "--url", "http://127.0.0.1:8000"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("# table 1, paired with the hub at http://127.0.0.1:8000;")


@pytest.mark.parametrize(
    ("db", "error"),
    [
        ("/nonexistent/folder/hub.sqlite", "the folder /nonexistent/folder does not exist"),
        ("mysql://root@localhost/klik", "allowed are a file path or a postgresql:// URL"),
        ("/tmp", "is a folder"),
    ],
)
def test_a_bad_db_is_one_line(db: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        url_of(db)


def test_a_postgresql_url_uses_psycopg() -> None:
    assert url_of("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"


def test_eight_clients_resending_the_same_results_store_each_once(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    envelopes = [sealed(device, key, seq, result_body(game=seq)) for seq in range(1, 26)]
    answers: Counter[int] = Counter()
    lock = threading.Lock()

    def client() -> None:
        with httpx.Client(timeout=30) as http:
            for envelope in envelopes:
                code = http.post(url + "/api/v1/results", content=envelope).status_code
                with lock:
                    answers[code] += 1

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {201: 25, 200: 7 * 25}
    with store.engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(results)).scalar_one() == 25


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_hub(db: str, port: int) -> subprocess.Popen[bytes]:
    hub = subprocess.Popen(
        [str(KLIK), "hub", "--db", db, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert hub.stdout is not None
    for line in hub.stdout:  # uvicorn says when it listens: no guessing with sleeps
        if b"Uvicorn running" in line:
            return hub
    raise AssertionError(f"klik hub did not start (exit {hub.wait()})")


def test_two_hub_processes_on_one_postgresql_serve_the_same_tables(pg_url: str) -> None:
    """Nothing a request needs lives in one process: pair on one, store and list on both."""
    ports = [_free_port(), _free_port()]
    hubs = [_start_hub(pg_url, port) for port in ports]
    try:
        a, b = (f"http://127.0.0.1:{port}" for port in ports)
        pairing = subprocess.run(
            [str(KLIK), "pair", "--db", pg_url, "--table", "7", "--url", a],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        fields = dict(line.split(" = ") for line in pairing.stdout.splitlines() if " = " in line)
        device, key = fields["device_id"].strip('"'), fields["key"].strip('"')
        envelopes = [sealed(device, key, seq, result_body(table=7, game=seq)) for seq in (1, 2)]
        assert post(a, "/api/v1/results", envelopes[0]).status_code == 201
        assert post(b, "/api/v1/results", envelopes[0]).status_code == 200  # the other saw it
        assert post(b, "/api/v1/results", envelopes[1]).status_code == 201
        queued = httpx.post(a + "/api/v1/tables/7/commands", json={"kind": "pause"}).json()
        beat = sealed(device, key, 1, {"state": "move", "acks": []}, "heartbeat")
        assert [c["id"] for c in post(b, "/api/v1/heartbeats", beat).json()["commands"]] == [
            queued["id"]
        ]
        for url in (a, b):
            listed = httpx.get(url + "/api/v1/results").json()
            assert [(r["seq"], r["game"]) for r in listed] == [(2, 2), (1, 1)]
    finally:
        for hub in hubs:
            hub.send_signal(signal.SIGINT)
        for hub in hubs:
            hub.wait(timeout=10)


@pytest.mark.slow  # real `klik hub` processes, killed
def test_a_hub_killed_and_started_again_has_every_result_it_acknowledged(tmp_path: Path) -> None:
    db = str(tmp_path / "hub.sqlite")
    port = _free_port()
    hub = _start_hub(db, port)
    url = f"http://127.0.0.1:{port}"
    store = Store(open_engine(db), lambda: 0)
    device, key = hall.devices.pair(store, 2)
    acknowledged = []
    for seq in range(1, 11):
        answer = post(
            url, "/api/v1/results", sealed(device, key, seq, result_body(table=2, game=seq))
        )
        acknowledged.append((seq, answer.json()["receipt"]))
    os.kill(hub.pid, signal.SIGKILL)
    hub.wait()
    hub = _start_hub(db, port)
    try:
        listed = httpx.get(url + "/api/v1/results").json()
        assert sorted((r["seq"], r["receipt"]) for r in listed) == acknowledged
    finally:
        hub.send_signal(signal.SIGINT)
        hub.wait(timeout=10)
        store.engine.dispose()


def test_a_result_refers_by_key_to_the_hub_tournament_it_names_and_no_other(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    tid = office.tournaments.create(store, "Liga", None, "liga", 60)
    device, key = hall.devices.pair(store, 3)
    named = [str(tid), f"0{tid}", f"+{tid}", str(tid + 1), "Liga szkolna", "9" * 40, None]
    for seq, tournament in enumerate(named, start=1):
        body = result_body(game=seq, tournament=tournament, round=1)
        assert post(url, "/api/v1/results", sealed(device, key, seq, body)).status_code == 201
    with store.engine.connect() as connection:
        kept = connection.execute(
            select(results.c.tournament, results.c.tournament_id).order_by(results.c.seq)
        ).all()
    # Every result is kept; only the one naming the tournament as the hub writes it refers to it.
    assert [tuple(x) for x in kept] == [(t, tid if t == str(tid) else None) for t in named]


def test_the_migration_to_tournament_ids_refers_the_results_kept_before(db: str) -> None:
    with at_revision(db, "0004") as connection:
        connection.execute(
            text(
                "INSERT INTO tournaments (id, name, rules, format, move_time_s, created_at)"
                " VALUES (4, 'Liga', 'tournament', 'liga', 60, '2026-11-24T10:00:00Z')"
            )
        )
        for seq, named in enumerate(["4", "04", "5", None], start=1):
            connection.execute(
                text(
                    "INSERT INTO results (device, seq, digest, table_no, tournament, round_no,"
                    " game, body, receipt, points_check, conflict, received_at) VALUES"
                    " ('d', :seq, 'x', 1, :named, 1, :seq, '{}', 'r', 'ok', false, 't')"
                ),
                {"seq": seq, "named": named},
            )
    store = Store(open_engine(db), lambda: 0)  # migrates to the head
    with store.engine.connect() as connection:
        referred = connection.execute(
            select(results.c.tournament_id).order_by(results.c.seq)
        ).scalars()
        assert list(referred) == [4, None, None, None]
    store.engine.dispose()
