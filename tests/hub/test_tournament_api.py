"""The tournament API over real HTTP, on SQLite and on PostgreSQL: enrol, draw, report, rank."""

from __future__ import annotations

import csv
import random
from typing import Any

import httpx
import pytest

from klik_hub.storage.store import Store
from tests.helpers.hubkit import post
from tests.helpers.tourney import Hall, enrol, lowest_goes_out, play_to_the_end

Hub = tuple[str, Store]
API = "/api/v1/tournaments"
ROSTER = (
    "imię i nazwisko;szkoła\n"
    "Łucja Żak;SP 5 Szczecin\n"
    "Źdźisław Ćwik;SP 12\n"
    "Ania Nowak;SP 5 Szczecin\n"
    "Bożena Kęs;SP 3\n"
    "Jan Óssowski;SP 3\n"
    "Ewa Śliwa;SP 12\n"
    "Olek Wąs;SP 7\n"
    "Iga Ńuk;SP 7\n"
)


def create(url: str, **over: Any) -> int:
    sent = {"name": "Liga szkolna", "rules": "tournament", "format": "open", "move_time_s": 60}
    answer = httpx.post(url + API, json={**sent, **over})
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def enrol_csv(url: str, tid: int, text: str = ROSTER) -> httpx.Response:
    return post(url, f"{API}/{tid}/players", text.encode(), **{"Content-Type": "text/csv"})


def played(hub: Hub, seeds: tuple[int, ...], **tournament: Any) -> tuple[str, int]:
    """A tournament of the roster's 8 players whose rounds, drawn from ``seeds``, two paired
    tables have played and reported; its hub's URL and id."""
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url, **tournament)
    enrol_csv(url, tid)
    rules = tournament.get("rules", "tournament")
    # liga takes 16 to 36 players (001 ZASADY 1): with the roster's 8 the judge overrides
    override = tournament.get("format") == "liga"
    for seed in seeds:
        sent = {"seed": seed, "override": override}
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json=sent).json()
        # the lowest player id goes out; the others' racks grow with their ids
        tables.play(tid, drawn, lowest_goes_out, rules)
    return url, tid


def without_code(player: dict[str, Any]) -> dict[str, Any]:
    """A player as the judge's routes answer, without the code no test can know beforehand."""
    return {k: v for k, v in player.items() if k != "code"}


def test_a_tournament_is_created_and_read_back(hub: Hub) -> None:
    url, _ = hub
    tid = create(url, name="Mistrzostwa Szczecina", format="szczecin", move_time_s=45)
    assert httpx.get(f"{url}{API}/{tid}").json() == {
        "id": tid,
        "name": "Mistrzostwa Szczecina",
        "rules": "pl-turniej",  # the format's set
        "format": "szczecin",
        "move_time_s": 45,
        "round_time_s": None,  # the format's: the presets have none
        "release_together": False,
        "in_play": False,  # until the judge marks it
        "players": 0,
        "rounds": [],
        "stages": [  # the format's, each with its name on the English pages
            {"name": "runda I finału", "title_en": "final, round I"},
            {"name": "runda II finału", "title_en": "final, round II"},
            {"name": "wielki finał", "title_en": "grand final"},
        ],
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "swiss"}, "format 'swiss': allowed are liga, open, szczecin"),
        ({"rules": "house"}, "rules: a rule set of classic, de-klub, pl-liga, pl-turniej, wrc"),
        ({"move_time_s": 3}, "move time: Input should be greater than or equal to 5"),
        ({"name": ""}, "name: String should have at least 1 character"),
    ],
)
def test_a_bad_tournament_gets_one_line(hub: Hub, change: dict[str, Any], message: str) -> None:
    url, _ = hub
    sent = {"name": "Liga", "rules": "league", "format": "liga", "move_time_s": 60, **change}
    answer = httpx.post(url + API, json=sent)
    assert (answer.status_code, answer.json()) == (422, {"error": message})


NO_NEEDS = {"vibration": False, "large": False, "quiet": False, "fixed_table": None}


