"""The hub's address as the hall's phones reach it: what the QR codes on the badges, the
table sheets and the projector carry.

The judge often opens the console and the projector on the hub's own laptop, by
``localhost``; a QR code with that address would send every phone to itself. So a loopback
address in the request is replaced by the address the hub listens on, or for a hub listening
on every address, by this machine's address on the network it would use to reach others
(found without sending a packet); the scheme and port stay. Any other address (the hall's,
or a name given with ``--public-name``) is the phones' already; a hub listening on loopback
only (the default, ``make demo``) keeps its own.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

# Any address off this machine will do: connecting a UDP socket only picks the route.
PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): never a real host


def hall_base(base_url: str, listening: str | None) -> str:
    """``base_url`` (``http://localhost:8000/``) as the phones reach it, for a hub listening
    on ``listening`` (``--host``): a loopback ``base_url`` becomes that address, or for a hub
    on every address (``0.0.0.0``, ``::``) this machine's on the network. A hub listening on
    loopback only (or where unknown, None) is reached by no phone: its address is kept."""
    parts = urlsplit(base_url)
    if listening is None or _loopback(listening) or not _loopback(parts.hostname or ""):
        return base_url
    hall = lan_address() if listening in ("0.0.0.0", "::", "") else listening.strip("[]")
    if hall is None:
        return base_url
    host = f"[{hall}]" if ":" in hall else hall
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path or "/", "", ""))


def lan_address() -> str | None:
    """This machine's IPv4 address toward other hosts, or None if it has no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBE)
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if _loopback(address) or address == "0.0.0.0" else address


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
