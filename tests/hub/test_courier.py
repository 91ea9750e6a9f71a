"""The table's courier against a real hub over loopback HTTP: results, receipts, commands.

The courier's rounds are driven by hand (``step(now)`` with a clock the test moves), so the
back-off is checked without waiting for it; the hub, its database and HTTP are real.
"""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from klik.link.courier import Command, State, Tracking
from klik.link.http import HttpLink
from klik.link.outbox import Conflict, Outbox
from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.courier import Table
from tests.helpers.hubkit import result_body
from tests.helpers.tourney import API, create


@pytest.fixture
def table(hub: tuple[str, Store], tmp_path: Path) -> Iterator[tuple[Table, Store]]:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    kept = Table(tmp_path, HttpLink(url, timeout_s=2.0), device, key)
    yield kept, store
    kept.close()


def test_kept_results_go_oldest_first_and_each_gets_the_hubs_receipt(
    table: tuple[Table, Store],
) -> None:
    kept, store = table
    for game in (1, 2, 3):
        kept.keep(game)
    for _ in range(3):
        kept.step()
    assert kept.outbox.waiting() == 0
    listed = hall.results.newest(store)
    assert [r["seq"] for r in listed] == [3, 2, 1]
    assert [kept.outbox.receipt(seq) for seq in (1, 2, 3)] == [r["receipt"] for r in listed][::-1]
    assert kept.news[-1] == Tracking(State.SENT, 3, listed[0]["receipt"], 0)


