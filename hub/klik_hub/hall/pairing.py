"""Pairing at the table: the tables asking to join, and the judge's accept or refusal.

The exchange is ``klik.link.protocol.pairing``'s (``docs/protocol.md``, "Pairing"). The hub
keeps one long-term X25519 key in its settings (``pairing_key``, made on first use, once
however many tables ask at the same instant), so every hub process on one database answers
with the same key. Anyone on the hall's Wi-Fi may ask, so what one asker can hold is small
and nothing it holds can keep a real table off the judge's list:

- a request that has not sent its nonce within ``REVEAL_MS`` is dropped (the console never
  lists it); one that has waits for the judge until ``EXPIRES_MS`` after its asking;
- the requests still undecided (waiting for the nonce or for the judge) count, one per table
  key (a table asking again with its key replaces its earlier request): at most
  ``PER_ADDRESS`` from one network address and ``MAX_REQUESTS`` in the whole hub; beyond
  either, FULL with the seconds until a place frees;
- the judge refuses one request or all of them at once (``refuse_all``).

Nothing changes until the judge accepts a request whose digits they compared. Accepting
pairs the table (``sql.devices.pair``, replacing its earlier pairing) and keeps the answer
sealed for the table, which fetches it; a refused or expired request changes nothing.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Sequence
from enum import Enum
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from sqlalchemy import Connection, text

from klik.errors import KlikError
from klik.link.protocol import pairing as x
from klik.words import Words, words
from klik_hub import sql
from klik_hub.sql.devices import Device
from klik_hub.storage.store import Store, utc_iso

log = logging.getLogger("klik_hub")

SETTING = "pairing_key"  # the hub's long-term X25519 private key, hex
EXPIRES_MS = 10 * 60 * 1000  # a request is forgotten this long after it was asked
# A table sends its nonce at once after the hub's first answer (a radio's retries included);
# a request that never does is a scan or a flood, and holds its place no longer.
REVEAL_MS = 30 * 1000
PER_ADDRESS = 4  # undecided requests from one address: a table asks once (or twice)
MAX_REQUESTS = 256  # undecided requests in the hub: four times the largest hall
# PostgreSQL: the asks of every hub process on one database take turns on this lock (SQLite's
# BEGIN IMMEDIATE does the same), so two tables asking on a fresh hub make one key, and the
# limits are counted by one asker at a time.
LOCK = 0x6B6C696B  # "klik"


class Problem(Enum):
    """Why a pairing call is refused (the routes give each its HTTP status)."""

    UNKNOWN = "unknown"  # no such request (or it expired)
    FULL = "full"  # too many tables asking at once
    STATE = "state"  # not at the step the call is for (a nonce twice, an accept twice)
    DIGITS = "digits"  # the judge's digits are not the request's
    REFUSED = "refused"  # the judge refused it
    HELD = "held"  # the number is a paired table's: the judge must say to replace it


class PairingError(KlikError):
    def __init__(
        self,
        problem: Problem,
        message: str | Words,
        retry_s: int | None = None,
        held_by: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.problem = problem
        self.retry_s = retry_s  # FULL: the seconds until a place frees
        self.held_by = held_by  # HELD: {"table", "seen_s_ago"} of the table holding it


def hub_key(store: Store) -> X25519PrivateKey:
    """The hub's long-term key, made and kept on first use."""
    kept = store.setting(SETTING)
    if kept is None:
        with store.writing() as db:
            kept = _key_of(db)
    return x.private_of(kept)


def _key_of(db: Connection) -> str:
    """The hub's key in a write transaction, made if there is none yet: the transaction holds
    the pairing lock first, so the first of two askers makes it and the second reads it."""
    if db.dialect.name == "postgresql":
        db.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": LOCK})
    kept = sql.settings.value(db, SETTING)
    if kept is None:
        kept = x.private_hex(x.new_private())
        sql.settings.put(db, SETTING, kept)
    return kept


