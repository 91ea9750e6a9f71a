"""What the hub refuses, and how much it takes, the same on SQLite and on PostgreSQL: text the
database cannot keep (NUL, a lone surrogate), JSON nested deeper than the protocol allows,
a time that never was, a tournament of over 1,000 players; and what it takes whatever the
text (a claim's key that would overflow its column) and however many ask at once (draws).

Every refusal is a 422 with one line naming the field. PostgreSQL answered 500 to several
of these while SQLite took them, so every test runs on both (``hub``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from klik.link import protocol as p
from klik_hub import hall
from klik_hub.sql.results import CLAIM_LENGTH
from klik_hub.sql.schema import claims
from klik_hub.storage.store import Store
from klik_hub.tournament.draw import repeats
from tests.helpers.hubkit import post, result_body, sealed
from tests.helpers.tourney import API, Hall, create, enrol, results

Hub = tuple[str, Store]
NUL = "\x00"
LONE = "\ud800"  # a lone surrogate: JSON can say it ("\ud800"), UTF-8 cannot
STORABLE = p.NOT_STORABLE


def send(method: str, url: str, body: Any) -> httpx.Response:
    """``body`` as JSON written with escapes (httpx's own JSON writes UTF-8, which has no lone
    surrogate), or as the bytes given."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    return httpx.request(method, url, content=data, headers=headers, timeout=30)


def signed(device: str, key_hex: str, seq: int, body: Any, kind: str = "result") -> bytes:
    """An envelope signed as a table signs one, without the checks ``protocol.canonical``
    makes first: what a table with a bug, or anyone with its key, could send."""
    unsigned = {"v": 1, "type": kind, "device": device, "seq": seq, "body": body}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":")).encode()
    mac = hmac.new(p.key_bytes(key_hex), text, hashlib.sha256).hexdigest()
    return json.dumps({**unsigned, "mac": mac}).encode()


def nested(depth: int) -> Any:
    """A list ``depth`` deep: ``nested(2)`` is ``[[]]``."""
    inner: Any = []
    for _ in range(depth - 1):
        inner = [inner]
    return inner


@pytest.mark.parametrize(
    ("method", "path", "body", "error"),
    [
        # a correction's reason and who made it go to the audit log
        (
            "POST",
            "/{tid}/results/{result}/corrections",
            {"kind": "exclude", "value": True, "reason": f"x{NUL}"},
            f"reason: {STORABLE}",
        ),
        (
            "POST",
            "/{tid}/results/{result}/corrections",
            {"kind": "exclude", "value": True, "reason": "x", "by": f"Anna{NUL}"},
            f"who: {STORABLE}",
        ),
        # a sanction's
        (
            "POST",
            "/{tid}/sanctions",
            {"player": 1, "kind": "warning", "reason": NUL},
            f"reason: {STORABLE}",
        ),
        (
            "POST",
            "/{tid}/sanctions",
            {"player": 1, "kind": "warning", "reason": "x", "by": NUL},
            f"who: {STORABLE}",
        ),
        # a player's change: its reason, who, and the new club
        ("PATCH", "/{tid}/players/1", {"club": "SP 9", "reason": NUL}, f"reason: {STORABLE}"),
        (
            "PATCH",
            "/{tid}/players/1",
            {"club": "SP 9", "reason": "x", "by": NUL},
            f"who: {STORABLE}",
        ),
        (
            "PATCH",
            "/{tid}/players/1",
            {"club": f"SP{NUL}", "reason": "x"},
            f"club: {STORABLE}",
        ),
        # an undone draw's (the body is checked before the round is looked for)
        ("DELETE", "/{tid}/rounds/1", {"reason": NUL}, f"reason: {STORABLE}"),
        ("DELETE", "/{tid}/rounds/1", {"by": NUL}, f"who: {STORABLE}"),
        # a player list's names and clubs: no control character at all (a player's name)
        (
            "POST",
            "/{tid}/players",
            [{"name": "Ala", "club": f"SP{NUL}"}],
            "players[0]: the club holds a control character",
        ),
        (
            "POST",
            "/{tid}/players",
            [{"name": f"Ala{LONE}"}],
            "players[0]: the name holds a control character",
        ),
        # a new tournament's name (pydantic itself refuses a lone surrogate in any of these)
        (
            "POST",
            "",
            {"name": f"Liga{NUL}", "format": "open", "move_time_s": 60},
            f"name: {STORABLE}",
        ),
    ],
)
def test_text_the_database_cannot_keep_is_refused_naming_the_field(
    hub: Hub, method: str, path: str, body: Any, error: str
) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    hall = Hall(url, store, 1)
    reported = hall.report(tid, None, 1, {"A": 1, "B": 2, "C": 3}, {"A": 0, "B": 5, "C": 9},
                           rules="tournament")  # fmt: skip
    assert reported.status_code == 201, reported.text
    result = results(url, tid)[0]["id"]
    answer = send(method, f"{url}{API}{path.format(tid=tid, result=result)}", body)
    assert (answer.status_code, answer.json()) == (422, {"error": error})
    assert httpx.get(f"{url}{API}/{tid}/corrections").json() == []  # nothing logged
    assert len(httpx.get(f"{url}{API}/{tid}/players").json()) == 8
    assert httpx.get(f"{url}{API}/{tid}/players").json()[0]["club"] == "SP 2"
    assert [t["id"] for t in httpx.get(url + API).json()] == [tid]


