"""The hub's front door (pure ASGI, in front of every route): who may ask, and how much.

In this order, before a byte of the body is read:

1. **Path.** A path with a control character (NUL, CR, ESC, a line or paragraph separator:
   anything ``str.isprintable`` refuses) names nothing on this hub: 404, before any route
   could take it to a file name (``Path`` refuses a NUL with ValueError) or the log.
2. **Host.** A page on the hall's Wi-Fi could make a browser's name for the hub point at
   the hub (DNS rebinding) and drive it as if it were on the same origin. Such a request
   carries the attacker's name in ``Host``, so only IP literals (tables and phones reach a
   hub by its address), loopback names and the names given with ``--public-name`` are
   served; any other name gets 421.
3. **Size.** Each route's limit (envelopes 16 KiB, the player list 1 MiB, other JSON 256
   KiB) is enforced on the stream: a ``Content-Length`` over it is 413 at once, and a body
   sent in chunks is cut off with 413 as soon as it passes the limit.
4. **The judge.** A request that changes anything (every method but GET and HEAD, except
   the tables' envelopes, a table asking to join (``/api/v1/join``), logging in or out, and
   a player checking in from their page with their code) must come from the judge
   (``judge.Gate``): a session cookie, which also needs the console's ``X-Klik-Console``
   header (a page of another site cannot send it, so a forged form never rides on the
   cookie), or HTTP Basic.
   Otherwise 401 (or 429 for a client guessing passwords) before the body is read. A
   request from another site's page (``Origin`` or ``Sec-Fetch-Site`` says so) is 403.
   A few reads are the judge's too: the players' list, the tables asking to join and the
   printed pages that carry the players' codes (``PRINTED_WITH_CODES``, which the session
   cookie alone opens).

Every answer carries headers that keep the pages out of other sites' frames and scripts
(``Content-Security-Policy``, ``X-Frame-Options``). A route that fails answers in the same
one-line JSON as every error: a full disk or a database that does not answer is 503 (the
table tries again later; the console shows a red banner from ``Troubles``), logged once a
minute rather than once a request; anything else is 500 with one traceback in the log.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import logging
import time
from collections.abc import Callable, Iterable
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.exc import DBAPIError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from klik.link import protocol as p
from klik_hub.door import judge
from klik_hub.door.escape import escaped

ENVELOPE_PATHS = frozenset(p.PATHS.values())
SESSION_PATH = "/api/v1/session"
JOIN_PATH = "/api/v1/join"  # a table asking to join (``klik_hub.api.pairing``): anyone may
PAIRING_PATH = "/api/v1/pairing"  # the tables asking, which only the judge reads
MAX_JOIN = 1024  # a join's body is a key or a nonce
JUDGE_PROBE = "/api/v1/judge"  # a GET, but it answers whether the caller is the judge
MAX_PLAYER_LIST = 1 << 20  # a CSV of a whole region's players fits many times over
MAX_JSON = 256 << 10
SAFE_METHODS = ("GET", "HEAD")
KEPT_HOSTS = 64  # Host values whose verdict is remembered
CONSOLE_HEADER = b"x-klik-console"  # sent by the judge's console (web/console.js)
LOOPBACK_NAMES = ("localhost",)
SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
        b"base-uri 'none'; form-action 'self'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
TROUBLE_S = 60.0  # a trouble is logged (and shown) for this long after it was last met
DISK_FULL = "the hub's disk is full: free some space; every result acknowledged is kept"
DATABASE_DOWN = "the hub's database is not answering; the tables will send again"
TROUBLE_CODES = {DISK_FULL: "disk_full", DATABASE_DOWN: "database_down"}  # for the console
SQLITE_FULL = 13  # SQLite's result code for "database or disk is full"
POSTGRESQL_DISK_FULL = "53100"
log = logging.getLogger("klik_hub")
NEED_JUDGE = "the judge's password is needed (log in, or HTTP Basic with the user judge)"
CONTROL_IN_PATH = "no page here has a control character in its path"


def limit_of(method: str, path: str) -> int:
    """The most bytes a request's body may have on this route."""
    if path in ENVELOPE_PATHS:
        return p.MAX_BODY
    if path.startswith(JOIN_PATH):
        return MAX_JOIN
    if method == "POST" and path.startswith("/api/v1/tournaments/") and path.endswith("/players"):
        return MAX_PLAYER_LIST
    return MAX_JSON


def needs_judge(method: str, path: str) -> bool:
    if path in ENVELOPE_PATHS or path == SESSION_PATH or _players_own(method, path):
        return False
    if path == JOIN_PATH or path.startswith(JOIN_PATH + "/"):
        return False  # a table asking to join: only the judge's accept pairs it
    return method not in SAFE_METHODS or path == JUDGE_PROBE or _judges_reading(path)


