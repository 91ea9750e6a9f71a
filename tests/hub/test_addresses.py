"""The hub's address in the QR codes: the hall's, never the hub laptop's own loopback."""

from __future__ import annotations

from typing import Any

import pytest

from klik_hub import addresses
from klik_hub.addresses import hall_base


@pytest.mark.parametrize(
    "base",
    ["http://192.168.1.20:8000/", "https://hub.liga.local/", "http://[fd00::5]:8000/"],
)
def test_an_address_the_phones_can_reach_is_kept(base: str) -> None:
    assert hall_base(base) == base


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
    assert hall_base(base) == hall


def test_a_machine_without_a_network_keeps_loopback(mocker: Any) -> None:
    mocker.patch.object(addresses, "lan_address", return_value=None)
    assert hall_base("http://localhost:8000/") == "http://localhost:8000/"


def test_this_machines_address_is_never_loopback() -> None:
    found = addresses.lan_address()
    assert found is None or not found.startswith("127.")
