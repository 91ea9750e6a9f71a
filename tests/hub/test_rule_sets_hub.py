"""Rule sets on the hub: listed and shown to anyone, a judge's own added, a tournament played
under it with the set in the tables' lineup, and a result under another version held."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from klik import rules as r
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub
from tests.helpers.tourney import API, Hall, body_of, create, enrol, results, standings

Hub = tuple[str, Store]
RULES = "/api/v1/rules"


def own_set(name: str, version: int = 1, big: str = "4 = [5, 3, 1, 0]") -> str:
    """A judge's set: de-klub's rules with 5 points for a win at four seats."""
    text = r.to_toml(r.named("de-klub")).replace('name = "de-klub"', f'name = "{name}"')
    return text.replace("version = 1", f"version = {version}").replace("4 = [4, 3, 1, 0]", big)


def pending(url: str, table: int) -> list[dict[str, Any]]:
    tables = httpx.get(f"{url}/api/v1/tables").json()
    listed: list[dict[str, Any]] = next(t for t in tables if t["table"] == table)["commands"]
    return listed


def test_anyone_lists_the_shipped_sets_and_reads_one_as_toml(hub: Hub) -> None:
    url, _ = hub
    listed = httpx.get(url + RULES).json()
    assert [s["name"] for s in listed][:5] == ["classic", "de-klub", "pl-liga", "pl-turniej", "wrc"]
    liga = next(s for s in listed if s["name"] == "pl-liga")
    assert (liga["aliases"], liga["shipped"], liga["move_time_s"]) == (["league"], True, 60)
    shown = httpx.get(f"{url}{RULES}/league")  # an older name shows its set
    assert shown.headers["content-type"].startswith("application/toml")
    assert r.parse(shown.text, "shown") == r.named("pl-liga")
    missing = httpx.get(f"{url}{RULES}/poker", headers={"Accept-Language": "pl"})
    assert missing.status_code == 404
    assert missing.json()["error"].startswith("nie ma zestawu zasad poker: dozwolone są classic")


@pytest.mark.parametrize(
    ("text", "status", "error"),
    [
        # a file klik rules check refuses: its one line
        (own_set("klub-a").replace("joker = 50", "joker = 0"), 422, "rule set: small_points.joker = 0: allowed is a whole number from 1 to 100"),
        # a name Klik ships
        (r.to_toml(r.named("wrc")), 409, "rule set wrc: Klik ships a set of that name; choose another"),
        # an older wire name
        (own_set("league"), 409, "rule set league: Klik ships a set of that name; choose another"),
        # not TOML
        ("name = ", 422, "rule set: not TOML: Invalid value (at end of document)"),
    ],
)  # fmt: skip
def test_a_set_the_hub_cannot_take_is_one_line(
    hub: Hub, text: str, status: int, error: str
) -> None:
    url, _ = hub
    answer = httpx.post(url + RULES, json={"toml": text})
    assert (answer.status_code, answer.json()) == (status, {"error": error})


def test_a_judges_set_plays_a_whole_tournament_and_another_version_is_held(hub: Hub) -> None:
    url, store = hub
    added = httpx.post(url + RULES, json={"toml": own_set("klub-b")})
    assert (added.status_code, added.json()) == (201, {"name": "klub-b", "version": 1})
    again = httpx.post(url + RULES, json={"toml": own_set("klub-b")})  # a retry: the same
    assert again.status_code == 201
    changed = httpx.post(url + RULES, json={"toml": own_set("klub-b", big="4 = [6, 3, 1, 0]")})
    assert changed.status_code == 409  # version 1 is kept with other rules

    tid = create(url, format="open", rules="klub-b", move_time_s=None)
    assert httpx.get(f"{url}{API}/{tid}").json()["move_time_s"] == 60  # the set's
    enrol(url, tid, 4)
    hall = Hall(url, store, 1)
    for round_no in (1, 2):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": round_no}).json()
        seats = drawn["tables"][0]["seats"]
        # the round's lineup carries the set: the table need not know it
        sent = httpx.post(f"{url}{API}/{tid}/rounds/{round_no}/commands", json={"kind": "game"})
        assert sent.is_success, sent.text
        lineup = next(c for c in reversed(pending(url, 1)) if c["kind"] == "game")["args"]
        assert lineup["rules"] == "klub-b"
        assert r.from_wire(lineup["rule_set"]) == r.named("klub-b")
        racks = {s: 0 if s == "A" else 10 * (i + 1) for i, s in enumerate(seats)}
        answer = hall.report(tid, round_no, 1, seats, racks, rules="klub-b", round_game=1)
        assert answer.status_code == 201, answer.text
    counted = results(url, tid)
    assert [x["counts"] for x in counted] == [True, True]
    winners = {x["seats"]["A"]["player"] for x in counted}
    rows = standings(url, tid)
    assert sum(row["big"] for row in rows) == 2 * (5 + 3 + 1 + 0)  # the set's own 5/3/1/0
    assert {row["player"] for row in rows if row["big"] >= 5} >= {int(p) for p in winners}

    # Version 2 of the set is added; a table still on version 1 sends a game: held.
    assert httpx.post(url + RULES, json={"toml": own_set("klub-b", 2)}).status_code == 201
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    seats = drawn["tables"][0]["seats"]
    racks = {s: 0 if s == "B" else 5 for s in seats}
    hall.game[1] += 1
    body = body_of(tid, 3, 1, hall.game[1], seats, racks=racks, rules="klub-b", round_game=1)
    assert hall.send(1, {**body, "rules_version": 1}).status_code == 201
    # Every game played under version 1 is held now, the earlier rounds' too: the tournament
    # is scored by its set as it is, and the judge accepts each (or the table is set anew).
    assert [(x["counts"], x["held"]) for x in results(url, tid)] == [(False, "rules")] * 3


def test_a_hub_started_again_knows_the_judges_sets(store: Store) -> None:
    with live_hub(store) as url:
        assert httpx.post(url + RULES, json={"toml": own_set("klub-c", 3)}).status_code == 201
    r.restore({})  # as a new process: only the database remembers
    with live_hub(store) as url:
        names = {s["name"]: s["version"] for s in httpx.get(url + RULES).json()}
        assert names["klub-c"] == 3
        shown = httpx.get(f"{url}{RULES}/klub-c").text
        assert "4 = [5, 3, 1, 0]" in shown