# The printed pages that carry the players' codes (a code opens its player's page).
PRINTED_WITH_CODES = frozenset({"/print/sheets", "/print/badges", "/print/players"})


def _players_own(method: str, path: str) -> bool:
    """A player checking in from their page (``POST /api/v1/p/{code}/check-in``): the code in
    the address is the player's key (50 bits, on their badge only), as it is to their page."""
    parts = path.split("/")  # "", "api", "v1", "p", CODE, "check-in"
    return (
        method == "POST"
        and len(parts) == 6
        and parts[1:4] == ["api", "v1", "p"]
        and (parts[5] == "check-in")
    )


def _judges_reading(path: str) -> bool:
    """The reads that are the judge's alone: the players' list and the printed pages that
    carry their codes."""
    if path in PRINTED_WITH_CODES or path == PAIRING_PATH:
        return True
    parts = path.split("/")  # "", "api", "v1", "tournaments", ID, "players"
    return len(parts) == 6 and parts[1:4] == ["api", "v1", "tournaments"] and parts[5] == "players"


def host_allowed(host: str | None, public_names: Iterable[str]) -> bool:
    """Whether ``host`` (a ``Host`` header's value, port and all) names this hub."""
    if host is None:
        return True  # HTTP/1.0 without Host: no name, so nothing was rebound
    name = urlsplit(f"//{host}").hostname
    if name is None:
        return False
    name = name.rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    return name in {n.lower().rstrip(".") for n in public_names}


class Troubles:
    """What keeps the hub from storing anything now (a full disk, the database down): each
    kind logged once a ``TROUBLE_S``, and shown on the console while it lasts."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._seen: dict[str, float] = {}  # message: last met
        self._logged: dict[str, float] = {}

    def met(self, message: str) -> None:
        now = self.clock()
        self._seen[message] = now
        if now - self._logged.get(message, -TROUBLE_S) >= TROUBLE_S:
            self._logged[message] = now
            log.error("hub: %s", message)

    def now(self) -> str | None:
        """The trouble met within the last ``TROUBLE_S``, if any (the latest)."""
        now = self.clock()
        live = [(at, m) for m, at in self._seen.items() if now - at < TROUBLE_S]
        return max(live)[1] if live else None


def trouble_of(error: Exception) -> str | None:
    """The trouble that made a route fail (503), or None for a fault of the hub's own (500)."""
    if isinstance(error, DBAPIError):
        original = error.orig
        if getattr(original, "sqlite_errorcode", None) == SQLITE_FULL:
            return DISK_FULL
        if getattr(original, "sqlstate", None) == POSTGRESQL_DISK_FULL:
            return DISK_FULL
        if error.connection_invalidated or type(original).__name__ == "OperationalError":
            return DATABASE_DOWN
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return DISK_FULL
    return None


