"""A whole round by keyboard alone (issue 40, point 4), in real headless Chromium against a
real hub: the judge draws, sends the lineups, starts, answers two judge calls from the list
of needs, assigns a result played without the lineup, ends the round's time, draws the next,
and opens and closes a dialog, by Tab, the arrows, Enter and Escape, never the mouse; the
hall's changes and each new need are in live regions, said to a screen reader as they come,
a need once (a call answered leaves the other call's line in place)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Dialog, Page, expect

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out, results
from tests.hub.test_pages_a11y import beat


def tab_to(page: Page, selector: str, *, back: bool = False) -> None:
    """Tab (or Shift+Tab) until the keyboard is on ``selector``: what a judge without a mouse
    does; an element Tab never reaches fails the test."""
    for _ in range(80):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reaches {selector}")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_whole_round_by_keyboard_alone(chromium_page: Page, hub: tuple[str, Store]) -> None:
    """The judge draws a round, sends its lineups, starts it, answers judge calls, assigns a
    result played without the lineup, ends the round's time and draws the next: Tab, arrows,
    Enter, never the mouse. The tables' side (heartbeats, results) comes through the API. The
    hall's changes and the new need are said to a screen reader (live regions)."""
    url, store = hub
    tid = create(url, name="Liga klawiatury")
    enrol(url, tid, 8)
    hall = Hall(url, store, 2)
    page = chromium_page
    # The round's end asks first (a browser's confirm): the judge's Enter there is accept().
    asked: list[str] = []

    def yes(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", yes)
    page.goto(f"{url}/?t={tid}")
    message = page.get_by_test_id("message")
    expect(page.locator("#hall > li")).to_have_count(2)

    # The tab list is one stop of Tab; the arrows go from tab to tab.
    tab_to(page, "[role=tab]")
    expect(page.get_by_test_id("tab-live")).to_be_focused()
    outline = "() => getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(outline) == "solid"  # where the keyboard is, seen
    for key in ("ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    expect(page.get_by_test_id("tab-round")).to_be_focused()
    expect(page.get_by_test_id("tab-round")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-round")).to_be_visible()

    tab_to(page, "[data-testid=r-draw]")
    page.keyboard.press("Enter")
    expect(message).to_have_text("Wylosowano rundę 1.")
    drawn = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    for button in ("r-game", "r-start"):
        tab_to(page, f"[data-testid={button}]")
        page.keyboard.press("Enter")
        expect(message).to_have_text("Wysłano do 2 stołów.")
        message.evaluate("line => line.replaceChildren()")  # the next answer is a new line
    for table in (1, 2):
        seats = drawn["tables"][table - 1]["seats"]
        beat(url, hall, table, {"state": "move", "mover": "A",
                                "names": {s: f"Gracz {p:02d}" for s, p in seats.items()}})  # fmt: skip

    # Back to the hall: Shift+Tab to the tab list, Home to its first tab.
    tab_to(page, "[role=tab][aria-selected=true]", back=True)
    page.keyboard.press("Home")
    expect(page.get_by_test_id("tab-live")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#hall > li.move")).to_have_count(2)
    news, needs = page.get_by_test_id("hall-news"), page.get_by_test_id("needs")
    # The regions a screen reader hears when they change: a tile's state, a new need.
    expect(news).to_have_attribute("role", "status")
    expect(news).to_have_attribute("aria-live", "polite")
    expect(needs).to_have_attribute("aria-live", "assertive")
    expect(needs).to_have_attribute("aria-relevant", "additions")
    names = {
        table: {s: f"Gracz {p:02d}" for s, p in drawn["tables"][table - 1]["seats"].items()}
        for table in (1, 2)
    }
    calls = needs.locator("li")
    for table, caller in ((1, "D"), (2, "C")):  # two calls, one after the other
        beat(url, hall, table, {"state": "paused", "mover": "B", "judge": True,
                                "paused_by": caller, "names": names[table]})  # fmt: skip
        expect(news).to_have_text(f"Stół {table}: {caller} WZYWA SĘDZIEGO")
    expect(calls).to_have_text([
        f"Stół 1 D {names[1]['D']} wzywa sędziego Pokaż stół",
        f"Stół 2 C {names[2]['C']} wzywa sędziego Pokaż stół",
    ])  # fmt: skip
    calls.nth(1).evaluate("line => { line.heard = true; }")  # this very line, said once
    # The judge goes to each table from its need, oldest first, and lets its game go on.
    for table, caller in ((1, "D"), (2, "C")):
        tab_to(page, "#needs button[data-need=table]")
        page.keyboard.press("Enter")
        resume = page.locator(f"#hall > li[data-table='{table}'] button[data-kind=resume]")
        expect(resume).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator(f"#hall > li[data-table='{table}']")).to_contain_text("wysłano…")
        beat(url, hall, table, {"state": "move", "mover": caller, "names": names[table]})
        expect(news).to_have_text(f"Stół {table}: ruch")
        if table == 1:  # the other call's line stays, not read out again as a new one
            expect(calls).to_have_count(1)
            assert calls.evaluate("line => line.heard === true")
    expect(calls).to_have_count(0)
    sent = httpx.get(f"{url}/api/v1/tables").json()
    waiting = [
        [c["kind"] for c in row["commands"]] for row in sorted(sent, key=lambda r: r["table"])
    ]
    assert waiting == [["game", "start", "resume"]] * 2  # the lineup, the start, the resume
    seats = drawn["tables"][1]["seats"]

    # The results come: table 1's with the lineup, table 2's first game without it.
    hall.play(tid, {**drawn, "tables": drawn["tables"][:1]}, lowest_goes_out, "tournament")
    nobody = dict.fromkeys(seats)
    for game in range(1, drawn["games"] + 1):
        lineup = seats if game > 1 else nobody
        racks = lowest_goes_out(1, 2, game, seats)
        reported = hall.report(
            None if game == 1 else tid, None if game == 1 else 1, 2, lineup, racks,
            rules="tournament", round_game=None if game == 1 else game,
        )  # fmt: skip
        assert reported.status_code == 201, reported.text
    tab_to(page, "[role=tab][aria-selected=true]", back=True)
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("tab-round")).to_have_attribute("aria-selected", "true")
    assign = page.get_by_test_id("unplaced").locator("form button")
    expect(assign).to_have_count(1)
    tab_to(page, "[data-testid=unplaced] form button")
    page.keyboard.press("Enter")
    expect(message).to_have_text("Wynik przypisany do rundy.")
    expect(page.locator("#round tbody td.ok")).to_have_text(["komplet", "komplet"])

    # The round's time ends at every table (asked first), and the next round is drawn.
    tab_to(page, "[data-testid=r-over]", back=True)
    page.keyboard.press("Enter")
    expect(message).to_have_text("Wysłano do 2 stołów.")
    assert [q.split("?")[0] for q in asked] == [
        "Zakończyć teraz czas rundy 1 na wszystkich stołach"
    ]
    tab_to(page, "[data-testid=r-draw]", back=True)
    page.keyboard.press("Enter")
    expect(message).to_have_text("Wylosowano rundę 2.")

    # A dialog holds the keyboard while open; Escape closes it, sending nothing, and the
    # keyboard is back on the button that opened it.
    tab_to(page, "[role=tab][aria-selected=true]", back=True)
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("tab-scores")).to_have_attribute("aria-selected", "true")
    first = results(url, tid)[0]["id"]
    tab_to(page, f"[data-testid=sanction-{first}]")
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("act")
    expect(dialog).to_be_visible()
    inside = "() => document.getElementById('act').contains(document.activeElement)"
    for key in ["Tab"] * 12 + ["Shift+Tab"] * 12:  # round its fields and buttons, both ways
        assert page.evaluate(inside), key
        page.keyboard.press(key)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id(f"sanction-{first}")).to_be_focused()
    assert httpx.get(f"{url}{API}/{tid}/sanctions").json() == []
