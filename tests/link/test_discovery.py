"""Finding the hub by DNS-SD (``klik.link.discovery``), the pure part: an advert's url from
its addresses, port and TXT record, and the choice among the hubs that answered. No network;
the real zeroconf on loopback is ``tests/hub/test_advert.py``'s."""

from __future__ import annotations

import ipaddress

import pytest

from klik.link import protocol as p
from klik.link.discovery import SERVICE, AdvertError, Found, choose, instance, txt, url_of

LAN = ipaddress.ip_network("10.0.0.0/24")
LOOP = ipaddress.ip_network("127.0.0.0/8")


def record(**said: str | None) -> dict[bytes, bytes | None]:
    """A TXT record as zeroconf hands it over: bytes, a key without ``=`` as None."""
    return {k.encode(): None if v is None else v.encode() for k, v in said.items()}


GOOD = record(**txt("http", p.REVISION))


@pytest.mark.parametrize(
    ("addresses", "port", "said", "own", "url"),
    [
        (["10.0.0.5"], 8000, GOOD, [LAN], "http://10.0.0.5:8000"),  # the plain case
        (["10.0.0.5"], 8443, record(**txt("https", p.REVISION)), [LAN], "https://10.0.0.5:8443"),  # the self-signed hub
        (["172.17.0.1", "10.0.0.5"], 8000, GOOD, [LAN], "http://10.0.0.5:8000"),  # a laptop with docker: the table's own network first
        (["172.17.0.1", "10.0.0.5"], 8000, GOOD, [], "http://172.17.0.1:8000"),  # no network of its own known: the first usable
        (["fe80::1", "2001:db8::5"], 8000, GOOD, [], "http://[2001:db8::5]:8000"),  # IPv6: link-local is of no use without a scope
        (["127.0.0.1"], 8000, GOOD, [LOOP], "http://127.0.0.1:8000"),  # a hub on this very machine (the virtual table)
        (["10.0.0.5"], 8000, record(scheme="http", path="/klik/", protocol="1"), [LAN], "http://10.0.0.5:8000/klik"),  # behind a proxy
        (["10.0.0.5"], 8000, record(scheme="http", protocol="7"), [LAN], "http://10.0.0.5:8000"),  # no path: "/"; another revision is still asked (the hub tells the judge)
    ],
)  # fmt: skip
def test_an_advert_gives_the_hubs_url(
    addresses: list[str],
    port: int,
    said: dict[bytes, bytes | None],
    own: list[ipaddress.IPv4Network],
    url: str,
) -> None:
    assert url_of(addresses, port, said, own) == url


@pytest.mark.parametrize(
    ("addresses", "port", "said", "line"),
    [
        (["10.0.0.5"], 8000, record(scheme="ftp", protocol="1"), "TXT scheme = 'ftp': allowed are http, https"),  # not a web address
        (["10.0.0.5"], 8000, record(protocol="1"), "TXT scheme = None: allowed are http, https"),  # no scheme: not a klik hub's advert
        (["10.0.0.5"], 8000, record(scheme=None, protocol="1"), "TXT scheme = None: allowed are http, https"),  # a key with no value
        (["10.0.0.5"], 8000, record(scheme="http", protocol="one"), "TXT protocol = 'one': must be a whole number"),  # a revision is a number
        (["10.0.0.5"], 8000, record(scheme="http"), "TXT protocol = None: must be a whole number"),  # and is always said
        (["10.0.0.5"], 8000, record(scheme="http", path="/a b", protocol="1"), "TXT path = '/a b': must be a path starting with /"),  # a space
        (["10.0.0.5"], 8000, record(scheme="http", path="api?x=1", protocol="1"), "TXT path = 'api?x=1': must be a path starting with /"),  # a query
        (["10.0.0.5"], 0, GOOD, "port 0: allowed are 1 to 65535"),  # no port
        (["10.0.0.5"], None, GOOD, "port None: allowed are 1 to 65535"),  # no SRV record
        ([], 8000, GOOD, "no address the table can reach (advertised: none)"),  # no A record
        (["127.0.0.1", "fe80::1"], 8000, GOOD, "no address the table can reach (advertised: 127.0.0.1, fe80::1)"),  # another machine's loopback
        (["not-an-address"], 8000, GOOD, "no address the table can reach (advertised: not-an-address)"),  # garbage
    ],
)  # fmt: skip
def test_an_advert_the_table_cannot_use_is_one_line(
    addresses: list[str], port: int | None, said: dict[bytes, bytes | None], line: str
) -> None:
    with pytest.raises(AdvertError) as caught:
        url_of(addresses, port, said, [LAN])
    assert str(caught.value) == line


A = Found("laptop", "http://10.0.0.5:8000")
B = Found("Sędzia 2", "https://10.0.0.6:8000")


@pytest.mark.parametrize(
    ("found", "wanted", "chosen", "why"),
    [
        ({}, "", None, ""),  # nobody answers yet: nothing to say
        ({"laptop": A}, "", A, ""),  # the one hub
        ({"laptop": A, "Sędzia 2": B}, "", None, 'several hubs answer ("Sędzia 2" at https://10.0.0.6:8000, "laptop" at http://10.0.0.5:8000); set [hub] name to one of them'),  # none is taken
        ({"laptop": A, "Sędzia 2": B}, "Sędzia 2", B, ""),  # [hub] name picks one
        ({"laptop": A}, "Sędzia 2", None, 'no hub named "Sędzia 2" answers ([hub] name); found: laptop'),  # not the named one
        ({}, "Sędzia 2", None, 'no hub named "Sędzia 2" answers ([hub] name); found: none'),  # the named one is not up yet
    ],
)  # fmt: skip
def test_the_table_takes_the_one_hub_or_the_named_one(
    found: dict[str, Found], wanted: str, chosen: Found | None, why: str
) -> None:
    assert choose(found, wanted) == (chosen, why)


def test_the_service_type_and_the_txt_record() -> None:
    assert SERVICE == "_klik._tcp.local."
    assert txt("https", 1) == {"scheme": "https", "path": "/", "protocol": "1"}
    assert instance("laptop._klik._tcp.local.") == "laptop"
    assert instance("Sędzia 2._klik._tcp.local.") == "Sędzia 2"
    assert instance("other._http._tcp.local.") == "other._http._tcp.local."  # not ours: whole
