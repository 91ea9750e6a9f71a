"""Issue 37, point 8: a result no game ends with is kept, but held for the judge (on a real
hub, SQLite and PostgreSQL). A table took 0 from three seats that opened and did not go out
after A's Rummikub, and sent one winner with every seat in place 1 and a big point each; its
points were its racks', so the hub counted it."""

from __future__ import annotations

from typing import Any

import httpx

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, body_of, create, enrol, results, standings

Hub = tuple[str, Store]


def drawn_round(hub: Hub) -> tuple[str, Hall, int, dict[str, int]]:
    """An open tournament of 4 players at one table, round 1 drawn: its seats."""
    url, store = hub
    tid = create(url, format="open")
    enrol(url, tid, 4)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 5}).json()
    return url, Hall(url, store, 1), tid, drawn["tables"][0]["seats"]


def issue_37_body(tid: int, seats: dict[str, int]) -> dict[str, Any]:
    """The result as the table sent it: A went out, B, C and D opened and confirmed 0."""
    body = body_of(tid, 1, 1, 1, seats, racks={"A": 0, "B": 5, "C": 6, "D": 7},
                   rules="tournament", round_game=1)  # fmt: skip
    for seat, entry in body["seats"].items():
        entry.update(rack=0, small=0, big=1)
        assert entry["opened"], seat
    assert (body["ending"], body["winners"]) == ("rummikub", ["A"])
    return body


def correct(url: str, tid: int, result: int, **fields: Any) -> httpx.Response:
    return httpx.post(
        f"{url}{API}/{tid}/results/{result}/corrections",
        json={"reason": "sędzia policzył tabliczki", **fields},
    )


def test_a_result_with_an_impossible_count_is_kept_but_held(hub: Hub) -> None:
    url, hall, tid, seats = drawn_round(hub)
    sent = hall.send(1, issue_37_body(tid, seats))
    assert (sent.status_code, sent.json()["status"]) == (201, "stored"), sent.text
    (kept,) = httpx.get(f"{url}/api/v1/results").json()
    assert (kept["points_check"], kept["racks"]) == ("ok", dict.fromkeys("ABCD", 0))
    (result,) = results(url, tid)
    assert (result["counts"], result["held"], result["winners"]) == (False, "impossible", ["A"])
    assert result["slot"] == {"round": 1, "table": 1, "game": 1}  # it came: it fills its slot
    assert all(r["games"] == 0 and r["big"] == 0 for r in standings(url, tid))

    # Accepting it does not count made-up points: the judge corrects the racks.
    assert correct(url, tid, result["id"], kind="accept", value=True).status_code == 201
    assert results(url, tid)[0]["held"] == "impossible"
    for seat, rack in (("B", 25), ("C", 17)):
        assert correct(url, tid, result["id"], kind="rack", seat=seat, value=rack).is_success
    assert results(url, tid)[0]["held"] == "impossible"  # D still holds 0
    assert correct(url, tid, result["id"], kind="rack", seat="D", value=18).is_success
    (result,) = results(url, tid)
    assert (result["counts"], result["held"], result["corrected"]) == (True, None, True)
    points = {s: (e["small"], e["big"]) for s, e in result["seats"].items()}
    assert points == {"A": (60, 1), "B": (-25, 0), "C": (-17, 0), "D": (-18, 0)}  # seed 003
    assert sorted(r["big"] for r in standings(url, tid)) == [0, 0, 0, 1]


def test_a_zero_that_is_possible_counts(hub: Hub) -> None:
    """A seat that never opened after a Rummikub is charged its penalty, its rack not asked:
    the table sends it as 0, and the result counts."""
    url, hall, tid, seats = drawn_round(hub)
    body = body_of(tid, 1, 1, 1, seats, racks={"A": 0, "B": 5, "C": 6, "D": 7},
                   rules="tournament", round_game=1)  # fmt: skip
    body["seats"]["B"].update(rack=0, opened=False, small=-100)
    body["seats"]["A"]["small"] = 100 + 6 + 7
    assert hall.send(1, body).status_code == 201
    (result,) = results(url, tid)
    assert (result["counts"], result["held"]) == (True, None)