class Guard:
    """The checks above, as ASGI middleware around the whole app (see the module's text)."""

    def __init__(
        self,
        app: ASGIApp,
        gate: judge.Gate,
        public_names: Iterable[str] = (),
        troubles: Troubles | None = None,
    ) -> None:
        self.app = app
        self.gate = gate
        self.public_names = tuple(public_names)
        self.troubles = troubles or Troubles()
        self._hosts: dict[str | None, bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        reply = _Reply(send)
        send = reply.send
        method, path = scope["method"], scope["path"]
        if not path.isprintable():
            await _answer(send, 404, CONTROL_IN_PATH)
            return
        if not self._named_here(headers.get("host")):
            host = headers.get("host", "")[:100]
            await _answer(send, 421, f"Host {host!r}: this hub is not served under that name")
            return
        limit = limit_of(method, path)
        length = headers.get("content-length", "0")
        if not length.isdigit():
            await _answer(send, 400, f"Content-Length {length[:20]!r}: not a number")
            return
        if int(length) > limit:
            await _answer(send, 413, f"the body is over {limit} bytes", envelope=path)
            return
        if method not in SAFE_METHODS and _cross_site(headers):
            await _answer(send, 403, "a request from another site's page is refused")
            return
        try:
            # The judge's check reads the database too: a full disk or a database that is
            # down is the same 503 there as in the route.
            if needs_judge(method, path) and not await self._judge(scope, headers, send):
                return
            await self.app(scope, reply.limited(receive, limit, path), reply.from_app)
        except Exception as error:
            if reply.answered:
                # The body was cut off and answered (413); the app, told the client left,
                # may have raised for it (starlette's ClientDisconnect): nothing to add.
                return
            if reply.started:
                raise  # half an answer is out: only closing the connection says more
            trouble = trouble_of(error)
            if trouble is None:
                log.exception("hub: %s %s failed", escaped(method), escaped(path))
                await _answer(send, 500, "the hub failed on this request (it is in the log)")
            else:
                self.troubles.met(trouble)
                await _answer(send, 503, trouble, envelope=path)

    def _named_here(self, host: str | None) -> bool:
        """``host_allowed``, remembered: every heartbeat asks it, with one of a few names."""
        known = self._hosts.get(host)
        if known is None:
            known = host_allowed(host, self.public_names)
            if len(self._hosts) < KEPT_HOSTS:  # a flood of names is answered, not kept
                self._hosts[host] = known
        return known

    async def _judge(self, scope: Scope, headers: dict[str, str], send: Send) -> bool:
        """Whether the request is the judge's; if not, it has been answered."""
        cookie = session_of(headers)
        printed = scope["method"] in SAFE_METHODS and scope["path"] in PRINTED_WITH_CODES
        if cookie is not None and CONSOLE_HEADER.decode() not in headers and not printed:
            cookie = None  # a cookie alone may be a forged form's: it does not count
        # ... except for a printed page: the console opens it with a plain link (a new tab),
        # which sends the cookie but no header. A forged link to it gains nothing: the page
        # changes nothing; the cookie is SameSite=Strict, so another site's link, form or
        # image does not even carry it; and only the hub's own pages may read the answer
        # (the same-origin policy; no frame may hold it: X-Frame-Options, frame-ancestors).
        client = scope["client"][0] if scope.get("client") else "?"
        verdict = await self.gate.judge(headers.get("authorization"), cookie, client)
        if verdict.ok:
            scope.setdefault("state", {})["judge"] = True
            return True
        status, error, more = refusal(verdict, console=CONSOLE_HEADER.decode() in headers)
        await _answer(send, status, error, [(k.encode(), v.encode()) for k, v in more.items()])
        return False


def refusal(verdict: judge.Verdict, *, console: bool) -> tuple[int, str, dict[str, str]]:
    """The answer to a request that is not the judge's: 401, or 429 with ``Retry-After`` for
    a client that has to wait (status, error, headers)."""
    if verdict.retry_after_s:
        wait = verdict.retry_after_s
        return 429, f"too many wrong passwords; try again in {wait} s", {"retry-after": str(wait)}
    # A browser meets "Basic" with its own password prompt, which would hold up the
    # console's request; the console asks in its own form, so it is told another scheme.
    challenge = judge.CONSOLE_REALM if console else judge.REALM
    return 401, NEED_JUDGE, {"www-authenticate": challenge}


def session_of(headers: dict[str, str]) -> str | None:
    """The session cookie's token, if the request has one."""
    raw = headers.get("cookie")
    if not raw:
        return None
    try:
        jar = SimpleCookie(raw)
    except CookieError:
        return None
    morsel = jar.get(judge.SESSION_COOKIE)
    return morsel.value if morsel is not None and morsel.value else None


def _cross_site(headers: dict[str, str]) -> bool:
    if headers.get("sec-fetch-site") == "cross-site":
        return True
    origin = headers.get("origin")
    if origin is None or origin == "null":
        return origin == "null"  # a sandboxed frame or a file: never the console
    return urlsplit(origin).netloc != headers.get("host")


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of repeated ones)."""
    found: dict[str, str] = {}
    for name, value in scope["headers"]:
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


class _Reply:
    """One request's way back: with the security headers, and closed to the app once the
    guard has answered in its stead (a body cut off past its limit)."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.answered = False  # by the guard, in the app's stead
        self.started = False  # an answer has begun to go out

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await self._send(message)

    async def from_app(self, message: Message) -> None:
        if not self.answered:
            await self.send(message)

    def limited(self, receive: Receive, limit: int, path: str) -> Receive:
        """``receive`` that answers 413 and tells the app the client left, once the body
        passes ``limit`` bytes: the rest is never read, the app's own answer is dropped."""
        seen = 0

        async def receiving() -> Message:
            nonlocal seen
            if self.answered:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    self.answered = True
                    await _answer(self.send, 413, f"the body is over {limit} bytes", envelope=path)
                    return {"type": "http.disconnect"}
            return message

        return receiving


async def _answer(
    send: Send,
    status: int,
    error: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    envelope: str = "",
) -> None:
    """The hub's one-line JSON error, sent straight to the client (an envelope's route
    answers in its own shape, with ``status``)."""
    fields = {"status": "invalid"} if envelope in ENVELOPE_PATHS else {}
    body = json.dumps({**fields, "error": error}, ensure_ascii=False).encode()
    start: dict[str, Any] = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *(headers or []),
        ],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body})
