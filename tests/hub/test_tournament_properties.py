"""Whole tournaments of every format, played to the end with random results and the slips of a
busy hall (a table that plays a game too many, reports another table's players, or plays a
game again), on a real hub: every slot holds at most one counting result, a player's games are
the slots they sat in, the classification starts with the last stage, and the standings are
what the logged events make of the results (a fresh hub fed the same events agrees)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klik.rules import RULE_SETS
from klik_hub.office.sanctions import SANCTIONS
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from klik_hub.tournament.formats import ANY, load_format
from tests.helpers.hubkit import Clock, live_hub
from tests.helpers.pgserver import fresh_database
from tests.helpers.tourney import (
    API,
    Hall,
    create,
    enrol,
    play_to_the_end,
    random_outcome,
    results,
    standings,
)

# Players each format is played with here: liga takes 16 to 36 (001 ZASADY 1); szczecin's
# seatings take 9 to 16 (3 or 4 tables in round I); open any number from 3 but 5 (tables
# of 3-4).
FIELDS = {
    "liga": st.integers(16, 22),
    "szczecin": st.integers(9, 16),
    "open": st.integers(3, 14).filter(lambda n: n != 5),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A factory of fresh hubs, each on its own SQLite file or its own fresh PostgreSQL
    database: (url, store), all stopped (and the databases dropped) after the test."""
    cluster = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    with ExitStack() as opened:

        def make() -> tuple[str, Store]:
            if cluster is None:
                db = str(tmp_path / f"hub{next(numbers)}.sqlite")
            else:
                db = opened.enter_context(fresh_database(cluster, "properties"))
            store = Store(open_engine(db), Clock())
            opened.callback(store.engine.dispose)
            return opened.enter_context(live_hub(store)), store

        numbers = itertools.count()
        yield make


def slips(url: str, hall: Hall, tid: int, rules: str, rng: random.Random) -> Any:
    """After each round, a table or two make the slips of a busy hall."""

    def after(drawn: dict[str, Any]) -> None:
        tables = drawn["tables"]
        for table in tables:
            k, seats = table["table"], table["seats"]
            racks = {s: rng.randint(1, 50) for s in seats}
            racks[rng.choice(sorted(seats))] = 0
            slip = rng.randrange(5)
            if slip == 0:  # a game past the round's games
                hall.report(tid, drawn["round"], k, seats, racks, rules=rules,
                            round_game=drawn["games"] + 1)  # fmt: skip
            elif slip == 1 and len(tables) > 1:  # another table's players
                other = tables[k % len(tables)]["seats"]
                others = {s: rng.randint(1, 50) for s in other}
                others[rng.choice(sorted(other))] = 0
                hall.report(tid, drawn["round"], k, other, others, rules=rules, round_game=1)
            elif slip == 2:  # the round played again from its first game
                hall.report(tid, drawn["round"], k, seats, racks, rules=rules, round_game=1)
            elif slip == 3:  # a result for a round that was never drawn
                hall.report(tid, drawn["round"] + 50, k, seats, racks, rules=rules, round_game=1)

    return after


def check_invariants(
    url: str, tid: int, drawn: list[dict[str, Any]], *, judged: bool = False
) -> None:
    """(a)-(c); once the judge has excluded games (``judged``), a player's games are the
    counting results they sit in, as the results list shows them."""
    listed = results(url, tid)
    # (a) every slot holds at most one counting result, and only a slot's result counts
    counting = Counter(
        (r["slot"]["round"], r["slot"]["table"], r["slot"]["game"]) for r in listed if r["counts"]
    )
    assert all(n == 1 for n in counting.values())
    assert all(r["slot"] is not None for r in listed if r["counts"])
    # (b) a player's games in a stage's standings are the slots they sat in
    owed: dict[str, Counter[int]] = {}
    stage_of = {d["round"]: d["stage"] for d in drawn}
    for d in drawn:
        for table in d["tables"]:
            for player in table["seats"].values():
                owed.setdefault(d["stage"], Counter())[player] += 0 if judged else d["games"]
    if judged:
        for r in listed:
            if r["counts"]:
                for seat in r["seats"].values():
                    owed[stage_of[r["slot"]["round"]]][seat["player"]] += 1
    for stage, games in owed.items():
        rows = standings(url, tid, stage)
        assert {r["player"]: r["games"] for r in rows} == dict(games)
    # (c) the classification's first places are the last stage's, in its order
    fmt = load_format(httpx.get(f"{url}{API}/{tid}").json()["format"])
    overall = standings(url, tid)
    if len(fmt.stages) > 1:
        last = standings(url, tid, drawn[-1]["stage"])
        top = overall[: len(last)]
        assert [(r["player"], r["place"]) for r in top] == [(r["player"], r["place"]) for r in last]
        assert [r["place"] for r in overall] == sorted(r["place"] for r in overall)


