"""Pairing at the table, the hub's API (``api.pairing``, ``hall.pairing``) on a live hub: the
table's three requests need no password, the judge's list, accept and refusal do; a refused,
expired or unknown request, a nonce sent twice and a full list each answer as documented.
The table's side runs in this process (``klik.link.joining``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from klik.link.joining import HttpJoin, Joined, Joiner
from klik.link.protocol import pairing as x
from klik_hub import hall
from klik_hub.door import judge
from klik_hub.hall.pairing import (
    EXPIRES_MS,
    MAX_REQUESTS,
    PER_ADDRESS,
    REVEAL_MS,
    PairingError,
    Problem,
)
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub
from tests.helpers.tourney import create
from tests.hub.test_judge import PASSWORD, basic

JUDGE = basic("judge", PASSWORD)


@pytest.fixture
def guarded(store: Store) -> Iterator[tuple[str, Store]]:
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    with live_hub(store) as url:
        yield url, store


def from_address(address: str) -> httpx.Client:
    """A client whose requests come from ``address`` (any of 127.0.0.0/8): another table."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


def ask(
    url: str,
    client: httpx.Client | None = None,
    proof: Callable[[str], dict[str, str]] | None = None,
) -> tuple[dict[str, object], str]:
    """A table's steps 1 and 2 by hand: the hub's first answer and the table's nonce;
    ``proof(table_key)``: a re-pairing table's proof of its old pairing."""
    web = client or httpx.Client(timeout=30)
    table_key = x.public_hex(x.new_private())
    asked: dict[str, object] = {"v": 1, "table_key": table_key}
    if proof is not None:
        asked["proof"] = proof(table_key)
    joined = web.post(f"{url}/api/v1/join", json=asked).json()
    nonce = x.new_nonce()
    said = web.post(f"{url}/api/v1/join/{joined['id']}/nonce", json={"nonce": nonce})
    assert said.status_code == 200, said.text
    x.check_commitment(joined["commit"], joined["hub_key"], table_key, said.json()["nonce"])
    return joined, nonce


def test_a_joiner_is_paired_by_the_judge_who_needs_the_password(
    guarded: tuple[str, Store],
) -> None:
    url, store = guarded
    digits: list[str | None] = []
    given: list[Joined] = []
    done = threading.Event()
    joiner = Joiner(
        HttpJoin(url), on_digits=digits.append, on_joined=lambda j: (given.append(j), done.set()),
        poll_s=0.05,
    )  # fmt: skip
    joiner.start()
    try:
        for _ in range(100):
            listed = httpx.get(f"{url}/api/v1/pairing", headers=JUDGE).json()
            if listed:
                break
            threading.Event().wait(0.05)  # sleep-ok: the joiner's thread on the real clock
        (asking,) = listed
        assert digits == [asking["digits"]]
        assert httpx.get(f"{url}/api/v1/pairing").status_code == 401  # the list: the judge's
        accept = f"{url}/api/v1/pairing/{asking['id']}"
        body = {"table": 4, "digits": asking["digits"]}
        assert httpx.post(accept, json=body).status_code == 401
        assert (
            httpx.post(accept, json={**body, "digits": "12345"}, headers=JUDGE).status_code == 422
        )
        said = httpx.post(accept, json=body, headers=JUDGE)
        assert said.status_code == 201, said.text
        assert done.wait(5)
    finally:
        joiner.stop()
    (joined,) = given
    assert (joined.table, joined.device_id, joined.tls_pin_sha256) == (
        4,
        said.json()["device"],
        None,
    )
    device = hall.devices.of(store, joined.device_id)
    assert device is not None
    assert (device.table_no, device.key) == (4, bytes.fromhex(joined.key))
    assert httpx.post(accept, json=body, headers=JUDGE).status_code == 409  # accepted already


