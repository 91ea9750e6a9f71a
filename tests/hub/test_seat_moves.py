"""How each seat moved, for the judge (issue 20, 7): a result's seats' ``moves`` kept and listed
(an older table's result, without them, kept as before), a heartbeat's figures picked over for
slow movers and repeated timeouts, and the console showing them while the round runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub import hall
from klik_hub.hall.heartbeats import watch
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.hubkit import post, sealed
from tests.helpers.tourney import API, Hall, body_of, create, enrol

Hub = tuple[str, Store]


def moves(count: int, mean_s: float, longest_s: float, timeouts: int = 0) -> dict[str, int]:
    """A seat's figures as a table sends them."""
    return {"count": count, "draws": 0, "timeouts": timeouts,
            "mean_ms": round(mean_s * 1000), "longest_ms": round(longest_s * 1000)}  # fmt: skip


def heartbeat(**more: Any) -> dict[str, Any]:
    return {"state": "move", "mover": "C", "left_ms": 41_000, "draw_tiles": 28, "judge": False,
            "names": {"A": "Łucja Żak", "B": "Ewa Śliwa", "C": "Jan", "D": "Iga"},
            "outbox": 0, "last_seq": 0, "game": 1, "acks": [], **more}  # fmt: skip


# The table's move time is 60 s: slow is a mean of 48 s or more over 3 moves or more.
FIGURES = {
    "A": moves(4, 20.0, 41.0),  # quick
    "B": moves(3, 48.0, 55.0),  # slow: 80% of the move time, from the third move
    "C": moves(2, 59.0, 60.0),  # as slow, but two moves are no habit yet
    "D": moves(5, 30.0, 60.0, timeouts=2),  # two timeouts
}


@pytest.mark.parametrize(
    ("status", "seen"),
    [
        (heartbeat(move_time_ms=60_000, moves=FIGURES), [("B", True, 0), ("D", False, 2)]),
        (heartbeat(move_time_ms=90_000, moves=FIGURES), [("D", False, 2)]),  # 48 s of 90: fine
        (heartbeat(moves=FIGURES), [("D", False, 2)]),  # no move time: timeouts only
        (heartbeat(), []),  # an older table's heartbeat: no figures
        (None, []),  # a table never heard from
    ],
)
def test_the_seats_to_watch_are_slow_movers_and_repeated_timeouts(
    status: dict[str, Any] | None, seen: list[tuple[str, bool, int]]
) -> None:
    assert [(w["seat"], w["slow"], w["timeouts"]) for w in watch(status)] == seen


def test_a_watched_seat_is_named_with_its_figures() -> None:
    [b, _] = watch(heartbeat(move_time_ms=60_000, moves=FIGURES))
    assert b == {"seat": "B", "name": "Ewa Śliwa", "slow": True, "timeouts": 0, "count": 3,
                 "mean_ms": 48_000, "longest_ms": 55_000}  # fmt: skip


def test_a_result_with_and_without_its_seats_moves_is_kept_and_listed(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    tables = Hall(url, store, 2)
    sent = {}
    for table in drawn["tables"]:
        k, seats = table["table"], table["seats"]
        racks = {s: 0 if s == "A" else 10 * (i + 1) for i, s in enumerate(seats)}
        body = body_of(tid, 1, k, 1, seats, racks=racks, rules="tournament", round_game=1)
        if k == 1:  # a newer table: every seat's moves, adding up to the body's
            figures = [moves(8, 20.0, 40.0), moves(8, 30.0, 60.0, timeouts=1)]
            figures += [moves(7, 25.0, 45.0), moves(7, 22.0, 44.0)]
            for seat, these in zip(body["seats"], figures, strict=False):
                body["seats"][seat]["moves"] = these
            body["moves"] = sum(f["count"] for f in figures[: len(seats)])
            body["timeouts"] = 1
        sent[k] = body
        assert tables.send(k, body).status_code == 201  # kept, either way

    listed = {x["table"]: x for x in httpx.get(f"{url}{API}/{tid}/results").json()}
    assert set(listed) == {1, 2}
    for seat, entry in listed[1]["seats"].items():
        assert entry["moves"] == sent[1]["seats"][seat]["moves"]
    assert all(entry["moves"] is None for entry in listed[2]["seats"].values())  # an older table
    raw = {x["table"]: x["body"] for x in httpx.get(f"{url}/api/v1/results").json()}
    assert raw == sent  # as signed
    # each player's own page shows their figures of the game (none from the older table)
    codes = {p["id"]: p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    for k, table in ((1, drawn["tables"][0]), (2, drawn["tables"][1])):
        for seat, player in table["seats"].items():
            [game] = httpx.get(f"{url}/api/v1/p/{codes[player]}").json()["games"]
            assert game["moves"] == (sent[1]["seats"][seat]["moves"] if k == 1 else None)


def test_a_heartbeats_figures_show_on_the_tables_listing_and_bad_ones_are_refused(
    hub: Hub,
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    beat = heartbeat(move_time_ms=60_000, moves=FIGURES)
    assert post(url, "/api/v1/heartbeats", sealed(device, key, 1, beat, "heartbeat")).is_success
    [table] = httpx.get(url + "/api/v1/tables").json()
    assert table["status"]["moves"] == FIGURES
    assert [(w["seat"], w["name"], w["slow"], w["timeouts"]) for w in table["watch"]] == [
        ("B", "Ewa Śliwa", True, 0),
        ("D", "Iga", False, 2),
    ]
    wrong = heartbeat(moves={"B": {**FIGURES["B"], "mean_ms": 56_000}})  # longer than its longest
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 2, wrong, "heartbeat"))
    assert (answer.status_code, answer.json()["error"]) == (
        422,
        "body.moves.B.mean_ms: must be at most longest_ms",
    )
    assert httpx.get(url + "/api/v1/tables").json()[0]["watch"] == table["watch"]  # unchanged


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 640}) as page:
        yield page


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_console_shows_a_tables_slow_movers_and_repeated_timeouts(page: Page, hub: Hub) -> None:
    url, store = hub
    one, key_one = hall.devices.pair(store, 1)
    two, key_two = hall.devices.pair(store, 2)
    beat = heartbeat(move_time_ms=60_000, moves=FIGURES)
    post(url, "/api/v1/heartbeats", sealed(one, key_one, 1, beat, "heartbeat"))
    post(url, "/api/v1/heartbeats", sealed(two, key_two, 1, heartbeat(), "heartbeat"))  # older
    page.goto(url)
    rows = page.locator("#hall > li")
    expect(rows).to_have_count(2)
    watched = rows.nth(0).get_by_test_id("watch")
    expect(watched).to_have_text([
        "B Ewa Śliwa: wolno: średnio 48 s na ruch, najdłużej 55 s",
        "D Iga: 2 upłynięcia czasu",
    ])  # fmt: skip
    expect(rows.nth(1).get_by_test_id("watch")).to_have_count(0)

    page.get_by_text("English").click()
    expect(watched).to_have_text([
        "B Ewa Śliwa: slow: 48 s a move on average, longest 55 s",
        "D Iga: 2 timeouts",
    ])  # fmt: skip
