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
import pathlib  # fastapi's Path is the path parameter's
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPBasic
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from klik import words as catalogue_script
from klik.errors import KlikError
from klik.link import protocol as p
from klik.words import Language, words
from klik_hub import hall, office
from klik_hub.api import install as install_api
from klik_hub.api import pairing as pairing_api
from klik_hub.api import public as public_api
from klik_hub.api import tournaments as tournament_api
from klik_hub.api.feed import Feed, Pokes
from klik_hub.door import answers, faults, judge
from klik_hub.door.answers import JUDGE, Answer, refusals
from klik_hub.door.guard import TROUBLE_CODES, Guard, Troubles, refusal, session_of
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


#: What the judge's command route queues: a renumbering has its own route, which changes
#: the hub's records with it (``office.renumbering``).
SENT_KINDS = tuple(k for k in p.COMMAND_KINDS if k != p.CommandKind.RENUMBER)


class CommandIn(BaseModel):
    kind: str = Field(description=f"one of {', '.join(SENT_KINDS)}")
    args: dict[str, Any] = Field(default_factory=dict)


class SessionIn(BaseModel):
    password: str = Field(max_length=1024, description="the judge's password")


class JudgeBasic(HTTPBasic):
    """HTTP Basic in the OpenAPI; the header (or the session cookie) is checked by
    ``guard.Guard`` before the route is reached, so a bad one never gets a body read."""

    async def __call__(self, request: Request) -> None:  # type: ignore[override]
        return None


# Module level: FastAPI reads the judge's dependency's annotations from this module's names.
BASIC = JudgeBasic(auto_error=False, description="user judge, the judge's password")
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