def test_a_refused_request_is_gone_for_the_table_and_pairs_nothing(hub: tuple[str, Store]) -> None:
    url, store = hub
    joined, _ = ask(url)
    assert httpx.delete(f"{url}/api/v1/pairing/{joined['id']}").json() == {"status": "refused"}
    assert httpx.get(f"{url}/api/v1/join/{joined['id']}").status_code == 410
    assert httpx.get(f"{url}/api/v1/pairing").json() == []
    assert hall.devices.tables(store) == []


def test_unknown_expired_and_repeated_requests_answer_as_documented(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    unknown = "0123456789abcdef"
    assert httpx.get(f"{url}/api/v1/join/{unknown}").status_code == 404
    assert (
        httpx.post(
            f"{url}/api/v1/pairing/{unknown}", json={"table": 1, "digits": "000000"}
        ).status_code
        == 404
    )
    joined, nonce = ask(url)
    again = f"{url}/api/v1/join/{joined['id']}/nonce"
    assert httpx.post(again, json={"nonce": nonce}).status_code == 200  # a lost answer, again
    assert httpx.post(again, json={"nonce": x.new_nonce()}).status_code == 409
    assert httpx.get(f"{url}/api/v1/join/{joined['id']}").json() == {"state": "asking"}
    store.now_ms.ms += EXPIRES_MS + 1  # type: ignore[attr-defined]
    assert httpx.get(f"{url}/api/v1/join/{joined['id']}").status_code == 404
    assert httpx.get(f"{url}/api/v1/pairing").json() == []


def test_one_address_holds_four_requests_and_a_body_is_limited_before_it_is_read(
    hub: tuple[str, Store],
) -> None:
    url, _store = hub
    for _ in range(PER_ADDRESS):
        ask(url)
    key = x.public_hex(x.new_private())
    full = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
    assert full.status_code == 429
    assert "from this address" in full.json()["error"]
    # The first of them waits for the judge for ten minutes from its asking.
    assert int(full.headers["Retry-After"]) == EXPIRES_MS // 1000
    # Another table, on another address, asks and is listed.
    with from_address("127.0.0.2") as other:
        other.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key}).raise_for_status()
    assert len(httpx.get(f"{url}/api/v1/pairing").json()) == PER_ADDRESS
    big = httpx.post(f"{url}/api/v1/join", content=b"{" + b" " * 2000 + b"}",
                     headers={"Content-Type": "application/json"})  # fmt: skip
    assert big.status_code == 413
    for key in ("AB" * 32, "ab" * 32 + "zz"):  # upper case; 64 hex digits, then more
        bad = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
        assert bad.status_code == 422


