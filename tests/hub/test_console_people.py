"""People and ratings in real headless Chromium: the judge links a second meeting's enrolment
to the person who played the first (the console suggests them; nothing merges by itself), and
the rating list and a player's page show the ratings, in Polish."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.tourney import API, Hall
from tests.hub.test_hub_page import DOCS

PASSWORD = "sędzia-główny-2026"


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 800}) as page:
        yield page


def meeting(url: str, hall: Hall, name: str, players: list[str]) -> list[dict[str, object]]:
    """A meeting of one table: enrolled, drawn and its one game played (seat A goes out)."""
    tid = int(httpx.post(url + API, json={"name": name, "format": "open"}).json()["id"])
    enrolled = httpx.post(f"{url}{API}/{tid}/players",
                          json=[{"name": n, "club": "SP 3"} for n in players]).json()  # fmt: skip
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    seats = drawn["tables"][0]["seats"]
    racks = {s: 0 if s == "A" else 9 * i for i, s in enumerate(seats, start=1)}
    assert hall.report(tid, 1, 1, seats, racks, rules="tournament", round_game=1).status_code == 201
    return list(enrolled)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_links_a_person_and_the_pages_show_their_rating(
    page: Page, hub: tuple[str, Store]
) -> None:
    url, store = hub
    hall = Hall(url, store, 1)
    first = meeting(url, hall, "Spotkanie 1", ["Jan Kos", "Ewa Śliwa", "Ola Wąs"])
    second = meeting(url, hall, "Spotkanie 2", ["Jan Kos", "Ewa Śliwa", "Bożena Kęs"])
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    jan = next(p for p in second if p["name"] == "Jan Kos")

    page.goto(url)
    page.locator("#login-open").click()  # the players' list is the judge's
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("login-ok").click()
    page.get_by_test_id("tab-setup").click()
    page.get_by_test_id(f"act-person-{jan['id']}").click()
    choice = page.get_by_test_id("act-person").locator("option")
    expect(choice).to_have_count(1)
    expect(choice).to_have_text("Jan Kos, SP 3 (Spotkanie 1)")
    page.get_by_test_id("act-reason").fill("ten sam gracz co w spotkaniu 1")
    page.get_by_test_id("act-reason").press("Enter")  # by the keyboard, as every action
    expect(page.get_by_test_id("message")).to_contain_text("Połącz ze znaną osobą")
    was = next(p for p in first if p["name"] == "Jan Kos")
    assert was["person"] != jan["person"]  # two people until the judge linked them
    rated = {x["person"]: x["games"] for x in httpx.get(f"{url}/api/v1/ratings").json()}
    assert rated[was["person"]] == 2  # one person now, of both meetings
    assert jan["person"] not in rated

    # A season of the two meetings, made and filled from the console.
    page.get_by_test_id("seasons").locator("summary").click()
    page.get_by_test_id("s-name").fill("Liga 2026/27")
    page.get_by_test_id("s-points").fill("10, 6, 3")
    page.get_by_test_id("s-create").click()
    expect(page.get_by_test_id("message")).to_have_text("Utworzono sezon 1.")
    expect(page.get_by_test_id("s-season").locator("option")).to_have_text(
        ["Liga 2026/27 (0 spotkań)"]
    )
    page.get_by_test_id("s-add").click()  # the tournament on screen: meeting 2
    expect(page.get_by_test_id("message")).to_have_text("Turniej 2 jest teraz spotkaniem sezonu.")
    expect(page.get_by_test_id("s-add")).to_be_disabled()  # once only
    page.locator("#tournament").select_option("1")
    page.get_by_test_id("s-add").click()
    expect(page.get_by_test_id("message")).to_have_text("Turniej 1 jest teraz spotkaniem sezonu.")
    expect(page.get_by_test_id("s-season").locator("option")).to_have_text(
        ["Liga 2026/27 (2 spotkania)"]
    )
    table = httpx.get(f"{url}/api/v1/seasons/1/standings").json()
    assert next(x for x in table if x["person"] == was["person"])["meetings"] == 2
    with page.context.expect_page() as opened:  # the season on the hall's screen
        page.get_by_test_id("s-projector").click()
    screen = opened.value
    expect(screen.get_by_test_id("title")).to_have_text("Liga 2026/27")
    expect(screen.get_by_test_id("rows").locator("tr")).to_have_count(len(table))
    expect(screen.locator("#head")).to_contain_text("Punkty")
    screen.close()
    page.goto(f"{url}/t/2")  # the meeting's public board links to its season's table
    expect(page.get_by_test_id("seasons")).to_have_text("Sezon: Liga 2026/27")
    page.get_by_test_id("seasons").locator("a").click()
    expect(page.get_by_test_id("season").locator("tbody tr")).to_have_count(len(table))
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        page.set_viewport_size({"width": 390, "height": 560})
        page.screenshot(path=str(DOCS / "season.png"))
        page.set_viewport_size({"width": 1280, "height": 800})

    # The rating list: every rated person, best first, provisional marked.
    page.goto(f"{url}/ratings")
    rows = page.get_by_test_id("ratings").locator("tbody tr")
    expect(rows).to_have_count(5)  # 6 enrolments, 5 people
    expect(page.locator("h1")).to_have_text("Rankingi")
    expect(rows.first).to_contain_text("*")
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        page.set_viewport_size({"width": 390, "height": 560})
        page.screenshot(path=str(DOCS / "ratings.png"))

    # A player's page: their rating and today's change (all of it today: from 0).
    ewa = next(p for p in second if p["name"] == "Ewa Śliwa")
    page.goto(f"{url}/p/{ewa['code']}")
    expect(page.get_by_test_id("rating")).to_have_text(
        re.compile(r"^Ranking -?\d+\.\d \(wstępny\), dziś [+−]\d+\.\d$")
    )
