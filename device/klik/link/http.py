"""The table's HTTP client for the hub: one kept-alive connection, standard library only.

``HttpLink(url).send(envelope, key)`` signs one envelope, POSTs it as ``application/json``
to the path of its type (``protocol.PATHS``) and returns the hub's answer as the protocol's
``Ack`` (``protocol.Ack.of_http``: HTTP codes are read there and nowhere else). Anything
that keeps the answer from arriving (refused, timed out, no such host, a certificate that is
not the pinned one) is one ``LinkDown`` line; the courier backs off and tries again. An
answer that arrives is an ``Ack`` whatever it says: what a ``conflict`` or a ``refused``
means is the courier's business. ``post`` is the bare HTTP exchange under ``send``, a
``Reply`` with the HTTP status; tests and the bench speak HTTP to the hub with it.

The connection is kept alive between results and heartbeats (a TCP and maybe a TLS
handshake per heartbeat would cost the Pi more than the heartbeat). A hub that closed an
idle connection is found out only by the next request; that request is sent once more on a
fresh connection. Sending a result twice is safe: the hub answers a resent result (same
device, seq and body) as a duplicate.

**TLS.** With ``tls_pin_sha256`` (a hub on a laptop with a self-signed certificate) the
certificate chain and host name are not checked; instead the SHA-256 of the certificate
the hub presents (its DER bytes) must equal the pin, compared in constant time, before a
byte of the request is sent. ``https://`` without a pin verifies the chain and host name
against the system's CAs, as a browser would.

Not thread-safe: the courier's thread is its only user.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import re
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from klik.link import protocol as p
from klik.link.reply import LinkDown

MAX_REPLY = 1024 * 1024  # bytes; a hub's answer is a few hundred
PIN = re.compile(r"[0-9a-fA-F]{64}")
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    "User-Agent": "klik-table/1",
}
PIN_MISMATCH = "the hub's certificate does not match tls_pin_sha256"
#: How a connection the hub has closed shows on the next request: the request is written
#: into the void (or refused), then the answer is an end of file. http.client calls that
#: RemoteDisconnected, a ConnectionResetError; over TLS it may be an SSL end of file.
_CLOSED_BY_THE_HUB = (
    ConnectionResetError,
    BrokenPipeError,
    ConnectionAbortedError,
    ssl.SSLEOFError,
    ssl.SSLZeroReturnError,
)


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP answer as ``post`` gives it: its HTTP status and its JSON object ({} if it
    sent none). ``send`` turns it into the protocol's ``Ack``."""

    status: int
    body: dict[str, Any]
    # The answer's first line as text, for the log (HTML from a proxy); not part of what
    # the answer says, so two replies with the same status and body are equal.
    first_line: str = field(default="", compare=False)


class _PinMismatchError(ssl.SSLError):
    """The certificate the hub presented is not the pinned one."""


class _PinnedConnection(http.client.HTTPSConnection):
    """HTTPS that trusts exactly one certificate: the one whose SHA-256 is ``pin``."""

    def __init__(self, host: str, port: int, *, pin: bytes, timeout: float) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        # The pin replaces the chain and the host name: a laptop's self-signed certificate
        # has neither a CA nor, often, the address the tables use.
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        super().__init__(host, port, timeout=timeout, context=context)
        self._pin = pin

    def connect(self) -> None:
        super().connect()  # TCP and the TLS handshake; nothing of the request is sent yet
        assert isinstance(self.sock, ssl.SSLSocket)
        der = self.sock.getpeercert(binary_form=True) or b""
        if not hmac.compare_digest(hashlib.sha256(der).digest(), self._pin):
            self.close()
            raise _PinMismatchError(PIN_MISMATCH)


