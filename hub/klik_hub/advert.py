"""The hub advertises itself on the venue's network: DNS-SD over multicast DNS, so a table
with no ``[hub] url`` finds it (``klik.link.discovery``; ``docs/protocol.md``, "Finding the
hub").

``Advert(host, port, scheme)`` registers one service of type ``_klik._tcp.local.`` with
python-zeroconf: the instance name (the machine's host name unless given), the addresses the
hub listens on (``--host``; for ``0.0.0.0`` or ``::`` every address of the machine but
loopback and link-local ones), the port, and the TXT record ``scheme``, ``path`` and
``protocol`` (``discovery.txt``). It is announced on the interfaces of those addresses only:
a hub on loopback is heard on this machine alone. Registering probes the name first (about
1.5 s), on a thread of its own, so the hub's start does not wait for it; ``stop`` says
goodbye, so the tables forget the hub at once.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from klik.link import protocol as p
from klik.link.discovery import MAX_NAME, SERVICE, txt

if TYPE_CHECKING:
    from zeroconf import Zeroconf

log = logging.getLogger("klik_hub.advert")

ANY = ("0.0.0.0", "::", "")  # the hub's --host values that mean every address


@dataclass(frozen=True, slots=True)
class Where:
    """Where an advert goes: the addresses it names and the interfaces (by one of their
    addresses) it is announced on; ``interfaces`` empty: every one of the machine's."""

    addresses: tuple[str, ...]
    interfaces: tuple[str, ...]
    ipv6: bool


def where(host: str, machine: Sequence[str]) -> Where:
    """Where the hub listening on ``host`` is advertised; ``machine``: this machine's
    addresses. Raises ValueError, one line, for a host that is no address."""
    if host == "localhost":
        host = "127.0.0.1"
    if host in ANY:
        ipv6 = host == "::"
        usable = [a for a in map(ipaddress.ip_address, machine) if ipv6 or a.version == 4]
        outside = [a for a in usable if not a.is_loopback and not a.is_link_local]
        chosen = outside or [a for a in usable if a.is_loopback]  # a machine with no network
        return Where(tuple(str(a) for a in chosen), (), ipv6)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"--host {host}: advertised only when it is an address") from None
    return Where((str(address),), (str(address),), address.version == 6)


def instance_name(given: str | None = None) -> str:
    """The advert's instance name: ``given``, or this machine's host name (its first
    label), cut to a DNS label's 63 bytes."""
    name = given or socket.gethostname().split(".")[0] or "klik-hub"
    return name.encode()[:MAX_NAME].decode(errors="ignore")


def _server(name: str) -> str:
    """A host name for the SRV record: the instance name as letters, digits and hyphens."""
    label = "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-")
    return f"{label[:MAX_NAME] or 'klik-hub'}.local."


class Advert:
    """The hub's advert, from ``start`` to ``stop``: the hub at ``host`` (as ``--host``)
    and ``port``, over ``scheme`` ("http" or "https"), named ``name`` (None: the host
    name). ``service``: the DNS-SD type (tests give their own)."""

    def __init__(
        self,
        host: str,
        port: int,
        scheme: str,
        *,
        name: str | None = None,
        service: str = SERVICE,
    ) -> None:
        self.host = host
        self.port = port
        self.scheme = scheme
        self.name = instance_name(name)
        self.service = service
        self.registered = threading.Event()  # set once the name is announced
        self._zeroconf: Zeroconf | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._register, name="klik-advert", daemon=True)
        self._thread.start()

    def _register(self) -> None:
        # Imported here: `klik hub --no-advertise` and `klik pair` never load zeroconf.
        import ifaddr
        from zeroconf import InterfaceChoice, IPVersion, ServiceInfo
        from zeroconf import Zeroconf as Responder

        machine = [
            ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            for adapter in ifaddr.get_adapters()
            for ip in adapter.ips
        ]
        try:
            place = where(self.host, machine)
            zc = Responder(
                interfaces=list(place.interfaces) or InterfaceChoice.All,
                ip_version=IPVersion.All if place.ipv6 else IPVersion.V4Only,
            )
        except (ValueError, OSError) as error:
            log.warning("hub: not advertised on the network (%s); tables need [hub] url", error)
            return
        info = ServiceInfo(
            self.service,
            f"{self.name}.{self.service}",
            port=self.port,
            properties=txt(self.scheme, p.REVISION),
            server=_server(self.name),
            parsed_addresses=list(place.addresses),
        )
        with self._lock:
            self._zeroconf = zc
        try:
            zc.register_service(info, allow_name_change=True)
        except Exception as error:  # zeroconf's own errors, a closed socket: the hub goes on
            log.warning("hub: not advertised on the network (%s); tables need [hub] url", error)
            return
        log.info(
            'hub: advertised as "%s" (%s) at %s port %d',
            info.name.removesuffix("." + self.service),
            self.service,
            ", ".join(place.addresses),
            self.port,
        )
        self.registered.set()

    def stop(self) -> None:
        """Say goodbye (the tables forget the hub) and close the responder."""
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            zc, self._zeroconf = self._zeroconf, None
        if zc is not None:
            zc.close()  # unregisters every service it holds, with a goodbye
