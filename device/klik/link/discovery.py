"""Finding the hub on the venue's network: DNS-SD over multicast DNS (``docs/protocol.md``,
"Finding the hub").

The hub advertises itself (``klik_hub.advert``) as a service of type ``_klik._tcp.local.``:
its instance name (the hub machine's host name, or ``klik hub --advertise-name``), its
addresses and port, and a TXT record::

    scheme=http|https   path=/   protocol=<klik.link.protocol.REVISION>

A table whose ``[hub]`` asks to join and has no ``url`` browses for that service
(``Discovery``) and hands the one hub it settles on to the daemon, which asks it to join.

The pure part, tested without a network: ``url_of`` turns what one advert says (addresses,
port, TXT) into the hub's base url, preferring an address on one of the table's own networks,
or raises ``AdvertError``, one line; ``choose`` picks the hub from those found: the one named
``[hub] name`` if the config names one, else the only one. Several hubs and no name: none is
taken (one log line names them) until only one answers.

``Discovery`` is the adapter: python-zeroconf, imported only when a table browses, on a thread
of its own. It waits ``settle_s`` after the first hub answers before it chooses, so a second
hub on the network is seen rather than raced. A table starts before its Wi-Fi is up: while
no hub answers, it looks at its own addresses every ``RECHECK_S`` and browses anew on them
when they changed.
"""

from __future__ import annotations

import ipaddress
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from klik.errors import KlikError

if TYPE_CHECKING:
    from zeroconf import Zeroconf

log = logging.getLogger("klik.link.discovery")

SERVICE = "_klik._tcp.local."  # DNS-SD service type (RFC 6763): "_klik" over TCP
SCHEMES = ("http", "https")
#: A path the hub's base may have: printable, no spaces, no query or fragment (as ``[hub] url``).
PATH = re.compile(r"/[!$&'()*+,\-./0-9:;=@A-Z_a-z~%]*")
MAX_NAME = 63  # bytes of a DNS-SD instance name (one DNS label)
SETTLE_S = 2.0  # after the first hub answers, how long other hubs have to answer too
RESOLVE_MS = 3000  # how long a found name's addresses and TXT are asked for
RECHECK_S = 5.0  # while no hub answers, how often the table's own addresses are looked at
AGAIN = object()  # the table's addresses changed: browse anew on them


class AdvertError(KlikError, ValueError):
    """An advert a table cannot use (a bad TXT record, no usable address): one line."""


@dataclass(frozen=True, slots=True)
class Found:
    """One hub that answered: its instance name and its base url, built by ``url_of``."""

    name: str
    url: str


def txt(scheme: str, protocol: int, path: str = "/") -> dict[str, str]:
    """The hub's TXT record (the hub's ``advert``; the table reads it in ``url_of``)."""
    return {"scheme": scheme, "path": path, "protocol": str(protocol)}


def instance(full: str, service: str = SERVICE) -> str:
    """``"laptop._klik._tcp.local."`` -> ``"laptop"``: the name a person gives ``[hub] name``."""
    suffix = "." + service
    return full[: -len(suffix)] if full.endswith(suffix) else full


