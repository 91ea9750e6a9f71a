"""The hub's DNS-SD advert (``klik_hub.advert``) and a table finding it
(``klik.link.discovery``): where the advert goes (pure), then real python-zeroconf on
loopback. Multicast on ``lo`` needs no privileges and no route: a Linux kernel loops a
group's datagrams back to the sockets that joined it on the interface they were sent on, in
a container with no network as well. Each real test advertises a service type of its own, so
a hub on the same machine (``make demo``, another test) is never among what it finds."""

from __future__ import annotations

import ipaddress
import logging
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from zeroconf import IPVersion, ServiceInfo, Zeroconf

from klik.link import discovery
from klik.link import protocol as p
from klik.link.discovery import Discovery, Found
from klik_hub.advert import Advert, Where, instance_name, where
from tests.hub.test_demo import until  # waits on real threads, on the real clock

MACHINE = ["127.0.0.1", "10.0.0.5", "172.17.0.1", "::1", "fe80::1", "2001:db8::5"]


@pytest.mark.parametrize(
    ("host", "advertised"),
    [
        ("127.0.0.1", Where(("127.0.0.1",), ("127.0.0.1",), ipv6=False)),  # loopback: this machine alone
        ("localhost", Where(("127.0.0.1",), ("127.0.0.1",), ipv6=False)),  # as --host may say it
        ("10.0.0.5", Where(("10.0.0.5",), ("10.0.0.5",), ipv6=False)),  # one address: only there
        ("0.0.0.0", Where(("10.0.0.5", "172.17.0.1"), (), ipv6=False)),  # every IPv4 address but loopback, on every interface
        ("::", Where(("10.0.0.5", "172.17.0.1", "2001:db8::5"), (), ipv6=True)),  # IPv6 too; link-local is of no use without a scope
        ("2001:db8::5", Where(("2001:db8::5",), ("2001:db8::5",), ipv6=True)),  # one IPv6 address
    ],
)  # fmt: skip
def test_the_hub_is_advertised_where_it_listens(host: str, advertised: Where) -> None:
    assert where(host, MACHINE) == advertised


def test_a_machine_with_no_network_advertises_its_loopback() -> None:
    assert where("0.0.0.0", ["127.0.0.1"]) == Where(("127.0.0.1",), (), ipv6=False)


def test_a_host_name_is_not_advertised() -> None:
    with pytest.raises(ValueError, match=r"^--host hub\.example: advertised only when"):
        where("hub.example", MACHINE)


def test_the_name_is_the_host_name_or_the_given_one_cut_to_a_label() -> None:
    assert instance_name("Sędzia") == "Sędzia"
    assert instance_name(None) == socket.gethostname().split(".")[0]
    assert instance_name("ż" * 40) == "ż" * 31  # 62 bytes: a letter is not cut in half


def kind() -> str:
    """A service type of the test's own: ``_kt-1a2b3c._tcp.local.``."""
    return f"_kt-{secrets.token_hex(3)}._tcp.local."


@contextmanager
def advertised(service: str, name: str, port: int, scheme: str = "http") -> Iterator[Advert]:
    advert = Advert("127.0.0.1", port, scheme, name=name, service=service)
    advert.start()
    try:
        assert advert.registered.wait(10)
        yield advert
    finally:
        advert.stop()


class Table:
    """A table's discovery on loopback, with what it found."""

    def __init__(self, service: str, wanted: str = "", settle_s: float = 0.3) -> None:
        self.found: list[Found] = []
        self.done = threading.Event()
        self.started = time.monotonic()
        self.took_s = 0.0
        self.discovery = Discovery(
            self._found, wanted=wanted, service=service, interfaces=["127.0.0.1"],
            settle_s=settle_s,
        )  # fmt: skip

    def _found(self, found: Found) -> None:
        self.took_s = time.monotonic() - self.started
        self.found.append(found)
        self.done.set()

    def __enter__(self) -> Table:
        self.started = time.monotonic()
        self.discovery.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.discovery.stop()


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "klik.link.discovery"]


