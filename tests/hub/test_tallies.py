"""``Tallies``: a hall of phones asking for a new revision's tally at once reads it once, and
none of them holds a database connection while it waits (the results go on beside them)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.pool import QueuePool

from klik_hub import office, sql
from klik_hub.office import tally as tally_module
from klik_hub.office.tally import Tallies, Tally
from klik_hub.storage.store import Store
from klik_hub.tournament.roster import Entrant

WAITING = 20


class Doorway:
    """A lock that says how many have come to it (each before it waits)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.came = threading.Semaphore(0)

    def __enter__(self) -> None:
        self.came.release()
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def test_the_phones_waiting_for_a_tally_hold_no_connection(store: Store, mocker: Any) -> None:
    tid = office.tournaments.create(store, "Liga", None, "open", 60)
    office.players.enrol(store, tid, [Entrant(f"Gracz {k}", "") for k in range(1, 9)])
    tallies = Tallies(store)
    door = Doorway()
    mocker.patch.object(tallies, "_lock", door)
    gate, inside = threading.Event(), threading.Event()
    reading = tally_module.read

    def held(*args: Any) -> Tally:
        inside.set()
        gate.wait(10)
        return reading(*args)

    read = mocker.patch.object(tally_module, "read", side_effect=held)
    with store.reading() as db:
        revision = sql.tournaments.revision(db, tid)
    with ThreadPoolExecutor(WAITING + 1) as phones:
        asked = [phones.submit(tallies.at, tid, revision) for _ in range(WAITING + 1)]
        for _ in range(WAITING + 1):  # every phone has come to the lock: one reads, the rest wait
            assert door.came.acquire(timeout=10)
        assert inside.wait(10)
        pool = store.engine.pool
        assert isinstance(pool, QueuePool)
        assert pool.checkedout() == 1  # the reader's alone
        with store.writing() as db:  # the hub's other work is not held up by them
            assert sql.tournaments.revision(db, tid) == revision
        gate.set()
        tallies_read = {id(x.result(timeout=10)) for x in asked}
    assert len(tallies_read) == 1
    assert read.call_count == 1
