"""Results that travel: a whole liga tournament (a correction, a deduction, a withdrawal)
exported by ``klik hub export-results``, taken in by another hub as a meeting of its season,
and exported again the same but for ids and time; a judge's own rule set goes with it; a
file that breaks the format or whose points do not recompute is one line, nothing kept."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik import rules as r
from klik.cli import main
from klik_hub import sql
from klik_hub.league import exchange
from klik_hub.main import open_store
from klik_hub.storage.store import Store
from tests.helpers.tourney import (
    API,
    Hall,
    create,
    enrol,
    lowest_goes_out,
    play_to_the_end,
    results,
)

Hub = tuple[str, Store]


def without_ids(data: dict[str, Any]) -> dict[str, Any]:
    """The file but for its ids and its time: people numbered in the order listed."""
    data = json.loads(json.dumps(data))
    del data["exported_at"], data["tournament"]["id"]
    renumber = {p["id"]: k for k, p in enumerate(data["people"], start=1)}
    for p in data["people"]:
        p["id"] = renumber[p["id"]]
    for p in data["players"]:
        p["person"] = renumber.get(p["person"])
    return data


def played_liga(url: str, store: Store) -> int:
    """A liga tournament of 16 played to its final, with a corrected rack, a deduction and
    a player withdrawn after the eliminations."""
    tid = create(url, format="liga", name="Liga — spotkanie 3")
    enrol(url, tid, 16)
    hall = Hall(url, store, 4)

    def after(drawn: dict[str, Any]) -> None:
        if drawn["round"] == 1:
            first = results(url, tid)[0]
            seat = next(s for s, e in first["seats"].items() if e["rack"] > 0)
            sent = {"kind": "rack", "seat": seat, "value": first["seats"][seat]["rack"] + 4,
                    "reason": "źle policzone"}  # fmt: skip
            path = f"{url}{API}/{tid}/results/{first['id']}/corrections"
            assert httpx.post(path, json=sent).status_code == 201
            sanction = {"player": 5, "kind": "deduction", "big": 2, "reason": "hałas"}
            assert httpx.post(f"{url}{API}/{tid}/sanctions", json=sanction).status_code == 201

    play_to_the_end(url, hall, tid, random.Random(3), lowest_goes_out, rules="league", after=after)
    return tid


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_tournament_travels_to_another_hub_and_back_the_same(
    hub: Hub, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, store = hub
    tid = played_liga(url, store)
    out = tmp_path / "spotkanie.json"
    assert main(["hub", "export-results", "--db", db, "--tournament", str(tid), str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"klik hub export-results: tournament {tid} (")
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert (exported["format"], exported["version"]) == ("klik-results", 1)
    assert exported["tournament"]["rule_set"]["name"] == "pl-liga"
    stages = {g["stage"] for g in exported["games"]}
    assert stages == {"eliminacje", "półfinał", "finał"}
    assert exported["sanctions"] == [
        {"player": 5, "kind": "deduction", "big": 2, "stage": "eliminacje"}
    ]
    assert "hałas" not in out.read_text(encoding="utf-8")  # the judge's reasons stay home
    standings = httpx.get(f"{url}{API}/{tid}/standings").json()
    assert [x["player"] for x in exported["classification"]] == [x["player"] for x in standings]

    other = tmp_path / "other.sqlite"
    open_store(str(other)).engine.dispose()  # another laptop's hub, with a season
    there = open_store(str(other))
    with there.writing() as kept:
        sid = sql.seasons.add(kept, "Liga 2026/27", None, '"big"', "2026-11-28T00:00:00Z")
    there.engine.dispose()
    assert main(["hub", "import-results", "--db", str(other), "--season", str(sid), str(out)]) == 0
    said = capsys.readouterr().out
    assert said == f"klik hub import-results: {out} kept as tournament 1\n"
    again = tmp_path / "again.json"
    assert main(["hub", "export-results", "--db", str(other), "--tournament", "1", str(again)]) == 0
    back = json.loads(again.read_text(encoding="utf-8"))
    assert without_ids(back) == without_ids(exported)
    there = open_store(str(other))
    with there.reading() as kept:
        assert sql.seasons.meetings(kept, sid) == [1]
    there.engine.dispose()

    # The classification as CSV, a person a line, for a ranking.
    table = tmp_path / "ranking.csv"
    assert (
        main(["hub", "export-results", "--db", db, "--tournament", str(tid), "--csv", str(table)])
        == 0
    )
    rows = list(csv.reader(io.StringIO(table.read_bytes().decode("utf-8-sig")), delimiter=";"))
    assert rows[0] == ["tournament", "date", "place", "federation_id", "name", "club", "big",
                       "small", "games", "status"]  # fmt: skip
    assert [r[4] for r in rows[1:]] == [x["name"] for x in standings]


def spoiled(exported: dict[str, Any], how: str) -> dict[str, Any]:
    data = json.loads(json.dumps(exported))
    if how == "version":
        data["version"] = 2
    elif how == "points":
        seats = data["games"][0]["seats"]
        seats[next(iter(seats))]["small"] += 1
    elif how == "classification":
        data["classification"][0]["big"] += 1
    elif how == "player":
        seats = data["games"][0]["seats"]
        seats[next(iter(seats))]["player"] = 999
    elif how == "rule_set":
        data["tournament"]["rule_set"]["small_points"]["joker"] = 0
    return data


@pytest.mark.parametrize(
    ("how", "line"),
    [
        # another version of the format
        ("version", "version: must be 1"),
        # a seat's points that its racks do not give under pl-liga
        ("points", "games[0].seats.A: small"),
        # a classification the games do not give
        ("classification", "classification[0]: the games give"),
        # a seat of no player of the file
        ("player", "games[0].seats.A.player: must be a player of the file"),
        # a rule set the file's own checks refuse
        ("rule_set", "tournament.rule_set: small_points.joker = 0: allowed is a whole number from 1 to 100"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_file_the_hub_cannot_take_is_one_line_and_nothing_is_kept(
    hub: Hub, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, line: str
) -> None:
    url, store = hub
    tid = create(url, format="open", rules="league")
    enrol(url, tid, 7)
    play_to_the_end(url, Hall(url, store, 2), tid, random.Random(1), lowest_goes_out,
                    rules="league", rounds=2)  # fmt: skip
    exported = exchange.export(store, tid)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(spoiled(exported, how)), encoding="utf-8")
    target = tmp_path / "there.sqlite"  # another hub than the one that played it
    open_store(str(target)).engine.dispose()
    assert main(["hub", "import-results", "--db", str(target), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"klik hub import-results: {bad}: {line}")
    assert err.count("\n") == 1
    kept = open_store(str(target))
    with kept.reading() as db:
        assert sql.tournaments.newest_first(db) == []
        assert sql.people.every(db) == []
    kept.engine.dispose()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_judges_own_rule_set_travels_with_its_tournament(hub: Hub, tmp_path: Path) -> None:
    url, store = hub
    text = r.to_toml(r.named("de-klub")).replace('name = "de-klub"', 'name = "klub-x"')
    assert httpx.post(f"{url}/api/v1/rules", json={"toml": text}).status_code == 201
    tid = create(url, format="open", rules="klub-x")
    enrol(url, tid, 6)
    play_to_the_end(url, Hall(url, store, 2), tid, random.Random(2), lowest_goes_out,
                    rules="klub-x", rounds=2)  # fmt: skip
    exported = exchange.export(store, tid)
    assert exported["tournament"]["rule_set"]["big_points"]["4"] == [4, 3, 1, 0]
    r.restore({})  # another laptop: it never heard of klub-x
    there = open_store(str(tmp_path / "there.sqlite"))
    try:
        new = exchange.take(there, exported)
        assert without_ids(exchange.export(there, new)) == without_ids(exported)
        with there.reading() as kept:
            assert sql.rule_sets.text_of(kept, "klub-x", 1) is not None  # kept, for good
    finally:
        there.engine.dispose()
