"""A player's own page (``GET /api/v1/p/{code}`` and ``/p/{code}``) through a small tournament,
on SQLite and PostgreSQL, and in Chromium on a phone.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the page (docs/player-page.png).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.tourney import Hall, create, lowest_goes_out

Hub = tuple[str, Store]
API = "/api/v1/tournaments"
DOCS = Path(__file__).resolve().parents[2] / "docs"
NAMES = ["Łucja Żak", "Źdźisław Ćwik", "Ania Nowak", "Bożena Kęs", "Jan Óssowski", "Ewa Śliwa",
         "Olek Wąs", "Iga Ńuk"]  # fmt: skip


def enrolled(url: str, tid: int) -> list[dict[str, Any]]:
    sent = [{"name": name, "club": f"SP {k % 3 + 1}"} for k, name in enumerate(NAMES)]
    answer = httpx.post(f"{url}{API}/{tid}/players", json=sent)
    assert answer.status_code == 201, answer.text
    given: list[dict[str, Any]] = answer.json()
    return given


def drawn(url: str, tid: int, seed: int, *, override: bool = False) -> dict[str, Any]:
    answer = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": seed, "override": override})
    assert answer.status_code == 201, answer.text
    round_: dict[str, Any] = answer.json()
    return round_


def seat_of(round_: dict[str, Any], player: int) -> tuple[dict[str, Any], str]:
    """The table (as drawn) that seats ``player``, and their seat at it."""
    for table in round_["tables"]:
        for seat, sitting in table["seats"].items():
            if sitting == player:
                return table, seat
    raise AssertionError(f"player {player} is not seated")


def report(tables: Hall, tid: int, round_: dict[str, Any], table: dict[str, Any]) -> None:
    """``table`` of ``round_`` reports its one game (the open format's): the lowest id goes out."""
    seats = table["seats"]
    racks = lowest_goes_out(round_["round"], table["table"], 1, seats)
    answer = tables.report(tid, round_["round"], table["table"], seats, racks,
                           rules="tournament", round_game=1)  # fmt: skip
    assert answer.status_code == 201, answer.text


def mine(url: str, code: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/v1/p/{code}")
    assert answer.status_code == 200, answer.text
    page: dict[str, Any] = answer.json()
    return page


def test_the_players_page_follows_them_through_a_small_tournament(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url, name="Liga szkolna")
    code = enrolled(url, tid)[0]["code"]  # player 1, Łucja Żak: the lowest id goes out
    before = mine(url, code)
    assert before.pop("revision")
    assert before == {
        "name": "Łucja Żak", "tournament": "Liga szkolna", "tournament_id": tid, "round": None,
        "table": None, "seat": None, "starts": None, "next": None, "games": [], "place": None,
        "stage": None, "notices": [], "checked_in": False, "check_in_open": False,
        "stages": [{"name": "rozgrywki", "title_en": "open play"}], "rating": None,
    }  # fmt: skip

    first = drawn(url, tid, 5)
    at, seat = seat_of(first, 1)
    now = mine(url, code)
    assert (now["round"], now["table"], now["seat"]) == (1, at["table"], seat)
    assert now["starts"] == "A"  # the open format: seat A starts a round's first game
    assert (now["next"], now["games"], now["place"]) == (None, [], None)

    # the other table reports, and the judge draws round 2 before player 1's table is done
    other = next(t for t in first["tables"] if t is not at)
    report(tables, tid, first, other)
    second = drawn(url, tid, 6, override=True)
    then, then_seat = seat_of(second, 1)
    now = mine(url, code)
    assert (now["round"], now["table"], now["seat"]) == (1, at["table"], seat)
    assert now["next"] == {"round": 2, "table": then["table"], "seat": then_seat}
    assert now["place"] is None  # no game of hers yet, though others have played

    report(tables, tid, first, at)  # her table's game comes in: she moves on
    now = mine(url, code)
    assert (now["round"], now["table"], now["seat"], now["next"]) == (
        2, then["table"], then_seat, None,
    )  # fmt: skip
    results = httpx.get(f"{url}{API}/{tid}/results").json()
    hers = [(x, s) for x in results for s, e in x["seats"].items() if e["player"] == 1]
    assert now["games"] == [
        {"round": 1, "stage": "rozgrywki", "game": 1, "table": at["table"], "seat": seat,
         "small": e["small"],
         "big": e["big"], "counts": True, "moves": e["moves"], "reserve": None}
        for x, s in hers
        for e in [x["seats"][s]]
    ]  # fmt: skip
    assert now["games"][0]["big"] > 0  # she went out
    places = {r["player"]: r["place"] for r in httpx.get(f"{url}{API}/{tid}/standings").json()}
    assert now["place"] == places[1]  # she and the other table's winner: one big point each
    assert now["stage"] is None  # the open format ranks every round together: no stage decides

    # an excluded game stays on her page, as not counting, and she loses her place
    result = hers[0][0]["id"]
    excluded = httpx.post(f"{url}{API}/{tid}/results/{result}/corrections",
                          json={"kind": "exclude", "value": True, "reason": "x"})  # fmt: skip
    assert excluded.status_code == 201, excluded.text
    now = mine(url, code)
    assert [g["counts"] for g in now["games"]] == [False]
    assert now["place"] is None
    # ... and she is told: the judge corrected her game (the reason stays on the console)
    assert [{k: n[k] for k in ("kind", "round", "game", "table")} for n in now["notices"]] == [
        {"kind": "correction", "round": 1, "game": 1, "table": at["table"]}
    ]
    # a deduction and a rename are told too
    given = httpx.post(
        f"{url}{API}/{tid}/sanctions",
        json={"player": 1, "kind": "deduction", "big": 2, "reason": "spóźnienie"},
    )
    assert given.status_code == 201, given.text
    renamed = httpx.patch(f"{url}{API}/{tid}/players/1", json={"club": "SP 9", "reason": "x"})
    assert renamed.status_code == 200, renamed.text
    told = mine(url, code)["notices"]
    assert sorted((n["kind"], n["big"] or 0) for n in told) == [
        ("correction", 0),
        ("deduction", 2),
        ("rename", 0),
    ]
    assert [n["at"] for n in told] == sorted(n["at"] for n in told)  # oldest first
    assert "spóźnienie" not in str(told)
    # her opponents in that game are told of its correction; nobody else of anything
    players = enrolled_codes(url, tid)
    opponent = next(p for p in players if p["id"] in at["seats"].values() and p["id"] != 1)
    assert [n["kind"] for n in mine(url, opponent["code"])["notices"]] == ["correction"]
    stranger = next(p for p in players if p["id"] not in at["seats"].values())
    assert mine(url, stranger["code"])["notices"] == []


def enrolled_codes(url: str, tid: int) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = httpx.get(f"{url}{API}/{tid}/players").json()
    return listed


@pytest.mark.parametrize(
    "code",
    [
        "Z" * 10,  # of the alphabet, but nobody's
        "zzzzzzzzzz",  # lower case: not the alphabet
        "0O1I234567",  # signs a code never has
        "ABC",  # too short
        "A" * 300,  # far too long
    ],
)
def test_a_code_that_is_nobodys_is_404_in_one_line(hub: Hub, code: str) -> None:
    url, _ = hub
    answer = httpx.get(f"{url}/api/v1/p/{code}")
    assert answer.status_code == 404
    assert answer.json() == {"error": "no player has this code; check the code on your badge"}
    page = httpx.get(f"{url}/p/{code}")
    assert page.status_code == 404
    assert "Nie ma takiego gracza" in page.text  # Polish first
    assert page.headers["referrer-policy"] == "no-referrer"


def test_the_page_says_where_to_sit_in_words_from_the_catalogue(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    code = enrolled(url, tid)[0]["code"]
    page = httpx.get(f"{url}/p/{code}")
    assert page.status_code == 200
    assert page.headers["referrer-policy"] == "no-referrer"
    assert code not in page.text  # in the address only
    assert "Teraz" in page.text
    assert '<script src="/player.js">' in page.text
    english = httpx.get(f"{url}/p/{code}", params={"lang": "en"})
    assert '<html lang="en">' in english.text
    assert "Now" in english.text
    script = httpx.get(f"{url}/player.js")
    assert script.headers["content-type"].startswith("text/javascript")


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"))


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_page_on_a_phone_updates_itself_as_results_come(phone: Page, hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url, name="Liga szkolna — Szczecin")
    code = enrolled(url, tid)[0]["code"]
    first = drawn(url, tid, 5)
    at, seat = seat_of(first, 1)

    phone.goto(f"{url}/p/{code}")
    expect(phone.get_by_test_id("where")).to_have_text(f"Stół {at['table']} · miejsce {seat}")
    expect(phone.get_by_test_id("starts")).to_have_text("Pierwszą grę zaczyna miejsce A.")
    expect(phone.get_by_test_id("name")).to_have_text("Łucja Żak")
    expect(phone.get_by_test_id("next")).to_be_hidden()
    expect(phone.get_by_test_id("summary")).to_have_text("Jeszcze bez gier.")
    size = phone.evaluate("parseFloat(getComputedStyle(document.getElementById('where')).fontSize)")
    assert size >= 30  # px: the table and seat read at arm's length
    assert no_sideways_scroll(phone)

    # while the page is open: the other table reports, round 2 is drawn, then her table reports
    other = next(t for t in first["tables"] if t is not at)
    report(tables, tid, first, other)
    second = drawn(url, tid, 6, override=True)
    then, then_seat = seat_of(second, 1)
    # told by the tournament's events within a second (it would ask by itself once a minute)
    in_time = 3_000
    expect(phone.get_by_test_id("next-spot")).to_have_text(
        f"Runda 2: stół {then['table']} · miejsce {then_seat}", timeout=in_time
    )
    report(tables, tid, first, at)
    expect(phone.get_by_test_id("where")).to_have_text(
        f"Stół {then['table']} · miejsce {then_seat}", timeout=in_time
    )
    expect(phone.get_by_test_id("round")).to_have_text("Runda 2")
    expect(phone.get_by_test_id("next")).to_be_hidden()
    expect(phone.get_by_test_id("games").locator("tr")).to_have_count(1)
    expect(phone.get_by_test_id("summary")).to_have_text("Liczy się 1 gra")
    places = {r["player"]: r["place"] for r in httpx.get(f"{url}{API}/{tid}/standings").json()}
    expect(phone.get_by_test_id("place")).to_have_text(f"{places[1]}.")
    assert no_sideways_scroll(phone)
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        # the picture: round 3 drawn while her table of round 2 plays, so every part shows
        report(tables, tid, second, next(t for t in second["tables"] if t is not then))
        third = drawn(url, tid, 7, override=True)
        later, later_seat = seat_of(third, 1)
        expect(phone.get_by_test_id("next-spot")).to_have_text(
            f"Runda 3: stół {later['table']} · miejsce {later_seat}", timeout=in_time
        )
        phone.set_viewport_size({"width": 390, "height": 844})
        phone.screenshot(path=str(DOCS / "player-page.png"), full_page=True)

    phone.goto(f"{url}/p/{code}?lang=en")
    expect(phone.get_by_test_id("where")).to_have_text(f"Table {then['table']} · seat {then_seat}")
    expect(phone.get_by_test_id("summary")).to_have_text("1 game counts so far")

    missing = phone.goto(f"{url}/p/ZZZZZZZZZZ")
    assert missing is not None
    assert missing.status == 404
    expect(phone.get_by_test_id("missing")).to_contain_text("Nie ma takiego gracza")
    assert no_sideways_scroll(phone)
