"""Late arrivals and reserves (issue 20, point 3): a player enrolled after a draw plays from the
next one (and liga passes them over for its semifinal), and a reserve takes the seat of a
player who must leave mid-round; through the real API, on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from klik_hub.tournament.standings import Row, break_ties
from tests.helpers.tourney import (
    API,
    Hall,
    Seats,
    create,
    draw,
    enrol,
    lowest_goes_out,
    play_to_the_end,
    results,
    standings,
)

Hub = tuple[str, Store]
LATE = 17  # the late arrival of the liga tournament: the 17th enrolled


def late_one_goes_out(round_no: int, table: int, game: int, seats: Seats) -> dict[str, int]:
    """The late arrival goes out in every game they play (so they stand among the best of the
    eliminations); elsewhere the lowest id goes out."""
    if LATE not in seats.values():
        return lowest_goes_out(round_no, table, game, seats)
    return {s: 0 if p == LATE else 3 * p + game for s, p in seats.items()}


def players(url: str, tid: int) -> dict[int, dict[str, Any]]:
    return {p["id"]: p for p in httpx.get(f"{url}{API}/{tid}/players").json()}


def enrol_late(url: str, tid: int, name: str) -> dict[str, Any]:
    answer = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": name, "club": "SP 9"}])
    assert answer.status_code == 201, answer.text
    (player,) = answer.json()
    return dict(player)


def seated(drawn: dict[str, Any]) -> set[int]:
    return {p for table in drawn["tables"] for p in table["seats"].values()}


def test_a_late_arrival_plays_from_the_next_draw_and_liga_passes_them_over(hub: Hub) -> None:
    url, store = hub
    hall = Hall(url, store, 5)  # 17 players from round 2: tables of 4, 4, 3, 3, 3
    tid = create(url, format="liga")
    enrol(url, tid, 16)
    rng = random.Random(7)
    first = draw(url, tid, rng)
    assert first.status_code == 201, first.text
    late = enrol_late(url, tid, "Spóźniona Ewa")
    # Enrolled once round 1 is drawn: drawn from round 2, and here (checked in).
    assert (late["id"], late["from_round"], late["checked_in"]) == (LATE, 2, True)
    assert {p["from_round"] for i, p in players(url, tid).items() if i != LATE} == {1}
    hall.play(tid, first.json(), late_one_goes_out, "league")

    drawn = play_to_the_end(url, hall, tid, rng, late_one_goes_out, rules="league")
    assert [d["stage"] for d in drawn] == ["eliminacje"] * 2 + ["półfinał", "finał"]
    assert LATE not in seated(first.json())
    assert LATE in seated(drawn[0])  # round 2
    assert LATE in seated(drawn[1])  # round 3

    # The late arrival stands among the best eight of the eliminations ...
    elims = standings(url, tid, "eliminacje")
    mine = next(r for r in elims if r["player"] == LATE)
    assert (mine["games"], mine["from_round"]) == (4, 2)  # two rounds of two games
    assert mine["place"] <= 8
    assert {r["from_round"] for r in elims if r["player"] != LATE} == {None}
    # ... but liga says a late arrival does not qualify (001 ZASADY 2a: six games each): the
    # semifinal takes the best eight of the others, the judge's tie-break as drawn.
    semifinal = drawn[2]
    others = [
        Row(r["place"], r["player"], r["name"], r["big"], r["small"], r["games"])
        for r in elims
        if r["player"] != LATE
    ]
    going = [r.player for r in break_ties(others, semifinal["tie_break"])[:8]]
    assert seated(semifinal) == set(going)
    assert LATE not in seated(semifinal)
    beaten = [r["player"] for r in elims].index(LATE)
    assert any([r["player"] for r in elims].index(p) > beaten for p in going)  # moved up

    # The final classification: the late arrival among the eliminations' players, saying
    # from which round they played; so the printed standings and the CSV.
    overall = standings(url, tid)
    assert len(overall) == LATE
    row = next(r for r in overall if r["player"] == LATE)
    assert (row["stage"], row["from_round"]) == ("eliminacje", 2)
    assert overall[0]["stage"] == "finał"
    printed = httpx.get(f"{url}/print/standings", params={"t": tid, "lang": "en"}).text
    assert printed.count("(from round 2)") == 1
    lines = list(
        csv.reader(
            httpx.get(f"{url}{API}/{tid}/standings.csv", params={"lang": "en"})
            .content.decode("utf-8-sig")
            .splitlines(),
            delimiter=";",
        )
    )
    assert lines[0][9] == "from round"
    assert {line[1]: line[9] for line in lines[1:]} == {
        str(r["player"]): ("2" if r["player"] == LATE else "") for r in overall
    }
    board = httpx.get(f"{url}{API}/{tid}/board").json()
    assert [r["from_round"] for r in board["standings"]] == [r["from_round"] for r in overall]


def test_a_round_undone_draws_a_late_arrival_enrolled_while_it_was_drawn(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 8)
    assert httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).status_code == 201
    assert enrol_late(url, tid, "Spóźniony Jan")["from_round"] == 2
    undone = httpx.request("DELETE", f"{url}{API}/{tid}/rounds/1", json={"reason": "pomyłka"})
    assert undone.status_code == 200, undone.text
    assert players(url, tid)[9]["from_round"] == 1  # round 1 is to be drawn again
    again = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1})
    assert 9 in seated(again.json())


def pending(url: str, table: int) -> list[dict[str, Any]]:
    tables = httpx.get(f"{url}/api/v1/tables").json()
    listed: list[dict[str, Any]] = next(t for t in tables if t["table"] == table)["commands"]
    return listed


@pytest.mark.parametrize(
    ("change", "status", "error"),
    [
        # a table, or a seat, the round does not have
        ({"table": 4}, 404, "round 1 has no table 4"),
        ({"seat": "D"}, 422, "seat: table 1 of round 1 has seats A, B, C"),
        # a reserve who is no player playing on, or who sits in the round already
        ({"reserve": 99}, 409, "reserve: tournament {tid} has no player 99 who plays on "
                               "(enrolled, not withdrawn nor excluded)"),
        ({"reserve": "seated"}, 409, "reserve: player {seated} already sits in round 1"),
        # a game the round does not have
        ({"from_game": 3}, 422, "from_game: round 1 has games 1 to 2"),
        ({"from_game": 0}, 422, None),  # the schema's: 1 or more
        ({"seat": "E"}, 422, None),  # A to D
        ({"reason": ""}, 422, None),  # the reason is required
        ({"withdraw": "yes"}, 422, None),  # true or false
    ],
)  # fmt: skip
def test_a_replacement_is_refused_in_one_line(
    hub: Hub, change: dict[str, Any], status: int, error: str | None
) -> None:
    url, store = hub
    Hall(url, store, 3)
    tid = create(url, format="liga")
    enrol(url, tid, 9)  # three tables of three (the judge overrides liga's 16 to 36)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 5, "override": True}).json()
    enrol_late(url, tid, "Rezerwowa Ola")
    other = drawn["tables"][1]["seats"]["A"]
    if change.get("reserve") == "seated":
        change = {"reserve": other}
    good = {"table": 1, "seat": "B", "reserve": 10, "reason": "musiała wyjść"}
    answer = httpx.post(f"{url}{API}/{tid}/rounds/1/replacements", json=good | change)
    assert answer.status_code == status, answer.text
    if error is not None:
        assert answer.json() == {"error": error.format(tid=tid, seated=other)}
    assert httpx.get(f"{url}{API}/{tid}/rounds/1").json()["replacements"] == []
    nowhere = httpx.post(f"{url}{API}/{tid}/rounds/9/replacements", json=good)
    assert nowhere.json() == {"error": f"tournament {tid} has no round 9"}
    assert nowhere.status_code == 404


def test_a_reserve_takes_a_seat_mid_round_and_liga_counts_its_games_for_nobody(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 3)
    tid = create(url, format="liga")
    enrol(url, tid, 9)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 5, "override": True}).json()
    assert httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"}).is_success
    seats = {t["table"]: t["seats"] for t in drawn["tables"]}
    one = seats[1]
    leaver = one["B"]
    # Table 1 plays its first game; then B must leave, and a late arrival takes the seat.
    racks = lowest_goes_out(1, 1, 1, one)
    tables.report(tid, 1, 1, one, racks, rules="league", round_game=1).raise_for_status()
    reserve = enrol_late(url, tid, "Rezerwowa Ola")["id"]
    before = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    sent = {"table": 1, "seat": "B", "reserve": reserve, "reason": "musiała wyjść"}
    path = f"{url}{API}/{tid}/rounds/1/replacements"
    answer = httpx.post(path, json=sent)
    assert answer.status_code == 201, answer.text
    kept = answer.json()
    assert {k: v for k, v in kept.items() if k not in ("at", "sent")} == {
        "round": 1, "table": 1, "seat": "B", "player": leaver, "reserve": reserve,
        "from_game": 2,  # the first game table 1 has not reported
        "withdrawn": True, "reason": "musiała wyjść", "by": "judge",
    }  # fmt: skip
    # The seat is the reserve's now: not again, and the reserve sits nowhere else.
    again = httpx.post(path, json=sent)
    assert (again.status_code, again.json()) == (
        409, {"error": "seat B of table 1 in round 1 has a reserve already"},
    )  # fmt: skip
    elsewhere = httpx.post(path, json=sent | {"seat": "C"})
    assert (elsewhere.status_code, elsewhere.json()) == (
        409, {"error": f"reserve: player {reserve} already sits in round 1"},
    )  # fmt: skip

    # Logged: the replacement, and the withdrawal of the player who left.
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    replaced = next(e for e in log if e["kind"] == "replace")
    assert {k: replaced[k] for k in ("player", "round", "table", "seat", "reserve")} == {
        "player": leaver, "round": 1, "table": 1, "seat": "B", "reserve": reserve,
    }  # fmt: skip
    assert (replaced["from_game"], replaced["withdrawn"], replaced["reason"]) == (
        2, True, "musiała wyjść",
    )  # fmt: skip
    assert [e["player"] for e in log if e["kind"] == "withdraw"] == [leaver]
    assert players(url, tid)[leaver]["active"] is False

    # The table is told the reserve's name for the seat's screen; the ids stay the draw's.
    lineup = next(c for c in pending(url, 1) if c["id"] == kept["sent"])
    assert lineup["kind"] == "game"
    assert lineup["args"]["seats"]["B"] == {"player": str(leaver), "name": "Rezerwowa Ola"}

    # The round lists it; what the tables owe is the same as before.
    now = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    assert now["replacements"] == [
        {"table": 1, "seat": "B", "player": leaver, "reserve": reserve, "from_game": 2}
    ]
    assert [t["missing"] for t in now["tables"]] == [t["missing"] for t in before["tables"]]

    # The tables play on; table 1's second game still names the drawn player at B.
    racks = lowest_goes_out(1, 1, 2, one)
    tables.report(tid, 1, 1, one, racks, rules="league", round_game=2).raise_for_status()
    for k in (2, 3):
        for game in (1, 2):
            racks = lowest_goes_out(1, k, game, seats[k])
            answer = tables.report(tid, 1, k, seats[k], racks, rules="league", round_game=game)
            answer.raise_for_status()
    done = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    assert [t["missing"] for t in done["tables"]] == [0, 0, 0]

    # The reserve's game is marked, counts as a game, and its seat counts for nobody.
    listed = results(url, tid)
    assert all(x["counts"] for x in listed)
    marks = {(x["table"], x["slot"]["game"], s): e["reserve"] for x in listed
             for s, e in x["seats"].items()}  # fmt: skip
    mark = {"player": leaver, "reserve": reserve, "name": "Rezerwowa Ola", "counts_for": None}
    assert {k: v for k, v in marks.items() if v is not None} == {(1, 2, "B"): mark}
    # Everyone else's standings are their seats' points; the seat a reserve played is no one's.
    expected: dict[int, list[int]] = {}
    for x in listed:
        for e in x["seats"].values():
            if e["reserve"] is None:
                have = expected.setdefault(e["player"], [0, 0, 0])
                have[0] += e["big"]
                have[1] += e["small"]
                have[2] += 1
    rows = {r["player"]: r for r in standings(url, tid)}
    counted = {p: [r["big"], r["small"], r["games"]] for p, r in rows.items() if r["games"]}
    assert counted == expected
    assert rows[leaver]["games"] == 1  # the game before they left
    assert (rows[reserve]["games"], rows[reserve]["from_round"]) == (0, 2)
    assert all(r["reserve_games"] == 0 for r in rows.values())  # nobody's: in no row

    # The players' pages: the reserve sees the game, marked, not counting for them; the
    # player who left sees the game they played.
    codes = {i: p["code"] for i, p in players(url, tid).items()}
    theirs = httpx.get(f"{url}/api/v1/p/{codes[reserve]}").json()["games"]
    shown = [(g["round"], g["game"], g["table"], g["seat"], g["counts"]) for g in theirs]
    assert shown == [(1, 2, 1, "B", False)]
    assert [g["reserve"] for g in theirs] == [mark]
    gone = httpx.get(f"{url}/api/v1/p/{codes[leaver]}").json()["games"]
    assert [(g["game"], g["counts"], g["reserve"]) for g in gone] == [(1, True, None)]

    # The round is complete: the next draws without override, the reserve in, the leaver not.
    following = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2})
    assert following.status_code == 201, following.text
    assert reserve in seated(following.json())
    assert leaver not in seated(following.json())


def test_in_an_open_tournament_a_reserves_game_counts_for_the_reserve(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url)  # open: one game a round, replacements = "reserve"
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    leaver = drawn["tables"][1]["seats"]["C"]
    reserve = enrol_late(url, tid, "Spóźniony Gość")["id"]
    sent = {"table": 2, "seat": "C", "reserve": reserve, "from_game": 1, "withdraw": False,
            "reason": "źle się poczuł"}  # fmt: skip
    answer = httpx.post(f"{url}{API}/{tid}/rounds/1/replacements", json=sent)
    assert answer.status_code == 201, answer.text
    # No lineup was sent to the tables: none is queued again (the table gets the name with it).
    assert (answer.json()["withdrawn"], answer.json()["sent"]) == (False, None)
    lineups = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"}).json()
    table_2 = next(c for c in pending(url, 2) if c["id"] == lineups[1]["id"])
    assert table_2["args"]["seats"]["C"] == {"player": str(leaver), "name": "Spóźniony Gość"}
    tables.play(tid, drawn, lowest_goes_out, "tournament")

    listed = results(url, tid)
    (played,) = [x["seats"]["C"] for x in listed if x["table"] == 2]
    assert played["reserve"] == {
        "player": leaver,
        "reserve": reserve,
        "name": "Spóźniony Gość",
        "counts_for": reserve,
    }
    rows = {r["player"]: r for r in standings(url, tid)}
    assert (rows[reserve]["big"], rows[reserve]["small"]) == (played["big"], played["small"])
    assert (rows[reserve]["games"], rows[reserve]["reserve_games"]) == (1, 1)
    assert rows[reserve]["from_round"] == 2
    assert (rows[leaver]["games"], rows[leaver]["reserve_games"]) == (0, 0)
    assert sum(r["big"] for r in rows.values()) == 2  # one winner a table, as ever
    code = players(url, tid)[reserve]["code"]
    (mine,) = httpx.get(f"{url}/api/v1/p/{code}").json()["games"]
    assert (mine["counts"], mine["big"], mine["reserve"]["counts_for"]) == (
        True, played["big"], reserve,
    )  # fmt: skip
    lines = list(
        csv.reader(
            httpx.get(f"{url}{API}/{tid}/results.csv", params={"lang": "en"})
            .content.decode("utf-8-sig")
            .splitlines(),
            delimiter=";",
        )
    )
    assert lines[0][-1] == "reserve"
    assert [line[-1] for line in lines[1:] if line[-1]] == [str(reserve)]
    # Not withdrawn: the player who left is drawn again, and so is the late arrival.
    following = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    assert {leaver, reserve} <= seated(following)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_console_shows_the_reserve_and_the_late_arrival(chromium_page: Page, hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url)
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    reserve = enrol_late(url, tid, "Spóźniony Gość")["id"]
    page = chromium_page
    page.goto(f"{url}/?lang=en&t={tid}")
    page.get_by_test_id("tab-round").click()
    # The judge seats the reserve from the round's page: a refusal first, in one line.
    page.get_by_test_id("v-table").fill("2")
    page.get_by_test_id("v-seat").select_option("C")
    page.get_by_test_id("v-reserve").fill("99")
    page.get_by_test_id("v-reason").fill("wyszła")
    page.get_by_test_id("v-save").click()
    expect(page.get_by_test_id("message")).to_contain_text("has no player 99")
    page.get_by_test_id("v-reserve").fill(str(reserve))
    page.get_by_test_id("v-from").fill("1")
    page.get_by_test_id("v-save").click()
    expect(page.get_by_test_id("message")).to_have_text(
        "Table 2, seat C: the reserve plays from game 1."
    )
    tables.play(tid, drawn, lowest_goes_out, "tournament")
    table_2 = page.locator("#round tbody tr").nth(1)
    expect(table_2).to_contain_text("C: Gracz ")
    expect(table_2).to_contain_text(f"⇄ Spóźniony Gość ({reserve}), from game 1")
    page.get_by_test_id("tab-scores").click()
    expect(page.locator("#tresults tbody")).to_contain_text(f"⇄ Spóźniony Gość ({reserve})")
    expect(page.locator("#audit tbody")).to_contain_text("seat taken by a reserve")
    page.get_by_test_id("tab-standings").click()
    expect(page.locator("#standings tbody")).to_contain_text("Spóźniony Gość (from round 2) ⇄")
