"""People and their ratings on a real hub: whole tournaments rated game by game, a correction
moving them, the CSV, a player's page, and a person across tournaments (a CSV's ``id``, or
the judge's link)."""

from __future__ import annotations

import csv
import io
import random
from typing import Any

import httpx

from klik_hub import sql
from klik_hub.storage.store import Store
from klik_hub.tournament.ratings import Game, ranked, rate
from tests.helpers.tourney import (
    API,
    Hall,
    create,
    enrol,
    play_to_the_end,
    random_outcome,
    results,
)

Hub = tuple[str, Store]


def by_hand(url: str, store: Store, tids: list[int]) -> list[Game]:
    """The games as the ratings should read them: every counted result, oldest first, each
    seat's person at its place by the small points (the tournament's sign)."""
    with store.reading() as db:
        person = sql.people.of_players(db)
    listed = []
    for tid in tids:
        sign = -1 if httpx.get(f"{url}{API}/{tid}").json()["rules"] == "pl-liga" else 1
        for x in results(url, tid):
            if not x["counts"]:
                continue
            merit = {s: sign * e["small"] for s, e in x["seats"].items()}
            places = {
                person[(tid, e["player"])]: 1 + sum(o > merit[s] for o in merit.values())
                for s, e in x["seats"].items()
            }
            listed.append((x["id"], Game("", places)))
    return [g for _, g in sorted(listed, key=lambda kept: kept[0])]


def test_a_whole_tournament_rates_every_person_and_a_correction_moves_them(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="open", rules="pl-liga")
    enrol(url, tid, 8)
    hall = Hall(url, store, 2)
    play_to_the_end(url, hall, tid, random.Random(5), random_outcome(random.Random(6)),
                    rules="league", rounds=4)  # fmt: skip
    listed = httpx.get(f"{url}/api/v1/ratings").json()
    expected = ranked(rate(by_hand(url, store, [tid]), "today"))
    assert [x["person"] for x in listed] == [r.person for r in expected]
    assert [x["rating"] for x in listed] == [round(r.value, 2) for r in expected]
    assert {x["games"] for x in listed} == {4}  # each played a game a round
    assert all(x["provisional"] for x in listed)
    assert listed[0]["rating"] > listed[-1]["rating"]

    # A game the last lost is corrected: their rack was 1, the other losers' 50 more, so they
    # placed second at it, not lower. The figures move with it.
    last = listed[-1]["person"]
    with store.reading() as db:
        player = next(p for (t, p), who in sql.people.of_players(db, tid).items() if who == last)
    game = next(
        x for x in results(url, tid)
        for e in x["seats"].values() if e["player"] == player and e["rack"] > 0
    )  # fmt: skip
    seat = next(s for s, e in game["seats"].items() if e["player"] == player)
    for s, e in game["seats"].items():
        if e["rack"] == 0:
            continue  # who went out stays
        value = 1 if s == seat else e["rack"] + 50
        if e["rack"] != value:
            sent = {"kind": "rack", "seat": s, "value": value, "reason": "źle policzone"}
            answer = httpx.post(f"{url}{API}/{tid}/results/{game['id']}/corrections", json=sent)
            assert answer.status_code == 201, answer.text
    again = httpx.get(f"{url}/api/v1/ratings").json()
    expected = ranked(rate(by_hand(url, store, [tid]), "today"))
    assert [x["person"] for x in again] == [r.person for r in expected]
    moved = {x["person"]: x["rating"] for x in again}
    assert moved[last] > listed[-1]["rating"]

    # The same list as CSV, a person a line, best first.
    answer = httpx.get(f"{url}/ratings.csv")
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][:4] == ["miejsce", "osoba", "gracz", "ranking"]
    assert [int(r[1]) for r in rows[1:]] == [x["person"] for x in again]
    assert [float(r[3]) for r in rows[1:]] == [x["rating"] for x in again]