def replay(url: str, store: Store, source: str, tid: int, drawn: list[dict[str, Any]]) -> int:
    """A fresh hub fed what the first one logged: the players, the same draws (seed and the
    judge's tie-break), every result in the order it came and every correction in its order.
    Returns the new tournament's id."""
    first = httpx.get(f"{source}{API}/{tid}").json()
    new = create(url, format=first["format"], rules=first["rules"])
    players = httpx.get(f"{source}{API}/{tid}/players").json()
    httpx.post(f"{url}{API}/{new}/players",
               json=[{"name": p["name"], "club": p["club"]} for p in players],
               params={"allow_same_name": "true"}).raise_for_status()  # fmt: skip
    hall = Hall(url, store, 9)
    stored = sorted(store_results(source), key=lambda r: r["id"])
    # The audit log, oldest first (corrections and events each number their own ids).
    log = httpx.get(f"{source}{API}/{tid}/corrections").json()[::-1]
    fixes = [c for c in log if c["log"] == "correction" or c["kind"] in SANCTIONS]
    for d in drawn:
        again = httpx.post(f"{url}{API}/{new}/rounds",
                           json={"seed": d["seed"], "tie_break": d["tie_break"]})  # fmt: skip
        assert again.status_code == 201, again.text
        assert again.json()["tables"] == d["tables"]
        # The round's results (and its slips) came between its draw and the next one.
        for r in stored:
            if r["round"] in (d["round"], d["round"] + 50):
                body = {**r["body"], "tournament": str(new)}
                assert hall.send(r["table"], body).status_code in (200, 201, 409)
    ids = sorted(x["id"] for x in store_results(url))
    mapping = dict(zip([r["id"] for r in stored], ids, strict=True))
    for c in fixes:
        if c["log"] == "event":  # a sanction, as the judge gave it
            sent = {k: c[k] for k in ("player", "kind", "big", "reason", "by") if c.get(k)}
            made = httpx.post(f"{url}{API}/{new}/sanctions", json=sent)
        else:
            sent = {
                k: c[k] for k in ("kind", "seat", "value", "reason", "by") if c.get(k) is not None
            }
            made = httpx.post(
                f"{url}{API}/{new}/results/{mapping[c['result']]}/corrections", json=sent
            )
        assert made.status_code == 201, made.text
    return new


def store_results(url: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = httpx.get(f"{url}/api/v1/results").json()
    return listed


def judge_slips(url: str, tid: int, rng: random.Random) -> None:
    """The judge corrects a few racks, excludes a game and sanctions a player (a warning, a
    deduction of big points): only ever as logged events."""
    players = [p["id"] for p in httpx.get(f"{url}{API}/{tid}/players").json()]
    for kind in ("warning", "deduction"):
        sanction = {"player": rng.choice(players), "kind": kind, "reason": "przeszkadzanie"}
        if kind == "deduction":
            sanction["big"] = rng.randint(1, 5)
        made = httpx.post(f"{url}{API}/{tid}/sanctions", json=sanction)
        assert made.status_code == 201, made.text
    listed = [r for r in results(url, tid) if r["counts"]]
    for r in rng.sample(listed, min(3, len(listed))):
        losers = [s for s in sorted(r["seats"]) if s not in r["winners"]]
        if rng.random() < 0.3:
            fix = {"kind": "exclude", "value": True, "reason": "gra unieważniona"}
        else:
            fix = {"kind": "rack", "seat": rng.choice(losers), "value": rng.randint(1, 80),
                   "reason": "źle policzona tabliczka"}  # fmt: skip
        made = httpx.post(f"{url}{API}/{tid}/results/{r['id']}/corrections", json=fix)
        assert made.status_code == 201, made.text


# One test a format and a database, two whole tournaments each: in `make test` they run on
# different workers instead of one worker running sixteen. Every format on SQLite; on
# PostgreSQL liga, the longest: the formats differ in the pure core, not in the statements.
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("fresh", "format_name"),
    [("sqlite", "liga"), ("sqlite", "open"), ("sqlite", "szczecin"), ("postgresql", "liga")],
    indirect=["fresh"],
)
@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), seed=st.integers(0, 10**6))
def test_a_whole_tournament_counts_every_game_once_in_its_place(
    fresh: Any, data: st.DataObject, format_name: str, seed: int
) -> None:
    count = data.draw(FIELDS[format_name], label="players")
    rng = random.Random(seed)
    url, store = fresh()
    fmt = load_format(format_name)
    # A format's own sets; "any" (open): every set Klik ships, so each plays whole tournaments.
    rules = rng.choice(
        [s for s in fmt.rules if s != ANY] + (list(RULE_SETS) if ANY in fmt.rules else [])
    )
    tid = create(url, format=format_name, rules=rules)
    enrol(url, tid, count)
    hall = Hall(url, store, 9)
    drawn = play_to_the_end(
        url, hall, tid, rng, random_outcome(rng), rules=rules, rounds=3,
        after=slips(url, hall, tid, rules, rng),
    )  # fmt: skip
    assert [d["stage"] for d in drawn][-1] == fmt.stages[-1].name
    check_invariants(url, tid, drawn)
    judge_slips(url, tid, rng)
    check_invariants(url, tid, drawn, judged=True)
    # (d) the standings are what the events make: a fresh hub fed them agrees
    other, other_store = fresh()
    again = replay(other, other_store, url, tid, drawn)
    for stage in {None, *(d["stage"] for d in drawn)}:
        assert standings(other, again, stage) == standings(url, tid, stage)