def test_a_request_without_its_nonce_is_dropped_after_thirty_seconds(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    asked = [
        httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": x.public_hex(x.new_private())})
        for _ in range(PER_ADDRESS)
    ]
    assert [a.status_code for a in asked] == [201] * PER_ADDRESS
    key = x.public_hex(x.new_private())
    full = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
    assert (full.status_code, full.headers["Retry-After"]) == (429, str(REVEAL_MS // 1000))
    assert httpx.get(f"{url}/api/v1/pairing").json() == []  # none of them for the judge
    store.now_ms.ms += REVEAL_MS + 1  # type: ignore[attr-defined]
    late = httpx.post(f"{url}/api/v1/join/{asked[0].json()['id']}/nonce", json={"nonce": "0" * 32})
    assert late.status_code == 404
    assert httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key}).status_code == 201


def test_a_table_asking_again_with_its_key_replaces_its_request(hub: tuple[str, Store]) -> None:
    url, _ = hub
    key = x.public_hex(x.new_private())
    for _ in range(PER_ADDRESS + 2):
        said = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
        assert said.status_code == 201, said.text
    first = said.json()["id"]
    httpx.post(f"{url}/api/v1/join/{first}/nonce", json={"nonce": x.new_nonce()}).raise_for_status()
    assert [a["id"] for a in httpx.get(f"{url}/api/v1/pairing").json()] == [first]


def test_a_flood_from_one_address_never_keeps_a_table_off_the_judges_list(
    hub: tuple[str, Store],
) -> None:
    url, _store = hub
    with httpx.Client(timeout=30) as flood:
        answers = [
            flood.post(
                f"{url}/api/v1/join", json={"v": 1, "table_key": x.public_hex(x.new_private())}
            ).status_code
            for _ in range(1000)
        ]
    assert answers.count(201) == PER_ADDRESS
    assert answers.count(429) == 1000 - PER_ADDRESS
    with from_address("127.0.0.2") as table:
        joined, _nonce = ask(url, table)
    (listed,) = httpx.get(f"{url}/api/v1/pairing").json()
    assert listed["id"] == joined["id"]
    accepted = httpx.post(
        f"{url}/api/v1/pairing/{joined['id']}", json={"table": 1, "digits": listed["digits"]}
    )
    assert accepted.status_code == 201, accepted.text


def test_refuse_all_clears_every_waiting_request(hub: tuple[str, Store]) -> None:
    url, store = hub
    waiting = [ask(url)[0]["id"] for _ in range(3)]
    silent = httpx.post(
        f"{url}/api/v1/join", json={"v": 1, "table_key": x.public_hex(x.new_private())}
    ).json()["id"]
    assert httpx.delete(f"{url}/api/v1/pairing").json() == {"status": "refused", "count": 3}
    assert httpx.get(f"{url}/api/v1/pairing").json() == []
    assert [httpx.get(f"{url}/api/v1/join/{w}").status_code for w in waiting] == [410] * 3
    assert httpx.get(f"{url}/api/v1/join/{silent}").status_code == 404
    assert hall.devices.tables(store) == []
    assert len([ask(url) for _ in range(PER_ADDRESS)]) == PER_ADDRESS  # the address is free


def test_refuse_all_is_the_judges(guarded: tuple[str, Store]) -> None:
    url, _ = guarded
    joined, _ = ask(url)
    assert httpx.delete(f"{url}/api/v1/pairing").status_code == 401
    assert httpx.delete(f"{url}/api/v1/pairing", headers=JUDGE).json()["count"] == 1
    assert httpx.get(f"{url}/api/v1/join/{joined['id']}").status_code == 410


def test_sixty_four_tables_asking_at_once_are_all_listed_and_paired(
    hub: tuple[str, Store],
) -> None:
    url, store = hub
    tables = 64

    def one(n: int) -> tuple[dict[str, object], str]:
        with from_address(f"127.0.1.{n}") as table:
            return ask(url, table)

    with ThreadPoolExecutor(16) as pool:
        asked = list(pool.map(one, range(1, tables + 1)))
    listed = httpx.get(f"{url}/api/v1/pairing").json()
    assert sorted(a["id"] for a in listed) == sorted(str(j["id"]) for j, _ in asked)
    with httpx.Client(timeout=30) as judge_:
        for number, request in enumerate(listed, 1):
            body = {"table": number, "digits": request["digits"]}
            said = judge_.post(f"{url}/api/v1/pairing/{request['id']}", json=body)
            assert said.status_code == 201, said.text
    assert [t["table"] for t in hall.devices.tables(store)] == list(range(1, tables + 1))


def test_the_hub_holds_at_most_max_requests(store: Store) -> None:
    for n in range(MAX_REQUESTS):
        hall.pairing.ask(store, x.public_hex(x.new_private()), "http", f"10.0.{n // 250}.{n % 250}")
    with pytest.raises(PairingError) as full:
        hall.pairing.ask(store, x.public_hex(x.new_private()), "http", "10.9.9.9")
    assert (full.value.problem, full.value.retry_s) == (Problem.FULL, REVEAL_MS // 1000)
    assert "too many tables" in str(full.value)


def test_tables_asking_at_once_on_a_fresh_hub_make_one_key(store: Store) -> None:
    asking = 16
    start = threading.Barrier(asking)

    def one(_: int) -> str:
        start.wait()
        given = hall.pairing.ask(store, x.public_hex(x.new_private()), "http", None)
        return str(given["hub_key"])

    with ThreadPoolExecutor(asking) as pool:
        keys = set(pool.map(one, range(asking)))
    assert keys == {x.public_hex(hall.pairing.hub_key(store))}


def test_a_number_a_paired_table_holds_is_taken_only_to_replace_it(hub: tuple[str, Store]) -> None:
    url, store = hub
    tid = create(url)
    old, _old_key = hall.devices.pair(store, 2)
    joined, _ = ask(url)
    (listed,) = httpx.get(f"{url}/api/v1/pairing").json()
    accept = f"{url}/api/v1/pairing/{joined['id']}"
    body = {"table": 2, "digits": listed["digits"]}
    held = httpx.post(accept, json=body)
    assert (held.status_code, held.json()) == (409, {
        "error": "table 2 is paired already (not heard yet)",
        "held_by": {"table": 2, "seen_s_ago": None},
    })  # fmt: skip
    polish = httpx.post(accept, json=body, headers={"Accept-Language": "pl"})
    assert polish.json()["error"] == "stół 2 jest już sparowany (jeszcze bez kontaktu)"
    assert [a["id"] for a in httpx.get(f"{url}/api/v1/pairing").json()] == [joined["id"]]
    assert hall.devices.of(store, old) is not None  # still table 2
    said = httpx.post(accept, json={**body, "replace": True})
    assert said.status_code == 201, said.text
    assert hall.devices.of(store, old) is None  # let go
    assert [t["device"] for t in hall.devices.tables(store)] == [said.json()["device"]]
    (event,) = httpx.get(f"{url}/api/v1/tournaments/{tid}/corrections").json()
    assert {k: event[k] for k in ("kind", "table", "old_device", "new_device")} == {
        "kind": "replace_table", "table": 2, "old_device": old,
        "new_device": said.json()["device"],
    }  # fmt: skip
    assert httpx.post(accept, json={**body, "replace": "yes"}).status_code == 422


@pytest.mark.parametrize(
    ("proof", "carried"),
    [
        (lambda device, key, table_key: x.repair_proof(key, table_key), [3]),  # checks out
        (lambda device, key, table_key: x.repair_proof(key, "0" * 64), []),  # another request's
        (lambda device, key, table_key: x.repair_proof("1" * 64, table_key), []),  # another key
    ],
)
def test_only_a_proof_that_checks_out_carries_the_old_numbers_results(
    hub: tuple[str, Store], proof: Callable[[str, str, str], str], carried: list[int]
) -> None:
    """A re-pairing table proves its old pairing (table 3) with a MAC under its old key over
    this request's table key: accepted as 8, its old device is retired and results it sends
    under number 3 count. A proof that does not check out is an ordinary request: table 3
    stays paired, and its results from the new device would be refused."""
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    joined, _ = ask(url, proof=lambda table_key: {"device_id": device,
                                                  "mac": proof(device, key, table_key)})  # fmt: skip
    (asking,) = httpx.get(f"{url}/api/v1/pairing").json()
    said = httpx.post(f"{url}/api/v1/pairing/{joined['id']}",
                      json={"table": 8, "digits": asking["digits"]})  # fmt: skip
    assert said.status_code == 201, said.text  # the accept answers as always
    listed = {t["table"]: t for t in hall.devices.tables(store)}
    assert listed[8]["carried"] == carried
    assert (3 in listed) is (not carried)  # retired only when proved


def test_a_proof_of_a_device_the_hub_does_not_know_is_refused_or_ignored(
    hub: tuple[str, Store],
) -> None:
    url, _ = hub
    table_key = x.public_hex(x.new_private())
    for device, status in [("t3-nothere", 201), ("no spaces", 422), ("", 422)]:
        proof = {"device_id": device, "mac": "0" * 64}
        said = httpx.post(f"{url}/api/v1/join", json={"table_key": table_key, "proof": proof})
        assert said.status_code == status, said.text  # unknown: an ordinary request
    said = httpx.post(f"{url}/api/v1/join",
                      json={"table_key": table_key, "proof": {"device_id": "t3", "mac": "xyz"}})  # fmt: skip
    assert said.status_code == 422