def ask(
    store: Store,
    table_key: str,
    link: str,
    address: str | None = None,
    proof: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A table asks to join with its public key, from ``address`` (None: the hub's own radio,
    whose tables all share one port): the request's id, the hub's public key and its
    commitment to its nonce. PairingError FULL when the address or the hub holds as many
    undecided requests as it may (``PER_ADDRESS``, ``MAX_REQUESTS``). A re-pairing table
    sends ``proof`` (its old device id, and ``x.repair_proof`` under that device's key): a
    proof that checks out is kept with the request, so the accept carries the old number's
    results over (``accept``); one that does not is logged and the request is an ordinary one."""
    request_id, nonce = x.new_request_id(), x.new_nonce()
    now = store.now_ms()
    with store.writing() as db:
        proves = None if proof is None else _proved(db, table_key, *proof)
        own = x.public_hex(x.private_of(_key_of(db)))
        sql.pairing.expire(db, now - EXPIRES_MS, now - REVEAL_MS)
        sql.pairing.forget_undecided(db, table_key)
        held = sql.pairing.undecided(db)
        mine = [row for row in held if address is not None and row.address == address]
        if len(mine) >= PER_ADDRESS:
            raise PairingError(
                Problem.FULL, "too many requests to join from this address; try later",
                _until_free(mine, now),
            )  # fmt: skip
        if len(held) >= MAX_REQUESTS:
            raise PairingError(
                Problem.FULL, "too many tables are asking to join; try later",
                _until_free(held, now),
            )  # fmt: skip
        sql.pairing.ask(
            db, request_id, table_key=table_key, hub_nonce=nonce, link=link, address=address,
            now_ms=now, proves=proves,
        )  # fmt: skip
    return {
        "id": request_id,
        "hub_key": own,
        "commit": x.commitment(own, table_key, nonce),
        "expires_s": EXPIRES_MS // 1000,
    }


def _proved(db: Connection, table_key: str, device: str, mac: str) -> str | None:
    """``device`` if ``mac`` proves the request comes from the table paired with it."""
    paired = sql.devices.of(db, device)
    if paired is None:
        log.warning("pairing: a request proves device %s, which is not paired; an ordinary "
                    "request", device)  # fmt: skip
        return None
    if not hmac.compare_digest(mac, x.repair_proof(paired.key.hex(), table_key)):
        log.warning("pairing: a request's proof of device %s does not check out; an ordinary "
                    "request", device)  # fmt: skip
        return None
    return device


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


def _until_free(rows: Sequence[Any], now: int) -> int:
    """Whole seconds until the first of ``rows`` (undecided requests) is dropped."""
    ends = [
        int(row.asked_ms) + (REVEAL_MS if row.state == "committed" else EXPIRES_MS) for row in rows
    ]
    return max(1, -(-(min(ends) - now) // 1000))  # rounded up: asking then is never too soon


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
    store: Store,
    request_id: str,
    table_no: int,
    digits: str,
    tls_pin: str | None,
    *,
    replace: bool = False,
) -> tuple[str, str]:
    """The judge accepts request ``request_id`` as table ``table_no``, having compared
    ``digits`` with seat A's screen: the table is paired and its answer sealed for it.
    PairingError DIGITS when they are not the request's; HELD when ``table_no`` is a paired
    table's (heard or not: the hub cannot tell the same table re-pairing from another one
    taking its number) unless ``replace``, which lets that device go and logs the
    replacement (``replace_table``) in the judge's log of the tournament in play."""
    private = hub_key(store)
    own = x.public_hex(private)
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state != "asking":
            raise PairingError(Problem.STATE, "this request is not waiting for the judge")
        if not hmac.compare_digest(str(row.digits), digits):
            raise PairingError(Problem.DIGITS, "the digits are not this request's")
        held = sql.devices.holder(db, table_no)
        proved = None if row.proves is None else sql.devices.of(db, row.proves)
        # A table that proved its old pairing may take its own number back without replace.
        if held is not None and not replace and (proved is None or held.device != proved.device):
            raise held_error(table_no, held.seen_ms, now)
        device = f"t{table_no}-{secrets.token_hex(4)}"
        key_hex = secrets.token_hex(32)
        exchange = x.Exchange(request_id, row.table_key, own, row.table_nonce, row.hub_nonce)
        sealed = exchange.seal(
            private,
            {"device_id": device, "key": key_hex, "table": table_no, "tls_pin_sha256": tls_pin},
        )
        sql.devices.pair(db, device, table_no, key_hex, utc_iso(now))
        sql.pairing.change(db, request_id, state="accepted", table_no=table_no, sealed=sealed)
        if proved is not None:
            carried(db, proved, device, table_no, now)
        if held is not None and (proved is None or held.device != proved.device):
            replaced(db, table_no, held.device, device, now)
    return device, key_hex


def carried(db: Connection, old: Device, device: str, table_no: int, now: int) -> None:
    """The table paired as ``old`` was accepted again as ``device``, table ``table_no``: the
    results it kept under its old number come with it (``sql.devices.link``) and the old
    device is retired (no row in the tables), logged in the judge's log of the tournament in
    play, as a replacement is."""
    sql.devices.link(db, device, old, new_no=table_no, at=utc_iso(now))
    sql.devices.forget(db, old.device)
    tid = sql.tournaments.in_play_or_newest(db)
    if tid is not None:
        sql.events.log(
            db, tid, "repair_table", player_no=None,
            args={"table": old.table_no, "to": table_no, "old_device": old.device,
                  "new_device": device}, reason="", by="judge", at=utc_iso(now),
        )  # fmt: skip
    log.warning("table %d re-paired as table %d: device %s retired, %s takes its results",
                old.table_no, table_no, old.device, device)  # fmt: skip


def held_error(table_no: int, seen_ms: int | None, now: int) -> PairingError:
    """The refusal of a number a paired table holds, with when it was last heard."""
    said, held_by = held(table_no, seen_ms, now)
    return PairingError(Problem.HELD, said, held_by=held_by)


def held(table_no: int, seen_ms: int | None, now: int) -> tuple[Words, dict[str, Any]]:
    """Why number ``table_no`` is not free (a paired table's, last heard at ``seen_ms``;
    None: never) and the answer's ``held_by``, for pairing and renumbering alike."""
    seen_s = None if seen_ms is None else round((now - seen_ms) / 1000)
    said = (
        words("table {table} is paired already (not heard yet)", table=table_no)
        if seen_s is None
        else words(
            "table {table} is paired already (last heard {s} s ago)", table=table_no, s=seen_s
        )
    )
    return said, {"table": table_no, "seen_s_ago": seen_s}


def replaced(db: Connection, table_no: int, old: str, new: str, now: int) -> None:
    """Log that table ``table_no``'s device ``old`` was let go for ``new``: an event of the
    tournament in play (or the newest), as renumbering is."""
    tid = sql.tournaments.in_play_or_newest(db)
    if tid is not None:
        sql.events.log(
            db, tid, "replace_table", player_no=None,
            args={"table": table_no, "old_device": old, "new_device": new}, reason="",
            by="judge", at=utc_iso(now),
        )  # fmt: skip
    log.warning("table %d: device %s let go, %s paired in its place", table_no, old, new)


def refuse(store: Store, request_id: str) -> None:
    """The judge refuses request ``request_id``: the table hears so; nothing is paired."""
    now = store.now_ms()
    with store.writing() as db:
        row = _live(db, request_id, now)
        if row.state == "accepted":
            raise PairingError(Problem.STATE, "this request was accepted already")
        sql.pairing.change(db, request_id, state="refused")


def refuse_all(store: Store) -> int:
    """The judge refuses every request not yet decided (a flood, or a hall to pair afresh):
    the tables waiting hear so, those that never sent their nonce are dropped. The count of
    the requests refused that the console listed."""
    with store.writing() as db:
        return sql.pairing.refuse_undecided(db)


def _live(db: Any, request_id: str, now: int) -> Any:
    row = sql.pairing.of(db, request_id)
    if (
        row is None
        or row.asked_ms < now - EXPIRES_MS
        or (row.state == "committed" and row.asked_ms < now - REVEAL_MS)
    ):
        raise PairingError(Problem.UNKNOWN, "no such request (or it expired)")
    return row
