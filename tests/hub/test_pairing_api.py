"""Pairing at the table, the hub's API (``api.pairing``, ``hall.pairing``) on a live hub: the
table's three requests need no password, the judge's list, accept and refusal do; a refused,
expired or unknown request, a nonce sent twice and a full list each answer as documented.
The table's side runs in this process (``klik.link.joining``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from klik.link.joining import HttpJoin, Joined, Joiner
from klik.link.protocol import pairing as x
from klik_hub import hall
from klik_hub.door import judge
from klik_hub.hall.pairing import EXPIRES_MS, MAX_REQUESTS
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub
from tests.hub.test_judge import PASSWORD, basic

JUDGE = basic("judge", PASSWORD)


@pytest.fixture
def guarded(store: Store) -> Iterator[tuple[str, Store]]:
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    with live_hub(store) as url:
        yield url, store


def ask(url: str) -> tuple[dict[str, object], str]:
    """A table's steps 1 and 2 by hand: the hub's first answer and the table's nonce."""
    table_key = x.public_hex(x.new_private())
    joined = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": table_key}).json()
    nonce = x.new_nonce()
    said = httpx.post(f"{url}/api/v1/join/{joined['id']}/nonce", json={"nonce": nonce})
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


def test_the_list_is_capped_and_a_body_is_limited_before_it_is_read(hub: tuple[str, Store]) -> None:
    url, _ = hub
    for _ in range(MAX_REQUESTS):
        ask(url)
    key = x.public_hex(x.new_private())
    full = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
    assert full.status_code == 429
    assert "too many tables" in full.json()["error"]
    big = httpx.post(f"{url}/api/v1/join", content=b"{" + b" " * 2000 + b"}",
                     headers={"Content-Type": "application/json"})  # fmt: skip
    assert big.status_code == 413
    for key in ("AB" * 32, "ab" * 32 + "zz"):  # upper case; 64 hex digits, then more
        bad = httpx.post(f"{url}/api/v1/join", json={"v": 1, "table_key": key})
        assert bad.status_code == 422
