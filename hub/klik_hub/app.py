"""The hub's HTTP API and live page (FastAPI); ``docs/protocol.md`` is the contract.

Envelopes are read as raw bytes and parsed by ``klik.link.protocol`` (strictly: no coercion,
so the MAC is checked over exactly what the table signed). The order of the checks is the
contract's: the envelope's shape (422), then who signed it (401), then the result's schema
(422), then whether the device may speak for that table (401). Every answer to a table
carries an ``ack`` envelope signed with the table's key, so a table believes a receipt only
if it comes from its hub.

The two routes the tables post to are nearly all of the hub's traffic (a heartbeat from every
table every 2 s), so ``EnvelopeLane`` serves them in front of FastAPI's router: the router,
its request object and the dependency machinery cost a fifth of the hub's CPU per envelope
(``tests/bench/bench_hub.py``). The routes below describe them in the OpenAPI, and answer
alike (``answer``) when the lane is not in front.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import pathlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from klik.link import protocol as p
from klik_hub import league, office
from klik_hub.api import (
    checkin,
    console,
    install,
    pairing,
    people,
    players,
    prints,
    public,
    results,
    rounds,
    rules,
    seasons,
    session,
    tables,
    tournaments,
)
from klik_hub.api.deps import NeedJudgeError, reader
from klik_hub.api.feed import Feed, Pokes
from klik_hub.door import faults, judge
from klik_hub.door.answers import Answer, refusals
from klik_hub.door.guard import Guard, Troubles, refusal
from klik_hub.door.once import Once
from klik_hub.hall.inbox import Clerk, TooLargeError
from klik_hub.office.errors import TournamentError
from klik_hub.office.tally import Tallies
from klik_hub.storage.store import Store

ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["v", "type", "device", "seq", "body", "mac"],
    "additionalProperties": False,
    "properties": {
        "v": {"const": 1},
        "type": {"enum": list(p.TYPES)},
        "device": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
        "seq": {"type": "integer", "minimum": 0},
        "body": {"type": "object"},
        "mac": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
}
ENVELOPE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": ENVELOPE_SCHEMA}},
    }
}


CONSOLE_HEADER = "x-klik-console"  # sent by the judge's console (web/console.js)
POSTGRESQL_CLERKS = 4  # PostgreSQL takes several writers at once; SQLite one
CLOCK_S = 1.0  # how often the round's clock looks for tables whose time ran out

log = logging.getLogger("klik_hub")
# The hub sends no OpenTelemetry; FastAPI's own (in its newer versions) asks the providers
# and the environment at every request, a twentieth of a heartbeat's time (bench_hub).
NO_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters
    else {}
)


def make_app(
    store: Store,
    *,
    public_names: tuple[str, ...] = (),
    tls: bool = False,
    troubles: Troubles | None = None,
    listening: str | None = None,
    tls_pin: str | None = None,
    bundle: pathlib.Path | None = None,
) -> FastAPI:
    """The hub's app on ``store``. ``public_names``: the host names it is served under
    besides IP addresses and loopback (``--public-name``); ``tls``: served over HTTPS, so
    the session cookie is ``Secure``; ``troubles``: where the storage's troubles are kept
    (a new record by default); ``listening``: the address it listens on (``--host``), for
    the addresses in its QR codes (``addresses.hall_base``); ``tls_pin``: its certificate's
    SHA-256, sealed into the answer of a table that pairs at the table (``api.pairing``);
    ``bundle``: the tables' install, served at ``/install`` (``api.install``; --bundle)."""
    league.rule_sets.load(store)  # the judge's own sets, beside Klik's
    clerk = Clerk(store, 1 if store.engine.dialect.name == "sqlite" else POSTGRESQL_CLERKS)
    tallies = Tallies(store)
    feed = Feed(store, warm=tallies.at)

    app = FastAPI(
        title="Klik hub",
        version="1",
        description="Results, heartbeats and commands of a Rummikub tournament's tables.",
        lifespan=_lifespan(store, clerk, feed),
        responses=refusals(503),  # any route, while the disk is full or the database is down
        **NO_TELEMETRY,
    )
    # What the routes share (``klik_hub.api.deps``): each asks for its part by a dependency.
    app.state.store = store
    app.state.listening = listening
    app.state.tls = tls
    app.state.tls_pin = tls_pin
    app.state.bundle = bundle
    app.state.tallies = tallies
    app.state.ratings = league.ratings.Ratings(store, tallies)
    app.state.feed = feed
    app.state.gate = gate = judge.Gate(store)
    app.state.troubles = troubles = troubles or Troubles()
    # Innermost first. Once sits inside the envelopes' lane (the tables never pass it) and
    # inside the Guard (only the judge's requests, within their limits, reach it).
    app.add_middleware(Once, store=store)
    app.add_middleware(EnvelopeLane, clerk=clerk)
    app.add_middleware(Pokes, feed=feed)
    app.add_middleware(Guard, gate=gate, public_names=public_names, troubles=troubles)

    @app.exception_handler(NeedJudgeError)
    async def need_judge(request: Request, _problem: NeedJudgeError) -> JSONResponse:
        status, error, headers = refusal(judge.KEEP_OUT, console=CONSOLE_HEADER in request.headers)
        return JSONResponse({"error": error}, status, headers)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, problem: HTTPException) -> JSONResponse:
        """Starlette's own answers (an unknown route, a wrong method) in the hub's one line."""
        return JSONResponse({"error": str(problem.detail)}, problem.status_code, problem.headers)

    @app.exception_handler(TournamentError)
    async def tournament_says_no(request: Request, problem: TournamentError) -> JSONResponse:
        return tournaments.refused(problem, reader(request))

    # The routers in the order their routes were always tried (a path two could take is
    # found as before; tables last, so a wrong method on /api/v1/results names the envelope's).
    for routes in (session, console, tournaments, players, rounds, checkin, results, prints):
        app.include_router(routes.router)
    app.include_router(prints.pages)
    for routes in (public, pairing, install, rules, people, seasons):
        app.include_router(routes.router)
    app.include_router(install.described_router)

    @app.exception_handler(RequestValidationError)
    async def one_line(request: Request, problem: RequestValidationError) -> JSONResponse:
        """A request that breaks its schema: the first fault in one line, as every error,
        in the reader's language (``klik_hub.door.faults``)."""
        said = faults.one_line(problem.errors()[0], reader(request))
        return JSONResponse({"error": said}, 422)

    @app.post(
        p.PATHS[p.EnvelopeType.RESULT],
        status_code=201,
        response_model=Answer,
        response_model_exclude_none=True,
        openapi_extra=ENVELOPE_BODY,
        responses={
            **{code: {"model": Answer} for code in (200, 401, 409, 413, 422)},
            **refusals(403),
        },
    )
    async def post_result(request: Request) -> JSONResponse:
        """A finished game's result: 201 stored, 200 duplicate, 409 conflict (both kept)."""
        return await answer(clerk, request.stream(), p.EnvelopeType.RESULT)

    @app.post(
        p.PATHS[p.EnvelopeType.HEARTBEAT],
        response_model=Answer,
        response_model_exclude_none=True,
        openapi_extra=ENVELOPE_BODY,
        responses={
            **{code: {"model": Answer} for code in (401, 409, 413, 422)},
            **refusals(403),
        },
    )
    async def post_heartbeat(request: Request) -> JSONResponse:
        """A table's state; the answer carries the commands waiting for it. 409 ``stale``
        (with ``last_seq``) for a seq not above the last one the hub holds: a replay."""
        return await answer(clerk, request.stream(), p.EnvelopeType.HEARTBEAT)

    app.include_router(tables.router)
    return app


