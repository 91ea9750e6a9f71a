"""A round sent while some of its tables are not paired yet (issue 37, point 3): the lineups,
the start and the round's end go to every paired table and the answer names the others; only
tables the judge names one by one are all sent or none."""

from __future__ import annotations

from typing import Any

import httpx

from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.tourney import API, create, enrol
from tests.hub.test_tournament_tables import sql_commands


def sent(url: str, tid: int, body: dict[str, Any]) -> httpx.Response:
    polish = {"accept-language": "pl"}  # as the console asks
    return httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json=body, headers=polish)


def test_a_round_goes_to_its_paired_tables_and_names_the_others(hub: tuple[str, Store]) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 12)  # three tables of four
    for table in (1, 3):
        hall.devices.pair(store, table)
    assert httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).status_code == 201

    lineups = sent(url, tid, {"kind": "game"})
    assert lineups.status_code == 201, lineups.text
    answer = lineups.json()
    assert [(x["table"], x["unpaired"]) for x in answer] == [(1, False), (2, True), (3, False)]
    assert [x["id"] is None for x in answer] == [False, True, False]
    queued = [(x["table_no"], x["kind"]) for x in sql_commands(store)]
    assert queued == [(1, "game"), (3, "game")]

    named = sent(url, tid, {"kind": "start", "tables": [1, 2]})
    assert named.status_code == 409, named.text
    assert named.json()["error"] == "stół 2 nie jest sparowany: sparuj go w zakładce Stoły"
    assert len(sql_commands(store)) == 2  # the judge's named tables: all or none

    started = sent(url, tid, {"kind": "start"})
    assert [(x["table"], x["unpaired"]) for x in started.json()] == [
        (1, False), (2, True), (3, False)
    ]  # fmt: skip
    clocks = httpx.get(f"{url}{API}/{tid}/rounds/1").json()["tables"]
    assert [x["clock"] is not None for x in clocks] == [True, False, True]

    hall.devices.pair(store, 2)  # paired on the Tables tab: the judge sends again
    again = sent(url, tid, {"kind": "start"})
    assert [(x["table"], x["unpaired"]) for x in again.json()] == [
        (1, False), (2, False), (3, False)
    ]  # fmt: skip
    queued = [(x["table_no"], x["kind"]) for x in sql_commands(store)]
    assert queued[-4:] == [(1, "start"), (2, "game"), (2, "start"), (3, "start")]
