"""A player's needs through the API (issue 40): enrolled from a CSV's words, listed, changed by
the judge and at the check-in desk, carried to the seat with the lineup (sent again when they
change mid-round), and fixed tables honoured by an open tournament's draws, or refused in one
line naming the players. The draw itself is the core's (tests/tournament/test_needs.py)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.hubkit import post
from tests.helpers.tourney import API, Hall, create, draw, lowest_goes_out

Hub = tuple[str, Store]
NONE = {"vibration": False, "large": False, "quiet": False, "fixed_table": None}
# Player 3 at table 2 with a motor, 11 at table 4 with large screens and quiet, 7 quiet.
NEEDS = {3: "vibration,table=2", 7: "quiet", 11: "large,quiet,table=4"}
FIXED = {3: 2, 11: 4}


def roster() -> bytes:
    # No clubs: a club's pair weighs half a repeat, and the judge's weight is not this test's.
    lines = [f'Gracz {k:02d},,"{NEEDS.get(k, "")}"\n' for k in range(1, 15)]
    return ("name,club,needs\n" + "".join(lines)).encode()


def ok(answer: httpx.Response, status: int = 200) -> Any:
    assert answer.status_code == status, answer.text
    return answer.json()


def needs_of(url: str, tid: int) -> dict[int, dict[str, Any]]:
    return {p["id"]: p["needs"] for p in ok(httpx.get(f"{url}{API}/{tid}/players"))}


def lineups(url: str) -> dict[int, list[dict[str, Any]]]:
    """Each table's queued ``game`` commands' args, oldest first."""
    return {
        t["table"]: [c["args"] for c in t["commands"] if c["kind"] == "game"]
        for t in ok(httpx.get(f"{url}/api/v1/tables"))
    }


def table_of(drawn: dict[str, Any], player: int) -> tuple[int, str]:
    return next(
        (t["table"], seat) for t in drawn["tables"] for seat, p in t["seats"].items() if p == player
    )


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # the draw is the core's: one database
def test_needs_from_the_list_to_the_seat_and_fixed_tables_in_an_open_tournament(hub: Hub) -> None:
    url, store = hub
    hall, rng = Hall(url, store, 4), random.Random(40)
    tid = create(url)
    enrolled = ok(post(url, f"{API}/{tid}/players", roster(), **{"Content-Type": "text/csv"}), 201)
    assert enrolled[2]["needs"] == NONE | {"vibration": True, "fixed_table": 2}
    assert needs_of(url, tid) == dict.fromkeys(range(1, 15), NONE) | {
        3: NONE | {"vibration": True, "fixed_table": 2},
        7: NONE | {"quiet": True},
        11: NONE | {"large": True, "quiet": True, "fixed_table": 4},
    }

    # At the desk, player 5 asks for large screens as they check in.
    tick = {"checked_in": True, "needs": {"large": True}}
    ok(httpx.post(f"{url}{API}/{tid}/players/5/check-in", json=tick))
    assert needs_of(url, tid)[5] == NONE | {"large": True}

    # Round 1: the fixed players at their tables; each seat's lineup says how to set it up.
    drawn = ok(draw(url, tid, rng), 201)
    assert {p: table_of(drawn, p)[0] for p in FIXED} == FIXED
    ok(httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"}), 201)
    sent = lineups(url)
    wanted = {3: ["vibration"], 5: ["large"], 7: ["quiet"], 11: ["large", "quiet"]}
    for player in range(1, 15):
        table, seat = table_of(drawn, player)
        assert sent[table][-1]["seats"][seat].get("needs") == wanted.get(player), player

    # The table sheets say how to set each seat up, in the hall's words.
    sheets = httpx.get(f"{url}/print/sheets", params={"t": tid, "round": 1})
    assert "Potrzeby: stół stały 2, wibracja" in sheets.text
    assert "Potrzeby: stół stały 4, duży ekran, cisza (bez brzęczyka)" in sheets.text
    english = httpx.get(f"{url}/print/sheets", params={"t": tid, "round": 1, "lang": "en"})
    assert "Needs: fixed table 2, vibration" in english.text

    # Mid-round the judge gives player 7 a motor too: their table's lineup is queued again.
    change = {"needs": {"vibration": True}, "reason": "poprosił o wibrację"}
    changed = ok(httpx.patch(f"{url}{API}/{tid}/players/7", json=change))
    assert changed["needs"] == NONE | {"quiet": True, "vibration": True}  # quiet stays
    table, seat = table_of(drawn, 7)
    again = lineups(url)[table]
    assert len(again) == len(sent[table]) + 1
    assert again[-1]["seats"][seat]["needs"] == ["quiet", "vibration"]
    log = ok(httpx.get(f"{url}{API}/{tid}/corrections"))
    assert [e["player"] for e in log if e["kind"] == "needs"] == [7, 5]  # newest first

    # Rounds 2 and 3: the fixed players stay put and no pair of players meets twice.
    rounds = [drawn]
    hall.play(tid, drawn, lowest_goes_out, "pl-turniej")
    for _ in range(2):
        rounds.append(ok(draw(url, tid, rng), 201))
        assert {p: table_of(rounds[-1], p)[0] for p in FIXED} == FIXED
        hall.play(tid, rounds[-1], lowest_goes_out, "pl-turniej")
    pairs = [
        frozenset(pair)
        for one in rounds
        for t in one["tables"]
        for pair in itertools.combinations(t["seats"].values(), 2)
    ]
    assert len(pairs) == len(set(pairs))

    # A fixed table the field has not (14 players sit at 4 tables): the draw says who.
    ok(
        httpx.patch(
            f"{url}{API}/{tid}/players/3", json={"needs": {"fixed_table": 9}, "reason": "x"}
        )
    )
    refused = draw(url, tid, rng)
    assert (refused.status_code, refused.json()) == (409, {"error": (
        "fixed tables: the round has 4 tables and cannot seat Gracz 03 (9) (in brackets, the "
        "fixed table) as their needs say; change a player's fixed table")})  # fmt: skip
    polish = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1},
                        headers={"Accept-Language": "pl"})  # fmt: skip
    assert (polish.status_code, polish.json()) == (409, {"error": (
        "stoły stałe: runda ma 4 stoły i nie może posadzić graczy Gracz 03 (9) (w nawiasie "
        "stół stały) przy ich stołach; zmień stół stały gracza")})  # fmt: skip


@pytest.mark.parametrize(
    ("needs", "said"),
    [
        # One line: where (the field's label) and what is allowed, in pydantic's English.
        ({"loud": True}, "needs, loud: Extra inputs are not permitted"),
        ({"large": 1}, "large screen: Input should be a valid boolean"),
        ({"fixed_table": 1000}, "fixed table: Input should be less than or equal to 999"),
        ({"fixed_table": 0}, "fixed table: Input should be greater than or equal to 1"),
    ],
)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_bad_needs_are_refused_in_one_line(hub: Hub, needs: dict[str, Any], said: str) -> None:
    url, _ = hub
    tid = create(url)
    ok(httpx.post(f"{url}{API}/{tid}/players", json=[{"name": "Ala"}]), 201)
    answer = httpx.patch(f"{url}{API}/{tid}/players/1", json={"needs": needs, "reason": "x"})
    assert (answer.status_code, answer.json()) == (422, {"error": said})


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_judge_sees_and_sets_needs_on_the_console(chromium_page: Page, hub: Hub) -> None:
    url, _ = hub
    page = chromium_page
    tid = create(url)
    sent = [{"name": "Ala"}, {"name": "Ola", "needs": {"large": True, "fixed_table": 3}}]
    ok(httpx.post(f"{url}{API}/{tid}/players", json=sent), 201)
    page.goto(url)
    page.get_by_test_id("tab-setup").click()
    expect(page.get_by_test_id("player-needs-2")).to_have_text("stół stały 3, duży ekran")  # words
    expect(page.get_by_test_id("player-needs-1")).to_have_text("")

    # At the desk, by keyboard: Ala is here, needs a motor at her seat and table 2.
    page.get_by_test_id("act-checkin-1").press("Enter")
    expect(page.get_by_test_id("act")).to_be_visible()
    expect(page.get_by_test_id("act-reason")).to_be_hidden()  # the check-in keeps no reason
    expect(page.get_by_test_id("act-here")).to_be_focused()
    page.keyboard.press("Space")
    page.get_by_test_id("act-vibration").press("Space")
    page.get_by_test_id("act-fixed-table").fill("2")
    page.get_by_test_id("act-fixed-table").press("Enter")
    expect(page.get_by_test_id("player-needs-1")).to_have_text("stół stały 2, wibracja")
    ala = ok(httpx.get(f"{url}{API}/{tid}/players"))[0]
    assert (ala["checked_in"], ala["needs"]) == (True, NONE | {"vibration": True, "fixed_table": 2})

    # With the mouse, in the player's details: Ola no longer needs the large screen.
    page.get_by_test_id("act-change-2").click()
    page.get_by_test_id("act-large").uncheck()
    page.get_by_test_id("act-fixed-table").fill("")
    page.get_by_test_id("act-reason").fill("przesiadła się")
    page.get_by_test_id("act-ok").click()
    expect(page.get_by_test_id("player-needs-2")).to_have_text("")
    assert needs_of(url, tid)[2] == NONE


def first_wins(round_no: int, table: int, game: int, seats: dict[str, int]) -> dict[str, int]:
    """The lowest id goes out; where that is player 1, the others hold the most points."""
    low = min(seats.values())
    return {s: 0 if p == low else 50 if low == 1 else 10 for s, p in seats.items()}


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # the seating is the core's: one db
def test_a_seeded_stage_is_renumbered_for_a_fixed_player_or_refused_naming_them(hub: Hub) -> None:
    # szczecin with 9 players: round I at 3 random tables, round II at 2 seeded tables, the
    # grand final at 1. Player 1 goes out in every game against the largest racks, so stands
    # first wherever standings seat: round II's pattern puts first place at table 1, seat A.
    url, store = hub
    hall, rng = Hall(url, store, 3), random.Random(4)
    tid = create(url, format="szczecin")
    sent: list[dict[str, Any]] = [{"name": f"Gracz {k:02d}"} for k in range(1, 10)]
    sent[0]["needs"] = {"fixed_table": 2}
    ok(httpx.post(f"{url}{API}/{tid}/players", json=sent), 201)
    first = ok(draw(url, tid, rng), 201)
    assert table_of(first, 1)[0] == 2
    hall.play(tid, first, first_wins, "pl-turniej")
    second = ok(draw(url, tid, rng), 201)
    assert second["seeded"] is True
    assert table_of(second, 1) == (2, "A")  # first place's table, numbered 2 for them
    assert len(second["tables"]) == 2
    hall.play(tid, second, first_wins, "pl-turniej")
    final = draw(url, tid, rng)
    assert (final.status_code, final.json()) == (409, {"error": (
        "fixed tables: the round has 1 table and cannot seat Gracz 01 (2) (in brackets, the "
        "fixed table) as their needs say; change a player's fixed table")})  # fmt: skip
    cleared = {"needs": {"fixed_table": None}, "reason": "finał przy jednym stole"}
    ok(httpx.patch(f"{url}{API}/{tid}/players/1", json=cleared))
    final = ok(draw(url, tid, rng), 201)
    assert table_of(final, 1) == (1, "A")
    hall.play(tid, final, lowest_goes_out, "pl-turniej")
    assert "every round of the format" in draw(url, tid, rng).text  # played to its end