def _lifespan(
    store: Store, clerk: Clerk, feed: Feed
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's life: the feed and the round's clock run while it serves; the clerk stops
    after it."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        running = [asyncio.create_task(feed.run()), asyncio.create_task(keep_time(store))]
        yield
        for task in running:
            task.cancel()
        clerk.stop()

    return lifespan


async def keep_time(store: Store, every_s: float = CLOCK_S) -> None:
    """Every ``every_s``, send round-over to the tables whose round time ran out
    (``office.clock.due``). Runs until cancelled; a database that is down is logged once
    and tried again."""
    failing = False
    while True:
        try:
            sent = await anyio.to_thread.run_sync(office.clock.due, store)
        except Exception:
            if not failing:
                log.exception("hub: the round's clock could not be read")
            failing = True
        else:
            failing = False
            for tid, round_no, table_no in sent:
                log.info("turniej %d, runda %d: stół %d — czas rundy minął, round-over wysłany",
                         tid, round_no, table_no)  # fmt: skip
        await asyncio.sleep(every_s)


class EnvelopeLane:
    """``POST`` to the envelope routes, answered in front of the router (pure ASGI)."""

    def __init__(self, app: ASGIApp, clerk: Clerk) -> None:
        self.app = app
        self.clerk = clerk

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = p.TYPE_OF_PATH.get(scope["path"]) if scope["type"] == "http" else None
        if kind is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            response = await answer(self.clerk, _chunks(receive), kind)
        except _GoneError:
            return  # the table hung up before its envelope was whole: no one to answer
        await response(scope, receive, send)


async def answer(clerk: Clerk, chunks: AsyncIterator[bytes], kind: str) -> JSONResponse:
    """The answer to one envelope of type ``kind`` sent as ``chunks`` of bytes."""
    try:
        data = await _body(chunks)
    except TooLargeError as error:
        return JSONResponse({"status": "invalid", "error": str(error)}, 413)
    taken = await clerk.take(data, kind)
    return JSONResponse(taken.body, status_code=taken.status)


async def _body(chunks: AsyncIterator[bytes]) -> bytes:
    """The request's bytes, refused (413) past ``MAX_BODY`` without reading them all."""
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > p.MAX_BODY:
            raise TooLargeError(f"(envelope): over {p.MAX_BODY} bytes")
    return bytes(data)


class _GoneError(Exception):
    pass


async def _chunks(receive: Receive) -> AsyncIterator[bytes]:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _GoneError
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return
