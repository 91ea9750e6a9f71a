"""A first round drawn by rating keeps the best-rated players apart: on a real hub, whose
ratings come from an earlier tournament of the same people (named by the CSV's id)."""

from __future__ import annotations

import random

import httpx
import pytest

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, lowest_goes_out, play_to_the_end

Hub = tuple[str, Store]


def enrol_ids(url: str, tid: int, order: list[int]) -> dict[int, int]:
    """Players PL-k in ``order`` (their start numbers follow it); start number -> k."""
    body = "id;imię i nazwisko\n" + "".join(f"PL-{k};Gracz {k:02d}\n" for k in order)
    answer = httpx.post(f"{url}{API}/{tid}/players", content=body.encode(),
                        headers={"Content-Type": "text/csv"})  # fmt: skip
    assert answer.status_code == 201, answer.text
    return {p["id"]: k for p, k in zip(answer.json(), order, strict=True)}


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # 24 draws: the draw is the core's
def test_the_best_rated_sit_at_different_tables_of_the_first_round(hub: Hub) -> None:
    url, store = hub
    first = create(url, format="open", name="Wczoraj")
    enrol_ids(url, first, list(range(1, 17)))
    # The lowest start number goes out at every table: PL-1 … PL-4 lead the ratings.
    play_to_the_end(url, Hall(url, store, 4), first, random.Random(1), lowest_goes_out,
                    rules="tournament", rounds=4)  # fmt: skip
    rated = httpx.get(f"{url}/api/v1/ratings").json()
    best = {x["name"] for x in rated[:4]}
    order = list(range(1, 17))
    random.Random(7).shuffle(order)  # today's start numbers are others
    apart, together = 0, 0
    for seed in range(12):
        today = create(url, format="open", name=f"Dziś {seed}")
        who = enrol_ids(url, today, order)
        strong = {p for p, k in who.items() if f"Gracz {k:02d}" in best}
        for by_rating in (True, False):
            drawn = httpx.post(f"{url}{API}/{today}/rounds",
                               json={"seed": seed, "by_rating": by_rating}).json()  # fmt: skip
            tables = [set(t["seats"].values()) for t in drawn["tables"]]
            spread = all(len(t & strong) <= 1 for t in tables)
            if by_rating:
                assert spread, (seed, tables, strong)
                apart += 1
                undone = httpx.request("DELETE", f"{url}{API}/{today}/rounds/1",
                                       json={"reason": "bez rankingu"})  # fmt: skip
                assert undone.status_code == 200, undone.text
            else:
                together += not spread
    assert apart == 12
    assert together > 0  # without it the draw puts two of them together at some seed