def url_of(
    addresses: Sequence[str],
    port: int | None,
    properties: Mapping[bytes, bytes | None],
    own: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network] = (),
) -> str:
    """The hub's base url from its advert: ``properties`` is the TXT record as zeroconf gives
    it, ``own`` the table's networks. An address on one of them is taken first (IPv4 before
    IPv6), else any that is not loopback or link-local. Raises AdvertError, one line."""
    said = {_text(key): None if raw is None else _text(raw) for key, raw in properties.items()}
    scheme = said.get("scheme")
    if scheme not in SCHEMES:
        raise AdvertError(f"TXT scheme = {scheme!r}: allowed are http, https")
    path = said.get("path") or "/"
    if not PATH.fullmatch(path):
        raise AdvertError(f"TXT path = {path!r}: must be a path starting with /")
    protocol = said.get("protocol")
    if protocol is None or not protocol.isascii() or not protocol.isdigit():
        raise AdvertError(f"TXT protocol = {protocol!r}: must be a whole number")
    if port is None or not 1 <= port <= 65535:
        raise AdvertError(f"port {port}: allowed are 1 to 65535")
    address = _address(addresses, list(own))
    host = f"[{address}]" if address.version == 6 else str(address)
    return f"{scheme}://{host}:{port}{path.rstrip('/')}"


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _address(
    addresses: Sequence[str], own: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    parsed = []
    for text in addresses:
        try:
            parsed.append(ipaddress.ip_address(text))
        except ValueError:
            continue  # zeroconf parses them; a scoped IPv6 ("fe80::1%eth0") is of no use here
    parsed.sort(key=lambda a: a.version)  # IPv4 first
    for address in parsed:
        if any(address in network for network in own):
            return address
    for address in parsed:
        if not address.is_loopback and not address.is_link_local and not address.is_unspecified:
            return address
    shown = ", ".join(addresses) or "none"
    raise AdvertError(f"no address the table can reach (advertised: {shown})")


def choose(found: Mapping[str, Found], wanted: str = "") -> tuple[Found | None, str]:
    """The hub to ask, from ``found`` (by instance name), and why none if none: ``wanted``
    (``[hub] name``) picks that one; without it, only a single hub is taken."""
    if wanted:
        hub = found.get(wanted)
        if hub is not None:
            return hub, ""
        others = ", ".join(sorted(found)) or "none"
        return None, f'no hub named "{wanted}" answers ([hub] name); found: {others}'
    if len(found) == 1:
        return next(iter(found.values())), ""
    if not found:
        return None, ""
    names = ", ".join(f'"{hub.name}" at {hub.url}' for _, hub in sorted(found.items()))
    return None, f"several hubs answer ({names}); set [hub] name to one of them"


class Discovery:
    """Browses for hubs (``service``) until one is chosen, then calls ``on_found(found)``
    once, from its own thread, and stops browsing.

    ``wanted``: ``[hub] name`` ("" for any one hub). ``interfaces``: the addresses to browse
    on (None: every IPv4 interface this machine has, loopback too). ``settle_s``: after the
    first hub answers, how long others have to answer before one is chosen (a named hub is
    taken at once). Each advert that cannot be used is logged once, one line, and ignored.
    """

    def __init__(
        self,
        on_found: Callable[[Found], None],
        *,
        wanted: str = "",
        service: str = SERVICE,
        interfaces: Sequence[str] | None = None,
        settle_s: float = SETTLE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.on_found = on_found
        self.wanted = wanted
        self.service = service
        self.interfaces = interfaces
        self.settle_s = settle_s
        self._clock = clock
        self.found: dict[str, Found] = {}
        self._heard: queue.Queue[tuple[str, bool] | None] = queue.Queue()
        self._said: set[str] = set()  # lines logged already: each once
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="klik-discovery", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._heard.put(None)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=RESOLVE_MS / 1000 + 2)

    def _run(self) -> None:
        # Imported here, on the discovery's thread: a table with a url never loads zeroconf.
        from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceStateChange
        from zeroconf import Zeroconf as Responder

        def heard(
            zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
        ) -> None:
            self._heard.put((name, state_change is not ServiceStateChange.Removed))

        log.info("discovery: looking for the hub (%s)", self.service)
        while not self._stop.is_set():
            # A table starts without Wi-Fi (klik-table.service): the responder joins the
            # multicast group on the addresses there are now, and is made again when they
            # change.
            own = _own_networks()
            try:
                zc = Responder(
                    interfaces=InterfaceChoice.All
                    if self.interfaces is None
                    else list(self.interfaces),
                    ip_version=IPVersion.V4Only,
                )
            except OSError as error:
                self._once(f"discovery: cannot browse for the hub ({error}); set [hub] url")
                self._stop.wait(RECHECK_S)
                continue
            browser = ServiceBrowser(zc, self.service, handlers=[heard])
            try:
                chosen = self._browse(zc, own)
            finally:
                browser.cancel()
                zc.close()
            if chosen is AGAIN:
                log.info("discovery: this table's addresses changed; looking again")
                self.found.clear()
                continue
            if isinstance(chosen, Found) and not self._stop.is_set():
                log.info('discovery: the hub "%s" at %s', chosen.name, chosen.url)
                self.on_found(chosen)
            return

    def _browse(
        self, zc: Zeroconf, own: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
    ) -> Found | object | None:
        """Take what the browser heard until a hub is chosen (None: stopped; ``AGAIN``: the
        machine's addresses changed while no hub answered)."""
        first: float | None = None  # when the first usable hub answered
        settled = False  # settle_s has passed since: choose at every change
        while not self._stop.is_set():
            wait: float | None
            if first is None:
                wait = RECHECK_S
            else:
                wait = None if settled else max(0.0, first + self.settle_s - self._clock())
            try:
                item = self._heard.get(timeout=wait)
            except queue.Empty:
                if first is None:
                    if set(_own_networks()) != set(own):
                        return AGAIN
                    continue
                item = ("", False)  # the settling is over: choose
            if item is None:
                return None
            name, present = item
            if name:
                self._update(zc, name, present, own)
            if not self.found:
                first, settled = None, False  # every hub went: wait for the next one
                continue
            first = self._clock() if first is None else first
            settled = settled or self._clock() >= first + self.settle_s
            hub, why = choose(self.found, self.wanted)
            if hub is not None and (settled or self.wanted):
                return hub
            if settled and why:
                self._once(f"discovery: {why}")
        return None

    def _update(
        self,
        zc: Zeroconf,
        name: str,
        present: bool,
        own: list[ipaddress.IPv4Network | ipaddress.IPv6Network],
    ) -> None:
        short = instance(name, self.service)
        self.found.pop(short, None)
        if not present:
            return
        info = zc.get_service_info(self.service, name, timeout=RESOLVE_MS)
        if info is None:
            self._once(f'discovery: the hub "{short}" did not say its address; ignored')
            return
        try:
            url = url_of(info.parsed_addresses(), info.port, info.properties, own)
        except AdvertError as error:
            self._once(f'discovery: the hub "{short}" ignored: {error}')
            return
        self.found[short] = Found(short, url)

    def _once(self, line: str) -> None:
        if line not in self._said:
            self._said.add(line)
            log.warning("%s", line)


def _own_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks this machine is on (its interfaces' addresses and prefixes)."""
    import ifaddr

    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            try:
                networks.append(
                    ipaddress.ip_network(f"{address}/{ip.network_prefix}", strict=False)
                )
            except ValueError:
                continue
    return networks
