"""Every table's health on the hub (issue 21, point 4): the warnings a heartbeat's ``health``
calls for (a pure function), the tables' answer carrying them, and no round started while a
table of it says another protocol revision than the hub's; on a real hub."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik.link import protocol as p
from klik.version import installed
from klik_hub.hall.health import LOW_FREE_MB, HealthWarning, other_protocol, warnings
from klik_hub.storage.store import Store
from tests.helpers.hubkit import post, sealed
from tests.helpers.tourney import API, Hall, create, draw, enrol

Hub = tuple[str, Store]
W = HealthWarning
FINE = p.Health(
    version="0.1.0", protocol=p.REVISION, clock_synced=True, cpu_temp_c=55,
    throttled=p.Throttled(), free_mb=5000, journal_kb=40,
)  # fmt: skip


def status(**change: Any) -> dict[str, Any]:
    """A heartbeat's body whose health is ``FINE`` with ``change``."""
    health = {**FINE.json(), **change}
    return {**p.Heartbeat(game=1, state="move", mover="A").json(), "health": health}


# One table's health, and what the judge is warned of (the hub runs 0.1.0, its revision).
@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({}, []),  # all is well: "OK"
        ({"throttled": {"now": ["under_voltage"], "since_boot": ["under_voltage"]}}, [W.UNDER_VOLTAGE]),
        ({"throttled": {"now": [], "since_boot": ["under_voltage"]}}, [W.UNDER_VOLTAGE]),  # an hour ago
        ({"cpu_temp_c": 80}, [W.HOT]),
        ({"cpu_temp_c": 79}, []),
        ({"throttled": {"now": ["soft_temp_limit"], "since_boot": ["soft_temp_limit"]}}, [W.HOT]),
        ({"throttled": {"now": [], "since_boot": ["throttling"]}}, []),  # past heat: gone now
        ({"free_mb": LOW_FREE_MB - 1}, [W.CARD_FULL]),
        ({"free_mb": LOW_FREE_MB}, []),
        ({"card": "ok", "card_errors": 3}, []),  # writes failed a while ago: the card took them since
        ({"card": "full", "free_mb": 0}, [W.CARD_FULL_NOW]),  # not "almost" full too
        ({"card": "read-only"}, [W.CARD_READ_ONLY]),
        ({"card": "no-permission", "free_mb": LOW_FREE_MB - 1}, [W.CARD_NO_PERMISSION, W.CARD_FULL]),
        ({"version": "0.2.0"}, [W.VERSION]),
        ({"protocol": p.REVISION + 1, "version": "0.2.0"}, [W.PROTOCOL]),  # the worse of the two
        ({"clock_synced": False}, [W.CLOCK]),
        ({"clock_synced": None, "cpu_temp_c": None, "free_mb": None, "throttled": None}, []),  # not read
        ({"panels_out": ["C"], "stuck": ["B"]}, [W.PANEL_OUT, W.STUCK]),
        ({"protocol": 7, "cpu_temp_c": 85, "clock_synced": False,
          "throttled": {"now": ["under_voltage"], "since_boot": []}},
         [W.PROTOCOL, W.UNDER_VOLTAGE, W.HOT, W.CLOCK]),  # the worst first
    ],
)  # fmt: skip
def test_the_warnings_a_table_s_health_calls_for(
    change: dict[str, Any], said: list[HealthWarning]
) -> None:
    assert warnings(status(**change), version="0.1.0", protocol=p.REVISION) == said


def test_a_table_without_health_has_no_warnings_and_no_known_protocol() -> None:
    older = p.Heartbeat(game=1).json()
    assert warnings(None) == warnings(older) == []
    assert other_protocol(None) is other_protocol(older) is None
    assert other_protocol(status()) is None
    assert other_protocol(status(protocol=p.REVISION + 1)) == p.REVISION + 1


