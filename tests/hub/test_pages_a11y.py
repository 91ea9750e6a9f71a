"""Every page without sight or a mouse (issue 40, point 4), in real headless Chromium against
one hub whose tournament is in play, mid-round: the console's every tab (and its dialogs),
the projector, the phone board and a player's page have no axe-core violation of any impact
(WCAG 2.0/2.1 A and AA)."""

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