def test_a_players_page_shows_their_rating_and_its_change_today(hub: Hub) -> None:
    url, store = hub
    tid = create(url, format="open")
    players = httpx.post(
        f"{url}{API}/{tid}/players",
        json=[{"name": n, "club": "SP 1"} for n in ("Ala", "Bo", "Cezary", "Dorota")],
    ).json()
    code = {p["id"]: p["code"] for p in players}
    before = httpx.get(f"{url}/api/v1/p/{code[1]}").json()
    assert before["rating"] is None  # no game yet
    hall = Hall(url, store, 1)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    seats = drawn["tables"][0]["seats"]
    winner = seats["A"]
    racks = {s: 0 if s == "A" else 10 * i for i, s in enumerate(seats, start=1)}
    assert hall.report(tid, 1, 1, seats, racks, rules="tournament", round_game=1).status_code == 201
    page = httpx.get(f"{url}/api/v1/p/{code[winner]}").json()
    listed = {x["person"]: x for x in httpx.get(f"{url}/api/v1/ratings").json()}
    mine = listed[next(p["person"] for p in players if p["id"] == winner)]
    assert page["rating"] == {
        "value": mine["rating"],
        "change_today": mine["rating"],  # all of it today: from 0
        "provisional": True,
    }
    assert page["rating"]["value"] > 0


def csv_of(rows: list[tuple[str, str, str]]) -> bytes:
    return ("id;imię i nazwisko;klub\n" + "".join(f"{i};{n};{c}\n" for i, n, c in rows)).encode()


def enrol_csv(url: str, tid: int, body: bytes) -> list[dict[str, Any]]:
    answer = httpx.post(f"{url}{API}/{tid}/players", content=body,
                        headers={"Content-Type": "text/csv"})  # fmt: skip
    assert answer.status_code == 201, answer.text
    listed: list[dict[str, Any]] = answer.json()
    return listed


def test_a_person_is_one_across_tournaments_by_the_lists_id_or_the_judges_link(hub: Hub) -> None:
    url, store = hub
    first = create(url, format="open", name="Spotkanie 1")
    one = enrol_csv(url, first, csv_of([("PL-17", "Łucja Żak", "SP 5"), ("", "Jan Kos", "SP 3"),
                                        ("PL-3", "Ewa Śliwa", "SP 5"), ("", "Ola Wąs", "SP 7")]))  # fmt: skip
    second = create(url, format="open", name="Spotkanie 2")
    two = enrol_csv(url, second, csv_of([("PL-17", "Łucja Żak", "SP 5"), ("", "Jan Kos", "SP 3"),
                                         ("PL-3", "Ewa Śliwa", "SP 12"), ("", "Ola Was", "SP 7")]))  # fmt: skip
    person = {p["name"]: p["person"] for p in one}
    # The list's id names the person: the same in both (a new club too); no id, a new person.
    assert two[0]["person"] == person["Łucja Żak"]
    assert two[2]["person"] == person["Ewa Śliwa"]
    assert two[1]["person"] != person["Jan Kos"]

    # The console suggests Jan Kos of the first meeting for the second's (the same name and
    # club first), and Ola Wąs for "Ola Was" (accents aside); nothing is merged by itself.
    hinted = httpx.get(f"{url}{API}/{second}/players/{two[1]['id']}/people").json()
    assert [(x["person"], x["same_club"], x["tournaments"]) for x in hinted] == [
        (person["Jan Kos"], True, ["Spotkanie 1"]),
    ]
    assert (
        httpx.get(f"{url}{API}/{second}/players/{two[3]['id']}/people").json()[0]["person"]
        == person["Ola Wąs"]
    )
    linked = httpx.put(
        f"{url}{API}/{second}/players/{two[1]['id']}/person",
        json={"person": person["Jan Kos"], "reason": "ten sam gracz"},
    )
    assert (linked.status_code, linked.json()["person"]) == (200, person["Jan Kos"])
    log = httpx.get(f"{url}{API}/{second}/corrections").json()
    assert any(e["kind"] == "link_person" for e in log)
    missing = httpx.put(f"{url}{API}/{second}/players/{two[1]['id']}/person",
                        json={"person": 9999, "reason": "x"})  # fmt: skip
    assert missing.status_code == 404

    # Both meetings played: the linked person's games add up across them.
    hall = Hall(url, store, 1)
    for tid in (first, second):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}).json()
        seats = drawn["tables"][0]["seats"]
        racks = {s: 0 if s == "A" else 7 * i for i, s in enumerate(seats, start=1)}
        assert (
            hall.report(tid, 1, 1, seats, racks, rules="tournament", round_game=1).status_code
            == 201
        )
    rated = {x["person"]: x["games"] for x in httpx.get(f"{url}/api/v1/ratings").json()}
    assert rated[person["Jan Kos"]] == 2
    assert rated[person["Łucja Żak"]] == 2
    assert rated[person["Ola Wąs"]] == 1  # never linked: "Ola Was" is another person
