"""The hub's API over real HTTP, on SQLite and on PostgreSQL: the contract of docs/protocol.md."""

from __future__ import annotations

import io
import json
from typing import Any

import httpx
import pytest
from PIL import Image
from sqlalchemy import func, select

from klik.link import protocol as p
from klik_hub import hall, office
from klik_hub.sql.schema import claims, commands, results
from klik_hub.storage.store import Store
from klik_hub.tournament.roster import Entrant
from tests.helpers.hubkit import post, result_body, sealed

Hub = tuple[str, Store]


def rows(store: Store) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(results)).scalar_one())


def signed_ack(answer: dict[str, Any], key_hex: str) -> p.Envelope:
    envelope, mac = p.open_envelope(answer["ack"])
    assert p.verify(envelope, mac, p.key_bytes(key_hex)), "the ack must be signed with the key"
    return envelope


def test_a_result_is_stored_then_a_resend_is_a_duplicate_with_the_same_receipt(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    envelope = sealed(device, key, 1, result_body())
    first = post(url, "/api/v1/results", envelope)
    assert first.status_code == 201
    receipt = first.json()["receipt"]
    assert first.json()["status"] == "stored"
    assert len(receipt) == 5
    assert set(receipt) <= set(p.RECEIPT_ALPHABET)
    ack = signed_ack(first.json(), key)
    assert (ack.type, ack.device, ack.seq) == ("ack", device, 1)
    assert ack.body == {"of": "result", "status": "stored", "receipt": receipt}

    again = post(url, "/api/v1/results", envelope)
    assert again.status_code == 200
    assert (again.json()["status"], again.json()["receipt"]) == ("duplicate", receipt)
    assert rows(store) == 1


def test_listed_results_are_newest_first_with_racks_points_and_their_check(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    post(url, "/api/v1/results", sealed(device, key, 1, result_body(game=1)))
    wrong = result_body(game=2)
    wrong["seats"]["B"]["small"] -= 5  # a table that scored wrong: the judge must see it
    post(url, "/api/v1/results", sealed(device, key, 2, wrong))
    listed = httpx.get(url + "/api/v1/results").json()
    assert [(r["game"], r["points_check"]) for r in listed] == [(2, "mismatch"), (1, "ok")]
    first = listed[1]
    assert first["table"] == 3
    assert first["device"] == device
    assert first["seq"] == 1
    assert first["ending"] == "rummikub"
    assert first["winners"] == ["A"]
    assert first["racks"] == {"A": 0, "B": 12, "C": 30, "D": 7}
    assert first["small"] == {"A": 49, "B": -12, "C": -30, "D": -7}
    assert first["big"] == {"A": 1, "B": 0, "C": 0, "D": 0}
    assert first["conflict"] is False
    assert first["received_at"].endswith("Z")
    assert httpx.get(url + "/api/v1/results?table=4").json() == []


@pytest.mark.parametrize(
    ("first_seq", "second_seq", "second_game"),
    [
        (1, 1, 2),  # the same send (device, seq) with another body
        (1, 2, 1),  # the same game (tournament, round, table, game) under another seq
    ],
)
def test_a_different_body_for_a_taken_send_or_game_is_a_conflict_and_both_are_kept(
    hub: Hub, first_seq: int, second_seq: int, second_game: int
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    stored = post(url, "/api/v1/results", sealed(device, key, first_seq, result_body(game=1)))
    other = result_body(game=second_game, racks={"A": 5, "B": 0, "C": 9, "D": 9})
    clash = post(url, "/api/v1/results", sealed(device, key, second_seq, other))
    assert clash.status_code == 409
    assert clash.json()["status"] == "conflict"
    assert clash.json()["receipt"] != stored.json()["receipt"]
    assert signed_ack(clash.json(), key).body["status"] == "conflict"
    listed = httpx.get(url + "/api/v1/results").json()
    assert [r["conflict"] for r in listed] == [True, True]
    assert post(url, "/api/v1/results", sealed(device, key, second_seq, other)).status_code == 200


def test_the_same_game_resent_under_a_new_seq_is_a_duplicate(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    first = post(url, "/api/v1/results", sealed(device, key, 1, result_body()))
    again = post(url, "/api/v1/results", sealed(device, key, 7, result_body()))
    assert again.status_code == 200
    assert again.json()["receipt"] == first.json()["receipt"]
    assert rows(store) == 1


def _forged(device: str, key: str) -> bytes:
    envelope = json.loads(sealed(device, key, 1, result_body()))
    envelope["body"]["seats"]["B"]["rack"] = 0  # a changed rack under the old MAC
    return json.dumps(envelope).encode()


@pytest.mark.parametrize(
    ("make", "status", "error"),
    [
        # a forged MAC: the body changed after signing
        (_forged, 401, "bad mac"),
        # signed with another table's key
        (lambda d, k: sealed(d, "ab" * 32, 1, result_body()), 401, "bad mac"),
        # a device the hub never paired
        (lambda d, k: sealed("t9-stranger", k, 1, result_body()), 401, "unknown device"),
        # a device paired with table 3 sending table 4's result (a replay into another table)
        (lambda d, k: sealed(d, k, 1, result_body(table=4)), 401, "paired with table 3"),
        # not JSON
        (lambda d, k: b"{not json", 422, "not JSON"),
        # an envelope with a field the contract does not have
        (lambda d, k: sealed(d, k, 1, result_body())[:-1] + b',"x":1}', 422, "x: unknown"),
        # a result seq of 0
        (lambda d, k: sealed(d, k, 0, result_body()), 422, "seq"),
        # a heartbeat sent as a result
        (lambda d, k: sealed(d, k, 1, result_body(), "heartbeat"), 422, "type"),
        # over 16 KiB
        (lambda d, k: sealed(d, k, 1, result_body(note="x" * 17_000)), 413, "over 16384"),
    ],
)
def test_a_bad_envelope_is_refused_with_its_reason_and_nothing_is_stored(
    hub: Hub, make: Any, status: int, error: str
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    hall.devices.pair(store, 4)
    answer = post(url, "/api/v1/results", make(device, key))
    assert answer.status_code == status
    assert error in answer.json()["error"]
    assert "ack" not in answer.json()
    assert rows(store) == 0
    with store.engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(claims)).scalar_one() == 0


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"ending": "draw"}, "body.ending"),
        ({"winners": ["E"]}, "body.winners"),
        ({"duration_ms": -1}, "body.duration_ms"),
    ],
)
def test_a_signed_body_that_breaks_the_schema_is_refused_for_good_and_signed(
    hub: Hub, change: dict[str, Any], error: str
) -> None:
    """The table signed it, so no resend can change it: a signed refusal naming the field
    lets the table set it aside. Nothing is stored."""
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    answer = post(url, "/api/v1/results", sealed(device, key, 1, result_body(**change)))
    said = answer.json()
    assert (answer.status_code, said["status"]) == (422, "refused")
    assert said["error"].startswith(error)
    ack, mac = p.open_envelope(said["ack"])
    assert p.verify(ack, mac, p.key_bytes(key))
    assert rows(store) == 0


