"""The console's hall (issue 37, point 6): one tile per table on the Tables tab, in table-number
order, each with its state in a word and a sign, the mover and the move's time left, the
seats, the games it owes the round and the round's time left, and its health; sixty tables
on a 1366 x 768 laptop without scrolling sideways. Real Chromium against a real hub.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the hall (docs/hall.png).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from klik_hub import sql
from klik_hub.sql.devices import Device
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.hubkit import post, sealed
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out

DOCS = Path(__file__).parents[2] / "docs"
TABLES = 60
# Long names, as a hall has them: a tile cuts them, never its width.
NAMES = ["Małgorzata Szczepańska-Wróblewska", "Józef Żółtowski", "Ewa Śliwa", "Iga Ćwik"]


def beat(hall: Hall, table: int, **body: object) -> None:
    device, key = hall.keys[table]
    status = {"game": 1, "state": "ready", "mover": None, "left_ms": None, "draw_tiles": 42,
              "judge": False, "paused_by": None, "outbox": 0, "last_seq": 0, "acks": [],
              "names": dict(zip("ABCD", NAMES, strict=True)), **body}  # fmt: skip
    answer = post(hall.url, "/api/v1/heartbeats", sealed(device, key, 1, status, "heartbeat"))
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_sixty_tables_fit_a_laptop_as_tiles_that_say_their_state(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    tid = create(url, name="Hala", round_time_s=3600)
    enrol(url, tid, 16)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    hall = Hall(url, store, TABLES)
    # Table 1 played its first game; the round starts at every table of the draw.
    one = drawn["tables"][0]
    hall.report(tid, 1, 1, one["seats"], lowest_goes_out(1, 1, 1, one["seats"]),
                rules="tournament", round_game=1)  # fmt: skip
    start = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"})
    assert start.status_code == 201, start.text
    states = ["move", "paused", "scoring", "done", "ready", "timed_out"]
    for k in range(1, TABLES + 1):
        if k == 3:
            beat(hall, k, state="paused", mover="B", left_ms=30_000, judge=True, paused_by="C")
        elif k == 4:  # its game 1 was played twice (a card lost its counter): a conflict
            beat(hall, k, state="done", conflicts=[{"seq": 2, "game": 1}])
        elif k != 60:  # table 60 is paired and never heard
            state = states[(k - 1) % len(states)]
            moving = state in ("move", "timed_out", "paused")
            beat(hall, k, state=state, mover="B" if moving else None,
                 left_ms=41_000 if moving else None)  # fmt: skip
    with store.writing() as db:  # table 5 re-paired from number 61, its proof checked
        five = sql.devices.holder(db, 5)
        assert five is not None
        sql.devices.link(
            db, five.device, Device("t61-old", 61, b""), new_no=5, at="2026-11-28T10:00:00Z"
        )

    with chromium_page(viewport={"width": 1366, "height": 768}) as page:
        page.goto(url)
        tiles = page.locator("#hall > li")
        expect(tiles).to_have_count(TABLES)
        numbers = tiles.evaluate_all("t => t.map(x => Number(x.dataset.table))")
        assert numbers == list(range(1, TABLES + 1))  # in table-number order

        first = page.get_by_test_id("tile-1")
        expect(first.get_by_test_id("state")).to_have_text("▶ ruch")  # a sign and a word
        expect(first.get_by_test_id("mover")).to_have_text(f"▶ B {NAMES[1]}")
        expect(first.get_by_test_id("left")).to_have_text("41 s")
        expect(first.get_by_test_id("tile-round")).to_have_text("komplet")  # its game is in
        expect(page.get_by_test_id("tile-2").get_by_test_id("state")).to_have_text("❚❚ pauza")
        expect(page.get_by_test_id("tile-2").get_by_test_id("tile-round")).to_have_text(
            "brak 1 gry · 1:00:00"
        )
        called = page.get_by_test_id("tile-3")
        expect(called.get_by_test_id("state")).to_have_text("⚠ C WZYWA SĘDZIEGO")
        expect(called.locator(".names li").nth(2)).to_have_text(f"⚠ C {NAMES[2]}")
        expect(called).to_have_class(re.compile(r"\bjudge\b"))
        expect(page.get_by_test_id("tile-4").get_by_test_id("state")).to_have_text("✓ koniec gry")
        expect(page.get_by_test_id("tile-4").get_by_test_id("conflict")).to_have_text(
            "⚠ wynik gry 1 w konflikcie"
        )
        expect(page.locator("#needs")).to_contain_text("Stół 4")
        expect(page.locator("#needs")).to_contain_text("wynik gry 1 w konflikcie")
        expect(page.get_by_test_id("tile-5").get_by_test_id("tile-round")).to_have_count(0)
        expect(page.get_by_test_id("tile-5").get_by_test_id("carried")).to_have_text("stół 61 → 5")
        expect(page.get_by_test_id("tile-60").get_by_test_id("state")).to_have_text(
            "… jeszcze nie było"
        )
        expect(first.locator(".figures")).to_have_text("gra 1 · pula 42 · wysłano…")
        expect(first.get_by_test_id("health")).to_have_count(0)  # no health sent: nothing said

        # The whole hall in the laptop's width, and no tile wider than its column.
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        over = tiles.evaluate_all("t => t.filter(x => x.scrollWidth > x.clientWidth).length")
        assert over == 0
        columns = page.evaluate(
            "getComputedStyle(document.getElementById('hall')).gridTemplateColumns"
        ).split()
        assert len(columns) >= 7  # seven tables to a row: a 60-table hall in nine rows

        # A paused table's button still acts on it from its tile, by keyboard too.
        resume = page.get_by_test_id("tile-2").get_by_role("button", name="Wznów")
        resume.focus()
        with page.expect_response("**/api/v1/tables/2/commands") as sent:
            page.keyboard.press("Enter")
        assert sent.value.status == 201
        if os.environ.get("KLIK_WRITE_DOCS") == "1":
            page.screenshot(path=str(DOCS / "hall.png"))
