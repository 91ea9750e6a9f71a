"""A head judge's ordinary slips under pressure are caught or undone, each as a logged event:
a file enrolled twice, a withdrawal, a misspelt name, a round drawn too early, a format that
cannot be finished, a test tournament on the projector (on a real hub)."""

from __future__ import annotations

import random

import httpx
import pytest

from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.tourney import (
    API,
    Hall,
    create,
    enrol,
    lowest_goes_out,
    play_to_the_end,
    standings,
)

Hub = tuple[str, Store]
CSV = "imię i nazwisko;szkoła\nAla Kot;SP 5\nBożena Kęs;SP 3\nCyprian Żak;SP 5\n"


def send_csv(url: str, tid: int, text: str, **params: str) -> httpx.Response:
    return httpx.post(
        f"{url}{API}/{tid}/players",
        content=text.encode(),
        headers={"Content-Type": "text/csv"},
        params=params,
    )


def test_the_same_file_enrolled_twice_is_refused(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    assert send_csv(url, tid, CSV).status_code == 201
    again = send_csv(url, tid, CSV)  # a double click
    assert again.status_code == 409
    assert again.json() == {
        "error": "every player of the list is enrolled already: Ala Kot (SP 5) (id 1), "
        "Bożena Kęs (SP 3) (id 2), Cyprian Żak (SP 5) (id 3); was it sent twice?"
    }
    assert len(httpx.get(f"{url}{API}/{tid}/players").json()) == 3


def test_a_name_and_club_enrolled_already_is_refused_unless_allowed(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    send_csv(url, tid, CSV)
    more = "imię i nazwisko;szkoła\nDarek Wąs;SP 7\nala kot;SP 5\n"
    refused = send_csv(url, tid, more)
    assert refused.status_code == 409
    assert refused.json() == {
        "error": "line 3: ala kot (SP 5) is enrolled already (id 1); if it is another player "
        "of the same name, send the list with allow_same_name=true"
    }
    json_list = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": "Ala Kot", "club": "SP 5"},
                                                              {"name": "Ewa Śliwa"}])  # fmt: skip
    assert json_list.status_code == 409
    assert json_list.json()["error"].startswith("players[0]: Ala Kot (SP 5) is enrolled already")
    allowed = send_csv(url, tid, more, allow_same_name="true")
    assert allowed.status_code == 201, allowed.text
    assert [p["id"] for p in allowed.json()] == [4, 5]


def test_a_player_is_renamed_withdrawn_and_reinstated_as_logged_events(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    send_csv(url, tid, CSV)
    path = f"{url}{API}/{tid}/players/2"
    renamed = httpx.patch(path, json={"name": "Bożena Kęs-Nowak", "reason": "literówka",
                                      "by": "Anna"})  # fmt: skip
    assert renamed.status_code == 200, renamed.text
    changed = renamed.json()
    code = changed.pop("code")
    assert changed == {
        "id": 2,
        "name": "Bożena Kęs-Nowak",
        "club": "SP 3",
        "family": "",
        "active": True,
        "checked_in": False,
        "from_round": 1,
        "person": 2,  # a new person at enrolment: the second
        "needs": {"vibration": False, "large": False, "quiet": False, "fixed_table": None},
    }
    assert code == httpx.get(f"{url}{API}/{tid}/players").json()[1]["code"]  # a rename keeps it
    out = httpx.patch(path, json={"active": False, "reason": "musiała wyjść"})
    assert out.json()["active"] is False
    listed = httpx.get(f"{url}{API}/{tid}/players").json()
    assert [p["active"] for p in listed] == [True, False, True]
    back = httpx.patch(path, json={"active": True, "reason": "wróciła"})
    assert back.json()["active"] is True
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [(e["log"], e["kind"], e["player"], e["reason"]) for e in log] == [
        ("event", "reinstate", 2, "wróciła"),
        ("event", "withdraw", 2, "musiała wyjść"),
        ("event", "rename", 2, "literówka"),
    ]
    assert log[2]["changed"] == {"name": ["Bożena Kęs", "Bożena Kęs-Nowak"]}
    assert log[2]["by"] == "Anna"


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        ({"reason": "nic"}, 422, "name, club, family, active, needs: nothing would change"),
        (
            {"name": "Ala\u202eKot", "reason": "x"},
            422,
            "name: holds a control character",
        ),
        ({"club": "SP 3", "reason": "x", "id": 3}, 422, None),  # an unknown field
        ({"active": False}, 422, None),  # no reason
    ],
)
def test_a_bad_change_of_a_player_is_refused_in_one_line(
    hub: Hub, change: dict[str, object], status: int, message: str | None
) -> None:
    url, _ = hub
    tid = create(url)
    send_csv(url, tid, CSV)
    answer = httpx.patch(f"{url}{API}/{tid}/players/1", json=change)
    assert answer.status_code == status, answer.text
    if message is not None:
        assert answer.json() == {"error": message}


