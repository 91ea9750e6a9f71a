"""Pairing at the table, the table's side: ask the hub to join, show the digits, wait for
the judge (``docs/protocol.md``, "Pairing"; the exchange is ``protocol.pairing``'s).

``Joiner(transport, ...)`` runs on a thread of its own while the table has no device id and
key. Its steps are the same over every link; a ``Transport`` carries them (``HttpJoin`` here:
three HTTP requests; ``klik.link.serial_join.SerialJoin``: frames on the serial channel):

1. ``hello`` with a fresh X25519 key: the hub's key and its commitment;
2. ``nonce`` with the table's nonce: the hub's, checked against the commitment; the digits
   are handed to ``on_digits`` (seat A's screen shows them);
3. ``ask`` every ``poll_s`` until the judge accepts: the sealed answer is opened, checked and
   handed to ``on_joined`` (which keeps it and starts the link), once the transport is
   closed (a serial port is then free for the courier's link).

A refused or expired request, a hub that cannot be reached, or an answer that does not check
out (a commitment that does not match: someone in the middle) starts over with a new key after
``retry_s``; ``on_digits(None)`` clears the screen's digits meanwhile.

**TLS.** The table does not know the hub's pin yet: an ``https://`` hub's certificate is
taken on trust for these three requests (trust on first use). What they carry is public or
sealed, and a hub in the middle shows other digits than the real one, which the judge sees;
the sealed answer carries the pin the courier then holds the hub to.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from klik.link import protocol as p
from klik.link.protocol import pairing as x
from klik.link.reply import LinkDown

log = logging.getLogger("klik.link.joining")

MAX_ANSWER = 16 * 1024  # bytes; a pairing answer is a few hundred
PIN = re.compile(r"[0-9a-f]{64}")
HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


@dataclass(frozen=True, slots=True)
class Joined:
    """What the judge's accept gave this table (``paired.keep`` writes it)."""

    table: int
    device_id: str
    key: str = ""  # the HMAC key, 64 hex digits: a secret
    tls_pin_sha256: str | None = None

    def __repr__(self) -> str:  # the key stays out of logs
        return f"Joined(table={self.table}, device_id={self.device_id!r})"


class EndedError(Exception):
    """This request is over (refused, expired, unknown): start again."""


class Transport(Protocol):
    """What carries the join exchange's three steps to the hub and its answers back.

    Each call blocks until the hub's answer is in, or raises: EndedError (the hub ended the
    request: refused, expired, unknown, too many asking), LinkDown (no answer at all) or
    PairingError (an answer that is not one). The joiner checks every value it is given.
    """

    #: where the hub is, for the log: ``the hub at http://…``, ``the hub on /dev/ttyUSB0``
    where: str

    def hello(self, table_key: str) -> tuple[str, object, object]:
        """Step 1: the request's id, the hub's public key and its commitment."""
        ...

    def nonce(self, request_id: str, table_nonce: str) -> object:
        """Step 2: the hub's nonce."""
        ...

    def ask(self, request_id: str) -> object | None:
        """Step 3: the sealed answer once the judge accepted; None while it waits."""
        ...

    def close(self) -> None:
        """Let go of the link (idempotent): a serial port is the courier's next."""
        ...


class Joiner:
    """Asks the hub over ``transport`` to join, again and again until the judge accepts.

    ``on_digits(digits | None)`` and ``on_joined(joined)`` are called from the joiner's
    thread. ``poll_s``: how often a waiting table asks for the judge's answer; ``retry_s``:
    the pause before a new request after one ended or failed.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        on_digits: Callable[[str | None], None],
        on_joined: Callable[[Joined], None],
        poll_s: float = 1.0,
        retry_s: float = 5.0,
    ) -> None:
        self.transport = transport
        self.on_digits = on_digits
        self.on_joined = on_joined
        self.poll_s = poll_s
        self.retry_s = retry_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="klik-joiner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop asking and close the transport (a step under way ends with it)."""
        self._stop.set()
        self.transport.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10.0)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                joined = self.attempt()
            except (EndedError, LinkDown, p.ProtocolError) as error:
                if self._stop.is_set():
                    return
                log.info("pairing: %s; asking again in %g s", error, self.retry_s)
                self.on_digits(None)
                self._stop.wait(self.retry_s)
                continue
            if joined is not None:
                self.transport.close()
                self.on_joined(joined)
                return

    def attempt(self) -> Joined | None:
        """One request, from asking to the judge's answer (None: stopped meanwhile).

        Raises EndedError (refused, expired), LinkDown (no answer) or PairingError (an answer that
        does not check out).
        """
        own = x.new_private()
        table_key = x.public_hex(own)
        request_id, hub_key, commit = self.transport.hello(table_key)
        if not x.REQUEST_ID.fullmatch(request_id):
            raise x.PairingError("id", "not a request id")
        hub_key = x.key_of(hub_key, "hub_key")
        commit = x.key_of(commit, "commit")  # a SHA-256: 64 hex digits too
        table_nonce = x.new_nonce()
        hub_nonce = x.nonce_of(self.transport.nonce(request_id, table_nonce), "nonce")
        x.check_commitment(commit, hub_key, table_key, hub_nonce)
        exchange = x.Exchange(request_id, table_key, hub_key, table_nonce, hub_nonce)
        self.on_digits(exchange.digits)
        where = self.transport.where
        log.info("pairing: asking %s to join; digits %s", where, exchange.digits)
        while not self._stop.wait(self.poll_s):
            try:
                sealed = self.transport.ask(request_id)
            except LinkDown as error:
                if self._stop.is_set():
                    return None
                log.info("pairing: %s; the request stands", error)
                continue
            if sealed is not None:
                return _joined(exchange.open(own, sealed))
        return None