def envelopes(device: str, key: str) -> list[tuple[str, bytes, str]]:
    """(path, envelope, the one line): envelopes whose body the hub cannot keep."""
    deep_beat = {"state": "ready", "acks": [], "x": nested(p.MAX_DEPTH)}
    nameless = result_body()
    nameless["seats"]["A"]["name"] = NUL
    return [
        # a result's tournament is a column of its own; a seat's name is in the body
        ("/api/v1/results", signed(device, key, 1, result_body(tournament=f"1{NUL}")), f"body.tournament: {STORABLE}"),
        ("/api/v1/results", signed(device, key, 1, result_body(tournament=LONE)), f"body.tournament: {STORABLE}"),
        ("/api/v1/results", signed(device, key, 1, nameless), f"body.seats.A.name: {STORABLE}"),
        # a time that never was, in the shape of one
        ("/api/v1/results", signed(device, key, 1, result_body(finished_at="2026-99-99T99:99:99Z")), "body.finished_at: must be null or a real time in ISO 8601 UTC like 2026-11-23T14:05:09Z"),
        # a heartbeat's acks are looked up in SQL
        ("/api/v1/heartbeats", signed(device, key, 1, {"state": "ready", "acks": [NUL]}, "heartbeat"), f"body.acks[0]: {STORABLE}"),
        # nesting: a body 17 deep, and an envelope 5,000 deep (read before it is parsed)
        ("/api/v1/heartbeats", signed(device, key, 1, deep_beat, "heartbeat"), "body.x: arrays and objects nest deeper than 16 levels"),
        ("/api/v1/heartbeats", b'{"v": 1, "body": ' + b"[" * 5000 + b"]" * 5000 + b"}", "(envelope): arrays and objects nest deeper than 20 levels"),
    ]  # fmt: skip


def test_an_envelope_the_hub_cannot_keep_is_refused_naming_the_field(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    for path, envelope, error in envelopes(device, key):
        answer = post(url, path, envelope)
        said = answer.json()
        # A believed result that breaks the schema is refused for good, signed (the table
        # sets it aside); an envelope the hub cannot even read is refused unsigned.
        status = "refused" if error.startswith("body.finished_at") else "invalid"
        assert ("ack" in said) is (status == "refused")
        said.pop("ack", None)
        assert (answer.status_code, said) == (422, {"status": status, "error": error})
    assert httpx.get(url + "/api/v1/results").json() == []
    assert httpx.get(url + "/api/v1/tables").json()[0]["status"] is None  # no heartbeat kept


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"A": f"Ala{NUL}"}, f"args.A: {STORABLE}"),  # a name for a seat's screen
        ({"A": LONE}, f"args.A: {STORABLE}"),
        ({"A": nested(p.MAX_DEPTH)}, "args.A: arrays and objects nest deeper than 16 levels"),
    ],
)
def test_a_command_the_table_could_not_take_is_refused(
    hub: Hub, args: dict[str, Any], error: str
) -> None:
    url, store = hub
    hall.devices.pair(store, 3)
    answer = send("POST", f"{url}/api/v1/tables/3/commands", {"kind": "players", "args": args})
    assert (answer.status_code, answer.json()) == (422, {"status": "invalid", "error": error})
    assert hall.devices.tables(store)[0]["commands"] == []


def test_a_command_nested_as_deep_as_the_hub_takes_reaches_the_table_signed(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    args = {"A": nested(p.MAX_DEPTH - 1)}  # 16 levels with args itself
    queued = send("POST", f"{url}/api/v1/tables/3/commands", {"kind": "players", "args": args})
    assert queued.status_code == 201, queued.text
    beat = {"state": "ready", "acks": []}
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 1, beat, "heartbeat"))
    assert answer.status_code == 200, answer.text
    ack, mac = p.open_envelope(answer.json()["ack"])  # as the table's courier opens it
    assert p.verify(ack, mac, p.key_bytes(key))
    assert ack.body["commands"][0]["args"] == args


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/players", b"[" * 5000 + b"]" * 5000),  # json.loads' RecursionError: a 500 once
        ("/players", [{"name": "Ala", "club": nested(p.MAX_DEPTH)}]),  # 18 with the list
        ("/rounds", b'{"tie_break": ' + b"[" * 5000 + b"]" * 5000 + b"}"),  # FastAPI's 400
        ("/results/1/corrections", {"kind": "assign", "players": {"A": nested(20)}, "reason": "x"}),
    ],
)
def test_a_body_nested_too_deep_is_refused_before_it_is_parsed(
    hub: Hub, path: str, body: Any
) -> None:
    url, _ = hub
    tid = create(url)
    answer = send("POST", f"{url}{API}/{tid}{path}", body)
    error = "body: arrays and objects nest deeper than 16 levels"
    assert (answer.status_code, answer.json()) == (422, {"error": error})
    assert httpx.get(f"{url}{API}/{tid}/players").json() == []