def test_a_withdrawn_player_is_not_drawn_and_their_games_still_count(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    hall = Hall(url, store, 2)
    first = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    hall.play(tid, first, lowest_goes_out, "tournament")
    httpx.patch(f"{url}{API}/{tid}/players/3", json={"active": False, "reason": "wyszedł"})
    second = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}).json()
    seated = [p for t in second["tables"] for p in t["seats"].values()]
    assert 3 not in seated
    assert len(seated) == 7
    games = {r["player"]: r["games"] for r in standings(url, tid)}
    assert games[3] == 1  # the game they played still counts, for them and their opponents


def test_the_last_round_is_undone_until_a_result_comes(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    hall = Hall(url, store, 2)
    first = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    undone = httpx.delete(f"{url}{API}/{tid}/rounds/1")
    assert undone.status_code == 200, undone.text
    assert undone.json()["tables"] == first["tables"]
    assert httpx.get(f"{url}{API}/{tid}").json()["rounds"] == []
    again = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 7}).json()
    assert again["round"] == 1
    seats = again["tables"][1]["seats"]
    hall.report(tid, 1, 2, seats, lowest_goes_out(1, 2, 1, seats), rules="tournament",
                round_game=1)  # fmt: skip
    refused = httpx.delete(f"{url}{API}/{tid}/rounds/1")
    assert refused.status_code == 409
    assert refused.json() == {
        "error": "round 1: table 2 has reported results; it stays drawn "
        "(exclude the results or draw the next round)"
    }
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [(e["kind"], e["round"], e["reason"]) for e in log] == [
        ("undraw", 1, "losowanie cofnięte")
    ]
    assert httpx.delete(f"{url}{API}/{tid}/rounds/2").status_code == 404


def test_a_draw_names_the_tables_that_are_not_paired(hub: Hub) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 12)
    hall.devices.pair(store, 1)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    assert drawn["unpaired"] == [2, 3]


@pytest.mark.parametrize(
    ("format_name", "players", "message"),
    [
        # 4 players: liga's eliminations are one table, and its semifinal takes 8 or 6
        ("liga", 4, "the format liga cannot be played to its end with 4 players (półfinał takes "
                    "8, 6 players, of 4); it can with 6 and more players"),
        # szczecin's round II seats 6 or 8: from 2 tables (7 players) 4 go on, from 5 (20) 10
        ("szczecin", 7, "the format szczecin cannot be played to its end with 7 players (runda "
                        "II finału: 4 players go on from 2 tables, and it seats 8, 6); it can "
                        "with 9 to 16 players"),
        ("szczecin", 20, "the format szczecin cannot be played to its end with 20 players (runda "
                         "II finału: 10 players go on from 5 tables, and it seats 8, 6); it can "
                         "with 9 to 16 players"),
        ("open", 5, "the format open cannot be played to its end with 5 players (rozgrywki: 5 "
                    "players cannot sit at tables of 3–4: allowed are 3, 4 or 6 and more); it "
                    "can with 3, 4, 6 and more players"),
        # one player: counted in the singular, in the message and in its reason
        ("open", 1, "the format open cannot be played to its end with 1 player (rozgrywki: 1 "
                    "player: a table needs at least 3); it can with 3, 4, 6 and more players"),
        # 001 ZASADY 1: 16 to 36 players; the judge may override
        ("liga", 12, "the format liga takes 16 to 36 players and 12 are enrolled; draw with "
                     "override to play anyway"),
    ],
)  # fmt: skip
def test_a_format_that_cannot_be_finished_is_refused_at_the_first_draw(
    hub: Hub, format_name: str, players: int, message: str
) -> None:
    url, _ = hub
    tid = create(url, format=format_name)
    enrol(url, tid, players)
    answer = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1})
    assert answer.status_code == 409, answer.text
    assert answer.json() == {"error": message}
    assert httpx.get(f"{url}{API}/{tid}").json()["rounds"] == []


def test_liga_outside_its_range_is_played_to_the_end_with_override(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="liga")
    enrol(url, tid, 12)
    first = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1, "override": True})
    assert first.status_code == 201, first.text
    hall = Hall(url, store, 3)
    hall.play(tid, first.json(), lowest_goes_out, "league")
    drawn = play_to_the_end(url, hall, tid, random.Random(3), lowest_goes_out, rules="league")
    assert [d["stage"] for d in drawn] == ["eliminacje", "eliminacje", "półfinał", "finał"]


def test_the_projector_and_console_follow_the_tournament_in_play(hub: Hub) -> None:
    url, _ = hub
    league = create(url, name="Liga")
    create(url, name="Test")  # a test tournament made later is not the one in play
    assert httpx.post(f"{url}{API}/{league}/play").status_code == 200
    listed = httpx.get(url + API).json()
    assert [(t["name"], t["in_play"]) for t in listed] == [("Test", False), ("Liga", True)]
    assert httpx.get(f"{url}{API}/{league}").json()["in_play"] is True
    assert httpx.post(f"{url}{API}/999/play").status_code == 404


