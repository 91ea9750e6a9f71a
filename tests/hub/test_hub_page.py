"""The judge's live page in real headless Chromium, against a real hub on loopback.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the page (docs/hub.png).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub import hall
from klik_hub.door import guard
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.hubkit import live_hub, post, result_body, sealed
from tests.helpers.tourney import API, Hall, create, enrol

DOCS = Path(__file__).parents[2] / "docs"


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 640}) as page:
        yield page


def beat(store: Store, url: str, device: str, key: str, seq: int, **state: object) -> None:
    body = {"state": "move", "mover": "B", "left_ms": 41_000, "draw_tiles": 28, "judge": False,
            "outbox": 0, "last_seq": 1, "game": 2, "acks": [], **state}  # fmt: skip
    assert post(url, "/api/v1/heartbeats", sealed(device, key, seq, body, "heartbeat")).is_success


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_live_page_shows_tables_results_and_pauses_a_table(
    page: Page, hub: tuple[str, Store]
) -> None:
    url, store = hub
    one, key_one = hall.devices.pair(store, 1)
    two, key_two = hall.devices.pair(store, 2)
    hall.devices.pair(store, 3)  # paired, never heard from
    post(url, "/api/v1/results", sealed(one, key_one, 1, result_body(table=1)))
    mismatch = result_body(table=2, game=4)
    mismatch["seats"]["C"]["small"] = -20  # the table scored C wrong
    post(url, "/api/v1/results", sealed(two, key_two, 1, mismatch))
    beat(store, url, one, key_one, 1)
    beat(store, url, two, key_two, 1, state="paused", mover="D", judge=True, paused_by="D",
         refused=[{"seq": 3, "game": 5, "error": "body.finished_at: not a time"}])  # fmt: skip
    receipts = [r["receipt"] for r in hall.results.newest(store)]

    # Every request the console makes says its language, the one the hub's errors come in.
    languages: list[str | None] = []
    page.on(
        "request",
        lambda r: "/api/" in r.url and languages.append(r.header_value("accept-language")),
    )
    page.goto(url)
    rows = page.locator("#hall > li")
    expect(rows).to_have_count(3)
    expect(rows.nth(1)).to_have_class(re.compile(r"\bjudge\b"))  # table 2's player calls
    expect(rows.nth(1)).to_contain_text("WZYWA SĘDZIEGO")
    expect(rows.nth(1).get_by_test_id("refused")).to_have_text("wynik gry 5 odrzucony")
    expect(rows.nth(2)).to_contain_text("jeszcze nie było")
    results = page.locator("#results tbody tr")
    expect(results).to_have_count(2)
    expect(results.nth(0)).to_contain_text(f"R-{receipts[0]}")
    expect(results.nth(0)).to_contain_text("niezgodne")
    expect(results.nth(1)).to_contain_text("zgodne")
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        page.screenshot(path=str(DOCS / "hub.png"))

    with page.expect_request("**/commands") as command:
        rows.nth(0).get_by_role("button", name="Pauza").click()
    assert command.value.header_value("accept-language") == "pl"
    expect(rows.nth(0)).to_contain_text("wysłano")
    assert [c["kind"] for c in hall.devices.tables(store)[0]["commands"]] == ["pause"]
    assert set(languages) == {"pl"}  # every request so far, and there were some

    page.get_by_text("English").click()
    expect(page.locator("h1")).to_have_text("Klik — judge's hub")
    expect(rows.nth(0)).to_contain_text("pile 28")  # the glossary's word
    expect(rows.nth(2)).to_contain_text("not yet")
    with page.expect_request("**/api/v1/tables") as asked:
        pass  # the next second's refresh
    assert asked.value.header_value("accept-language") == "en"


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_full_disk_is_a_red_banner_on_the_console(page: Page, store: Store) -> None:
    troubles = guard.Troubles()
    with live_hub(store, troubles=troubles) as url:
        page.goto(url)
        banner = page.get_by_test_id("trouble")
        expect(banner).to_be_hidden()
        troubles.met(guard.DISK_FULL)  # as a write meeting a full disk tells it
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("Dysk huba jest pełny")
        assert banner.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(187, 0, 0)"


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_one_list_says_what_needs_the_judge_now_oldest_first(
    page: Page, hub: tuple[str, Store]
) -> None:
    """Issue 37, point 6: above the hall, one list of what needs the judge, oldest first, each
    with its action: a points mismatch, a table silent for 30 s in a game, a judge call, a
    result the hub refused."""
    url, store = hub
    one, key_one = hall.devices.pair(store, 1)
    two, key_two = hall.devices.pair(store, 2)
    post(url, "/api/v1/results", sealed(one, key_one, 1, result_body(table=1)))
    mismatch = result_body(table=2, game=4)
    mismatch["seats"]["C"]["small"] = -20  # the table scored C wrong
    post(url, "/api/v1/results", sealed(two, key_two, 1, mismatch))
    beat(store, url, one, key_one, 1)
    store.now_ms.ms += 45_000  # type: ignore[attr-defined]  # the tests' clock: table 1 is silent
    beat(store, url, two, key_two, 1, state="paused", mover="D", judge=True, paused_by="D",
         refused=[{"seq": 3, "game": 5, "error": "body.finished_at: not a time"}])  # fmt: skip
    (wrong,) = [r for r in hall.results.newest(store) if r["table"] == 2]

    page.goto(url)
    needs = page.get_by_test_id("needs").locator("li")
    expect(needs).to_have_count(4)
    expect(needs.nth(0)).to_have_text(f"Stół 2 gra 4 · R-{wrong['receipt']} · niezgodne")
    expect(needs.nth(1)).to_have_text(re.compile(r"^Stół 1 brak kontaktu od 4\d s Pokaż stół$"))
    expect(needs.nth(2)).to_have_text("Stół 2 D wzywa sędziego Pokaż stół")  # no names: no lineup
    expect(needs.nth(3)).to_contain_text("Stół 2 wynik gry 5 odrzucony")
    needs.nth(1).get_by_role("button", name="Pokaż stół").click()
    table_one = page.locator("#hall > li[data-table='1']")
    expect(table_one.get_by_role("button").first).to_be_focused()  # its row, ready to act on


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_held_or_unplaced_result_is_listed_with_its_action(
    page: Page, hub: tuple[str, Store]
) -> None:
    """A result of the tournament held for the judge (played under other rules) is listed with
    *Popraw*, which opens its correction; one that fills no slot of the round (a game too
    many) with *Przypisz*, which opens the round's tab where it is assigned."""
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    tables = Hall(url, store, 2)
    first, second = drawn["tables"]
    seats = {s: str(p) for s, p in first["seats"].items()}
    assert tables.report(tid, 1, 1, seats, {s: 10 * k for k, s in enumerate(seats)},
                         rules="league", round_game=1).status_code == 201  # fmt: skip
    seats = {s: str(p) for s, p in second["seats"].items()}
    assert tables.report(tid, 1, 2, seats, {s: 10 * k for k, s in enumerate(seats)},
                         rules="tournament", round_game=3).status_code == 201  # fmt: skip
    page.goto(f"{url}/?t={tid}")
    needs = page.get_by_test_id("needs").locator("li")
    expect(needs).to_have_count(2)
    expect(needs.nth(0)).to_contain_text("Stół 1 gra 1 · R-")
    expect(needs.nth(0)).to_contain_text("inne zasady")
    expect(needs.nth(1)).to_contain_text("Stół 2 gra 1 · R-")  # its own count: its first game
    expect(needs.nth(1)).to_contain_text("poza rundą")
    needs.nth(0).get_by_role("button", name="Popraw").click()
    expect(page.get_by_role("tab", name="Wyniki turnieju")).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.locator("#correct-what")).to_contain_text("runda 1, stół 1, gra 1")
    page.get_by_test_id("tab-live").click()
    needs.nth(1).get_by_role("button", name="Przypisz").click()
    expect(page.get_by_role("tab", name="Runda")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("unplaced").locator("form")).to_have_count(1)
