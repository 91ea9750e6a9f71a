"""Pairing at the table from the judge's console, in real headless Chromium: a virtual table
(the real daemon with mock pins) with the hub's url and nothing from pairing asks to join; the
console lists it under "Stoły chcą dołączyć" with the digits seat A shows; the judge types the
table's number and accepts (one click), and the table's screen says it is connected.

``KLIK_WRITE_DOCS=1`` retakes the README's pictures of pairing: the virtual table's page with
the digits on seat A (docs/pairing-table.png) and the console's list (docs/pairing.png).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik.table import config as c
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page, no_then_yes
from tests.hub.test_hub_page import DOCS
from tests.hub.test_pairing_api import ask
from tests.hub.test_table_to_hub import PLAYERS, until

PASSWORD = "sędzia-główny-2026"


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 720}) as page:
        yield page


def see_seat_a(page: Page, table: Daemon) -> None:
    """The virtual table's own page (klik sim's), served on loopback, until seat A's screen
    on it is the one the table shows now."""
    httpd = sim.Server(("127.0.0.1", 0), table)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        server = f"http://127.0.0.1:{httpd.server_address[1]}"
        with urllib.request.urlopen(f"{server}/api/state", timeout=5) as answer:
            state = json.load(answer)
        assert state["pairing"] == {"state": "asking", "digits": table.pairing[1]}
        page.goto(server)
        page.wait_for_function(
            """v => { const img = document.querySelector('[data-seat="A"] img');
                      const at = Number(new URL(img.src, location.href).searchParams.get("v"));
                      return img.complete && img.naturalWidth > 0 && at >= v; }""",
            arg=state["screens"]["A"],
        )
        if os.environ.get("KLIK_WRITE_DOCS") == "1":
            page.screenshot(path=str(DOCS / "pairing-table.png"))
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_pairs_a_table_by_its_digits_from_the_console(
    page: Page, hub: tuple[str, Store], tmp_path: Path
) -> None:
    url, store = hub
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    config = c.from_text(PLAYERS + f'[hub]\nlink = "http"\nurl = "{url}"\nheartbeat_s = 0.5\n')
    table = sim.make_daemon(config, str(tmp_path / "t"))
    assert table.joiner is not None
    table.joiner.poll_s = 0.2
    table.start()
    try:
        until(table, lambda: table.pairing[1] is not None)
        digits = table.pairing[1]
        assert digits is not None
        shown = f"{digits[:3]} {digits[3:]}"
        until(table, lambda: [a.text for a in table.engine.views["A"].alerts] == [shown])
        see_seat_a(page.context.new_page(), table)
        page.goto(url)
        expect(page.get_by_test_id("asking")).to_be_hidden()  # the judge's alone: log in first
        page.get_by_test_id("login").click()
        page.get_by_test_id("password").fill(PASSWORD)
        page.get_by_test_id("login-ok").click()
        row = page.locator("#asking-list tbody tr")
        expect(row).to_have_count(1)
        expect(row.locator("td.digits")).to_have_text(shown)
        row.locator("input").fill("5")
        if os.environ.get("KLIK_WRITE_DOCS") == "1":
            top = {"x": 0, "y": 0, "width": 1280, "height": 320}  # the list, not the empty rest
            page.screenshot(path=str(DOCS / "pairing.png"), clip=top)
        row.locator("button[data-accept]").click()  # "Przyjmij" (its words: the catalogue's)
        expect(page.get_by_test_id("message")).to_contain_text("5")
        expect(page.get_by_test_id("message")).to_have_class("done")
        expect(page.get_by_test_id("asking")).to_be_hidden()
        until(table, lambda: table.pairing[0] == "paired", timeout_s=10)
        until(table, lambda: [a.text for a in table.engine.views["A"].alerts] == ["5"])
        # The seats' views are redrawn one after another (A first): B's may lag A's a moment.
        until(table, lambda: table.engine.views["B"].table == "5")
        device = hall.devices.tables(store)
        assert [t["table"] for t in device] == [5]
    finally:
        table.stop()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_refuses_every_table_asking_at_once(page: Page, hub: tuple[str, Store]) -> None:
    url, _store = hub
    waiting = [ask(url)[0]["id"] for _ in range(2)]
    page.goto(url)
    expect(page.locator("#asking-list tbody tr")).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())  # "Odrzucić wszystkie stoły, …?"
    page.get_by_test_id("refuse-all").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("message")).to_have_text("Odrzucono 2 prośby.")
    expect(page.get_by_test_id("asking")).to_be_hidden()
    assert [httpx.get(f"{url}/api/v1/join/{w}").status_code for w in waiting] == [410, 410]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_console_asks_before_it_takes_a_paired_tables_number(
    page: Page, hub: tuple[str, Store]
) -> None:
    url, store = hub
    old, _ = hall.devices.pair(store, 5)
    ask(url)
    page.goto(url)
    row = page.locator("#asking-list tbody tr")
    row.locator("input").fill("5")
    asked = no_then_yes(page)
    row.locator("button[data-accept]").click()  # the judge says no: nothing changes
    expect(page.get_by_test_id("message")).to_have_text(
        "stół 5 jest już sparowany (jeszcze bez kontaktu)"
    )
    assert asked == [
        "stół 5 jest już sparowany (jeszcze bez kontaktu). Zastąpić go tym stołem? "
        "Tamten stół trzeba będzie sparować ponownie."
    ]
    assert [t["device"] for t in hall.devices.tables(store)] == [old]
    row.locator("button[data-accept]").click()  # and then yes
    expect(page.get_by_test_id("message")).to_contain_text("5")
    expect(page.get_by_test_id("message")).to_have_class("done")
    expect(page.get_by_test_id("asking")).to_be_hidden()
    assert [t["device"] for t in hall.devices.tables(store)] != [old]