def test_players_are_enrolled_by_csv_then_json_with_start_numbers(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    first = enrol_csv(url, tid)
    assert first.status_code == 201
    assert without_code(first.json()[0]) == {
        "id": 1,
        "name": "Łucja Żak",
        "club": "SP 5 Szczecin",
        "family": "",
        "active": True,
        "checked_in": False,
        "from_round": 1,
        "person": 1,  # no id in the list: a new person of the hub's own
        "needs": NO_NEEDS,  # none said: all false, no fixed table
    }
    assert [x["id"] for x in first.json()] == list(range(1, 9))
    late = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": "Spóźniony Gość"}])
    assert [without_code(x) for x in late.json()] == [
        {
            "id": 9,
            "name": "Spóźniony Gość",
            "club": "",
            "family": "",
            "active": True,
            "checked_in": False,
            "from_round": 1,  # enrolled before the first draw: not a late arrival
            "person": 9,
            "needs": NO_NEEDS,
        }
    ]
    listed = httpx.get(f"{url}{API}/{tid}/players").json()
    assert [x["name"] for x in listed][-2:] == ["Iga Ńuk", "Spóźniony Gość"]
    # the list shows the codes the enrolment answered (tests/hub/test_player_codes.py)
    enrolled = [*first.json(), *late.json()]
    assert [x["code"] for x in listed] == [x["code"] for x in enrolled]


@pytest.mark.parametrize(
    ("body", "kind", "status", "message"),
    [
        (ROSTER + "Ala;SP 1;x\n", "text/csv", 422, "line 10: 3 fields; allowed are name and club"),
        (ROSTER + ";SP 1\n", "text/csv", 422, "line 10: the name is empty"),
        ("Łucja".encode("cp1250"), "text/csv", 422, "byte 0: not UTF-8; save the file as UTF-8"),
        (ROSTER, "text/plain", 415, "send application/json or text/csv"),
        ('[{"name": "Ala"}, {}]', "application/json", 422, "players[1]: name must be text"),
        ("[{", "application/json", 422, "the body is not JSON"),
    ],
)
def test_a_bad_list_enrols_nobody_and_says_where(
    hub: Hub, body: str | bytes, kind: str, status: int, message: str
) -> None:
    url, _ = hub
    tid = create(url)
    data = body.encode() if isinstance(body, str) else body
    answer = post(url, f"{API}/{tid}/players", data, **{"Content-Type": kind})
    assert (answer.status_code, answer.json()) == (status, {"error": message})
    assert httpx.get(f"{url}{API}/{tid}/players").json() == []


def test_a_tournament_that_is_not_there_is_404(hub: Hub) -> None:
    url, _ = hub
    for answer in (
        httpx.get(f"{url}{API}/77"),
        httpx.get(f"{url}{API}/77/standings"),
        httpx.post(f"{url}{API}/77/rounds", json={}),
        httpx.post(f"{url}{API}/77/players", json=[{"name": "Ala"}]),
    ):
        assert (answer.status_code, answer.json()) == (404, {"error": "no tournament 77"})


def test_a_round_seats_everyone_once_and_its_seed_draws_it_again(hub: Hub) -> None:
    url, _ = hub
    tids = [create(url), create(url)]
    for tid in tids:
        enrol_csv(url, tid)
    drawn = [httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2026}) for tid in tids]
    assert [d.status_code for d in drawn] == [201, 201]
    one = drawn[0].json()
    assert (one["round"], one["stage"], one["games"], one["seed"]) == (1, "rozgrywki", 1, 2026)
    assert one["repeats"] == 0  # nobody has met yet
    assert [t["table"] for t in one["tables"]] == [1, 2]
    seated = sorted(p for t in one["tables"] for p in t["seats"].values())
    assert seated == list(range(1, 9))
    assert [sorted(t["seats"]) for t in one["tables"]] == [["A", "B", "C", "D"]] * 2
    assert drawn[1].json()["tables"] == one["tables"]  # the same seed, the same draw


def test_the_next_round_waits_for_every_result_unless_overridden(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url)
    enrol_csv(url, tid)
    first = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    early = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2})
    assert early.status_code == 409
    assert early.json() == {
        "error": "round 1: 2 games without a result at 2 tables; draw with override to go on anyway",
        "missing": [{"table": 1, "missing": 1}, {"table": 2, "missing": 1}],
    }
    board = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    assert [t["missing"] for t in board["tables"]] == [1, 1]
    tables.play(tid, first, lowest_goes_out, "tournament")
    assert [t["missing"] for t in httpx.get(f"{url}{API}/{tid}/rounds/1").json()["tables"]] == [
        0,
        0,
    ]
    second = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2})
    assert second.status_code == 201
    overridden = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3, "override": True})
    assert (overridden.status_code, overridden.json()["round"]) == (201, 3)
    assert [r["round"] for r in httpx.get(f"{url}{API}/{tid}").json()["rounds"]] == [1, 2, 3]


