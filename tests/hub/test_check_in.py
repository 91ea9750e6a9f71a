"""Check-in (issue 20): the judge opens it, players check in from their pages or are ticked at
the desk, the absentees are withdrawn in one step; on a real hub, SQLite and PostgreSQL, and
the button in Chromium on a phone."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out

Hub = tuple[str, Store]


def players(url: str, tid: int) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = httpx.get(f"{url}{API}/{tid}/players").json()
    return listed


def check_in(url: str, code: str) -> httpx.Response:
    return httpx.post(f"{url}/api/v1/p/{code}/check-in")


def test_a_day_of_check_in_from_the_pages_and_the_desk(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 8)
    codes = {p["id"]: p["code"] for p in players(url, tid)}
    state = httpx.get(f"{url}{API}/{tid}/check-in").json()
    assert state == {"check_in": None, "checked_in": [], "absent": list(range(1, 9))}

    # not opened yet: a player's button is refused in one line
    early = check_in(url, codes[1])
    assert early.status_code == 409
    assert early.json() == {"error": "the check-in is not open; ask the judge"}
    assert httpx.get(f"{url}/api/v1/p/{codes[1]}").json()["check_in_open"] is False

    opened = httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    assert opened.status_code == 200, opened.text
    assert opened.json()["check_in"] == "open"
    assert httpx.get(f"{url}/api/v1/p/{codes[1]}").json()["check_in_open"] is True
    for player in (1, 2, 3, 4, 5):
        answer = check_in(url, codes[player])
        assert (answer.status_code, answer.json()) == (200, {"checked_in": True})
    assert check_in(url, codes[1]).status_code == 200  # again: the same, nothing changes
    # the judge ticks player 6 at the desk, and player 5 out (they went home)
    ticked = httpx.post(f"{url}{API}/{tid}/players/6/check-in", json={"checked_in": True})
    assert ticked.status_code == 200, ticked.text
    ticked = httpx.post(f"{url}{API}/{tid}/players/5/check-in", json={"checked_in": False})
    assert ticked.json() == {"check_in": "open", "checked_in": [1, 2, 3, 4, 6], "absent": [5, 7, 8]}
    listed = {p["id"]: p["checked_in"] for p in players(url, tid)}
    assert [p for p, here in listed.items() if here] == [1, 2, 3, 4, 6]
    mine = httpx.get(f"{url}/api/v1/p/{codes[6]}").json()
    assert (mine["checked_in"], mine["check_in_open"]) == (True, True)

    closed = httpx.post(f"{url}{API}/{tid}/check-in", json={"open": False})
    assert closed.json()["check_in"] == "closed"
    late = check_in(url, codes[7])
    assert late.status_code == 409
    # the judge still ticks a late player in
    httpx.post(f"{url}{API}/{tid}/players/7/check-in", json={"checked_in": True})

    out = httpx.post(f"{url}{API}/{tid}/check-in/absent")
    assert out.status_code == 200, out.text
    assert out.json() == {"withdrawn": [5, 8], "check_in": "closed",
                          "checked_in": [1, 2, 3, 4, 6, 7], "absent": []}  # fmt: skip
    assert [p["id"] for p in players(url, tid) if not p["active"]] == [5, 8]
    assert httpx.post(f"{url}{API}/{tid}/check-in/absent").json()["withdrawn"] == []

    # every step is in the judge's log: who, and by whom
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    kinds = [(x["kind"], x["player"], x["by"]) for x in reversed(log)]
    assert kinds[0] == ("checkin_open", None, "judge")
    assert ("checkin", 1, "player") in kinds
    assert ("checkin", 6, "judge") in kinds
    assert kinds.count(("checkin", 1, "player")) == 1  # checking in again logged nothing
    assert ("checkin_close", None, "judge") in kinds
    withdrawn = [x for x in log if x["kind"] == "withdraw"]
    assert {x["player"] for x in withdrawn} == {5, 8}
    assert {x["reason"] for x in withdrawn} == {"nieobecność przy sprawdzaniu obecności"}

    # a withdrawn player's button is refused; a code that is nobody's is 404
    httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    assert check_in(url, codes[8]).status_code == 409
    assert check_in(url, "Z" * 10).status_code == 404
    assert check_in(url, "nope").status_code == 404


def test_once_opened_the_draws_seat_the_checked_in_and_name_the_absent(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 9)
    codes = {p["id"]: p["code"] for p in players(url, tid)}
    before = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    assert before["absent"] == []  # never opened: everyone not withdrawn is drawn
    seated = {p for t in before["tables"] for p in t["seats"].values()}
    assert seated == set(range(1, 10))
    httpx.request("DELETE", f"{url}{API}/{tid}/rounds/1", json={"reason": "x"})
    httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    for player in (1, 2, 3, 5, 6, 7, 9):
        assert check_in(url, codes[player]).status_code == 200
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1})
    assert drawn.status_code == 201, drawn.text
    seated = {p for t in drawn.json()["tables"] for p in t["seats"].values()}
    assert seated == {1, 2, 3, 5, 6, 7, 9}
    assert drawn.json()["absent"] == [4, 8]
    # player 4 comes late: the judge ticks them in, and the next round seats them
    httpx.post(f"{url}{API}/{tid}/players/4/check-in", json={"checked_in": True})
    round_ = drawn.json()
    hall = Hall(url, hub[1], len(round_["tables"]))
    hall.play(tid, round_, lowest_goes_out, "tournament")
    second = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}).json()
    assert {p for t in second["tables"] for p in t["seats"].values()} == {1, 2, 3, 4, 5, 6, 7, 9}
    assert second["absent"] == [8]


def test_the_judges_check_in_routes_refuse_what_they_do_not_take(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 4)
    assert httpx.post(f"{url}{API}/99/check-in", json={"open": True}).status_code == 404
    assert httpx.post(f"{url}{API}/{tid}/check-in", json={"open": "yes"}).status_code == 422
    assert httpx.post(f"{url}{API}/{tid}/check-in", json={"opened": True}).status_code == 422
    missing = httpx.post(f"{url}{API}/{tid}/players/9/check-in", json={"checked_in": True})
    assert missing.status_code == 404
    assert missing.json() == {"error": f"tournament {tid} has no player 9"}


def test_a_players_check_in_from_another_sites_page_is_refused(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 4)
    code = players(url, tid)[0]["code"]
    httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    forged = httpx.post(
        f"{url}/api/v1/p/{code}/check-in", headers={"origin": "http://evil.example"}
    )
    assert forged.status_code == 403
    assert players(url, tid)[0]["checked_in"] is False


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_player_checks_in_with_the_button_on_their_phone(phone: Page, hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 4)
    code = players(url, tid)[0]["code"]
    phone.goto(f"{url}/p/{code}")
    expect(phone.get_by_test_id("where")).to_have_text("Jeszcze bez losowania")
    expect(phone.get_by_test_id("checkin")).to_be_hidden()  # not open: no button
    httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    button = phone.get_by_test_id("check-in")
    expect(button).to_be_visible(timeout=3_000)  # told by the tournament's events
    button.click()
    expect(phone.get_by_test_id("checked")).to_have_text("Obecność potwierdzona.")
    expect(button).to_be_hidden()
    assert players(url, tid)[0]["checked_in"] is True
    assert phone.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_runs_the_check_in_from_the_console(chromium_page: Page, hub: Hub) -> None:
    url, _ = hub
    page = chromium_page
    tid = create(url)
    enrol(url, tid, 6)
    codes = {p["id"]: p["code"] for p in players(url, tid)}
    page.goto(url)
    page.get_by_test_id("tab-setup").click()
    state = page.get_by_test_id("checkin-state")
    expect(state).to_have_text(
        "Sprawdzanie obecności nieotwarte: losowani są wszyscy niewycofani gracze."
    )
    page.get_by_test_id("checkin-toggle").click()
    expect(state).to_have_text("Sprawdzanie obecności otwarte: obecnych 0 z 6.")
    for player in (1, 2, 3):
        check_in(url, codes[player])
    expect(state).to_have_text("Sprawdzanie obecności otwarte: obecnych 3 z 6.")  # live
    page.locator("input[data-tick='5']").check()  # the judge ticks player 5 at the desk
    expect(state).to_have_text("Sprawdzanie obecności otwarte: obecnych 4 z 6.")
    absent = page.get_by_test_id("checkin-absent")
    expect(absent).to_have_text("Wycofaj 2 nieobecnych graczy")
    page.once("dialog", lambda dialog: dialog.accept())
    absent.click()
    expect(page.get_by_test_id("message")).to_have_text(
        "Wycofano nieobecnych graczy: nr 4 Gracz 04, nr 6 Gracz 06."
    )
    expect(page.locator("input[data-tick='4']")).to_be_disabled()
    assert [p["id"] for p in players(url, tid) if not p["active"]] == [4, 6]
