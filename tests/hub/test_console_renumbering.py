"""Renumbering a table from the judge's console, in real headless Chromium: the judge clicks
"Renumber" on a table's row, types its new number, and the table (the virtual table's real
daemon, paired at the table) shows it; a number another table has is refused in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from klik_hub import hall
from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.hub.test_console_pairing import PASSWORD
from tests.hub.test_table_renumbering import kept, paired_at_the_table, soon


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 720}) as page:
        yield page


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_renumbers_a_table_from_the_console(
    page: Page, hub: tuple[str, Store], tmp_path: Path
) -> None:
    url, store = hub
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    hall.devices.pair(store, 3)  # another table, silent
    table = paired_at_the_table(store, url, tmp_path, 7)
    table.start()
    typed: list[str] = []

    def answer(number: str) -> None:
        page.once("dialog", lambda dialog: (typed.append(dialog.message), dialog.accept(number)))

    try:
        page.goto(url)
        page.get_by_test_id("login").click()
        page.get_by_test_id("password").fill(PASSWORD)
        page.get_by_test_id("login-ok").click()
        expect(page.get_by_test_id("logout")).to_be_visible()  # the judge's, from now on
        row = page.locator('#hall > li[data-table="7"]')
        expect(row).to_have_count(1)
        answer("3")  # taken: the hub says so, nothing changes
        row.locator("button[data-renumber]").click()
        expect(page.get_by_test_id("message")).to_contain_text("3")
        expect(page.get_by_test_id("message")).not_to_have_class("done")
        answer("12")
        row.locator("button[data-renumber]").click()
        expect(page.get_by_test_id("message")).to_contain_text("12")
        expect(page.get_by_test_id("message")).to_have_class("done")
        expect(page.locator('#hall > li[data-table="12"]')).to_have_count(1)
        soon(lambda: table.engine.views["A"].table == "12")
        assert kept(tmp_path)["table"] == 12
        assert len(typed) == 2
        assert all("7" in said for said in typed)  # the prompt names the table
    finally:
        table.stop()
