"""Pairing at the table: the tables asking to join, and the judge's accept or refusal.

The exchange is ``klik.link.protocol.pairing``'s (``docs/protocol.md``, "Pairing"). The hub
keeps one long-term X25519 key in its settings (``pairing_key``, made on first use), so every
hub process on one database answers with the same key. Anyone on the hall's Wi-Fi may ask:
at most ``MAX_REQUESTS`` requests are kept, each for ``EXPIRES_MS`` from its asking, and
nothing changes until the judge accepts one whose digits they compared. Accepting pairs the
table (``sql.devices.pair``, replacing its earlier pairing) and keeps the answer sealed for
the table, which fetches it; a refused or expired request changes nothing.
"""

from __future__ import annotations

import hmac
import secrets
from enum import Enum
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from klik.link.protocol import pairing as x
from klik_hub import sql
from klik_hub.storage.store import Store, utc_iso

SETTING = "pairing_key"  # the hub's long-term X25519 private key, hex
EXPIRES_MS = 10 * 60 * 1000  # a request is forgotten this long after it was asked
MAX_REQUESTS = 16  # kept at once: more than a hall's tables ask together


class Problem(Enum):
    """Why a pairing call is refused (the routes give each its HTTP status)."""

    UNKNOWN = "unknown"  # no such request (or it expired)
    FULL = "full"  # too many tables asking at once
    STATE = "state"  # not at the step the call is for (a nonce twice, an accept twice)
    DIGITS = "digits"  # the judge's digits are not the request's
    REFUSED = "refused"  # the judge refused it


class PairingError(Exception):
    def __init__(self, problem: Problem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


def hub_key(store: Store) -> X25519PrivateKey:
    """The hub's long-term key, made and kept on first use."""
    with store.writing() as db:
        kept = sql.settings.value(db, SETTING)
        if kept is None:
            kept = x.private_hex(x.new_private())
            sql.settings.put(db, SETTING, kept)
    return x.private_of(kept)


def ask(store: Store, table_key: str, link: str) -> dict[str, Any]:
    """A table asks to join with its public key: the request's id, the hub's public key and
    its commitment to its nonce. PairingError FULL when ``MAX_REQUESTS`` are waiting."""
    own = x.public_hex(hub_key(store))
    request_id, nonce = x.new_request_id(), x.new_nonce()
    now = store.now_ms()
    with store.writing() as db:
        sql.pairing.expire(db, now - EXPIRES_MS)
        if sql.pairing.count(db) >= MAX_REQUESTS:
            raise PairingError(Problem.FULL, "too many tables are asking to join; try later")
        sql.pairing.ask(db, request_id, table_key=table_key, hub_nonce=nonce, link=link, now_ms=now)
    return {
        "id": request_id,
        "hub_key": own,
        "commit": x.commitment(own, table_key, nonce),
        "expires_s": EXPIRES_MS // 1000,
    }


def reveal(store: Store, request_id: str, table_nonce: str) -> str:
    """The table's nonce in, the hub's out: from now on the request lists its digits. The
    same nonce again is answered again (a lost answer); another is STATE."""
    own = x.public_hex(hub_key(store))
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state != "committed" and row.table_nonce != table_nonce:
            raise PairingError(Problem.STATE, "this request has its table's nonce already")
        if row.state == "committed":
            digits = x.digits(row.table_key, own, table_nonce, row.hub_nonce)
            sql.pairing.change(
                db, request_id, table_nonce=table_nonce, digits=digits, state="asking",
                seen_ms=now,
            )  # fmt: skip
        return str(row.hub_nonce)


def answer(store: Store, request_id: str) -> dict[str, Any]:
    """What the asking table polls: ``{"state": "asking"}``, or ``"accepted"`` with the
    sealed answer. PairingError UNKNOWN (or expired), REFUSED."""
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state == "refused":
            raise PairingError(Problem.REFUSED, "the judge refused this request")
        sql.pairing.change(db, request_id, seen_ms=now)
    if row.state == "accepted":
        return {"state": "accepted", "table": row.table_no, "sealed": row.sealed}
    return {"state": "asking" if row.state == "asking" else "committed"}


def asking(store: Store) -> list[dict[str, Any]]:
    """The tables asking to join, oldest first, for the judge's console."""
    now = store.now_ms()
    with store.reading() as db:
        rows = sql.pairing.listed(db, "asking")
    return [
        {
            "id": row.id,
            "digits": row.digits,
            "seen_s_ago": (now - row.seen_ms) / 1000,
            "link": row.link,
        }
        for row in rows
        if row.asked_ms >= now - EXPIRES_MS
    ]


def accept(
    store: Store, request_id: str, table_no: int, digits: str, tls_pin: str | None
) -> tuple[str, str]:
    """The judge accepts request ``request_id`` as table ``table_no``, having compared
    ``digits`` with seat A's screen: the table is paired (replacing an earlier pairing) and
    its answer sealed for it. PairingError DIGITS when they are not the request's."""
    private = hub_key(store)
    own = x.public_hex(private)
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state != "asking":
            raise PairingError(Problem.STATE, "this request is not waiting for the judge")
        if not hmac.compare_digest(str(row.digits), digits):
            raise PairingError(Problem.DIGITS, "the digits are not this request's")
        device = f"t{table_no}-{secrets.token_hex(4)}"
        key_hex = secrets.token_hex(32)
        exchange = x.Exchange(request_id, row.table_key, own, row.table_nonce, row.hub_nonce)
        sealed = exchange.seal(
            private,
            {"device_id": device, "key": key_hex, "table": table_no, "tls_pin_sha256": tls_pin},
        )
        sql.devices.pair(db, device, table_no, key_hex, utc_iso(now))
        sql.pairing.change(db, request_id, state="accepted", table_no=table_no, sealed=sealed)
    return device, key_hex


def refuse(store: Store, request_id: str) -> None:
    """The judge refuses request ``request_id``: the table hears so; nothing is paired."""
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state == "accepted":
            raise PairingError(Problem.STATE, "this request was accepted already")
        sql.pairing.change(db, request_id, state="refused")


def _live(db: Any, request_id: str, now: int) -> Any:
    row = sql.pairing.of(db, request_id)
    if row is None or row.asked_ms < now - EXPIRES_MS:
        raise PairingError(Problem.UNKNOWN, "no such request (or it expired)")
    return row