def test_unknown_fields_of_a_result_are_kept_as_signed(hub: Hub) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    body = result_body(stats={"A": {"longest_move_ms": 61_000}})
    assert post(url, "/api/v1/results", sealed(device, key, 1, body)).status_code == 201
    assert httpx.get(url + "/api/v1/results").json()[0]["body"] == body


def test_pairing_a_table_again_replaces_its_device_and_key(hub: Hub) -> None:
    url, store = hub
    old_device, old_key = hall.devices.pair(store, 3)
    device, key = hall.devices.pair(store, 3)
    assert device != old_device
    assert key != old_key
    refused = post(url, "/api/v1/results", sealed(old_device, old_key, 1, result_body()))
    assert refused.status_code == 401
    assert post(url, "/api/v1/results", sealed(device, key, 1, result_body())).status_code == 201
    assert [t["device"] for t in httpx.get(url + "/api/v1/tables").json()] == [device]


def heartbeat(state: str = "move", acks: list[str] | None = None) -> dict[str, Any]:
    return {"state": state, "mover": "B", "left_ms": 41_000, "draw_tiles": 28, "judge": False,
            "outbox": 0, "last_seq": 0, "game": 1, "acks": acks or []}  # fmt: skip


def test_a_heartbeat_is_the_tables_state_and_fetches_its_commands_until_acknowledged(
    hub: Hub,
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 1, heartbeat(), "heartbeat"))
    assert answer.status_code == 200
    assert answer.json()["commands"] == []
    [table] = httpx.get(url + "/api/v1/tables").json()
    assert table["status"]["mover"] == "B"
    assert table["seen_s_ago"] == 0

    queued = httpx.post(url + "/api/v1/tables/3/commands", json={"kind": "pause"})
    assert queued.status_code == 201
    command_id = queued.json()["id"]
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 2, heartbeat(), "heartbeat"))
    expected = [{"id": command_id, "kind": "pause", "args": {}}]
    assert answer.json()["commands"] == expected
    assert signed_ack(answer.json(), key).body["commands"] == expected  # what the table trusts
    acked = heartbeat("paused", acks=[command_id])
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 3, acked, "heartbeat"))
    assert answer.json()["commands"] == []
    with store.engine.connect() as connection:
        assert connection.execute(select(commands.c.acked_ms)).scalar_one() is not None


