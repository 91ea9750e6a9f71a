"""A whole `liga` day through the API (issue 20): 24 players, of them 3 absent at the check-in
and 2 late arrivals, one who must leave mid-round with a reserve in their seat, and the round's
clock running; from the check-in to the final classification, on SQLite and PostgreSQL.

Everyone's games are played by one rule (the lowest start number at a table goes out), so
what each stage and the classification must be is worked out here from the draws as made.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from klik_hub import office
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock
from tests.helpers.tourney import API, Hall, create, draw, enrol, lowest_goes_out, standings

Hub = tuple[str, Store]
ABSENT = (5, 12, 19)  # enrolled, never checked in: withdrawn in one step
ON_TIME = 22  # enrolled before the day; 23 arrives after round 1 is drawn, 24 during round 2


def seated(drawn: dict[str, Any]) -> set[int]:
    return {p for table in drawn["tables"] for p in table["seats"].values()}


def late(url: str, tid: int, name: str) -> dict[str, Any]:
    answer = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": name, "club": "SP 9"}])
    assert answer.status_code == 201, answer.text
    (player,) = answer.json()
    return dict(player)


def ok(answer: httpx.Response, status: int = 200) -> Any:
    assert answer.status_code == status, answer.text
    return answer.json()


def test_a_whole_liga_day_from_the_check_in_to_the_final_classification(hub: Hub) -> None:
    url, store = hub
    assert isinstance(store.now_ms, Clock)
    hall = Hall(url, store, 6)
    rng = random.Random(20)
    tid = create(url, format="liga", round_time_s=50 * 60)
    enrol(url, tid, ON_TIME)
    codes = {p["id"]: p["code"] for p in ok(httpx.get(f"{url}{API}/{tid}/players"))}

    # The check-in: players tap their pages' button, the judge ticks one at the desk.
    ok(httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True}))
    here = [p for p in range(1, ON_TIME + 1) if p not in ABSENT]
    for player in here[:-1]:
        ok(httpx.post(f"{url}/api/v1/p/{codes[player]}/check-in"))
    ok(httpx.post(f"{url}{API}/{tid}/players/{here[-1]}/check-in", json={"checked_in": True}))
    ok(httpx.post(f"{url}{API}/{tid}/check-in", json={"open": False}))
    out = ok(httpx.post(f"{url}{API}/{tid}/check-in/absent"))
    assert out["withdrawn"] == list(ABSENT)

    # Round 1: the 19 here, at tables of 4, 4, 4, 4 and 3; started, its clock running.
    first = ok(draw(url, tid, rng), 201)
    assert seated(first) == set(here)
    ok(httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"}), 201)
    assert ok(httpx.get(f"{url}{API}/{tid}/rounds/1"))["left_ms"] == 50 * 60_000
    # A late arrival comes while round 1 is played: they play from round 2.
    anna = late(url, tid, "Spóźniona Anna")
    assert (anna["id"], anna["from_round"], anna["checked_in"]) == (23, 2, True)
    hall.play(tid, first, lowest_goes_out, "league")
    store.now_ms.ms += 50 * 60_000
    office.clock.due(store)  # every table reported: none is sent round-over
    assert [t["clock"]["over_at"] is not None for t in ok(
        httpx.get(f"{url}{API}/{tid}/rounds/1"))["tables"]] == [True] * 5  # fmt: skip
    assert not [e for e in ok(httpx.get(f"{url}{API}/{tid}/corrections"))
                if e["kind"] == "round_over"]  # fmt: skip

    # Round 2: 20 players. At table 1, seat B must leave after the first game; the second
    # late arrival takes the seat for the round's last game.
    second = ok(draw(url, tid, rng), 201)
    assert seated(second) == {*here, 23}
    ok(httpx.post(f"{url}{API}/{tid}/rounds/2/commands", json={"kind": "start"}), 201)
    one = second["tables"][0]["seats"]
    leaver = one["B"]
    hall.report(tid, 2, 1, one, lowest_goes_out(2, 1, 1, one), rules="league",
                round_game=1).raise_for_status()  # fmt: skip
    bartek = late(url, tid, "Rezerwowy Bartek")
    assert (bartek["id"], bartek["from_round"]) == (24, 3)
    sent = {"table": 1, "seat": "B", "reserve": 24, "reason": "musiał wyjść"}
    kept = ok(httpx.post(f"{url}{API}/{tid}/rounds/2/replacements", json=sent), 201)
    assert (kept["from_game"], kept["withdrawn"]) == (2, True)
    # The reserve's phone sends them to the seat; the board names them there.
    mine = ok(httpx.get(f"{url}/api/v1/p/{bartek['code']}"))
    assert (mine["round"], mine["table"], mine["seat"]) == (2, 1, "B")
    board = ok(httpx.get(f"{url}{API}/{tid}/board"))
    at_b = board["round"]["tables"][0]["seats"][1]
    assert (at_b["seat"], at_b["player"], at_b["name"]) == ("B", 24, "Rezerwowy Bartek")
    assert ok(httpx.get(f"{url}/api/v1/p/{codes[leaver]}"))["round"] == 1  # their last seat
    hall.report(tid, 2, 1, one, lowest_goes_out(2, 1, 2, one), rules="league",
                round_game=2).raise_for_status()  # fmt: skip
    for table in second["tables"][1:]:
        k, seats = table["table"], table["seats"]
        for game in (1, 2):
            racks = lowest_goes_out(2, k, game, seats)
            hall.report(tid, 2, k, seats, racks, rules="league", round_game=game).raise_for_status()

    # Round 3: the leaver is out, the reserve in; then the seeded stages.
    third = ok(draw(url, tid, rng), 201)
    assert seated(third) == ({*here, 23, 24} - {leaver})
    hall.play(tid, third, lowest_goes_out, "league")
    elims = standings(url, tid, "eliminacje")
    semifinal = ok(draw(url, tid, rng), 201)
    assert semifinal["stage"] == "półfinał"
    # liga: the late arrivals played fewer games and do not qualify (the next move up)
    on_time = [r["player"] for r in elims if r["from_round"] is None and r["player"] != leaver]
    assert not seated(semifinal) & {23, 24}
    assert seated(semifinal) <= set(on_time[:9]) | {leaver}
    hall.play(tid, semifinal, lowest_goes_out, "league")
    final = ok(draw(url, tid, rng), 201)
    assert final["stage"] == "finał"
    assert len(seated(final)) == 4
    hall.play(tid, final, lowest_goes_out, "league")
    assert draw(url, tid, rng).status_code == 409  # the format is played to its end

    # The final classification: the final's four first, by the final's standings; then the
    # semifinal's others; then the eliminations' players, the late arrivals marked.
    overall = standings(url, tid)
    by_final = [r["player"] for r in standings(url, tid, "finał")]
    assert [r["player"] for r in overall[:4]] == by_final
    assert {r["player"] for r in overall[4:8]} == seated(semifinal) - seated(final)
    assert [r["place"] for r in overall if r["games"]] == list(range(1, 22))
    rows = {r["player"]: r for r in overall}
    assert (rows[23]["from_round"], rows[23]["games"]) == (2, 4)
    # the reserve's game in round 2 counts for nobody under liga: round 3's two games only
    assert (rows[24]["from_round"], rows[24]["games"]) == (3, 2)
    assert rows[leaver]["games"] == 3  # round 1, and round 2's first game
    for absent in ABSENT:
        assert rows.get(absent, {"games": 0})["games"] == 0
    players = {p["id"]: p for p in ok(httpx.get(f"{url}{API}/{tid}/players"))}
    assert [p for p, x in players.items() if not x["active"]] == sorted([*ABSENT, leaver])

    # Every player's page says their place, and the reserve's page shows the marked game.
    page = ok(httpx.get(f"{url}/api/v1/p/{codes[by_final[0]]}"))
    assert page["place"] == 1
    reserve_page = ok(httpx.get(f"{url}/api/v1/p/{players[24]['code']}"))
    assert [(g["round"], g["counts"]) for g in reserve_page["games"]] == [
        (2, False), (3, True), (3, True)]  # fmt: skip
    # The judge's log holds the day: check-in, withdrawals, the replacement.
    kinds = [e["kind"] for e in ok(httpx.get(f"{url}{API}/{tid}/corrections"))]
    assert {"checkin_open", "checkin_close", "withdraw", "replace"} <= set(kinds)