def test_sanctions_warn_deduct_and_exclude_as_logged_events(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="liga")
    enrol(url, tid, 16)
    hall = Hall(url, store, 4)
    path = f"{url}{API}/{tid}/sanctions"
    for seed in (1, 2, 3):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": seed}).json()
        hall.play(tid, drawn, lowest_goes_out, "league")
    before = {r["player"]: r for r in standings(url, tid, "eliminacje")}
    warned = httpx.post(path, json={"player": 5, "kind": "warning", "reason": "hałas"})
    assert warned.status_code == 201, warned.text
    # 001 ZASADY 3: big points taken off for disturbing the games, in the stage in play
    deducted = httpx.post(path, json={"player": 1, "kind": "deduction", "big": 30,
                                      "reason": "wulgaryzmy", "by": "Anna"})  # fmt: skip
    assert deducted.status_code == 201, deducted.text
    assert {k: deducted.json()[k] for k in ("player", "kind", "big", "stage", "by")} == {
        "player": 1, "kind": "deduction", "big": 30, "stage": "eliminacje", "by": "Anna",
    }  # fmt: skip
    after = {r["player"]: r for r in standings(url, tid, "eliminacje")}
    assert after[1]["big"] == before[1]["big"] - 30
    assert after[1]["games"] == before[1]["games"]  # a deduction is not a game
    # ... so player 1, who led the eliminations, is not seeded first into the semifinal
    excluded = httpx.post(path, json={"player": 2, "kind": "exclusion", "reason": "niesportowe"})
    assert excluded.status_code == 201, excluded.text
    again = httpx.post(path, json={"player": 2, "kind": "exclusion", "reason": "znowu"})
    assert again.status_code == 409
    semi = httpx.post(f"{url}{API}/{tid}/rounds", json={}).json()
    seated = [p for t in semi["tables"] for p in t["seats"].values()]
    assert 2 not in seated  # an excluded player is not drawn again
    assert semi["tables"][0]["seats"]["A"] != 1  # place 1 sits at table 1's A: not player 1
    rows = {r["player"]: r for r in standings(url, tid)}
    assert (rows[2]["excluded"], rows[2]["status"]) == (True, "excluded")
    assert (rows[1]["excluded"], rows[1]["status"]) == (False, "classified")
    listed = httpx.get(path).json()
    assert [(x["kind"], x["player"]) for x in listed] == [
        ("exclusion", 2), ("deduction", 1), ("warning", 5),
    ]  # fmt: skip
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [e["kind"] for e in log][:3] == ["exclusion", "deduction", "warning"]
    printed = httpx.get(f"{url}/print/standings", params={"t": tid}).text
    assert "(wykluczony)" in printed
    csv = httpx.get(f"{url}{API}/{tid}/standings.csv").content.decode("utf-8-sig").splitlines()
    assert csv[0].endswith(";wykluczony;od rundy;etap;status;odjęte")
    fields = [line.split(";") for line in csv[1:]]
    assert [(x[1], x[11]) for x in fields if x[8] == "tak"] == [("2", "wykluczony")]


@pytest.mark.parametrize(
    ("sent", "status", "message"),
    [
        ({"player": 1, "kind": "deduction", "reason": "x"}, 422,
         "big: a deduction takes 1 to 100 big points, and only a deduction"),
        ({"player": 1, "kind": "warning", "big": 2, "reason": "x"}, 422,
         "big: a deduction takes 1 to 100 big points, and only a deduction"),
        ({"player": 99, "kind": "warning", "reason": "x"}, 422, "player: no player 99 in tournament 1"),
        ({"player": 1, "kind": "ban", "reason": "x"}, 422, None),
        ({"player": 1, "kind": "warning"}, 422, None),  # no reason
    ],
)  # fmt: skip
def test_a_bad_sanction_is_refused_in_one_line(
    hub: Hub, sent: dict[str, object], status: int, message: str | None
) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 4)
    answer = httpx.post(f"{url}{API}/{tid}/sanctions", json=sent)
    assert answer.status_code == status, answer.text
    if message is not None:
        assert answer.json() == {"error": message}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "Liga \u202eagiL",
            "name: holds a control character",
        ),  # right-to-left override
        ("Liga\u200b szkolna", "name: holds a control character"),  # zero width
        ("   ", "name: holds no visible letter or digit"),
        ("\u3164", "name: holds no visible letter or digit"),  # the Hangul filler
    ],
)
def test_a_tournament_name_that_would_deceive_the_hall_is_refused(
    hub: Hub, name: str, message: str
) -> None:
    url, _ = hub
    answer = httpx.post(url + API, json={"name": name, "format": "open", "move_time_s": 60})
    assert answer.status_code == 422
    assert answer.json() == {"error": message}
