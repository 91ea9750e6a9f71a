"""Renumbering a paired table (``office.renumbering``, ``POST /api/v1/tables/{n}/renumber``)
on a live hub, SQLite and PostgreSQL: the hub's records follow the table, the table is told,
the judge's log keeps it, and it is refused while it would misfile a result. Also the
judge's start of one table, refused as a round's start is while the table runs another
protocol revision."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from klik.link import protocol as p
from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub, post, sealed
from tests.helpers.tourney import API, Hall, create, draw, enrol, lowest_goes_out
from tests.hub.test_judge import PASSWORD, basic

Hub = tuple[str, Store]


def beat(hall: Hall, table: int, **said: Any) -> None:
    """A heartbeat from the device paired as ``table`` when ``hall`` paired it."""
    device, key = hall.keys[table]
    hall.seq[table] += 1
    body = {**p.Heartbeat(game=3, state="ready").json(), **said}
    answer = post(
        hall.url, "/api/v1/heartbeats", sealed(device, key, hall.seq[table], body, "heartbeat")
    )
    assert answer.status_code == 200, answer.text


def renumber(url: str, table: int, to: int, **more: Any) -> httpx.Response:
    return httpx.post(f"{url}/api/v1/tables/{table}/renumber", json={"table": to, **more})


def tables(url: str) -> dict[int, dict[str, Any]]:
    return {t["table"]: t for t in httpx.get(f"{url}/api/v1/tables").json()}


def test_a_renumbered_table_keeps_its_device_its_commands_and_is_told(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    hall = Hall(url, store, 3)
    beat(hall, 2)
    names = {"kind": "players", "args": {"A": "Ala"}}
    assert httpx.post(f"{url}/api/v1/tables/2/commands", json=names).status_code == 201
    said = renumber(url, 2, 12, reason="stół 2 przeniesiony pod okno")
    assert said.status_code == 200, said.text
    device = hall.keys[2][0]
    assert said.json() == {
        "status": "renumbered", "table": 12, "was": 2, "device": device, "id": said.json()["id"],
    }  # fmt: skip
    listed = tables(url)
    assert sorted(listed) == [1, 3, 12]
    moved = listed[12]
    assert moved["device"] == device
    assert moved["status"]["game"] == 3  # its last heartbeat follows it
    # the names still wait for it, then its new number
    assert [(c["kind"], c["args"]) for c in moved["commands"]] == [
        ("players", {"A": "Ala"}),
        ("renumber", {"table": 12}),
    ]
    beat(hall, 2, acks=[c["id"] for c in moved["commands"]])  # the table, by its device
    assert tables(url)[12]["commands"] == []
    (logged,) = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert {k: logged[k] for k in ("log", "kind", "table", "to", "reason", "by")} == {
        "log": "event", "kind": "renumber", "table": 2, "to": 12,
        "reason": "stół 2 przeniesiony pod okno", "by": "judge",
    }  # fmt: skip
    # its number is free again: a new table may take it
    assert renumber(url, 12, 2).status_code == 200
    assert sorted(tables(url)) == [1, 2, 3]


def test_a_number_another_table_holds_is_taken_only_to_replace_it(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    hall = Hall(url, store, 3)
    beat(hall, 3)
    store.now_ms.ms += 12_000  # type: ignore[attr-defined]
    held = renumber(url, 1, 3)
    assert (held.status_code, held.json()) == (409, {
        "error": "table 3 is paired already (last heard 12 s ago)",
        "held_by": {"table": 3, "seen_s_ago": 12},
    })  # fmt: skip
    polish = httpx.post(
        f"{url}/api/v1/tables/1/renumber", json={"table": 3}, headers={"Accept-Language": "pl"}
    )
    assert polish.json()["error"] == "stół 3 jest już sparowany (ostatni kontakt 12 s temu)"
    assert tables(url)[3]["device"] == hall.keys[3][0]  # nothing changed
    assert renumber(url, 1, 3, replace=True).status_code == 200
    listed = tables(url)
    assert sorted(listed) == [2, 3]
    assert listed[3]["device"] == hall.keys[1][0]
    # The device let go is unpaired: its envelopes are refused from now on.
    device, key = hall.keys[3]
    body = p.Heartbeat(game=3, state="ready").json()
    gone = post(url, "/api/v1/heartbeats", sealed(device, key, 99, body, "heartbeat"))
    assert gone.status_code == p.UNPAIRED_HTTP
    kinds = {e["kind"]: e for e in httpx.get(f"{url}{API}/{tid}/corrections").json()}
    assert {k: kinds["replace_table"][k] for k in ("table", "old_device", "new_device")} == {
        "table": 3, "old_device": device, "new_device": hall.keys[1][0],
    }  # fmt: skip
    assert (kinds["renumber"]["table"], kinds["renumber"]["to"]) == (1, 3)


def test_a_renumbering_is_refused_where_it_would_misfile_a_result(hub: Hub) -> None:
    url, store = hub
    hall = Hall(url, store, 3)
    refusals = [
        (renumber(url, 4, 9), 404, "table 4 is not paired"),
        (renumber(url, 1, 3), 409, "table 3 is paired already (not heard yet)"),
        (renumber(url, 1, 1), 409, "table 1 is paired already: choose another number"),
        (renumber(url, 1, 1000), 422, None),
        (renumber(url, 1, 5, reason="a\x00b"), 422, None),
    ]
    beat(hall, 2, game=4, state="move", mover="B")  # a game under way: its result says 2
    refusals.append(
        (renumber(url, 2, 9), 409, "table 2 is playing game 4: renumber it between games")
    )
    beat(hall, 3, outbox=1)  # a result still to send, as table 3
    refusals.append(
        (
            renumber(url, 3, 9),
            409,
            "table 3 has results still to send: renumber it once they are in",
        )
    )
    # the judge's command route does not renumber behind the hub's records
    sent = {"kind": "renumber", "args": {"table": 9}}
    refusals.append((httpx.post(f"{url}/api/v1/tables/1/commands", json=sent), 422, None))
    for answer, status, error in refusals:
        assert answer.status_code == status, answer.text
        if error is not None:
            assert answer.json()["error"] == error
    assert sorted(tables(url)) == [1, 2, 3]  # nothing changed
    assert all(t["commands"] == [] for t in tables(url).values())


def test_a_table_owing_games_of_a_round_it_took_is_not_renumbered(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)  # two tables of four
    drawn = draw(url, tid, random.Random(5))
    assert drawn.status_code == 201, drawn.text
    hall = Hall(url, store, 3)  # table 3: a spare
    # drawn, its lineup not sent yet: the judge may still move the table
    assert renumber(url, 3, 7).status_code == 200
    lineups = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"})
    assert lineups.status_code == 201, lineups.text
    refused = renumber(url, 1, 9)
    assert refused.status_code == 409
    assert refused.json()["error"] == (
        f"table 1 owes games of round 1 of tournament {tid}: renumber it once the round's "
        "results are in"
    )
    hall.play(tid, drawn.json(), lowest_goes_out, "tournament")
    assert renumber(url, 1, 9).status_code == 200, "the round's results are in"


@pytest.mark.slow  # a live hub
def test_only_the_judge_renumbers(store: Store) -> None:
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    with live_hub(store) as url:
        Hall(url, store, 1)
        assert renumber(url, 1, 2).status_code == 401
        said = httpx.post(
            f"{url}/api/v1/tables/1/renumber", json={"table": 2}, headers=basic("judge", PASSWORD)
        )
        assert said.status_code == 200, said.text


def test_one_table_is_not_started_while_it_runs_another_protocol(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    assert draw(url, tid, random.Random(3)).status_code == 201
    hall = Hall(url, store, 2)
    theirs = p.Health(version="0.9.0", protocol=p.REVISION + 1).json()
    beat(hall, 2, health=theirs)
    said = (
        f"table 2 runs protocol version {p.REVISION + 1}, the hub {p.REVISION}: update it, "
        "then start the round"
    )
    start = {"kind": "start", "args": {}}
    for answer in (
        httpx.post(f"{url}/api/v1/tables/2/commands", json=start),  # the table's own start
        httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start", "tables": [2]}),
    ):
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"] == said
    assert tables(url)[2]["commands"] == []  # nothing queued
    assert httpx.post(f"{url}/api/v1/tables/1/commands", json=start).status_code == 201
    beat(hall, 2, health={**theirs, "protocol": p.REVISION})  # updated
    assert httpx.post(f"{url}/api/v1/tables/2/commands", json=start).status_code == 201