@pytest.mark.slow  # real multicast DNS on loopback; registering probes the name for ~1.5 s
def test_a_table_finds_the_hub_advertised_on_loopback() -> None:
    service = kind()
    with advertised(service, "laptop", 8123), Table(service) as table:
        assert table.done.wait(10)
        assert table.found == [Found("laptop", "http://127.0.0.1:8123")]
        assert table.took_s < 3  # a query answered within ms, then settle_s (0.3 s)
        print(f"found in {table.took_s:.3f} s")  # the report's measurement (-s shows it)


@pytest.mark.slow  # real multicast DNS on loopback, a hub that leaves
def test_of_several_hubs_none_is_taken_until_only_one_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="klik.link.discovery")
    service = kind()
    with advertised(service, "laptop", 8123):
        second = Advert("127.0.0.1", 8124, "http", name="Sędzia 2", service=service)
        second.start()
        try:
            assert second.registered.wait(10)  # both answer before the table looks
            with Table(service) as table:
                said = until(lambda: [line for line in lines(caplog) if "several hubs" in line])
                assert said == [
                    'discovery: several hubs answer ("Sędzia 2" at http://127.0.0.1:8124, '
                    '"laptop" at http://127.0.0.1:8123); set [hub] name to one of them'
                ]
                assert table.found == []
                # The second hub says goodbye as it stops: the one left is taken.
                second.stop()
                assert table.done.wait(10)
                assert table.found == [Found("laptop", "http://127.0.0.1:8123")]
        finally:
            second.stop()


@pytest.mark.slow  # real multicast DNS on loopback
def test_the_hub_named_in_the_config_is_taken_among_several() -> None:
    service = kind()
    with (
        advertised(service, "laptop", 8123),
        advertised(service, "Sędzia 2", 8124, "https"),
        Table(service, wanted="Sędzia 2", settle_s=60) as table,  # named: no settling
    ):
        assert table.done.wait(10)
        assert table.found == [Found("Sędzia 2", "https://127.0.0.1:8124")]


@pytest.mark.slow  # real multicast DNS on loopback
def test_an_advert_with_a_bad_txt_record_is_one_line_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="klik.link.discovery")
    service = kind()
    rogue = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    bad = {"scheme": "ftp", "path": "/", "protocol": str(p.REVISION)}
    rogue.register_service(
        ServiceInfo(
            service,
            f"odd.{service}",
            port=21,
            properties=bad,
            server="odd.local.",
            parsed_addresses=["127.0.0.1"],
        )
    )
    try:
        with advertised(service, "laptop", 8123), Table(service) as table:
            assert table.done.wait(10)
            assert table.found == [Found("laptop", "http://127.0.0.1:8123")]
    finally:
        rogue.close()
    warned = [line for line in lines(caplog) if "ignored" in line]
    assert warned == [
        "discovery: the hub \"odd\" ignored: TXT scheme = 'ftp': allowed are http, https"
    ]


@pytest.mark.slow  # real multicast DNS on loopback
def test_a_table_whose_wi_fi_comes_up_later_browses_anew_and_finds_the_hub(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="klik.link.discovery")
    # No address yet, then one (loopback's, where the test's hub is, stands in for the Wi-Fi's)
    networks: list[list[ipaddress.IPv4Network | ipaddress.IPv6Network]] = [
        [],
        [ipaddress.ip_network("127.0.0.0/8")],
    ]
    looked: list[int] = []

    def own_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        looked.append(1)
        return networks[0]

    monkeypatch.setattr(discovery, "_own_networks", own_networks)
    monkeypatch.setattr(discovery, "RECHECK_S", 0.05)
    service = kind()
    with Table(service) as table:
        until(lambda: looked)  # it browses on no address
        networks.pop(0)
        until(lambda: "discovery: this table's addresses changed; looking again" in lines(caplog))
        with advertised(service, "laptop", 8123):
            assert table.done.wait(10)
    assert table.found == [Found("laptop", "http://127.0.0.1:8123")]
