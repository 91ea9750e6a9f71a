"""Every judge's action on a player and on a draw, from the console alone (issue 37, point 1),
in real headless Chromium against a real hub: each a button named by its action in the
player's row, one dialog that names the player and asks the reason, Escape or *Anuluj*
sends nothing; by mouse and by keyboard.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the dialog (``docs/player-actions.png``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.browser import no_then_yes
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out

Hub = tuple[str, Store]
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def page(chromium_page: Page) -> Page:
    return chromium_page


def players(url: str, tid: int) -> dict[int, dict[str, Any]]:
    return {p["id"]: p for p in httpx.get(f"{url}{API}/{tid}/players").json()}


def sanctions(url: str, tid: int) -> list[tuple[int, str, int | None, str]]:
    given = httpx.get(f"{url}{API}/{tid}/sanctions").json()
    return [(x["player"], x["kind"], x.get("big"), x["reason"]) for x in given]


def act(page: Page, action: str, player: int, reason: str, **fields: str) -> None:
    page.get_by_test_id(f"act-{action}-{player}").click()
    dialog = page.get_by_test_id("act")
    expect(dialog).to_be_visible()
    for name, value in fields.items():
        page.get_by_test_id(f"act-{name}").fill(value)
    page.get_by_test_id("act-reason").fill(reason)
    # The dialog closes as the change is sent; the hub's answer is what says it is kept.
    with page.expect_response(lambda r: r.request.method != "GET"):
        page.get_by_test_id("act-ok").click()
    expect(dialog).to_be_hidden()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_acts_on_players_from_their_rows(page: Page, hub: Hub) -> None:
    url, _ = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-setup").click()
    changes: list[str] = []
    page.on("request", lambda r: r.method != "GET" and changes.append(r.url))
    row = page.locator("#players tbody tr[data-player='3']")
    expect(row.get_by_role("button")).to_have_text(
        [
            "Zmień dane gracza",
            "Obecność i potrzeby",
            "Wycofaj",
            "Ostrzeżenie",
            "Odejmij duże punkty",
            "Wyklucz",
            "Połącz ze znaną osobą",
        ]
    )

    act(page, "change", 3, "literówka w nazwisku", name="Gracz Trzeci", club="SP 9")
    expect(page.get_by_test_id("message")).to_have_text(
        "Zapisano: Zmień dane gracza — gracz 3 Gracz 03."
    )
    assert (players(url, tid)[3]["name"], players(url, tid)[3]["club"]) == ("Gracz Trzeci", "SP 9")

    page.get_by_test_id("act-withdraw-5").click()
    expect(page.get_by_test_id("act-what")).to_contain_text(
        "Wycofać gracza 5 Gracz 05? Nie będzie losowany do kolejnych rund"
    )
    page.get_by_test_id("act-cancel").click()  # nothing sent
    assert players(url, tid)[5]["active"] is True
    assert len(changes) == 1
    act(page, "withdraw", 5, "zrezygnował")
    expect(row.page.locator("#players tbody tr[data-player='5']")).to_have_class("bad")
    assert players(url, tid)[5]["active"] is False
    act(page, "reinstate", 5, "wrócił")
    assert players(url, tid)[5]["active"] is True

    act(page, "warning", 2, "rozmowa w trakcie gry")
    act(page, "deduction", 2, "ponowna rozmowa", big="2")
    page.get_by_test_id("act-exclusion-7").click()
    expect(page.get_by_test_id("act-what")).to_contain_text("Tego nie da się cofnąć.")
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        page.get_by_test_id("act-reason").fill("niesportowe zachowanie")
        page.screenshot(path=str(DOCS / "player-actions.png"))
    sent = len(changes)
    page.keyboard.press("Escape")  # nothing sent, though the last dialog said yes
    expect(page.get_by_test_id("act")).to_be_hidden()
    assert len(changes) == sent
    act(page, "exclusion", 7, "niesportowe zachowanie")
    assert sorted(sanctions(url, tid)) == [
        (2, "deduction", 2, "ponowna rozmowa"),
        (2, "warning", None, "rozmowa w trakcie gry"),
        (7, "exclusion", None, "niesportowe zachowanie"),
    ]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_warning_by_keyboard_alone(page: Page, hub: Hub) -> None:
    url, _ = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    page.goto(f"{url}/?t={tid}")
    setup = page.get_by_role("tab", name="Turniej i gracze")  # a tab list, as a reader hears it
    expect(page.get_by_role("tab", name="Stoły")).to_have_attribute("aria-selected", "true")
    setup.focus()
    page.keyboard.press("Enter")
    expect(setup).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel")).to_have_count(1)  # the others are hidden
    page.get_by_test_id("act-warning-4").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("act-reason")).to_be_focused()  # the reason, at once
    page.keyboard.type("spóźnienie")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("message")).to_have_text("Zapisano: Ostrzeżenie — gracz 4 Gracz 04.")
    assert sanctions(url, tid) == [(4, "warning", None, "spóźnienie")]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_last_draw_is_undone_from_the_round_tab_after_a_question(page: Page, hub: Hub) -> None:
    url, _ = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    assert httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).status_code == 201
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-round").click()
    asked = no_then_yes(page)
    undo = page.get_by_test_id("r-undraw")
    expect(undo).to_have_text("Cofnij losowanie")
    undo.click()  # no
    undo.click()  # yes
    expect(page.get_by_test_id("message")).to_have_text("Losowanie rundy 1 cofnięte.")
    assert asked[0].startswith("Cofnąć losowanie rundy 1?")
    assert httpx.get(f"{url}{API}/{tid}").json()["rounds"] == []
    expect(page.locator("#round-title")).to_have_text("Nie wylosowano jeszcze rundy.")
    expect(undo).to_be_hidden()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_sanction_from_a_results_row_names_the_game_in_its_reason(page: Page, hub: Hub) -> None:
    """Issue 37, point 1: the judge gives a sanction from the game it was earned in: the
    dialog offers that game's players by seat and the three sanctions; the points field
    only for a deduction; the reason starts with the game's receipt, table and game."""
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    table = drawn["tables"][0]
    seats = {s: str(p) for s, p in table["seats"].items()}
    sent = Hall(url, store, 2).report(
        tid, 1, table["table"], seats, lowest_goes_out(1, table["table"], 1, table["seats"]),
        rules="tournament", round_game=1,
    )  # fmt: skip
    assert sent.status_code == 201, sent.text
    (result,) = httpx.get(f"{url}{API}/{tid}/results").json()
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-scores").click()
    page.get_by_test_id(f"sanction-{result['id']}").click()
    expect(page.get_by_test_id("act")).to_be_visible()
    expect(page.get_by_test_id("act-player").locator("option")).to_have_text(
        [f"{s}: {e['name']} ({e['player']})" for s, e in result["seats"].items()]
    )
    expect(page.get_by_test_id("act-big")).to_be_hidden()  # a warning takes no points
    page.get_by_test_id("act-player").select_option("B")
    page.get_by_test_id("act-kind").select_option("deduction")
    expect(page.get_by_test_id("act-big")).to_be_visible()
    page.get_by_test_id("act-big").fill("2")
    reason = page.get_by_test_id("act-reason")
    expect(reason).to_have_value(f"R-{result['receipt']}, stół {table['table']}, gra 1: ")
    reason.press("End")
    reason.type("rozmowa przy stole")
    with page.expect_response(lambda r: r.request.method != "GET"):
        page.get_by_test_id("act-ok").click()
    b = result["seats"]["B"]
    expect(page.get_by_test_id("message")).to_have_text(
        f"Zapisano: Odejmij duże punkty — gracz {b['player']} {b['name']}."
    )
    assert sanctions(url, tid) == [
        (b["player"], "deduction", 2,
         f"R-{result['receipt']}, stół {table['table']}, gra 1: rozmowa przy stole"),
    ]  # fmt: skip
