"""Every page without sight or a mouse (issue 40, point 4), in real headless Chromium against
one hub whose tournament is in play, mid-round: the console's every tab (and its dialogs),
the projector, the phone board and a player's page have no axe-core violation of any impact
(WCAG 2.0/2.1 A and AA); under ``prefers-reduced-motion: reduce`` nothing on them animates;
the phone pages at 360 px with the root font size doubled lose nothing; and every state the
console, the board and a player's page show in colour is also said in words."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.hubkit import Clock, live_hub, post, sealed
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium and a live hub, shared

WCAG_AA = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


def violations(page: Page) -> list[str]:
    """Every WCAG 2.1 AA violation on the page as it is, of any impact: rule, elements."""
    found: dict[str, Any] = Axe().run(page, options=WCAG_AA).response
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]} — {v['help']}"
        for v in found["violations"]
    ]


@dataclass(frozen=True)
class Day:
    url: str
    tid: int
    code: str  # a player's page's code: the withdrawn-and-deducted player's


BEATS = itertools.count(1)  # heartbeats' seq: each above the last, whichever the table


def beat(url: str, hall: Hall, table: int, body: dict[str, object]) -> None:
    """A heartbeat of ``table``'s game: its state, mover, names."""
    device, key = hall.keys[table]
    status = {"game": 1, "left_ms": 20_000, "draw_tiles": 30, "judge": False,
              "paused_by": None, "outbox": 0, "last_seq": 1, "acks": [], **body}  # fmt: skip
    seq = next(BEATS)
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, seq, status, kind="heartbeat"))
    assert answer.status_code == 200, answer.text


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    """A hub with an open tournament of 16 in play: round 1 played, round 2 drawn, started and
    half reported, one result held in conflict; a player withdrawn, one deducted, the check-in
    open; the hall's four tables each in another state (a judge call, a move, game over,
    paused)."""
    store = Store(open_engine(str(tmp_path_factory.mktemp("a11y") / "hub.sqlite")), Clock())
    with live_hub(store) as url:
        tid = create(url, name="Turniej Szkół", round_time_s=3000)
        enrol(url, tid, 16)
        hall = Hall(url, store, 4)
        first = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
        hall.play(tid, first, lowest_goes_out, "tournament")
        for sent in (
            {"player": 9, "kind": "deduction", "big": 1, "reason": "rozmowa"},
            {"player": 5, "kind": "warning", "reason": "spóźnienie"},
        ):
            httpx.post(f"{url}{API}/{tid}/sanctions", json=sent).raise_for_status()
        second = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}).json()
        httpx.post(f"{url}{API}/{tid}/rounds/2/commands", json={"kind": "start"}).raise_for_status()
        hall.play(tid, {**second, "tables": second["tables"][:2]}, lowest_goes_out, "tournament")
        httpx.patch(
            f"{url}{API}/{tid}/players/16", json={"active": False, "reason": "wyjechał"}
        ).raise_for_status()
        httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True}).raise_for_status()
        httpx.post(f"{url}{API}/{tid}/play").raise_for_status()
        names = {p["id"]: p["name"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
        for table, body in (
            (1, {"state": "paused", "mover": "B", "judge": True, "paused_by": "C"}),
            (2, {"state": "done", "mover": None, "left_ms": None}),
            (3, {"state": "move", "mover": "A"}),
            (4, {"state": "paused", "mover": "D", "paused_by": "D"}),
        ):
            seats = second["tables"][table - 1]["seats"]
            beat(url, hall, table, {**body, "names": {s: names[p] for s, p in seats.items()}})
        # Table 4 sends a game it played without the round's lineup: held, in no slot.
        nobody = dict.fromkeys(second["tables"][3]["seats"])
        hall.report(None, None, 4, nobody, {"A": 0, "B": 5, "C": 9, "D": 12}, rules="tournament")
        code = httpx.get(f"{url}{API}/{tid}/players").json()[8]["code"]
        yield Day(url, tid, code)
    store.engine.dispose()


@pytest.fixture(scope="module")
def browser_page(day: Day) -> Iterator[Page]:
    """One Chromium page for the module's tests, 1366 × 768 (the judge's laptop), closed
    before the hub stops (its pages hold the hub's stream of events open)."""
    with chromium_page(viewport={"width": 1366, "height": 768}) as page:
        yield page


TABS = ("live", "setup", "round", "scores", "standings")


def test_every_page_passes_axe_with_no_violation_of_any_impact(
    browser_page: Page, day: Day
) -> None:
    page = browser_page
    page.goto(f"{day.url}/?t={day.tid}")
    found: dict[str, list[str]] = {}
    for tab in TABS:
        page.get_by_test_id(f"tab-{tab}").click()
        expect(page.get_by_test_id(f"tab-{tab}")).to_have_attribute("aria-selected", "true")
        page.wait_for_load_state("networkidle")
        found[tab] = violations(page)
        # What opens on a tab: a player's dialog, a result's correction.
        opens = {"setup": ("[data-testid=act-change-3]", "#act"),
                 "scores": ("#tresults button[data-fix]", "#correct")}  # fmt: skip
        if tab in opens:
            button, opened = opens[tab]
            page.locator(button).first.click()
            expect(page.locator(opened)).to_be_visible()
            found[f"{tab}, opened"] = violations(page)
            page.keyboard.press("Escape")
    expect(page.locator("#unplaced form")).to_have_count(1)  # was on the round tab too
    for path, ready in (
        (f"/projector?t={day.tid}", "#rows tr"),
        (f"/t/{day.tid}", "#standings tr"),
        (f"/p/{day.code}", "#games tr"),
    ):
        page.goto(day.url + path)
        expect(page.locator(ready).first).to_be_visible()
        found[path] = violations(page)
    assert {k: v for k, v in found.items() if v} == {}


# The elements (not inline) whose content is wider than their box: cut off or spilling out.
# Words kept for a screen reader alone (clipped to a pixel, the .sr-only way) are not shown.
SPILLED = """() => [...document.querySelectorAll('body *')].filter(e => {
    for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).clip !== 'auto') return false;
    return getComputedStyle(e).display !== 'inline' && e.getClientRects().length > 0
        && e.scrollWidth > e.clientWidth + 1; }).map(e => e.outerHTML.slice(0, 120))"""


def test_the_phone_pages_lose_nothing_at_twice_the_text_size(browser_page: Page, day: Day) -> None:
    """The pages size their words in rem (phone.html): a phone's text size is the root's font
    size, here doubled as Chrome's own font-size setting doubles it."""
    page = browser_page
    page.set_viewport_size({"width": 360, "height": 800})
    for path, ready in ((f"/t/{day.tid}", "#standings tr"), (f"/p/{day.code}", "#games tr")):
        page.goto(day.url + path)
        expect(page.locator(ready).first).to_be_visible()
        normal = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == 2 * normal
        assert page.evaluate(SPILLED) == [], path
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), path
        assert violations(page) == [], path  # a table's lines as two are still a table
    page.set_viewport_size({"width": 1366, "height": 768})


# A rule some later change might add: every element moves, in a transition and an animation.
MOVING = """() => { const style = document.createElement('style');
    style.textContent = 'body * { transition: opacity 1s; animation: klik-pulse 1s infinite; }'
        + ' @keyframes klik-pulse { to { opacity: 0.5; } }';
    document.head.append(style); }"""
# The elements that still move: an animation or a transition that takes time.
STILL_MOVING = """() => [...document.querySelectorAll('body *')].filter(e => {
    const s = getComputedStyle(e);
    return s.animationName !== 'none' || s.transitionDuration.split(',').some(d => parseFloat(d) > 0);
    }).map(e => e.outerHTML.slice(0, 80))"""


def test_nothing_moves_for_a_reader_who_asks_for_less_motion(browser_page: Page, day: Day) -> None:
    page = browser_page
    for path, ready in (
        (f"/?t={day.tid}", "#hall > li"),
        (f"/t/{day.tid}", "#standings tr"),
        (f"/p/{day.code}", "#games tr"),
    ):
        for motion in ("no-preference", "reduce"):
            page.emulate_media(reduced_motion=motion)
            page.goto(day.url + path)
            expect(page.locator(ready).first).to_be_visible()
            page.evaluate(MOVING)
            moving = page.evaluate(STILL_MOVING)
            if motion == "reduce":
                assert moving == [], path
            else:  # the rule moves what it can: the pages' guard is what stills it
                assert len(moving) > 10, path
    page.emulate_media(reduced_motion="no-preference")


def texts(page: Page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def test_no_state_is_shown_by_colour_alone(browser_page: Page, day: Day) -> None:
    """Each state the pages colour (a tile's left edge and background, a red row or cell, a
    green word) is also said in words, in the coloured element itself."""
    page = browser_page
    page.goto(f"{day.url}/?t={day.tid}")
    hall = page.get_by_test_id("hall")
    expect(hall.locator("> li")).to_have_count(4)
    # A tile's state: its class colours it, its sign and word say it.
    for table, state, words in (
        (1, "judge", "⚠ C WZYWA SĘDZIEGO"),  # yellow, a red edge
        (2, "done", "✓ koniec gry"),
        (3, "move", "▶ ruch"),  # a green edge
        (4, "paused", "❚❚ pauza"),  # a blue edge
    ):
        tile = hall.locator(f"> li[data-table='{table}']")
        expect(tile).to_have_class(f"tile {state}")
        expect(tile.get_by_test_id("state")).to_have_text(words)
    # The round at each tile: the games owed, or all in (in green).
    expect(hall.locator("> li[data-table='1'] .round .ok")).to_have_text("komplet")
    expect(hall.locator("> li[data-table='4'] .round")).to_contain_text("brak 1 gry")
    # What needs the judge, in red elsewhere, is a line of words here.
    expect(page.get_by_test_id("needs")).to_contain_text("Stół 1 C Gracz 04 wzywa sędziego")

    page.get_by_test_id("tab-setup").click()
    withdrawn = page.locator("#players tbody tr.bad")  # red: the withdrawn player
    expect(withdrawn).to_have_count(1)
    expect(withdrawn).to_contain_text("(wycofany)")
    page.get_by_test_id("tab-round").click()
    expect(page.locator("#round tbody td.ok")).to_have_text(["komplet", "komplet"])
    page.get_by_test_id("tab-scores").click()
    expect(page.locator("#tresults tbody tr")).to_have_count(6)
    # Whether a result counts: a word in green (or the reason it is held, in red).
    assert texts(page, "#tresults tbody td .ok") == ["tak"] * 6
    page.get_by_test_id("tab-standings").click()
    expect(page.locator("#standings tbody tr.bad")).to_contain_text("(wycofany)")

    page.goto(f"{day.url}/t/{day.tid}")
    expect(page.locator("#tables .table")).to_have_count(4)
    # A table's box: green when done, and says so; else the games still to come.
    assert sorted(texts(page, "#tables h3 small")) == sorted(
        ["zakończony", "zakończony", "jeszcze 1 gra", "jeszcze 1 gra"]
    )
    assert texts(page, "#tables h3 small.done") == ["zakończony", "zakończony"]
    page.goto(f"{day.url}/p/{day.code}")
    expect(page.locator("#games tr")).not_to_have_count(0)
    # A game's line: whether it counts, in words, coloured or not.
    assert set(texts(page, "#games td:last-child")) <= {"liczy się", "wstrzymana"}
