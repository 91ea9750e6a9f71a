"""The projector in real headless Chromium: it shows the tournament in play, cuts a long name or
club with an ellipsis instead of pushing the points off the screen, marks an excluded player,
and counts the missing games in Polish plurals."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, Outcome, Seats, create, enrol, lowest_goes_out

Hub = tuple[str, Store]
LONG_CLUB = "Szkoła Podstawowa nr 12 im. Marii Skłodowskiej-Curie w Szczecinie, klasa sportowa 7b"


@pytest.fixture
def page(chromium_page: Page) -> Page:
    return chromium_page


def big_racks(round_no: int, table: int, game: int, seats: Seats) -> dict[str, int]:
    """The lowest id goes out while the others hold 400 each: +1200 small points to show."""
    low = min(seats.values())
    return {s: 0 if p == low else 400 for s, p in seats.items()}


def a_round(
    url: str, store: Store, players: int, reported: int, outcome: Outcome = lowest_goes_out,
    **more: object,
) -> int:  # fmt: skip
    """An open tournament of ``players`` at one-game tables, ``reported`` of them reported."""
    tid = create(url, **more)
    enrol(url, tid, players)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    hall = Hall(url, store, len(drawn["tables"]))
    hall.play(tid, {**drawn, "tables": drawn["tables"][:reported]}, outcome, "tournament")
    return tid


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_projector_fits_long_names_and_follows_the_tournament_in_play(
    page: Page, hub: Hub
) -> None:
    url, store = hub
    tid = a_round(url, store, 8, 1, big_racks, name="Liga")
    long_name = "Aleksandra Konstantynopolitańczykiewiczówna-Brzęczyszczykiewicz"
    httpx.patch(f"{url}{API}/{tid}/players/1",
                json={"name": long_name, "club": LONG_CLUB, "reason": "pełna nazwa"}
                ).raise_for_status()  # fmt: skip
    httpx.post(f"{url}{API}/{tid}/sanctions",
               json={"player": 2, "kind": "exclusion", "reason": "niesportowe zachowanie"}
               ).raise_for_status()  # fmt: skip
    create(url, name="Test sprzętu")  # newer, but not the one in play
    httpx.post(f"{url}{API}/{tid}/play").raise_for_status()

    page.set_viewport_size({"width": 1280, "height": 720})  # a projector's 720p
    page.goto(url + "/projector")
    expect(page.get_by_test_id("title")).to_have_text("Liga — Klasyfikacja")
    expect(page.get_by_test_id("round")).to_have_text("Runda 1 (rozgrywki) — czekamy na 1 grę")
    expect(page.locator("#rows tr:not(.stage)")).to_have_count(8)
    fits = page.evaluate(
        """() => [...document.querySelectorAll('#rows tr')].every(tr =>
             tr.lastElementChild.getBoundingClientRect().right <= window.innerWidth)"""
    )
    assert fits  # the points columns stay on the screen
    cut = page.evaluate(
        """name => { const td = [...document.querySelectorAll('#rows td')]
             .find(x => x.textContent.startsWith(name.slice(0, 20)));
           return [getComputedStyle(td).textOverflow, td.scrollWidth > td.clientWidth,
                   getComputedStyle(td.nextElementSibling).textOverflow]; }""",
        long_name,
    )
    assert cut == ["ellipsis", True, "ellipsis"]
    whole = page.evaluate(
        """() => [...document.querySelectorAll('#rows td.num')]
             .every(td => td.scrollWidth <= td.clientWidth)"""
    )
    assert whole  # the points are never cut, only names and clubs
    expect(page.locator("#rows")).to_contain_text("(wykluczony)")
    # the board's QR code for the phones, beside the standings and never over them
    expect(page.get_by_test_id("phones")).to_contain_text("Klasyfikacja i stoły w telefonie")
    address = page.get_by_test_id("address").text_content() or ""
    assert address.endswith(f"/t/{tid}")
    assert "localhost" not in address
    assert page.evaluate("document.getElementById('qr').naturalWidth") > 0
    beside = page.evaluate(
        """() => document.getElementById('phones').getBoundingClientRect().left >=
                 document.querySelector('#rows tr').getBoundingClientRect().right"""
    )
    assert beside


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("players", "lang", "text"),
    [
        (12, "pl", "czekamy na 2 gry"),  # 3 tables, 1 reported: 2, 3, 4 make "gry"
        (24, "pl", "czekamy na 5 gier"),  # 5 and more make "gier"
        (24, "en", "5 games to come"),
        (8, "en", "1 game to come"),
    ],
)
def test_the_projector_counts_the_missing_games_in_the_languages_plurals(
    page: Page, hub: Hub, players: int, lang: str, text: str
) -> None:
    url, store = hub
    tid = a_round(url, store, players, 1)
    page.goto(f"{url}/projector?t={tid}&lang={lang}")
    expect(page.get_by_test_id("round")).to_contain_text(text)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_result_is_on_the_projector_the_moment_it_counts(page: Page, hub: Hub) -> None:
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    hall = Hall(url, store, len(drawn["tables"]))
    page.goto(url + "/projector")
    expect(page.get_by_test_id("round")).to_have_text("Runda 1 (rozgrywki) — czekamy na 2 gry")
    hall.play(tid, {**drawn, "tables": drawn["tables"][:1]}, lowest_goes_out, "tournament")
    # The tournament's events stream, not the 5 s poll: well within the poll's period.
    expect(page.get_by_test_id("round")).to_have_text(
        "Runda 1 (rozgrywki) — czekamy na 1 grę", timeout=2500
    )
