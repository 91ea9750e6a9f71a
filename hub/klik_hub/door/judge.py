"""The head judge's password: read from a file once, kept only as a salted scrypt hash.

``klik hub --judge-password-file FILE`` reads the password (the file's first line) and stores
its hash in the hub's database, replacing an earlier one; without the option the stored hash
stays. Every route that changes the tournament or orders a table needs it: the console logs
in once (``POST /api/v1/session``) and sends its session cookie, scripts send HTTP Basic
with the user ``judge``; reading (standings, results, the projector) needs nothing. A
table's key opens nothing here: tables sign envelopes, they never log in.

scrypt is slow on purpose (about 50 ms), so a check that passed is remembered by the SHA-256
of the header that passed it, never by the password itself; a session cookie is kept as its
SHA-256 in the database (``sessions``), so every hub process on the database knows it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from anyio import to_thread

from klik.errors import InputError
from klik_hub.door.escape import escaped
from klik_hub.storage.store import Store

log = logging.getLogger("klik_hub")

USER = "judge"
MIN_LENGTH = 8
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # OWASP's floor for scrypt
REALM = 'Basic realm="Klik hub", charset="UTF-8"'
CONSOLE_REALM = 'KlikJudge realm="Klik hub"'  # no browser prompt: the console asks itself


def read_password(path: str) -> str:
    """The password in ``path``'s first line; InputError in one line if it cannot be used."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--judge-password-file {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(f"--judge-password-file {path}: cannot read ({why})") from None
    lines = text.splitlines()
    password = lines[0].strip() if lines else ""
    if len(password) < MIN_LENGTH:
        raise InputError(
            f"--judge-password-file {path}: the password on its first line has "
            f"{len(password)} characters; at least {MIN_LENGTH}"
        )
    return password


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex), with a new random salt."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        found = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(found, bytes.fromhex(digest))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 << 20, dklen=32)


