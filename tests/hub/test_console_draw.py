"""The judge's console checks a draw (issue 20.4), in real headless Chromium: the judge marks
a family, draws with the clubs kept apart, and reads, table by table, who meets again and who
sits with their own club."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.helpers.tourney import Hall, create, enrol, lowest_goes_out, play_to_the_end
from tests.hub.test_console import PASSWORD

API = "/api/v1/tournaments"
# 7 players at a table of 4 and one of 3: SP 5 has 3, so one table seats two of them.
ROSTER = (
    "imię i nazwisko;szkoła\nŁucja Żak;SP 5\nŹdźisław Ćwik;SP 12\nAnia Nowak;SP 5\n"
    "Bożena Kęs;SP 3\nJan Óssowski;SP 5\nEwa Śliwa;SP 12\nOlek Wąs;SP 7\n"
)


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium_page(viewport={"width": 1280, "height": 720}) as page:
        yield page


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_marks_a_family_and_reads_the_draws_checks(
    page: Page, hub: tuple[str, Store]
) -> None:
    url, store = hub
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    page.goto(url)
    page.get_by_test_id("tab-setup").click()
    page.get_by_test_id("t-name").fill("Liga szkolna")
    page.get_by_test_id("t-create").click()
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("login-ok").click()
    expect(page.get_by_test_id("message")).to_have_text("Utworzono turniej 1.")
    sent = httpx.post(
        f"{url}{API}/1/players",
        content=ROSTER.encode(),
        headers={"Content-Type": "text/csv"},
        auth=("judge", PASSWORD),
    )
    assert sent.status_code == 201, sent.text
    page.reload()
    page.get_by_test_id("tab-setup").click()
    page.get_by_test_id("f-players").fill("2, 6")
    page.get_by_test_id("f-family").fill("Ćwikowie")
    page.get_by_test_id("f-mark").click()
    expect(page.get_by_test_id("message")).to_have_text("Oznaczono rodzinę: 2, 6.")
    expect(page.locator("#players tbody tr").nth(5)).to_contain_text("Ćwikowie")

    page.get_by_test_id("tab-round").click()
    expect(page.get_by_test_id("r-clubs")).to_have_value("0.5")
    page.get_by_test_id("r-seed").fill("3")
    page.get_by_test_id("r-draw").click()
    expect(page.get_by_test_id("message")).to_contain_text("Wylosowano rundę 1.")  # unpaired
    expect(page.locator("#round thead")).to_contain_text("Powtórki, jeden klub")
    checks = page.locator("#round tbody td.checks")
    expect(checks).to_have_count(2)
    # SP 5's three players: two at one table, the least there can be; the Ćwiks apart.
    expect(page.locator("#round tbody td.checks", has_text="jeden klub, SP 5")).to_have_count(1)
    expect(page.locator("#round tbody td.checks", has_text="rodzina")).to_have_count(0)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_seeded_round_shows_no_seed_and_no_repeats(page: Page, hub: tuple[str, Store]) -> None:
    # szczecin's grand final is seated from the standings: its seed draws nothing, and its
    # players met in the rounds before by the seating's doing, so the round's title names
    # neither and its checks column lists no one meeting again.
    url, store = hub
    tid = create(url, format="szczecin")
    enrol(url, tid, 9)
    drawn = play_to_the_end(url, Hall(url, store, 3), tid, random.Random(2), lowest_goes_out,
                            rules="tournament")  # fmt: skip
    final = drawn[-1]
    assert (final["seeded"], final["repeats"] > 0) == (True, True)  # repeats there are
    page.goto(url)
    page.get_by_test_id("tab-round").click()
    expect(page.locator("#round-title")).to_have_text(
        f"Runda {final['round']} — wielki finał, gier: {final['games']}"
    )
    expect(page.locator("#round thead th").last).to_have_text("Jeden klub")  # not "Powtórki"
    expect(page.locator("#round tbody tr")).to_have_count(1)
    expect(page.locator("#round tbody td.checks")).to_have_text("")
