"""Whole tournaments on a real hub: paired tables that report their games as real tables do
(signed, seq by seq, each with its own game counter), and a judge who draws every round of a
format to its end. The tournament tests and the property tests play through this."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import httpx

from klik.core.scoring import Ending, SeatRack, score
from klik.rules import RULE_SETS
from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.hubkit import post, sealed

API = "/api/v1/tournaments"
Seats = dict[str, int]  # seat -> player id
# (round, table, game within the round, seats) -> each seat's rack; a 0 goes out (Rummikub)
Outcome = Callable[[int, int, int, Seats], dict[str, int]]


def body_of(
    tid: int | None,
    round_no: int | None,
    table: int,
    game: int,
    seats: dict[str, Any],
    *,
    racks: dict[str, int],
    rules: str,
    round_game: int | None = None,
) -> dict[str, Any]:
    """A table's result, its points made by ``rules`` from ``racks``: a seat with 0 went out
    (Rummikub); without one the pile ran out (exhausted). ``seats`` maps seat -> player id
    (None for a table without the round's lineup)."""
    out = [s for s, rack in racks.items() if rack == 0]
    ending = Ending.RUMMIKUB if len(out) == 1 else Ending.EXHAUSTED
    result = score(
        RULE_SETS[rules],
        ending,
        {s: SeatRack(x) for s, x in racks.items()},
        out[0] if ending is Ending.RUMMIKUB else None,
    )
    body: dict[str, Any] = {
        "tournament": None if tid is None else str(tid),
        "round": round_no,
        "table": table,
        "game": game,
        "rules": rules,
        "ending": ending.value,
        "winners": list(result.winners),
        "seats": {
            s: {
                "name": f"Gracz {s}" if p is None else f"Gracz {p}",
                "player": None if p is None else str(p),
                "rack": result.rack[s],
                "opened": True,
                "small": result.small[s],
                "big": result.big[s],
            }
            for s, p in seats.items()
        },
        "moves": 30,
        "timeouts": 0,
        "duration_ms": 900_000,
        "finished_at": None,
    }
    if round_game is not None:
        body["round_game"] = round_game
    return body


def lowest_goes_out(round_no: int, table: int, game: int, seats: Seats) -> dict[str, int]:
    """The lowest player id goes out; the others hold racks growing with their id."""
    low = min(seats.values())
    return {s: 0 if p == low else 3 * p + game for s, p in seats.items()}


def random_outcome(rng: random.Random) -> Outcome:
    """Games with random racks: mostly a Rummikub by a random seat, sometimes the pile out."""

    def outcome(round_no: int, table: int, game: int, seats: Seats) -> dict[str, int]:
        racks = {s: rng.randint(1, 90) for s in seats}
        if rng.random() < 0.8:
            racks[rng.choice(sorted(seats))] = 0
        return racks

    return outcome


class Hall:
    """Paired tables that report their games: each its device, seq and game counter."""

    def __init__(self, url: str, store: Store, count: int) -> None:
        self.url = url
        self.keys = {k: hall.devices.pair(store, k) for k in range(1, count + 1)}
        self.seq = dict.fromkeys(self.keys, 0)
        self.game = dict.fromkeys(self.keys, 0)

    def send(self, table: int, body: dict[str, Any]) -> httpx.Response:
        """Send ``body`` from ``table`` under the next seq (its ``game`` is kept as given)."""
        device, key = self.keys[table]
        self.seq[table] += 1
        return post(self.url, "/api/v1/results", sealed(device, key, self.seq[table], body))

    def report(
        self,
        tid: int | None,
        round_no: int | None,
        table: int,
        seats: dict[str, Any],
        racks: dict[str, int],
        *,
        rules: str,
        round_game: int | None = None,
    ) -> httpx.Response:
        """The table's next game, as its own counter numbers it."""
        self.game[table] += 1
        body = body_of(
            tid, round_no, table, self.game[table], seats, racks=racks, rules=rules,
            round_game=round_game,
        )  # fmt: skip
        return self.send(table, body)

    def play(self, tid: int, drawn: dict[str, Any], outcome: Outcome, rules: str) -> None:
        """Every table of the drawn round plays its games and reports them."""
        for table in drawn["tables"]:
            k, seats = table["table"], table["seats"]
            for g in range(1, drawn["games"] + 1):
                racks = outcome(drawn["round"], k, g, seats)
                answer = self.report(
                    tid, drawn["round"], k, seats, racks, rules=rules, round_game=g
                )
                assert answer.status_code == 201, answer.text


def create(url: str, **over: Any) -> int:
    sent = {"name": "Turniej", "format": "open", "move_time_s": 60, **over}
    answer = httpx.post(url + API, json=sent)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def enrol(url: str, tid: int, count: int) -> list[int]:
    clubs = ["SP 1", "SP 2", "SP 3", "SP 4", "SP 5"]
    sent = [{"name": f"Gracz {k:02d}", "club": clubs[k % len(clubs)]} for k in range(1, count + 1)]
    answer = httpx.post(f"{url}{API}/{tid}/players", json=sent, params={"allow_same_name": "true"})
    assert answer.status_code == 201, answer.text
    return [p["id"] for p in answer.json()]


def draw(url: str, tid: int, rng: random.Random, **more: Any) -> httpx.Response:
    """The next round, its seed and the judge's tie-break drawn from ``rng`` (a seeded stage
    never waits on a tie at the cut: the judge draws lots)."""
    ids = [p["id"] for p in httpx.get(f"{url}{API}/{tid}/players").json()]
    rng.shuffle(ids)
    sent = {"seed": rng.randrange(1_000_000), "tie_break": ids, **more}
    return httpx.post(f"{url}{API}/{tid}/rounds", json=sent, timeout=30)


def play_to_the_end(
    url: str,
    hall: Hall,
    tid: int,
    rng: random.Random,
    outcome: Outcome,
    *,
    rules: str,
    rounds: int = 3,
    after: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Draw and play every round of the tournament's format (an open-ended stage: ``rounds``
    of it); ``after`` runs after each round is played. The drawn rounds are returned, each
    with the judge's ``tie_break`` it was drawn with."""
    played: list[dict[str, Any]] = []
    while True:
        fmt = httpx.get(f"{url}{API}/{tid}").json()
        if fmt["format"] == "open" and len(played) == rounds:
            return played
        answer = draw(url, tid, rng)
        if answer.status_code == 409 and "every round of the format" in answer.text:
            return played
        assert answer.status_code == 201, answer.text
        drawn = answer.json()
        drawn["tie_break"] = json.loads(answer.request.content)["tie_break"]
        hall.play(tid, drawn, outcome, rules)
        if after is not None:
            after(drawn)
        played.append(drawn)


def standings(url: str, tid: int, stage: str | None = None) -> list[dict[str, Any]]:
    params = {} if stage is None else {"stage": stage}
    answer = httpx.get(f"{url}{API}/{tid}/standings", params=params)
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()
    return rows


def results(url: str, tid: int) -> list[dict[str, Any]]:
    answer = httpx.get(f"{url}{API}/{tid}/results")
    assert answer.status_code == 200, answer.text
    listed: list[dict[str, Any]] = answer.json()
    return listed