@pytest.mark.parametrize(
    "label",
    [
        "ż" * 70,  # 70 × "\u017c" in the key: past PostgreSQL's varchar(400), a 500 once
        "ż" * 200,  # the longest label the protocol allows
        '"\\' * 100,  # quotes and backslashes, each written with a backslash
    ],
)
def test_any_tournament_label_the_protocol_allows_claims_its_game(hub: Hub, label: str) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    first = post(url, "/api/v1/results", sealed(device, key, 1, result_body(tournament=label)))
    assert first.status_code == 201, first.text
    # the same game under another seq is the same result; another body for it a conflict
    again = post(url, "/api/v1/results", sealed(device, key, 2, result_body(tournament=label)))
    assert (again.status_code, again.json()["receipt"]) == (200, first.json()["receipt"])
    other = result_body(tournament=label, racks={"A": 5, "B": 0, "C": 9, "D": 9})
    clash = post(url, "/api/v1/results", sealed(device, key, 3, other))
    assert clash.status_code == 409, clash.text
    with store.engine.connect() as db:
        longest = db.execute(select(func.max(func.length(claims.c.claim)))).scalar_one()
    assert longest <= CLAIM_LENGTH  # SQLite would keep a longer one; PostgreSQL refuses it


def test_a_tournament_takes_at_most_1000_players(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    thousand = [{"name": f"Gracz {k}"} for k in range(1, 1001)]
    assert send("POST", f"{url}{API}/{tid}/players", thousand).status_code == 201
    one_more = send("POST", f"{url}{API}/{tid}/players", [{"name": "Spóźniony"}])
    error = f"players: tournament {tid} has 1000 and the list 1; a tournament takes at most 1000"
    assert (one_more.status_code, one_more.json()) == (422, {"error": error})
    other = create(url)
    roster = "".join(f"Gracz {k};SP 1\n" for k in range(1, 1002)).encode()
    too_many = post(url, f"{API}/{other}/players", roster, **{"Content-Type": "text/csv"})
    error = "1001 players in the list; a tournament takes at most 1000"
    assert (too_many.status_code, too_many.json()) == (422, {"error": error})
    counts = [httpx.get(f"{url}{API}/{t}").json()["players"] for t in (tid, other)]
    assert counts == [1000, 0]


def draws_at_once(url: str, tid: int, sent: dict[str, Any], count: int = 12) -> list[Any]:
    """``count`` draws of the tournament sent at once, each from its own thread."""

    def draw(seed: int) -> httpx.Response:
        body = {"seed": seed, "override": True, **sent}
        return httpx.post(f"{url}{API}/{tid}/rounds", json=body, timeout=60)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(draw, range(count)))


def test_draws_sent_at_once_are_drawn_one_after_another(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 16)
    answers = draws_at_once(url, tid, {})
    assert [a.status_code for a in answers] == [201] * 12, [a.text for a in answers]
    drawn = sorted((a.json() for a in answers), key=lambda x: x["round"])
    assert [x["round"] for x in drawn] == list(range(1, 13))
    # each round was drawn knowing every round before it: its repeats are what it adds
    rounds = [tuple(tuple(t["seats"].values()) for t in x["tables"]) for x in drawn]
    for k, x in enumerate(drawn):
        assert x["repeats"] == repeats(rounds[: k + 1]) - repeats(rounds[:k])
    kept = httpx.get(f"{url}{API}/{tid}").json()["rounds"]
    assert [(r["round"], r["seed"]) for r in kept] == [(x["round"], x["seed"]) for x in drawn]


def test_a_round_asked_for_twelve_times_at_once_is_drawn_once(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 16)
    answers = draws_at_once(url, tid, {"round": 1})
    assert sorted(a.status_code for a in answers) == [201] + [409] * 11
    late = {"error": "round: round 1 is not the next to draw; round 2 is"}
    assert all(a.json() == late for a in answers if a.status_code == 409)
    assert [r["round"] for r in httpx.get(f"{url}{API}/{tid}").json()["rounds"]] == [1]
    ahead = httpx.post(f"{url}{API}/{tid}/rounds", json={"round": 3, "override": True})
    error = "round: round 3 is not the next to draw; round 2 is"
    assert (ahead.status_code, ahead.json()) == (409, {"error": error})
