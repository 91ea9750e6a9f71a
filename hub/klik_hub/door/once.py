"""The judge's requests done once, whatever the network or a double click does to them.

Every request that changes something on the judge's side may carry an ``Idempotency-Key``
header (the console sends one with each action: a fresh random value, the same one again
for a retry or a second click of the same action within two seconds). The hub does the
first request of a key on its route and answers every repeat with that first answer (the
same status and body) without doing anything again; a repeat that comes while the first is
under way waits for it. A key is kept 24 hours (``KEPT_MS``); the same key with another body
on the same route is 422. A request without the header is served as it always was (scripts).

What is kept: the answers a route gave (2xx, and 4xx such as a 409), never a refusal at the
door (401, 403, 429: a retry after logging in must be done) nor a failure (5xx: the disk or
the database was away, and a retry should do it). The answer is kept, committed, before it
goes out, so a repeat never finds nothing after the judge saw the first answer. (Between the
route's own commit and this one a crash loses the key but not the route's work: a repeat of
that one request is then done again, which each route already answers sensibly, e.g. a 409
for a round drawn twice.)

Pure ASGI, inside the ``Guard`` (only the judge's requests get here with a key that counts,
after the size limits) and in front of the routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from typing import Any

import anyio.to_thread
from sqlalchemy.exc import IntegrityError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from klik.words import Language, language_of, words
from klik_hub import sql
from klik_hub.door.guard import needs_judge
from klik_hub.sql.once import Kept
from klik_hub.storage.store import Store

HEADER = b"idempotency-key"
KEPT_MS = 24 * 3600 * 1000
MAX_KEY = 128  # characters, visible ASCII
MAX_KEPT_BODY = 256 << 10  # a larger answer is not kept (the judge's answers are small)
REFUSED_AT_THE_DOOR = frozenset({401, 403, 429})


class Once:
    """The middleware: see the module's text."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.store = store
        self._under_way: dict[tuple[str, str], asyncio.Future[Kept | None]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = _key(scope)
        if key is None or not needs_judge(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        language = language_of(_header(scope, b"accept-language"))
        if not (0 < len(key) <= MAX_KEY and all("!" <= c <= "~" for c in key)):
            said = words("Idempotency-Key: 1 to {most} visible ASCII characters", most=MAX_KEY)
            await _send(send, Kept("", 422, "application/json", _error(said.into(language))))
            return
        body = await _body(receive)
        route = f"{scope['method']} {scope['path']}"
        while (running := self._under_way.get((key, route))) is not None:
            await asyncio.shield(running)  # the first of this key: done (or failed) first
        # Taken before the first await: a repeat that comes meanwhile finds it and waits.
        mine = self._under_way[(key, route)] = asyncio.get_running_loop().create_future()
        try:
            await self._once(scope, receive, send, (key, route, body, language))
        finally:
            del self._under_way[(key, route)]
            mine.set_result(None)

    async def _once(
        self, scope: Scope, receive: Receive, send: Send, asked: tuple[str, str, bytes, Language]
    ) -> None:
        key, route, body, language = asked
        fingerprint = hashlib.sha256(scope.get("query_string", b"") + b"?" + body).hexdigest()
        first = await anyio.to_thread.run_sync(self._find, key, route)
        if first is not None:
            if first.fingerprint != fingerprint:
                said = words("Idempotency-Key {key} was sent before with another body", key=key)
                await _send(send, Kept("", 422, "application/json", _error(said.into(language))))
                return
            await _send(send, first)
            return
        answer, headers = await self._do(scope, receive, body, fingerprint)
        if answer is None:
            return
        if _kept(answer):
            await anyio.to_thread.run_sync(self._keep, key, route, answer)
        await _send(send, answer, headers)

    async def _do(
        self, scope: Scope, outer: Receive, body: bytes, fingerprint: str
    ) -> tuple[Kept | None, list[tuple[bytes, bytes]]]:
        """The route's answer, whole, and its headers (None: it sent none)."""
        given = False
        started: dict[str, Any] = {}
        parts: list[bytes] = []

        async def receive() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await outer()  # the client's leaving, as the route may ask

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        await self.app(scope, receive, send)
        if not started:
            return None, []
        headers = list(started.get("headers", []))
        content_type = dict(headers).get(b"content-type", b"application/json").decode("latin-1")
        kept = Kept(fingerprint, int(started["status"]), content_type, b"".join(parts))
        return kept, [(k, v) for k, v in headers if k != b"content-length"]

    def _find(self, key: str, route: str) -> Kept | None:
        with self.store.reading() as db:
            return sql.once.find(db, key, route, self.store.now_ms() - KEPT_MS)

    def _keep(self, key: str, route: str, answer: Kept) -> None:
        now = self.store.now_ms()
        # Another hub process on the same PostgreSQL may have kept this key meanwhile (a
        # repeat is waited for within one process only): its answer stands, and so does ours.
        with contextlib.suppress(IntegrityError), self.store.writing() as db:
            sql.once.keep(db, key, route, answer, now_ms=now, since_ms=now - KEPT_MS)


def _kept(answer: Kept) -> bool:
    return (
        answer.status < 500
        and answer.status not in REFUSED_AT_THE_DOOR
        and len(answer.body) <= MAX_KEPT_BODY
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for header, value in scope.get("headers", []):
        if header == name:
            return str(value.decode("latin-1"))
    return None


def _key(scope: Scope) -> str | None:
    if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return None
    return _header(scope, HEADER)


async def _body(receive: Receive) -> bytes:
    """The request's body (its size is limited by the ``Guard`` in front)."""
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


def _error(said: str) -> bytes:
    return json.dumps({"error": said}, ensure_ascii=False).encode()


async def _send(send: Send, answer: Kept, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """``answer``, with the route's own ``headers`` (a repeat: its content type alone)."""
    own = headers if headers is not None else [(b"content-type", answer.content_type.encode())]
    length = (b"content-length", str(len(answer.body)).encode())
    await send({"type": "http.response.start", "status": answer.status, "headers": [*own, length]})
    await send({"type": "http.response.body", "body": answer.body})
