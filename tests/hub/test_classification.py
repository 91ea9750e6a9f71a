"""The classification the rules give, through every stage (seed 001 ZASADY 2b-c, 004 22-23),
and one rule set for a whole tournament: on a real hub, SQLite and PostgreSQL."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest

from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.tourney import (
    API,
    Hall,
    Seats,
    create,
    enrol,
    lowest_goes_out,
    play_to_the_end,
    results,
    standings,
)

Hub = tuple[str, Store]


def semifinal_upset(round_no: int, table: int, game: int, seats: Seats) -> dict[str, int]:
    """Eliminations and final: the lowest id goes out. Round 4 (the semifinal): the highest id
    goes out and the lowest holds the biggest rack, so the eliminations' leader (player 1)
    ends last at its semifinal table and never plays the final."""
    if round_no != 4:
        return lowest_goes_out(round_no, table, game, seats)
    high = max(seats.values())
    return {s: 0 if p == high else 100 - p for s, p in seats.items()}


def test_the_liga_classification_is_by_the_last_stage_reached(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="liga")  # the league rule set: the format's own
    assert httpx.get(f"{url}{API}/{tid}").json()["rules"] == "pl-liga"
    enrol(url, tid, 16)
    drawn = play_to_the_end(
        url, Hall(url, store, 4), tid, random.Random(1), semifinal_upset, rules="league"
    )
    assert [d["stage"] for d in drawn] == ["eliminacje"] * 3 + ["półfinał", "finał"]
    elims = standings(url, tid, "eliminacje")
    assert elims[0]["player"] == 1  # player 1 led the eliminations ...
    semi = standings(url, tid, "półfinał")
    final = standings(url, tid, "finał")
    finalists = [r["player"] for r in final]
    assert 1 not in finalists  # ... and lost the semifinal

    overall = standings(url, tid)
    # The final's four by the final, the other semifinalists by the semifinal, then the rest
    # by the eliminations; places run on, and each row says which stage placed it.
    others = [r for r in semi if r["player"] not in finalists]
    rest = [r for r in elims if r["player"] not in {x["player"] for x in semi}]
    expected = [r["player"] for r in final + others + rest]
    assert [r["player"] for r in overall] == expected
    assert [r["stage"] for r in overall] == ["finał"] * 4 + ["półfinał"] * 4 + ["eliminacje"] * 8
    assert [r["place"] for r in overall] == list(range(1, 17))  # no ties with these racks
    assert overall[0]["player"] == final[0]["player"]  # the final's winner wins the tournament
    assert [r["player"] for r in overall].index(1) in range(4, 8)

    # A stage's standings list its own players only (the 4th finalist is 4th, not 16th).
    assert [r["place"] for r in final] == [1, 2, 3, 4]
    assert (len(semi), len(elims)) == (8, 16)

    # The printed standings and the CSV follow the classification.
    printed = httpx.get(f"{url}/print/standings", params={"t": tid}).text
    names = [r["name"] for r in overall]
    assert [printed.index(f">{n}<") for n in names] == sorted(
        printed.index(f">{n}<") for n in names
    )
    csv = httpx.get(f"{url}{API}/{tid}/standings.csv").content.decode("utf-8-sig").splitlines()
    assert [line.split(";")[2] for line in csv[1:]] == names


def test_while_the_semifinal_is_played_its_players_stand_first(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="liga")
    enrol(url, tid, 16)
    hall = Hall(url, store, 4)
    for seed in (1, 2, 3):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": seed}).json()
        hall.play(tid, drawn, lowest_goes_out, "league")
    semi = httpx.post(f"{url}{API}/{tid}/rounds", json={}).json()
    seated = {p for t in semi["tables"] for p in t["seats"].values()}
    # Not one semifinal game is in: the rule is applied to the stages played so far.
    overall = standings(url, tid)
    assert {r["player"] for r in overall[:8]} == seated
    assert {r["stage"] for r in overall[:8]} == {"półfinał"}
    assert [r["stage"] for r in overall[8:]] == ["eliminacje"] * 8


@pytest.mark.parametrize(
    ("format_name", "rules", "status", "message"),
    [
        # seed 001: the league rule set; a tournament one would rank +240 below +120
        ("liga", "tournament", 422, 'rules "pl-turniej": the format liga is played under pl-liga'),
        # seed 004: the tournament rule set
        (
            "szczecin",
            "league",
            422,
            'rules "pl-liga": the format szczecin is played under pl-turniej',
        ),
        ("open", "league", 201, None),  # an open tournament takes either
        ("open", "tournament", 201, None),
        ("liga", "league", 201, None),
    ],
)
def test_a_tournaments_rule_set_is_its_formats(
    hub: Hub, format_name: str, rules: str, status: int, message: str | None
) -> None:
    url, _ = hub
    sent = {"name": "T", "format": format_name, "rules": rules, "move_time_s": 60}
    answer = httpx.post(url + API, json=sent)
    assert answer.status_code == status, answer.text
    if message is not None:
        assert answer.json() == {"error": message}


def test_a_result_played_under_another_rule_set_is_held_and_scored_by_the_tournaments(
    hub: Hub,
) -> None:
    url, store = hub
    tid = create(url, format="open", rules="league")
    enrol(url, tid, 4)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    seats = drawn["tables"][0]["seats"]
    hall = Hall(url, store, 1)
    racks = {s: 0 if s == "A" else 10 * (i + 1) for i, s in enumerate(seats)}
    # The table was set to the tournament rule set: 1/0/0/0 instead of the league's 4/2/1/0.
    sent = hall.report(tid, 1, 1, seats, racks, rules="tournament", round_game=1)
    assert sent.status_code == 201, sent.text
    (result,) = results(url, tid)
    assert (result["counts"], result["held"]) == (False, "rules")
    assert all(r["games"] == 0 for r in standings(url, tid))
    accepted = httpx.post(
        f"{url}{API}/{tid}/results/{result['id']}/corrections",
        json={"kind": "accept", "value": True, "reason": "stół ustawiony na złe zasady"},
    )
    assert accepted.status_code == 201, accepted.text
    (result,) = results(url, tid)
    assert result["counts"]
    # Scored again by the league: the winner writes minus, big points 4/2/1/0.
    assert sorted(e["big"] for e in result["seats"].values()) == [0, 1, 2, 4]
    assert result["seats"]["A"]["small"] == -sum(racks.values())


@pytest.mark.parametrize(
    ("format_name", "first"),
    [
        ("liga", {"first_starter": "draw"}),  # 001: whoever drew the highest tile starts
        ("szczecin", {}),  # 004 6: seat A starts (the key is left out for older tables)
        ("open", {}),
    ],
)
def test_a_rounds_lineup_says_who_starts_its_first_game(
    hub: Hub, format_name: str, first: dict[str, str]
) -> None:
    url, store = hub
    tid = create(url, format=format_name)
    enrol(url, tid, 16)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    for k in range(1, len(drawn["tables"]) + 1):
        hall.devices.pair(store, k)
    sent = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"})
    assert sent.status_code == 201, sent.text
    lineups = [
        c["args"] for t in hall.devices.tables(store) for c in t["commands"] if c["kind"] == "game"
    ]
    assert len(lineups) == len(drawn["tables"])
    assert all({k: v for k, v in x.items() if k == "first_starter"} == first for x in lineups)
    sheets = httpx.get(f"{url}/print/sheets", params={"t": tid, "round": 1}).text
    assert ("kto wylosuje najwyższą kostkę" in sheets) == bool(first)


def test_the_classification_says_what_decided_each_place(hub: Hub) -> None:
    """Issue 37, point 4: a whole liga day with one player absent (withdrawn before the first
    draw) and a deduction in the eliminations. Every row says the stage that placed it and
    its status; the absent player has no place and comes last, marked; the deduction keeps
    its stage; the CSV, the print, the board and the archive's page say the same."""
    url, store = hub
    tid = liga_day(url, store)
    overall = standings(url, tid)
    assert [r["stage"] for r in overall] == (
        ["finał"] * 4 + ["półfinał"] * 4 + ["eliminacje"] * 8 + [None]
    )
    assert [r["status"] for r in overall] == ["classified"] * 16 + ["withdrawn"]
    assert [r["place"] for r in overall] == [*range(1, 17), None]
    assert overall[-1]["player"] == 17
    nine = next(r for r in overall if r["player"] == 9)
    assert nine["deductions"] == [{"stage": "eliminacje", "big": 1}]
    assert all(r["deductions"] == [] for r in overall if r["player"] != 9)
    # The eliminations' standings count the deduction where it was given.
    elims = {r["player"]: r for r in standings(url, tid, "eliminacje")}
    assert elims[9]["deductions"] == [{"stage": "eliminacje", "big": 1}]

    # The champion's phone: the final decides the place, and each game says its stage.
    code = {p["id"]: p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    champion = httpx.get(f"{url}/api/v1/p/{code[overall[0]['player']]}").json()
    assert (champion["place"], champion["stage"]) == (1, "finał")
    assert [g["stage"] for g in champion["games"]] == ["eliminacje"] * 6 + ["półfinał"] * 2 + [
        "finał"
    ] * 2
    absent = httpx.get(f"{url}/api/v1/p/{code[17]}").json()
    assert (absent["place"], absent["stage"], absent["games"]) == (None, None, [])

    board = httpx.get(f"{url}{API}/{tid}/board").json()["standings"]
    assert [(r["place"], r["stage"], r["status"]) for r in board] == [
        (r["place"], r["stage"], r["status"]) for r in overall
    ]
    csv = httpx.get(f"{url}{API}/{tid}/standings.csv").content.decode("utf-8-sig")
    head, *lines = [line.split(";") for line in csv.splitlines()]
    assert head[-3:] == ["etap", "status", "odjęte"]
    assert [x[-3:-1] for x in lines] == [[r["stage"] or "", _STATUS[r["status"]]] for r in overall]
    assert lines[-1][0] == ""  # no place
    assert next(x for x in lines if x[1] == "9")[-1] == "1 (eliminacje)"
    english = httpx.get(f"{url}{API}/{tid}/standings.csv", params={"lang": "en"}).text
    assert english.splitlines()[0].endswith("stage;status;deducted")
    # English pages name a stage by its English title (the format's title_en, issue 37.5).
    said = [line.split(";") for line in english.splitlines()[1:]]
    assert [x[-3] for x in said] == ["final"] * 4 + ["semifinal"] * 4 + ["preliminaries"] * 8 + [""]
    assert next(x for x in said if x[1] == "9")[-1] == "1 (preliminaries)"
    stages = httpx.get(f"{url}{API}/{tid}").json()["stages"]
    assert stages == [{"name": "eliminacje", "title_en": "preliminaries"},
                      {"name": "półfinał", "title_en": "semifinal"},
                      {"name": "finał", "title_en": "final"}]  # fmt: skip
    assert httpx.get(f"{url}{API}/{tid}/board").json()["stages"] == stages
    assert champion["stages"] == stages
    printed_en = httpx.get(f"{url}/print/standings", params={"t": tid, "lang": "en"}).text
    assert re.findall(r'<tr class="stage"><th colspan="9" scope="rowgroup">([^<]*)<', printed_en)[
        :3
    ] == ["final", "semifinal", "preliminaries"]
    printed = httpx.get(f"{url}/print/standings", params={"t": tid}).text
    separators = re.findall(r'<tr class="stage"><th colspan="9" scope="rowgroup">([^<]*)<', printed)
    assert separators == ["finał", "półfinał", "eliminacje", "Bez miejsca: żadna gra się nie liczy"]
    assert "(wycofany)" in printed
    assert "−1 (eliminacje)" in printed


def liga_day(url: str, store: Store) -> int:
    """A whole liga day of 17 enrolled: player 17 absent (withdrawn before the first draw),
    player 9 deducted 1 big point in round 2 (the eliminations); the tournament's id."""
    tid = create(url, format="liga")
    enrol(url, tid, 17)
    gone = httpx.patch(
        f"{url}{API}/{tid}/players/17", json={"active": False, "reason": "nieobecny"}
    )
    assert gone.status_code == 200, gone.text

    def deduct_once(drawn: dict[str, Any]) -> None:
        if drawn["round"] == 2:
            sent = {"player": 9, "kind": "deduction", "big": 1, "reason": "rozmowa"}
            given = httpx.post(f"{url}{API}/{tid}/sanctions", json=sent)
            assert given.status_code == 201, given.text

    play_to_the_end(
        url, Hall(url, store, 4), tid, random.Random(7), lowest_goes_out, rules="league",
        after=deduct_once,
    )  # fmt: skip
    return tid


_STATUS = {"classified": "klasyfikowany", "withdrawn": "wycofany", "excluded": "wykluczony",
           "unplaced": "bez miejsca"}  # fmt: skip