@pytest.mark.parametrize(
    ("path", "payload", "status"),
    [
        ("/api/v1/tables/5/commands", {"kind": "pause"}, 404),  # table 5 is not paired
        (
            "/api/v1/tables/25226378338157497155584/commands",
            {"kind": "pause"},
            422,
        ),  # no such table number (schemathesis found a 500)
        ("/api/v1/tables/3/commands", {"kind": "explode"}, 422),
        ("/api/v1/tables/3/commands", {"kind": "players", "args": {"A": 1.5}}, 422),  # a float
        ("/api/v1/tables/3/commands", {"args": {}}, 422),  # no kind
    ],
)
def test_a_bad_command_is_refused(hub: Hub, path: str, payload: Any, status: int) -> None:
    url, store = hub
    hall.devices.pair(store, 3)
    assert httpx.post(url + path, json=payload).status_code == status
    assert hall.devices.tables(store)[0]["commands"] == []


def test_every_page_names_the_hub_s_icon_and_both_icons_are_served(hub: Hub) -> None:
    # A browser asked for /favicon.ico on every page and got 404: each page names the SVG,
    # and /favicon.ico answers an icon, behind the same door as every route.
    url, store = hub
    tid = office.tournaments.create(store, "Turniej", None, "open", 60)
    (player,) = office.players.enrol(store, tid, [Entrant("Ala Kot", "")])
    link = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'
    for page in ("/", "/projector", f"/t/{tid}", f"/p/{player['code']}",
                 f"/print/standings?t={tid}"):  # fmt: skip
        answer = httpx.get(url + page)
        assert answer.status_code == 200, page
        assert link in answer.text.split("</head>")[0], page
    svg = httpx.get(url + "/favicon.svg")
    ico = httpx.get(url + "/favicon.ico")
    assert [x.status_code for x in (svg, ico)] == [200, 200]
    assert svg.headers["content-type"] == "image/svg+xml"
    assert svg.text.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert ico.headers["content-type"] == "image/x-icon"
    icon = Image.open(io.BytesIO(ico.content))
    assert (icon.format, icon.info["sizes"]) == ("ICO", {(16, 16), (32, 32), (48, 48)})
    for answer in (svg, ico):
        assert answer.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["x-content-type-options"] == "nosniff"


def test_the_live_page_and_the_openapi_description_are_served(hub: Hub) -> None:
    url, _ = hub
    page = httpx.get(url + "/")
    assert page.status_code == 200
    assert '<script src="/words.js"></script>' in page.text  # its words: the catalogue
    spec = httpx.get(url + "/openapi.json").json()
    assert {"/api/v1/results", "/api/v1/heartbeats", "/api/v1/tables"} <= set(spec["paths"])
    body = spec["paths"]["/api/v1/results"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["required"][-1] == "mac"
