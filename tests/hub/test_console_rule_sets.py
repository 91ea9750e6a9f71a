"""A judge's own rule set, from the console to the table: added as a file in real headless
Chromium, chosen for a new tournament, carried to a real table daemon in the round's lineup,
played there (its penalty tiles and joker on the seats' screens) and scored by the hub."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik import rules as r
from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.hub.test_console import PASSWORD, page, play_the_round  # noqa: F401 (the fixture)
from tests.hub.test_table_to_hub import paired_table, until

API = "/api/v1/tournaments"


def own_set() -> str:
    """pl-turniej's scoring with 7/2/0 at three seats, 2 penalty tiles and a joker at 40."""
    text = r.to_toml(r.named("pl-turniej"))
    for old, new in (
        ('name = "pl-turniej"', 'name = "klub-7"'),
        ('aliases = ["tournament"]', "aliases = []"),
        ("penalty_tiles = 1", "penalty_tiles = 2"),
        ("joker = 50", "joker = 40"),
        ("move_time_s = 60", "move_time_s = 50"),
        ("3 = [1, 0, 0]", "3 = [7, 2, 0]"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_adds_a_rule_set_and_a_table_plays_a_round_under_it(
    page: Page,  # noqa: F811 (the fixture)
    hub: tuple[str, Store],
    tmp_path: Path,
) -> None:
    url, store = hub
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    table = paired_table(store, url, tmp_path / "t1", table_no=1)
    try:
        page.goto(url)
        page.get_by_test_id("tab-setup").click()
        page.get_by_test_id("rule-sets").locator("summary").click()
        expect(page.locator("#rule-sets tbody tr")).to_have_count(5)  # Klik's own
        file = tmp_path / "klub-7.toml"
        file.write_text(own_set(), encoding="utf-8")
        page.get_by_test_id("rs-file").set_input_files(str(file))
        page.get_by_test_id("rs-add").click()
        page.get_by_test_id("password").fill(PASSWORD)  # the hub asked: 401
        page.get_by_test_id("login-ok").click()
        expect(page.get_by_test_id("message")).to_have_text(
            "Dodano zestaw zasad klub-7 (wersja 1)."
        )
        added = page.locator('#rule-sets tr[data-rule-set="klub-7"]')
        expect(added).to_contain_text("dodany przez sędziego")

        # The new tournament under it: chosen by name, its move time the set's (left empty).
        page.get_by_test_id("t-name").fill("Klubowy")
        page.get_by_test_id("t-rules").select_option("klub-7")
        page.get_by_test_id("t-create").click()
        expect(page.get_by_test_id("message")).to_have_text("Utworzono turniej 1.")
        made = httpx.get(f"{url}{API}/1").json()
        assert (made["rules"], made["move_time_s"], made["format"]) == ("klub-7", 50, "open")

        for name in ("Ala", "Bo", "Cezary"):
            page.get_by_test_id("p-name").fill(name)
            page.get_by_test_id("p-name").press("Enter")
            expect(page.get_by_test_id("message")).to_have_text("Zapisano graczy: 1.")
            page.get_by_test_id("message").evaluate("m => m.textContent = ''")
        page.get_by_test_id("tab-round").click()
        page.get_by_test_id("r-seed").fill("4")
        page.get_by_test_id("r-draw").click()
        expect(page.get_by_test_id("message")).to_have_text("Wylosowano rundę 1.")
        page.get_by_test_id("r-game").click()
        until(table, lambda: table.engine.game_lineup is not None)
        # The table never knew the set: the lineup brought it, with its clock and penalty.
        settings = table.engine.game.settings
        assert (settings.rules.name, settings.penalty_tiles, settings.move_time_s) == (
            "klub-7", 2, 50.0,
        )  # fmt: skip
        assert settings.rules.joker_value == 40  # the count's screen says so
        page.get_by_test_id("r-start").click()
        play_the_round([table])
        expect(page.locator("#round tbody tr td.ok")).to_have_count(1)
        rows = httpx.get(f"{url}{API}/1/standings").json()
        # 7/2/0, not 1/0/0: the two who never opened tie on 2nd place and share its 2
        assert sorted(row["big"] for row in rows) == [2, 2, 7]
    finally:
        table.stop()