def test_standings_rank_big_then_small_points_from_the_tables_results(hub: Hub) -> None:
    url, tid = played(hub, (5, 6))
    rows = httpx.get(f"{url}{API}/{tid}/standings").json()
    assert [r["place"] for r in rows] == sorted(r["place"] for r in rows)
    assert sum(r["games"] for r in rows) == 2 * 8
    assert sum(r["big"] for r in rows) == 2 * 2  # one winner a table a round
    assert sum(r["small"] for r in rows) == 0  # a Rummikub's points sum to zero
    assert rows[0]["player"] == 1  # the lowest id goes out at every table it sits at
    assert rows[0] == {
        "place": 1, "player": 1, "name": "Łucja Żak", "club": "SP 5 Szczecin", "big": 2,
        "small": rows[0]["small"], "games": 2, "stage": None, "status": "classified",
        "excluded": False, "deductions": [], "from_round": None, "reserve_games": 0,
    }  # fmt: skip
    keys = [(-r["big"], -r["small"]) for r in rows]
    assert keys == sorted(keys)


def test_liga_semifinals_are_seated_from_the_eliminations(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url, rules="league", format="liga")
    enrol_csv(url, tid)
    for seed in (1, 2, 3):  # eliminations: 3 rounds of 2 games at random tables
        # 8 players: fewer than the 16 liga takes (001 ZASADY 1), so the judge overrides
        sent = {"seed": seed, "override": True}
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json=sent).json()
        assert (drawn["stage"], drawn["games"]) == ("eliminacje", 2)
        tables.play(tid, drawn, lowest_goes_out, "league")
    ranked = httpx.get(f"{url}{API}/{tid}/standings?stage=eliminacje").json()
    semi = httpx.post(f"{url}{API}/{tid}/rounds", json={})
    assert semi.status_code == 201, semi.text
    drawn = semi.json()
    assert drawn["stage"] == "półfinał"
    by_place = [r["player"] for r in ranked]
    seats = [list(t["seats"].values()) for t in drawn["tables"]]
    assert seats == [[by_place[i] for i in (0, 2, 4, 6)], [by_place[i] for i in (1, 3, 5, 7)]]


def test_a_player_who_never_played_does_not_qualify(hub: Hub) -> None:
    url, tid = played(hub, (1, 2, 3), rules="league", format="liga")
    # Enrolled after the eliminations: 0 big and 0 small points would stand above every
    # player with small points above 0 (the league writes the losers plus), so the
    # classification lists whoever played no stage last, and the eliminations leave them out.
    late = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": "Spóźniony"}]).json()[0]["id"]
    ranked = httpx.get(f"{url}{API}/{tid}/standings").json()
    assert (ranked[-1]["player"], ranked[-1]["stage"]) == (late, None)
    stage = httpx.get(f"{url}{API}/{tid}/standings", params={"stage": "eliminacje"}).json()
    assert late not in [r["player"] for r in stage]
    semi = httpx.post(f"{url}{API}/{tid}/rounds", json={}).json()
    seated = [p for t in semi["tables"] for p in t["seats"].values()]
    assert sorted(seated) == list(range(1, 9))