class HttpLink:
    """A client for the hub at ``url``, e.g. ``http://10.0.0.5:8000`` (its base address).

    ``tls_pin_sha256``: 64 hex digits (either case), for an ``https://`` hub with a
    self-signed certificate. ``timeout_s`` bounds the connect, the TLS handshake and each
    wait for bytes of the answer. Raises ValueError for a url or pin that cannot be used
    (the table's config has refused those already, in the organiser's words).
    """

    def __init__(
        self, url: str, *, tls_pin_sha256: str | None = None, timeout_s: float = 5.0
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r}: the hub's url must be http:// or https:// and a host")
        if tls_pin_sha256 and parts.scheme != "https":
            raise ValueError(f"{url!r}: tls_pin_sha256 needs an https:// url")
        if tls_pin_sha256 and not PIN.fullmatch(tls_pin_sha256):
            raise ValueError("tls_pin_sha256 must be 64 hex digits, without colons")
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._https = parts.scheme == "https"
        self._base = parts.path.rstrip("/")  # a hub behind a proxy at /klik
        self._pin = bytes.fromhex(tls_pin_sha256) if tls_pin_sha256 else None
        self._connection: http.client.HTTPConnection | None = None

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        """Sign ``envelope`` with ``key`` and POST it to its type's path; the hub's ack.

        The courier's one call per envelope: the MAC is computed once, here, into the bytes
        the request carries (``protocol.seal``). Raises LinkDown if no answer arrives,
        ValueError for an envelope a table does not send (an ``ack``), ProtocolError for one
        that cannot be signed (a float in its body).
        """
        if envelope.type not in p.REQUESTS:
            raise ValueError(f"{envelope.type!r}: a table sends {' and '.join(p.REQUESTS)} only")
        path = p.PATHS[p.EnvelopeType(envelope.type)]
        reply = self.post(path, p.seal(envelope, key))
        return p.Ack.of_http(reply.status, reply.body, reply.first_line)

    def post(self, path: str, body: bytes) -> Reply:
        """POST ``body`` (JSON bytes) to ``path`` (``/api/v1/results``); the hub's HTTP reply.

        ``send`` calls it; tests and the bench call it for HTTP itself. Raises LinkDown if no
        answer arrives. A body that is not a JSON object comes back as ``Reply(status, {})``.
        """
        if not path.startswith("/"):
            raise ValueError(f"{path!r}: a path starts with /")
        for attempt in (1, 2):
            connection = self._connect()
            # A connection that has carried a request may have been closed by the hub
            # since; only then is a failure worth one more try, on a fresh connection.
            reused = connection.sock is not None
            try:
                connection.request("POST", self._base + path, body=body, headers=HEADERS)
                response = connection.getresponse()
                data = response.read(MAX_REPLY + 1)
            except _CLOSED_BY_THE_HUB as error:
                self.close()
                if reused and attempt == 1:
                    continue
                raise self._down(error) from None
            except (OSError, http.client.HTTPException) as error:
                self.close()
                raise self._down(error) from None
            if not response.isclosed():  # over MAX_REPLY: the rest is not worth reading
                self.close()
            return Reply(response.status, _json_object(data), _first_line(data))
        raise AssertionError("unreachable: the second attempt returns or raises")

    def close(self) -> None:
        """Close the kept-alive connection (idempotent); the next request opens a new one."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        """The kept connection, or a new one (http.client opens its socket on first use)."""
        if self._connection is None:
            if self._pin is not None:
                self._connection = _PinnedConnection(
                    self._host, self._port, pin=self._pin, timeout=self.timeout_s
                )
            elif self._https:
                self._connection = http.client.HTTPSConnection(
                    self._host, self._port, timeout=self.timeout_s
                )
            else:
                self._connection = http.client.HTTPConnection(
                    self._host, self._port, timeout=self.timeout_s
                )
        return self._connection

    def _down(self, error: Exception) -> LinkDown:
        """The one line a person reads for why the hub could not be reached."""
        where = f"the hub at {self.url}"
        if isinstance(error, _PinMismatchError):
            return LinkDown(f"{PIN_MISMATCH} ({self.url})", certificate=True)
        if isinstance(error, ssl.SSLCertVerificationError):
            return LinkDown(
                f"{where} has a certificate this table does not trust "
                f"({error.verify_message}); a self-signed hub needs tls_pin_sha256",
                certificate=True,
            )
        if isinstance(error, TimeoutError):
            return LinkDown(f"{where} did not answer within {self.timeout_s:g} s")
        if isinstance(error, ConnectionRefusedError):
            return LinkDown(f"{where} refused the connection (is it running?)")
        if isinstance(error, socket.gaierror):
            return LinkDown(f"cannot find the hub's host {self._host} ({error.strerror})")
        if isinstance(error, _CLOSED_BY_THE_HUB):
            return LinkDown(f"{where} closed the connection without an answer")
        if isinstance(error, ssl.SSLError):
            return LinkDown(f"{where}: TLS failed ({error.reason or error})")
        if isinstance(error, http.client.HTTPException):
            return LinkDown(f"{where} did not answer in HTTP ({type(error).__name__})")
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        return LinkDown(f"cannot reach {where} ({reason})")


def _first_line(data: bytes) -> str:
    """The answer's first line, printable and short, for one log line."""
    text = data[:200].decode("utf-8", "replace").strip()
    line = text.splitlines()[0] if text else ""
    return "".join(c if c.isprintable() else "?" for c in line)[:100]


def _json_object(data: bytes) -> dict[str, Any]:
    """The reply's JSON object, or {} for anything else (HTML from a proxy, a list, junk)."""
    if len(data) > MAX_REPLY:
        return {}
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
