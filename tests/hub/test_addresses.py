"""The hub's address in the QR codes: the hall's, never the hub laptop's own loopback."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from klik_hub.door import addresses
from klik_hub.door.addresses import hall_base
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub
from tests.helpers.tourney import API, create, enrol


@pytest.mark.parametrize(
    "base",
    ["http://192.168.1.20:8000/", "https://hub.liga.local/", "http://[fd00::5]:8000/"],
)
def test_an_address_the_phones_can_reach_is_kept(base: str) -> None:
    assert hall_base(base, "0.0.0.0") == base


@pytest.mark.parametrize(
    ("base", "hall"),
    [
        ("http://localhost:8000/", "http://10.1.2.3:8000/"),
        ("https://127.0.0.1:8443/", "https://10.1.2.3:8443/"),
        ("http://hub.localhost/", "http://10.1.2.3/"),
        ("http://[::1]:8000/", "http://10.1.2.3:8000/"),
    ],
)
def test_loopback_becomes_this_machines_address_in_the_hall(
    base: str, hall: str, mocker: Any
) -> None:
    mocker.patch.object(addresses, "lan_address", return_value="10.1.2.3")
    assert hall_base(base, "0.0.0.0") == hall
    assert hall_base(base, "::") == hall
    assert hall_base(base, "10.1.2.3") == hall  # the address it listens on, asked for none


def test_a_hub_on_one_address_of_the_hall_gives_that_one() -> None:
    assert hall_base("http://localhost:8000/", "192.168.5.1") == "http://192.168.5.1:8000/"
    assert hall_base("http://[::1]:8000/", "fd00::7") == "http://[fd00::7]:8000/"


@pytest.mark.parametrize("listening", ["127.0.0.1", "localhost", "::1", None])
def test_a_hub_no_phone_can_reach_keeps_its_own_address(listening: str | None) -> None:
    """On loopback only (the default, make demo) or unknown: the laptop's browser reads it."""
    assert hall_base("http://127.0.0.1:8000/", listening) == "http://127.0.0.1:8000/"


def test_a_machine_without_a_network_keeps_loopback(mocker: Any) -> None:
    mocker.patch.object(addresses, "lan_address", return_value=None)
    assert hall_base("http://localhost:8000/", "0.0.0.0") == "http://localhost:8000/"


def test_the_badges_of_a_hub_on_every_address_carry_the_halls(store: Store, mocker: Any) -> None:
    mocker.patch.object(addresses, "lan_address", return_value="10.1.2.3")
    with live_hub(store, listening="0.0.0.0") as url:
        tid = create(url)
        enrol(url, tid, 2)
        code = httpx.get(f"{url}{API}/{tid}/players").json()[0]["code"]
        port = url.rsplit(":", 1)[1]
        badges = httpx.get(f"{url}/print/badges", params={"t": tid}).text
        assert f"http://10.1.2.3:{port}/p/{code}" in badges
        qr = httpx.head(f"{url}/t/{tid}/qr.svg")
        assert qr.headers["x-klik-address"] == f"http://10.1.2.3:{port}/t/{tid}"


def test_this_machines_address_is_never_loopback() -> None:
    found = addresses.lan_address()
    assert found is None or not found.startswith("127.")