class Tables:
    """The hall's tables sending heartbeats, each numbering its own."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.seq = dict.fromkeys(hall.keys, 0)

    def beat(self, table: int, health: p.Health | None) -> None:
        device, key = self.hall.keys[table]
        self.seq[table] += 1
        body = p.Heartbeat(game=1, state="ready", health=health).json()
        said = post(self.hall.url, "/api/v1/heartbeats",
                    sealed(device, key, self.seq[table], body, "heartbeat"))  # fmt: skip
        assert said.status_code == 200, said.text


def test_the_tables_answer_carries_each_table_s_warnings(hub: Hub) -> None:
    url, store = hub
    tables = Tables(Hall(url, store, 3))
    ours = installed()
    tables.beat(1, p.Health(version=ours, protocol=p.REVISION, clock_synced=True, free_mb=10))
    tables.beat(2, None)  # an older table
    said = {t["table"]: t for t in httpx.get(url + "/api/v1/tables").json()}
    assert said[1]["warnings"] == ["card_full"]
    assert said[1]["status"]["health"]["free_mb"] == 10
    assert said[2]["warnings"] == []
    assert said[3]["warnings"] == []  # never heard


def test_no_round_starts_while_a_table_of_it_runs_another_protocol(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 12)  # three tables of four
    assert draw(url, tid, random.Random(3)).status_code == 201
    tables = Tables(Hall(url, store, 3))
    ours = p.Health(version=installed(), protocol=p.REVISION)
    tables.beat(1, ours)
    tables.beat(2, p.Health(version="0.9.0", protocol=p.REVISION + 1))
    tables.beat(3, None)  # an older table, saying no revision: started
    start = f"{url}{API}/{tid}/rounds/1/commands"
    refused = httpx.post(start, json={"kind": "start"})
    assert refused.status_code == 409, refused.text
    assert refused.json() == {
        "error": f"table 2 runs protocol version {p.REVISION + 1}, the hub {p.REVISION}: "
        "update it, then start the round"
    }
    assert httpx.get(f"{url}/api/v1/tables").json()[1]["commands"] == []  # nothing queued
    # the others may start on their own; the lineups may go to every table
    assert httpx.post(start, json={"kind": "start", "tables": [1, 3]}).status_code == 201
    assert httpx.post(start, json={"kind": "game"}).status_code == 201
    tables.beat(2, ours)  # updated
    assert httpx.post(start, json={"kind": "start", "tables": [2]}).status_code == 201


@pytest.mark.browser
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_console_shows_each_table_s_health(hub: Hub) -> None:
    from playwright.sync_api import expect  # noqa: PLC0415 - only the page test pays for it

    from tests.helpers.browser import chromium_page  # noqa: PLC0415

    url, store = hub
    tables = Tables(Hall(url, store, 3))
    tables.beat(1, replace(FINE, version=installed(), cpu_temp_c=61))
    weak = p.Throttled(("under_voltage",), ("under_voltage",))
    sick = p.Health(version="0.0.9", protocol=p.REVISION, clock_synced=False, throttled=weak,
                    free_mb=12, panels_out=("C",), card="read-only", card_errors=7)  # fmt: skip
    tables.beat(2, sick)
    tables.beat(3, None)  # an older table
    with chromium_page(viewport={"width": 1280, "height": 640}) as page:
        page.goto(url + "/?lang=en")  # the Polish words wait for the catalogue's translation
        rows = page.locator("#hall > li")
        expect(rows).to_have_count(3)
        expect(rows.nth(0).get_by_test_id("health")).to_have_text("OK")
        expect(rows.nth(0).get_by_test_id("health")).to_have_attribute(
            "title", f"61 °C · 5000 MB · v{installed()}"
        )
        expect(rows.nth(1).get_by_test_id("health")).to_have_text(
            "card read-only: the game is not being kept; power supply too weak; "
            "card almost full; screen C out; other version than the hub; clock not synchronised"
        )
        expect(rows.nth(1).get_by_test_id("health")).to_have_attribute(
            "title", "12 MB · 7 failed writes · v0.0.9"
        )
        expect(rows.nth(2).get_by_test_id("health")).to_have_count(0)


@pytest.mark.slow
def test_a_real_table_s_heartbeat_brings_its_health_to_the_hub(hub: Hub, tmp_path: Path) -> None:
    from tests.hub.test_table_to_hub import paired_table  # noqa: PLC0415

    url, store = hub
    table = paired_table(store, url, tmp_path)
    try:
        deadline = time.monotonic() + 10
        while not (said := httpx.get(url + "/api/v1/tables").json()[0])["status"]:
            assert time.monotonic() < deadline, "no heartbeat"
            table.wait_idle(0.1)
    finally:
        table.stop()
    health = said["status"]["health"]
    assert (health["version"], health["protocol"]) == (installed(), p.REVISION)
    assert None not in (health["free_mb"], health["journal_kb"])
    assert not {"version", "protocol"} & set(said["warnings"])


def test_every_warning_is_documented() -> None:
    from tests.link.test_protocol_doc import section  # noqa: PLC0415

    said = section("#### A table's health")
    assert all(f"`{w}`" in said for w in HealthWarning)