def test_a_correction_is_an_event_that_changes_the_standings_and_is_logged(hub: Hub) -> None:
    url, tid = played(hub, (5,))
    listed = httpx.get(f"{url}{API}/{tid}/results").json()
    assert [(r["round"], r["counts"], r["corrected"]) for r in listed] == [(1, True, False)] * 2
    first = listed[0]
    loser = next(s for s, e in first["seats"].items() if e["rack"] > 0)
    player = first["seats"][loser]["player"]
    before = {r["player"]: r for r in httpx.get(f"{url}{API}/{tid}/standings").json()}
    rack = first["seats"][loser]["rack"] + 10
    made = httpx.post(
        f"{url}{API}/{tid}/results/{first['id']}/corrections",
        json={"kind": "rack", "seat": loser, "value": rack, "reason": "źle policzona tabliczka",
              "by": "Anna (sędzia)"},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["kind"] == "rack"
    assert (made.json()["value"], made.json()["by"]) == (rack, "Anna (sędzia)")
    after = {r["player"]: r for r in httpx.get(f"{url}{API}/{tid}/standings").json()}
    assert after[player]["small"] == before[player]["small"] - 10
    now = httpx.get(f"{url}{API}/{tid}/results").json()[0]
    assert (now["corrected"], now["seats"][loser]["rack"]) == (True, rack)
    raw = {r["id"]: r for r in httpx.get(f"{url}/api/v1/results").json()}
    assert (raw[first["id"]]["corrected"], raw[first["id"]]["racks"][loser]) == (True, rack - 10)
    assert now["corrections"][0]["reason"] == "źle policzona tabliczka"

    excluded = httpx.post(
        f"{url}{API}/{tid}/results/{first['id']}/corrections",
        json={"kind": "exclude", "value": True, "reason": "stolik grał złym składem"},
    )
    assert excluded.status_code == 201
    rows = httpx.get(f"{url}{API}/{tid}/standings").json()
    assert sum(r["games"] for r in rows) == 8 - len(first["seats"])
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [c["kind"] for c in log] == ["exclude", "rack"]  # newest first
    assert all(c["at"].endswith("Z") for c in log)


@pytest.mark.parametrize(
    ("sent", "status", "message"),
    [
        (
            {"kind": "rack", "seat": "B", "value": 900, "reason": "x"},
            422,
            "value: a rack sum from 0 to 828",
        ),
        (
            {"kind": "player", "seat": "B", "value": 99, "reason": "x"},
            422,
            "value: no player 99 in tournament {tid}",
        ),
        (
            {"kind": "exclude", "value": True, "reason": ""},
            422,
            "reason: String should have at least 1 character",
        ),
    ],
)
def test_a_bad_correction_changes_nothing(
    hub: Hub, sent: dict[str, Any], status: int, message: str
) -> None:
    url, tid = played(hub, (5,))
    result = httpx.get(f"{url}{API}/{tid}/results").json()[0]["id"]
    answer = httpx.post(f"{url}{API}/{tid}/results/{result}/corrections", json=sent)
    assert (answer.status_code, answer.json()) == (status, {"error": message.format(tid=tid)})
    missing = httpx.post(f"{url}{API}/{tid}/results/999/corrections", json=sent | {"reason": "x"})
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": f"tournament {tid} has no result 999"},
    )
    assert httpx.get(f"{url}{API}/{tid}/corrections").json() == []


def test_standings_and_results_export_as_csv_for_a_polish_spreadsheet(hub: Hub) -> None:
    url, tid = played(hub, (5,))
    first = httpx.get(f"{url}{API}/{tid}/results").json()[0]
    httpx.post(
        f"{url}{API}/{tid}/results/{first['id']}/corrections",
        json={"kind": "accept", "value": True, "reason": "sprawdzone"},
    ).raise_for_status()
    answer = httpx.get(f"{url}{API}/{tid}/standings.csv")
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert answer.headers["content-disposition"] == f'attachment; filename="klasyfikacja-{tid}.csv"'
    assert answer.content.startswith("\ufeff".encode())  # Excel reads the Polish letters
    lines = list(csv.reader(answer.content.decode("utf-8-sig").splitlines(), delimiter=";"))
    assert lines[0] == [
        "miejsce",
        "nr",
        "gracz",
        "klub",
        "duże",
        "małe",
        "gry",
        "poprawione",
        "wykluczony",
        "od rundy",
        "etap",
        "status",
        "odjęte",
    ]
    standings = httpx.get(f"{url}{API}/{tid}/standings").json()
    assert [line[:3] for line in lines[1:]] == [
        [str(r["place"]), str(r["player"]), r["name"]] for r in standings
    ]
    corrected = {str(e["player"]) for e in first["seats"].values()}
    assert {line[1] for line in lines[1:] if line[7] == "tak"} == corrected
    english = httpx.get(f"{url}{API}/{tid}/results.csv?lang=en").content.decode("utf-8-sig")
    rows = list(csv.reader(english.splitlines(), delimiter=";"))
    assert rows[0][:5] == ["result", "round", "table", "game", "receipt"]
    assert len(rows) == 1 + 8  # a seat a line
    assert {r[13] for r in rows[1:] if r[0] == str(first["id"])} == {"yes"}


def test_the_judge_picks_the_semifinals_field(hub: Hub) -> None:
    url, tid = played(hub, (1, 2, 3), rules="league", format="liga")
    wrong = httpx.post(f"{url}{API}/{tid}/rounds", json={"field": 7})
    assert (wrong.status_code, wrong.json()) == (
        409,
        {"error": "półfinał: a field of 7: allowed are 8, 6"},
    )
    by_place = [r["player"] for r in httpx.get(f"{url}{API}/{tid}/standings").json()]
    six = httpx.post(f"{url}{API}/{tid}/rounds", json={"field": 6}).json()
    seats = [list(t["seats"].values()) for t in six["tables"]]
    assert seats == [[by_place[i] for i in (0, 2, 4)], [by_place[i] for i in (1, 3, 5)]]


