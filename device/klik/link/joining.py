"""Pairing at the table, the table's side: ask the hub to join, show the digits, wait for
the judge (``docs/protocol.md``, "Pairing"; the exchange is ``protocol.pairing``'s).

``Joiner(url, ...)`` runs on a thread of its own while the table has no device id and key:

1. ``POST /api/v1/join`` with a fresh X25519 key: the hub's key and its commitment;
2. ``POST /api/v1/join/{id}/nonce`` with the table's nonce: the hub's, checked against the
   commitment; the digits are handed to ``on_digits`` (seat A's screen shows them);
3. ``GET /api/v1/join/{id}`` every ``poll_s`` until the judge accepts: the sealed answer is
   opened, checked and handed to ``on_joined`` (which keeps it and starts the link).

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
from typing import Any
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


class Joiner:
    """Asks the hub at ``url`` to join, again and again until the judge accepts.

    ``on_digits(digits | None)`` and ``on_joined(joined)`` are called from the joiner's
    thread. ``poll_s``: how often a waiting table asks for the judge's answer; ``retry_s``:
    the pause before a new request after one ended or failed.
    """

    def __init__(
        self,
        url: str,
        *,
        on_digits: Callable[[str | None], None],
        on_joined: Callable[[Joined], None],
        poll_s: float = 1.0,
        retry_s: float = 5.0,
        timeout_s: float = 5.0,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r}: the hub's url must be http:// or https:// and a host")
        self.url = url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._base = parts.path.rstrip("/")
        self.on_digits = on_digits
        self.on_joined = on_joined
        self.poll_s = poll_s
        self.retry_s = retry_s
        self.timeout_s = timeout_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="klik-joiner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.timeout_s + 1)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                joined = self.attempt()
            except (EndedError, LinkDown, p.ProtocolError) as error:
                log.info("pairing: %s; asking again in %g s", error, self.retry_s)
                self.on_digits(None)
                self._stop.wait(self.retry_s)
                continue
            if joined is not None:
                self.on_joined(joined)
                return

    def attempt(self) -> Joined | None:
        """One request, from asking to the judge's answer (None: stopped meanwhile).

        Raises EndedError (refused, expired), LinkDown (no answer) or PairingError (an answer that
        does not check out).
        """
        own = x.new_private()
        table_key = x.public_hex(own)
        status, asked = self._call("POST", "/api/v1/join", {"v": 1, "table_key": table_key})
        if status != 201:
            raise EndedError(f"the hub did not take the request ({status}: {asked.get('error')})")
        request_id = str(asked.get("id", ""))
        if not x.REQUEST_ID.fullmatch(request_id):
            raise x.PairingError("id", "not a request id")
        hub_key = x.key_of(asked.get("hub_key"), "hub_key")
        commit = x.key_of(asked.get("commit"), "commit")  # a SHA-256: 64 hex digits too
        table_nonce = x.new_nonce()
        path = f"/api/v1/join/{request_id}"
        status, said = self._call("POST", path + "/nonce", {"nonce": table_nonce})
        if status != 200:
            raise EndedError(f"the hub did not take the nonce ({status}: {said.get('error')})")
        hub_nonce = x.nonce_of(said.get("nonce"), "nonce")
        x.check_commitment(commit, hub_key, table_key, hub_nonce)
        exchange = x.Exchange(request_id, table_key, hub_key, table_nonce, hub_nonce)
        self.on_digits(exchange.digits)
        log.info("pairing: asking the hub at %s to join; digits %s", self.url, exchange.digits)
        while not self._stop.wait(self.poll_s):
            try:
                status, said = self._call("GET", path, None)
            except LinkDown as error:
                log.info("pairing: %s; the request stands", error)
                continue
            if status in (404, 410):
                raise EndedError(f"the request ended ({said.get('error', status)})")
            if status == 200 and said.get("state") == "accepted":
                return _joined(exchange.open(own, said.get("sealed")))
        return None

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