def make_app(  # noqa: PLR0915 (the app and its routes, wired in one place)
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
    SHA-256, sealed into the answer of a table that pairs at the table (``pairing_api``);
    ``bundle``: the tables' install, served at ``/install`` (``install_api``; --bundle)."""
    clerk = Clerk(store, 1 if store.engine.dialect.name == "sqlite" else POSTGRESQL_CLERKS)
    tallies = Tallies(store)
    feed = Feed(store, warm=tallies.of)

    app = FastAPI(
        title="Klik hub",
        version="1",
        description="Results, heartbeats and commands of a Rummikub tournament's tables.",
        lifespan=_lifespan(store, clerk, feed),
        responses=refusals(503),  # any route, while the disk is full or the database is down
        **NO_TELEMETRY,
    )
    app.state.listening = listening
    app.add_middleware(EnvelopeLane, clerk=clerk)
    app.add_middleware(Pokes, feed=feed)
    gate = judge.Gate(store)
    troubles = troubles or Troubles()
    app.add_middleware(Guard, gate=gate, public_names=public_names, troubles=troubles)

    def judge_only(request: Request, _sent: Annotated[None, Depends(BASIC)]) -> None:
        """Routes that change the tournament or order a table: the guard found the judge.
        Checked again here so a route the guard's rule missed fails closed."""
        if not getattr(request.state, "judge", False):
            raise NeedJudgeError

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
        return tournament_api.refused(problem, tournament_api.reader(request))

    app.include_router(session_router(gate, tls=tls))
    app.include_router(console_router())
    app.include_router(tournament_api.router(store, Depends(judge_only), reads_of(gate)))
    app.include_router(tournament_api.pages(store, Depends(judge_only), reads_of(gate)))
    app.include_router(public_api.router(tallies, feed))
    app.include_router(pairing_api.router(store, Depends(judge_only), tls_pin))
    app.include_router(install_api.router(bundle))

    @app.exception_handler(RequestValidationError)
    async def one_line(request: Request, problem: RequestValidationError) -> JSONResponse:
        """A request that breaks its schema: the first fault in one line, as every error,
        in the reader's language (``klik_hub.door.faults``)."""
        said = faults.one_line(problem.errors()[0], tournament_api.reader(request))
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

    @app.get(
        "/api/v1/results",
        response_model=list[answers.StoredResult],
        responses=refusals(422),
        dependencies=[reads_of(gate)],
    )
    def get_results(
        request: Request,
        table: Annotated[int | None, Query(ge=1, le=999)] = None,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
    ) -> list[dict[str, Any]]:
        """The stored results, newest first; ``table`` keeps one table's. Anyone but the
        judge is not shown the results of a round held back (``office.release``)."""
        return office.release.stored(
            store,
            hall.results.newest(store, table_no=table, limit=limit),
            public=tournament_api.public(request),
        )

    @app.get("/api/v1/tables", response_model=list[answers.Table])
    def get_tables() -> list[dict[str, Any]]:
        """Every paired table: last contact, last heartbeat's state, commands waiting."""
        return hall.devices.tables(store)

    @app.post(
        "/api/v1/tables/{table}/commands",
        dependencies=[Depends(judge_only)],
        status_code=201,
        response_model=answers.Queued,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def post_command(
        table: Annotated[int, Path(ge=1, le=999)], command: CommandIn, request: Request
    ) -> answers.Queued | JSONResponse:
        """Queue a hub → table command (pause, resume, round-over, start, players); 409 for
        a ``start`` of a table whose last heartbeat names another protocol revision."""
        refused = _not_for(store, table, command.kind, tournament_api.reader(request))
        if refused is not None:
            return refused
        try:
            p.canonical(command.args)
        except p.ProtocolError as error:
            return JSONResponse({"status": "invalid", "error": f"args.{error}"}, 422)
        command_id = hall.commands.send(store, table, command.kind, command.args)
        return answers.Queued(status="queued", id=command_id)

    # {"ok": true} carries no trouble: only the keys set are answered.
    @app.get("/api/v1/health", response_model=answers.Health, response_model_exclude_unset=True)
    def health() -> dict[str, Any]:
        """``{"ok": true}``, or ``{"ok": false, "trouble": "disk_full" | "database_down",
        "error": …}`` while the disk is full or the database does not answer (met within the
        last minute): the console's red banner."""
        trouble = troubles.now()
        if trouble is None:
            return {"ok": True}
        return {"ok": False, "trouble": TROUBLE_CODES[trouble], "error": trouble}

    @app.get(
        "/api/v1/judge",
        dependencies=[Depends(judge_only)],
        response_model=answers.Judge,
        responses=refusals(401, 429),
    )
    def is_judge() -> answers.Judge:
        """200 ``{"judge": true, "open": …}`` with the judge's password or session, or when
        no password is set (``open``: true, a hub on loopback; nobody logs in); else 401."""
        return answers.Judge(judge=True, open=store.setting(judge.SETTING) is None)

    return app


def reads_of(gate: judge.Gate) -> Any:
    """The dependency (a ``Depends``) of a read that shows results: it marks the request
    the judge's (``request.state.judge``) if it is, for the judge sees every result and
    anyone else a tournament's results as released (``office.release``). The judge's session
    cookie counts with or without the console's header, as for a printed page (a read
    changes nothing, and only the hub's own pages may read its answer); so do the password
    and a hub with none set."""

    async def judge_reads(request: Request) -> None:
        if getattr(request.state, "judge", False):
            return
        client = request.client.host if request.client else "?"
        cookie = session_of(dict(request.headers))
        verdict = await gate.judge(request.headers.get("authorization"), cookie, client)
        if verdict.ok:
            request.state.judge = True

    return Depends(judge_reads)


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


def session_router(gate: judge.Gate, *, tls: bool) -> APIRouter:
    """Logging the judge's console in and out."""
    api = APIRouter(tags=["judge"])

    @api.post(
        "/api/v1/session",
        response_model=answers.LoggedIn,
        responses=refusals(401, 403, 413, 422, 429),
    )
    async def log_in(
        request: Request, sent: SessionIn, response: Response
    ) -> answers.LoggedIn | JSONResponse:
        """The console logs in once: a session cookie for 12 hours (HttpOnly, SameSite=Strict,
        Secure over HTTPS). After 5 wrong passwords a client waits (429, ``Retry-After``)."""
        client = request.client.host if request.client else "?"
        verdict, token = await gate.login(sent.password, client)
        if token is None:
            status, error, headers = refusal(verdict, console=True)
            return JSONResponse({"error": error}, status, headers)
        response.set_cookie(
            judge.SESSION_COOKIE,
            token,
            max_age=judge.SESSION_MS // 1000,
            path="/",
            secure=tls,
            httponly=True,
            samesite="strict",
        )
        return answers.LoggedIn(judge=True)

    @api.delete("/api/v1/session", status_code=204, responses=refusals(403))
    async def log_out(request: Request) -> Response:
        """Log out: the session ends on the hub, and the browser forgets the cookie."""
        await gate.logout(session_of({k.lower(): v for k, v in request.headers.items()}))
        response = Response(status_code=204)
        response.delete_cookie(
            judge.SESSION_COOKIE, path="/", secure=tls, httponly=True, samesite="strict"
        )
        return response

    return api


def _not_for(store: Store, table: int, kind: str, language: Language) -> JSONResponse | None:
    """Why a command cannot be queued for ``table``, in the reader's language, or None."""
    if not hall.devices.paired(store, table):
        error = words("table {table} is not paired", table=table).into(language)
        return JSONResponse({"status": "invalid", "error": error}, 404)
    if kind not in SENT_KINDS:
        kinds = ", ".join(SENT_KINDS)
        error = words("kind: allowed are {kinds}", kinds=kinds).into(language)
        return JSONResponse({"status": "invalid", "error": error}, 422)
    if kind == p.CommandKind.START:
        # as a round's start does: a table on another protocol revision is not started
        office.rounds.startable(store, [table])  # ConflictError: 409, in one line
    return None


def console_router() -> APIRouter:
    """The judge's console: its page and its script."""
    web = APIRouter(include_in_schema=False)

    @web.get("/", response_class=HTMLResponse)
    def page() -> HTMLResponse:
        return HTMLResponse(_web("index.html"))

    @web.get("/console.js")
    def script() -> Response:
        return Response(_web("console.js"), media_type="text/javascript; charset=utf-8")

    @web.get("/words.js")
    def catalogue() -> Response:
        """The catalogue for the console's and the projector's scripts (klik.words)."""
        return Response(catalogue_script.script(), media_type="text/javascript; charset=utf-8")

    return web


def _web(name: str) -> str:
    return resources.files("klik_hub").joinpath(f"web/{name}").read_text(encoding="utf-8")


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


class NeedJudgeError(KlikError, PermissionError):
    """A judge's route asked without the judge's password (401)."""


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