def test_a_hub_that_is_away_gets_the_result_within_seconds_of_its_return(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    with socket.socket() as sock:  # a port where nothing listens: the hub is away
        sock.bind(("127.0.0.1", 0))
        away = f"http://127.0.0.1:{sock.getsockname()[1]}"
    kept = Table(tmp_path, HttpLink(away, timeout_s=2.0), device, key)
    kept.keep(1)
    tries = []
    for _ in range(12):  # the hub away for hours: the gaps grow, never past 15 s
        kept.step(kept.courier.next_try)
        tries.append(kept.courier.next_try - kept.clock.now)
    assert kept.outbox.waiting() == 1
    assert max(tries) <= 15.0
    assert kept.news[-1].state is State.UNREACHABLE
    kept.courier.link = HttpLink(url)  # the hub is back
    kept.step(kept.courier.next_try)
    assert kept.outbox.waiting() == 0
    assert kept.news[-1].state is State.SENT
    kept.close()


def test_a_receipt_not_signed_with_the_tables_key_is_not_believed(
    table: tuple[Table, Store],
) -> None:
    kept, store = table
    kept.keep(1)
    hall.devices.pair(store, 3)  # the table was paired again: the hub no longer knows this key
    kept.step()
    assert kept.outbox.waiting() == 1
    assert kept.outbox.receipt(1) is None
    assert hall.results.newest(store) == []


def test_a_conflicting_result_is_acknowledged_with_its_own_receipt(
    table: tuple[Table, Store],
) -> None:
    kept, store = table
    kept.keep(1)
    kept.step()
    kept.outbox.keep(result_body(game=1, racks={"A": 9, "B": 0, "C": 3, "D": 3}))
    kept.step()
    assert kept.outbox.waiting() == 0
    assert [r["conflict"] for r in hall.results.newest(store)] == [True, True]
    assert kept.outbox.receipt(2) == hall.results.newest(store)[0]["receipt"]


def test_a_conflict_is_never_sent_and_is_reported_until_the_judge_settles_it(
    hub: tuple[str, Store], table: tuple[Table, Store]
) -> None:
    (url, _), (kept, store) = hub, table
    tid = create(url)
    first = result_body(game=1, tournament=str(tid))
    kept.outbox.keep(first)
    kept.step()
    assert kept.news[-1].state is State.SENT
    # The card lost its game counter: game 1 was played again, another result for it.
    kept.outbox.keep({**first, "winners": ["B"], "seats": {
        s: {**e, "rack": 0 if s == "B" else e["rack"] + 5} for s, e in first["seats"].items()
    }})  # fmt: skip
    kept.step()
    assert kept.outbox.waiting() == 0
    assert kept.news[-1].state is State.CONFLICT  # not "sent": the judge must decide
    assert kept.news[-1].receipt == kept.outbox.receipt(2)
    assert kept.outbox.conflicts() == [Conflict(2, 1)]
    kept.beat()
    status = hall.devices.tables(store)[0]["status"]
    assert status["conflicts"] == [{"seq": 2, "game": 1}]
    kept.beat()  # nothing settled yet: still in conflict
    assert kept.news[-1].state is State.CONFLICT
    second = hall.results.newest(store)[0]
    accepted = httpx.post(
        f"{url}{API}/{tid}/results/{second['id']}/corrections",
        json={"kind": "accept", "value": True, "reason": "druga gra była właściwa"},
    )
    assert accepted.status_code == 201, accepted.text
    kept.beat()  # the hub's answer says it is settled
    assert kept.outbox.conflicts() == []
    assert kept.news[-1].state is State.SENT
    kept.beat()
    assert "conflicts" not in hall.devices.tables(store)[0]["status"]


def test_a_hub_command_is_carried_out_once_and_acknowledged_in_the_next_heartbeat(
    table: tuple[Table, Store],
) -> None:
    kept, store = table
    kept.step()  # the first heartbeat: the hub sees the table
    assert hall.devices.tables(store)[0]["status"]["mover"] == "B"
    command_id = hall.commands.send(store, 3, "pause")
    kept.step(kept.clock.now + 2)
    assert kept.commands == [Command(command_id, "pause", {})]
    assert (
        hall.devices.tables(store)[0]["commands"] != []
    )  # not yet acknowledged: that is the next beat
    kept.step(kept.clock.now + 2)
    assert hall.devices.tables(store)[0]["commands"] == []
    assert kept.commands == [Command(command_id, "pause", {})]
    assert hall.devices.tables(store)[0]["status"]["acks"] == [command_id]


def test_a_command_the_hub_sends_again_is_still_carried_out_once(
    table: tuple[Table, Store], tmp_path: Path
) -> None:
    kept, store = table
    command_id = hall.commands.send(store, 3, "resume")
    kept.step()
    kept.courier.acks.clear()  # the heartbeat with the ack is lost: the hub sends it again
    kept.step(kept.clock.now + 2)
    assert kept.commands == [Command(command_id, "resume", {})]


def test_a_command_cut_off_while_it_is_carried_out_is_carried_out_after_the_restart(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    """A power cut while the engine takes the hub's ``game`` command: it was recorded as done
    first, so after the restart the table acknowledged it unseen and played the round
    without its names. Now it is recorded only once carried out, and asked for again."""
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    first = Table(tmp_path, HttpLink(url, timeout_s=2.0), device, key)
    lineup = {"players": {"A": "Ania", "B": "Bożena", "C": "Łukasz"}}
    command_id = hall.commands.send(store, 3, "game", lineup)

    def power_cut(_: Command) -> None:
        raise RuntimeError("the power went while the engine took the command")

    first.courier.on_command = power_cut
    with pytest.raises(RuntimeError):
        first.step()
    first.close()
    again = Table(
        tmp_path, HttpLink(url, timeout_s=2.0), device, key
    )  # the table started again, the same card
    again.step(200.0)
    assert again.commands == [Command(command_id, "game", lineup)]
    again.step(202.0)
    assert hall.devices.tables(store)[0]["commands"] == []  # acknowledged only now
    again.close()


def test_a_command_the_engine_could_not_take_is_neither_recorded_nor_acknowledged(
    table: tuple[Table, Store],
) -> None:
    kept, store = table
    command_id = hall.commands.send(store, 3, "pause")
    kept.courier.on_command = lambda _: False  # the engine did not answer in time
    kept.step()
    kept.step(kept.clock.now + 2)
    assert not kept.outbox.command_seen(command_id)
    assert [c["id"] for c in hall.devices.tables(store)[0]["commands"]] == [command_id]
    kept.courier.on_command = kept.commands.append
    kept.step(kept.clock.now + 2)
    assert kept.commands == [Command(command_id, "pause", {})]


def test_heartbeats_go_on_when_the_outbox_cannot_be_written(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    """Another program holds the outbox's write lock (as a read-only or full card refuses
    it): the results wait, but the judge still sees the table alive."""
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    table = Table(tmp_path, HttpLink(url, timeout_s=2.0), device, key)
    table.outbox.close()
    table.outbox = table.courier.outbox = Outbox(tmp_path / "outbox.sqlite", busy_s=0.05)
    other = sqlite3.connect(tmp_path / "outbox.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        table.step(100.0)
        table.step(102.0)
    finally:
        other.execute("ROLLBACK")
        other.close()
    row = hall.devices.tables(store)[0]
    assert row["status"] is not None
    assert row["status"]["mover"] == "B"
    table.close()
