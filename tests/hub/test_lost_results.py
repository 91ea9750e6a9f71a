"""Results the hub acknowledged and then lost (a lost ``-wal``, an older backup restored) come
back from the tables (``docs/protocol.md``, *Results the hub lost*): a heartbeat says the
newest seq acknowledged to its pairing (``acked_seq``), the hub's signed answer says
``resend_after`` the highest it holds, the console marks the table, and the table sends the
rest again, each stored once with the receipt it had.

In this process with the courier driven by hand, then against a real ``klik hub`` killed with
SIGKILL and started again on the same port.
"""

from __future__ import annotations

import logging
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import delete, select

from klik.link.http import HttpLink
from klik_hub import hall
from klik_hub.sql.schema import claims, results
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.courier import Table
from tests.helpers.hubkit import Clock

KLIK = Path(sys.executable).parent / "klik"


def receipts(store: Store) -> dict[tuple[str, int], str]:
    """Every result the hub holds: (device, seq) to its receipt."""
    return {
        (r["device"], r["seq"]): r["receipt"] for r in hall.results.newest(store, limit=100_000)
    }


def test_a_table_sends_again_what_the_hub_lost_and_the_judge_sees_it(
    hub: tuple[str, Store], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    kept = Table(tmp_path / "t3", HttpLink(url, timeout_s=5.0), device, key)
    try:
        for game in range(1, 6):
            kept.keep(game)
            kept.step()
        before = receipts(store)
        assert len(before) == 5
        kept.beat()
        assert hall.devices.tables(store)[0]["resending_after"] is None  # nothing lost yet
        with store.writing() as db:  # the hub loses results 3 to 5
            lost = select(results.c.id).where(results.c.seq > 2).scalar_subquery()
            db.execute(delete(claims).where(claims.c.result_id.in_(lost)))
            db.execute(delete(results).where(results.c.seq > 2))
        caplog.set_level(logging.INFO)
        kept.beat()
        # The heartbeat said 5 acknowledged; the hub holds 2: the console marks the table.
        (listed,) = hall.devices.tables(store)
        assert listed["resending_after"] == 2
        assert kept.outbox.waiting() == 3  # waiting again, as they were
        messages = [r.getMessage() for r in caplog.records]
        assert (
            f"table 3 ({device}): the hub acknowledged its results up to seq 5 but holds them "
            "up to 2 only; asked to send them again"
        ) in messages
        assert "hub: it holds our results up to 2 only; sending 3 again" in messages
        for _ in range(3):
            kept.step()
        assert receipts(store) == before  # each once, with the receipt it had
        assert kept.outbox.waiting() == 0
        kept.beat()
        assert hall.devices.tables(store)[0]["resending_after"] is None
    finally:
        kept.close()


def test_a_table_paired_anew_never_sends_the_old_pairings_results_again(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    kept = Table(tmp_path / "t3", HttpLink(url, timeout_s=5.0), device, key)
    try:
        for game in (1, 2):
            kept.keep(game)
            kept.step()
        kept.close()
        again, new_key = hall.devices.pair(store, 3)  # the same card, paired again
        kept = Table(tmp_path / "t3", HttpLink(url, timeout_s=5.0), again, new_key)
        kept.beat()
        assert kept.outbox.waiting() == 0
        assert hall.devices.tables(store)[0]["resending_after"] is None
        assert len(receipts(store)) == 2
    finally:
        kept.close()


# --- a real hub, killed -----------------------------------------------------------------------


@contextmanager
def klik_hub(db: Path, port: int) -> Iterator[list[str]]:
    """``klik hub`` on ``port``; its log so far. SIGKILLed at the end: no clean stop."""
    argv = [str(KLIK), "hub", "--db", str(db), "--port", str(port)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    log: list[str] = []
    for line in process.stdout:
        log.append(line)
        if "Uvicorn running on" in line:
            break
    else:
        raise AssertionError(f"klik hub did not start (exit {process.wait()}): {''.join(log)}")
    reader = threading.Thread(target=log.extend, args=(process.stdout,), daemon=True)
    reader.start()
    try:
        yield log
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=20)
        reader.join(timeout=5)


def play(tables: list[Table], games: range) -> None:
    """Each table keeps and sends ``games``, every one acknowledged."""
    for game in games:
        for number, table in enumerate(tables, 1):
            table.keep(game, table=number)
            table.step()
            assert table.outbox.waiting() == 0, table.news[-1]


def back(tables: list[Table], url: str, lost: set[str]) -> None:
    """Each table's heartbeat, the console's mark on it when it lost results (``lost``: their
    devices), then its courier's steps until nothing waits."""
    for table in tables:
        table.beat()
        listed = httpx.get(f"{url}/api/v1/tables", timeout=10).json()
        (row,) = (t for t in listed if t["device"] == table.courier.device)
        assert (row["resending_after"] is not None) == (table.courier.device in lost)
        for _ in range(10_000):
            if table.outbox.waiting() == 0:
                break
            table.step()


@pytest.mark.slow
@pytest.mark.parametrize("lost", ["wal", "backup"])
def test_every_acknowledged_result_is_back_after_the_hub_lost_its_file(
    tmp_path: Path, lost: str
) -> None:
    db = tmp_path / "hub.sqlite"
    store = Store(open_engine(str(db)), Clock())
    paired = [hall.devices.pair(store, n) for n in range(1, 9)]
    store.engine.dispose()  # the pairings folded into the file: only results can be lost
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    url = f"http://127.0.0.1:{port}"
    tables = [
        Table(tmp_path / f"t{n}", HttpLink(url, timeout_s=10.0), device, key)
        for n, (device, key) in enumerate(paired, 1)
    ]
    try:
        with klik_hub(db, port):
            play(tables, range(1, 21))
            if lost == "backup":
                subprocess.run(
                    [str(KLIK), "hub", "backup", "--db", str(db), str(tmp_path / "copy")],
                    check=True, capture_output=True, timeout=60,
                )  # fmt: skip
            play(tables, range(21, 41))
        acknowledged = {
            (t.courier.device, seq): t.outbox.receipt(seq) for t in tables for seq in range(1, 41)
        }
        if lost == "wal":
            Path(f"{db}-wal").unlink(missing_ok=True)
        else:
            shutil.copyfile(tmp_path / "copy", db)
            for suffix in ("-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        store = Store(open_engine(str(db)), Clock())
        held = set(receipts(store))
        store.engine.dispose()
        if lost == "backup":
            assert len(held) == 8 * 20  # the second half of the day is gone from the hub
        missing = {device for device, seq in acknowledged if (device, seq) not in held}
        with klik_hub(db, port) as log:
            back(tables, url, missing)
            listed = httpx.get(f"{url}/api/v1/tables", timeout=10).json()
        store = Store(open_engine(str(db)), Clock())
        try:
            assert receipts(store) == acknowledged  # every one, once, with its receipt
        finally:
            store.engine.dispose()
        # One line a table that lost results, naming it.
        resent = [line for line in log if "asked to send them again" in line]
        assert sorted(line.split("(")[1].split(")")[0] for line in resent) == sorted(missing)
        assert all(t["resending_after"] is None for t in listed)  # all back: no mark left
        print(f"{lost}: {len(acknowledged) - len(held)} of {len(acknowledged)} lost, all back")
    finally:
        for table in tables:
            table.close()
