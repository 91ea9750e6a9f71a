"""A league's season on a real hub: four liga meetings played to their final classification,
people named by the CSV's id (one of them in two clubs), two joining the season late, ranked
by points per place with the best three meetings counting; its table public, as JSON and as a
page."""

from __future__ import annotations

import random
from pathlib import Path

import httpx
import pytest

from klik.cli import main
from klik_hub.storage.store import Store
from klik_hub.tournament.seasons import Rule, Seat, table
from tests.helpers.tourney import API, Hall, create, lowest_goes_out, play_to_the_end, standings

Hub = tuple[str, Store]
POINTS = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def roster(meeting: int) -> bytes:
    """16 players: PL-1 … PL-16 at the first two meetings; PL-17 and PL-18 join at the third
    (for PL-15 and PL-16); PL-1 plays for SP 1, then for SP 2 from the third."""
    ids = list(range(1, 17)) if meeting < 3 else [*range(1, 15), 17, 18]
    rng = random.Random(meeting)
    rng.shuffle(ids)  # another start number each meeting
    lines = ["id;imię i nazwisko;klub"]
    for k in ids:
        club = "SP 2" if k == 1 and meeting >= 3 else f"SP {1 + k % 4}"
        lines.append(f"PL-{k};Gracz {k:02d};{club}")
    return ("\n".join(lines) + "\n").encode()


# Four whole liga days: on SQLite only (the season's SQL is the seasons' and people's few
# queries, which test_a_season_refuses_what_it_cannot_take runs on PostgreSQL too).
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_season_of_four_liga_meetings_ranks_people_by_their_best_three(
    hub: Hub, db: str, tmp_path: Path
) -> None:
    url, store = hub
    made = httpx.post(f"{url}/api/v1/seasons",
                      json={"name": "Liga szkolna 2026/27", "best": 3, "points": POINTS})  # fmt: skip
    assert made.status_code == 201, made.text
    sid = made.json()["id"]
    hall = Hall(url, store, 4)
    meetings, person_of = [], {}
    for meeting in range(1, 5):
        tid = create(url, format="liga", name=f"Spotkanie {meeting}")
        enrolled = httpx.post(f"{url}{API}/{tid}/players", content=roster(meeting),
                              headers={"Content-Type": "text/csv"})  # fmt: skip
        assert enrolled.status_code == 201, enrolled.text
        for p in enrolled.json():
            person_of[(tid, p["id"])] = p["person"]
        play_to_the_end(url, hall, tid, random.Random(meeting), lowest_goes_out, rules="league")
        added = httpx.post(f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": tid})
        assert added.status_code == 201, added.text
        meetings.append(tid)
    assert added.json()["meetings"] == meetings

    # One person per id across the meetings, whatever their start number or club.
    people = {}
    for (tid, _), person in person_of.items():
        people.setdefault(person, set()).add(tid)
    assert len(people) == 18
    assert sum(len(t) == 2 for t in people.values()) == 4  # PL-15, 16 left; PL-17, 18 joined

    # The table: each meeting's classification places, by the season's points, best 3 of 4.
    by_hand = [
        [Seat(person_of[(tid, r["player"])], r["place"], r["big"]) for r in standings(url, tid)]
        for tid in meetings
    ]
    expected = table(Rule(tuple(POINTS), best=3), by_hand, {})
    shown = httpx.get(f"{url}/api/v1/seasons/{sid}/standings").json()
    assert [(x["place"], x["person"], x["points"], x["meetings"]) for x in shown] == [
        (x.place, x.person, x.points, x.meetings) for x in sorted(
            expected, key=lambda x: (x.place, next(s["name"] for s in shown if s["person"] == x.person)))
    ]  # fmt: skip
    assert shown[0]["points"] <= 3 * 25
    assert {x["meetings"] for x in shown} == {2, 4}
    assert set(shown[0]) == {"place", "person", "name", "points", "meetings"}

    # The page: the same table, in Polish.
    page = httpx.get(f"{url}/s/{sid}")
    assert page.status_code == 200
    assert "Liga szkolna 2026/27" in page.text
    assert shown[0]["name"] in page.text
    assert "najlepsze 3 spotkania" in page.text

    # The archive of the last meeting keeps the season's table as it stood.
    site = tmp_path / "site"
    assert (
        main(["hub", "export-site", "--db", db, "--tournament", str(meetings[-1]), str(site)]) == 0
    )
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f'href="seasons/{sid}.html">Liga szkolna 2026/27</a>' in index
    kept = (site / "seasons" / f"{sid}.html").read_text(encoding="utf-8")
    assert kept.count("<tr><td") == len(shown)
    assert f"<td>{shown[0]['name']}</td>" in kept


def test_a_season_refuses_what_it_cannot_take(hub: Hub) -> None:
    url, _ = hub
    rising = httpx.post(f"{url}/api/v1/seasons", json={"name": "S", "points": [1, 5]},
                        headers={"Accept-Language": "pl"})  # fmt: skip
    assert rising.status_code == 422
    assert rising.json()["error"] == "punkty: miejsce nie daje więcej niż miejsce przed nim"
    sid = httpx.post(f"{url}/api/v1/seasons", json={"name": "S"}).json()["id"]
    assert httpx.get(f"{url}/api/v1/seasons/{sid}").json()["points"] == "big"  # the default
    assert (
        httpx.post(f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": 99}).status_code
        == 404
    )
    tid = create(url, format="open")
    assert (
        httpx.post(f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": tid}).status_code
        == 201
    )
    again = httpx.post(f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": tid})
    assert again.status_code == 409
    assert httpx.get(f"{url}/api/v1/seasons/{sid + 1}/standings").status_code == 404
    assert httpx.get(f"{url}/api/v1/seasons/{sid}/standings").json() == []  # no game yet
    assert httpx.get(f"{url}/s/{sid + 1}").status_code == 404