SETTING = "judge_password"  # the hub's settings row that holds the hash
SESSION_COOKIE = "klik_session"
SESSION_MS = 12 * 3600 * 1000  # a tournament day; the judge logs in again the next morning
FREE_FAILURES = 5  # wrong passwords a client may type before it has to wait
FIRST_WAIT_S, MAX_WAIT_S = 1.0, 60.0  # the wait after the 5th failure, doubling to the cap
HASHES_AT_ONCE = 2  # scrypt takes 16 MB and 50 ms: guessers must not starve the tables
# Passwords hashed for one address in a minute: a guess takes its place before it waits for
# the hash, so guesses sent all at once are counted as they arrive, not as they finish.
HASHED_PER_MINUTE = 5
KEPT_CLIENTS = 4096  # failure counts kept; the oldest are forgotten past this


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the gate says: let in, or not (401), or not yet (429 after ``retry_after_s``)."""

    ok: bool
    retry_after_s: int = 0


LET_IN, KEEP_OUT = Verdict(ok=True), Verdict(ok=False)


class Attempts:
    """Wrong passwords per client (its address): after ``FREE_FAILURES`` each one costs a
    wait that doubles, up to ``MAX_WAIT_S``; a right one clears the count. Pure: the caller
    passes the time (monotonic seconds)."""

    def __init__(self) -> None:
        self._failures: dict[str, tuple[int, float]] = {}  # client: (failures, wait until)

    def wait_s(self, client: str, now_s: float) -> float:
        """How long ``client`` must still wait before its next try (0: it may try now)."""
        _, until = self._failures.get(client, (0, 0.0))
        return max(0.0, until - now_s)

    def failed(self, client: str, now_s: float) -> int:
        """Count a failure; the failures in a row so far."""
        failures = self._failures.pop(client, (0, 0.0))[0] + 1
        wait = 0.0
        if failures >= FREE_FAILURES:
            wait = min(MAX_WAIT_S, FIRST_WAIT_S * 2 ** (failures - FREE_FAILURES))
        self._failures[client] = (failures, now_s + wait)
        if len(self._failures) > KEPT_CLIENTS:  # dicts keep order: the first is the oldest
            del self._failures[next(iter(self._failures))]
        return failures

    def passed(self, client: str) -> None:
        self._failures.pop(client, None)


class Budget:
    """Passwords hashed per client (its address): at most ``HASHED_PER_MINUTE`` in any 60 s,
    a right one included (the judge types it once a day). Pure: the caller passes the time
    (monotonic seconds)."""

    def __init__(self) -> None:
        self._hashed: dict[str, list[float]] = {}  # client: when its last hashes began

    def take(self, client: str, now_s: float) -> float:
        """Take a place for a hash now: 0 when taken, else the seconds until one frees."""
        recent = [at for at in self._hashed.pop(client, []) if at > now_s - 60.0]
        wait = 0.0
        if len(recent) >= HASHED_PER_MINUTE:
            wait = recent[0] + 60.0 - now_s
        else:
            recent.append(now_s)
        self._hashed[client] = recent  # the newest last: the first is the longest quiet
        if len(self._hashed) > KEPT_CLIENTS:
            del self._hashed[next(iter(self._hashed))]
        return wait


class Gate:
    """Says whether a request comes from the judge: a session cookie (the console, after
    ``login``), or HTTP Basic with the user ``judge`` (scripts). The password's hash is read
    from the store each time, so a password set by another hub process counts at once; no
    hash stored means no password was ever set, and the judge's routes are open, which
    ``klik hub`` allows on loopback only.

    Async, for the ASGI guard in front of the routes: the database and scrypt run in worker
    threads, at most ``HASHES_AT_ONCE`` hashes at a time, and a client past its free
    failures is told to wait before any hash is computed.
    """

    def __init__(self, store: Store, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self.attempts = Attempts()
        self.budget = Budget()
        self._passed: set[tuple[bytes, str]] = set()
        self._hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        # One hash at a time per address, so one guesser holds at most one of the
        # ``HASHES_AT_ONCE`` places and the judge at another address never waits behind it.
        self._queues: dict[str, tuple[asyncio.Lock, int]] = {}

    async def judge(self, authorization: str | None, cookie: str | None, client: str) -> Verdict:
        """The verdict on a request with these ``Authorization`` and session cookie values."""
        stored = await to_thread.run_sync(self.store.setting, SETTING)
        if stored is None:
            return LET_IN
        if cookie:
            live: bool = await to_thread.run_sync(self._live_session, cookie, stored)
            if live:
                return LET_IN
        if not authorization:
            return KEEP_OUT  # asked without credentials: not a guess
        seen = (hashlib.sha256(authorization.encode()).digest(), stored)
        if seen in self._passed:
            return LET_IN
        basic = _basic(authorization)
        if basic is None:
            return KEEP_OUT  # another scheme, or not base64: it could never pass, no guess
        user, password = basic
        verdict = await self._try(client, password if user == USER else None, stored)
        if verdict.ok:
            self._passed.add(seen)
        return verdict

    async def login(self, password: str, client: str) -> tuple[Verdict, str | None]:
        """A new session for ``password``: the verdict and the cookie's token if let in."""
        stored = await to_thread.run_sync(self.store.setting, SETTING)
        if stored is not None:
            verdict = await self._try(client, password, stored)
            if not verdict.ok:
                return verdict, None
        token = secrets.token_urlsafe(32)
        await to_thread.run_sync(
            self.store.open_session,
            _sha256(token),
            _sha256(stored or ""),
            self.store.now_ms() + SESSION_MS,
        )
        return LET_IN, token

    async def logout(self, cookie: str | None) -> None:
        if cookie:
            await to_thread.run_sync(self.store.close_session, _sha256(cookie))

    async def _try(self, client: str, password: str | None, stored: str) -> Verdict:
        """One guess of ``client``'s at the password (None: not even the right user). Its
        place in the client's budget is taken before anything is awaited: the event loop
        runs one request's code at a time, so a wave of guesses is counted guess by guess."""
        now = self.clock()
        wait = self.attempts.wait_s(client, now) or self.budget.take(client, now)
        if wait > 0:
            return Verdict(ok=False, retry_after_s=math.ceil(wait))
        if password is not None and await self._verify(client, password, stored):
            self.attempts.passed(client)
            return LET_IN
        failures = self.attempts.failed(client, self.clock())
        log.warning(
            "hub: a wrong judge's password from %s (%d in a row)", escaped(client), failures
        )
        return KEEP_OUT

    async def _verify(self, client: str, password: str, stored: str) -> bool:
        lock, waiting = self._queues.get(client, (asyncio.Lock(), 0))
        self._queues[client] = (lock, waiting + 1)
        try:
            async with lock, self._hashing:
                right: bool = await to_thread.run_sync(verify, password, stored)
                return right
        finally:
            lock, waiting = self._queues[client]
            if waiting == 1:
                del self._queues[client]
            else:
                self._queues[client] = (lock, waiting - 1)

    def _live_session(self, cookie: str, stored: str) -> bool:
        return self.store.session(_sha256(cookie)) == _sha256(stored)


def _basic(authorization: str) -> tuple[str, str] | None:
    """The user and password of ``Basic`` credentials; None for anything else."""
    scheme, _, encoded = authorization.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user, password


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