def test_no_text_in_an_export_opens_as_a_formula(hub: Hub) -> None:
    """OWASP's CSV injection: text starting =, +, -, @ gets a leading ', numbers stay."""
    hostile = ["=HYPERLINK(A1)", "+48 600", "-Ala", "@SUM(A1)"]
    roster = "".join(f"{name};{name}\n" for name in hostile) + "Ewa Śliwa;SP 12\n"
    url, _ = hub
    tid = create(url)
    enrol_csv(url, tid, roster).raise_for_status()
    lines = list(
        csv.reader(
            httpx.get(f"{url}{API}/{tid}/standings.csv").content.decode("utf-8-sig").splitlines(),
            delimiter=";",
        )
    )
    names = {line[2]: line[3] for line in lines[1:]}
    assert names == {**{"'" + n: "'" + n for n in hostile}, "Ewa Śliwa": "SP 12"}
    url, tid = played(hub, (5,))
    rows = list(
        csv.reader(
            httpx.get(f"{url}{API}/{tid}/results.csv").content.decode("utf-8-sig").splitlines(),
            delimiter=";",
        )
    )
    small = [int(row[9]) for row in rows[1:]]  # int() fails on "'-12": minus points stay numbers
    assert min(small) < 0


def test_a_draw_keeps_clubs_and_families_apart_and_says_where_it_could_not(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol_csv(url, tid)  # 8 players, two of each of 4 schools, at 2 tables of 4
    for player in (1, 2):  # Łucja Żak and Źdźisław Ćwik: cousins, the judge marks them
        marked = httpx.patch(
            f"{url}{API}/{tid}/players/{player}", json={"family": " Żakowie ", "reason": "kuzyni"}
        )
        assert marked.status_code == 200, marked.text
        assert marked.json()["family"] == "Żakowie"
    schools = {1: "SP 5 Szczecin", 3: "SP 5 Szczecin", 2: "SP 12", 6: "SP 12", 4: "SP 3",
               5: "SP 3", 7: "SP 7", 8: "SP 7"}  # fmt: skip
    for seed in range(5):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": seed, "override": True})
        assert drawn.status_code == 201, drawn.text
        one = drawn.json()
        tables = [set(t["seats"].values()) for t in one["tables"]]
        assert all({1, 2} - t for t in tables)  # the family always apart
        assert one["same_family"] == []
        # 4 schools of 2 at 2 tables: every school apart in round 1; later rounds trade
        # schools against repeats, and the answer names each table that seats one school
        # twice, and each pair that meets again.
        together = sorted(
            (k, school)
            for k, t in enumerate(tables, 1)
            for school in set(schools.values())
            if sum(schools[p] == school for p in t) > 1
        )
        assert sorted((x["table"], x["club"]) for x in one["same_club"]) == together
        if seed == 0:
            assert together == []
            assert one["repeated_pairs"] == []
        assert len(one["repeated_pairs"]) == one["repeats"]  # each pair that met adds one
        for x in one["repeated_pairs"]:
            assert set(x["players"]) <= tables[x["table"] - 1]
        again = httpx.get(f"{url}{API}/{tid}/rounds/{one['round']}").json()
        for key in ("repeated_pairs", "same_club", "same_family"):
            assert again[key] == one[key]


@pytest.mark.parametrize("weight", [-1, 10.5, "dużo"])
def test_a_clubs_weight_outside_0_to_10_draws_nothing(hub: Hub, weight: object) -> None:
    url, _ = hub
    tid = create(url)
    enrol_csv(url, tid)
    refused = httpx.post(f"{url}{API}/{tid}/rounds", json={"clubs_weight": weight})
    assert refused.status_code == 422
    assert httpx.get(f"{url}{API}/{tid}").json()["rounds"] == []


def test_a_round_of_a_seeded_stage_says_it_is_seeded(hub: Hub) -> None:
    # szczecin: round I of the final is drawn at random, rounds II and the grand final are
    # seated from the standings: their seed draws nothing, and the console shows neither it
    # nor their repeats. The draw's answer and the round's say the same.
    url, store = hub
    tid = create(url, format="szczecin")
    enrol(url, tid, 9)
    drawn = play_to_the_end(url, Hall(url, store, 3), tid, random.Random(2), lowest_goes_out,
                            rules="tournament")  # fmt: skip
    assert [(d["stage"], d["seeded"]) for d in drawn] == [
        ("runda I finału", False),
        ("runda II finału", True),
        ("wielki finał", True),
    ]
    for d in drawn:
        answer = httpx.get(f"{url}{API}/{tid}/rounds/{d['round']}")
        assert answer.json()["seeded"] is d["seeded"]