class HttpJoin:
    """The join exchange as three HTTP requests to the hub at ``url`` (``POST
    /api/v1/join``, ``POST /api/v1/join/{id}/nonce``, ``GET /api/v1/join/{id}``)."""

    def __init__(
        self, url: str, *, timeout_s: float = 5.0, paired_as: tuple[str, str] | None = None
    ) -> None:
        parts = urlsplit(url)
        # A paired table asking again (the judge key's re-pair): its device id and key, whose
        # proof (``x.repair_proof``) lets the hub carry its results to the new number.
        self.paired_as = paired_as
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r}: the hub's url must be http:// or https:// and a host")
        self.url = url.rstrip("/")
        self.where = f"the hub at {self.url}"
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._base = parts.path.rstrip("/")
        self.timeout_s = timeout_s

    def hello(self, table_key: str) -> tuple[str, object, object]:
        body: dict[str, Any] = {"v": 1, "table_key": table_key, "link": "http"}
        if self.paired_as is not None:
            device, key = self.paired_as
            body["proof"] = {"device_id": device, "mac": x.repair_proof(key, table_key)}
        status, asked = self._call("POST", "/api/v1/join", body)
        if status != 201:
            raise EndedError(f"the hub did not take the request ({status}: {asked.get('error')})")
        return str(asked.get("id", "")), asked.get("hub_key"), asked.get("commit")

    def nonce(self, request_id: str, table_nonce: str) -> object:
        path = f"/api/v1/join/{request_id}/nonce"
        status, said = self._call("POST", path, {"nonce": table_nonce})
        if status != 200:
            raise EndedError(f"the hub did not take the nonce ({status}: {said.get('error')})")
        return said.get("nonce")

    def ask(self, request_id: str) -> object | None:
        status, said = self._call("GET", f"/api/v1/join/{request_id}", None)
        if status in (404, 410):
            raise EndedError(f"the request ended ({said.get('error', status)})")
        if status == 200 and said.get("state") == "accepted":
            sealed: object = said.get("sealed")
            return sealed
        return None

    def close(self) -> None:
        """Nothing to let go of: every request has its own connection."""

    def _call(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        connection: http.client.HTTPConnection
        if self._https:
            # Trust on first use: the digits, not the certificate, say whose hub this is.
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            connection = http.client.HTTPSConnection(
                self._host, self._port, timeout=self.timeout_s, context=context
            )
        else:
            connection = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout_s)
        data = None if body is None else json.dumps(body).encode()
        try:
            connection.request(method, self._base + path, body=data, headers=HEADERS)
            response = connection.getresponse()
            raw = response.read(MAX_ANSWER + 1)
        except (OSError, http.client.HTTPException) as error:
            raise LinkDown(f"cannot reach the hub at {self.url} ({error})") from None
        finally:
            connection.close()
        try:
            value = json.loads(raw) if len(raw) <= MAX_ANSWER else {}
        except ValueError:
            value = {}
        return response.status, value if isinstance(value, dict) else {}


def _joined(given: dict[str, Any]) -> Joined:
    """The sealed answer's fields, checked (PairingError naming the first that is wrong)."""
    table = given.get("table")
    if not isinstance(table, int) or isinstance(table, bool) or not 1 <= table <= 999:
        raise x.PairingError("table", "must be 1 to 999")
    device = given.get("device_id")
    if not isinstance(device, str) or not p.DEVICE.fullmatch(device):
        raise x.PairingError("device_id", "not a device id")
    key = given.get("key")
    if not isinstance(key, str) or not p.KEY_HEX.fullmatch(key):
        raise x.PairingError("key", "must be 64 lower-case hex digits")
    pin = given.get("tls_pin_sha256")
    if pin is not None and (not isinstance(pin, str) or not PIN.fullmatch(pin)):
        raise x.PairingError("tls_pin_sha256", "must be 64 lower-case hex digits or null")
    return Joined(table, device, key, pin)
