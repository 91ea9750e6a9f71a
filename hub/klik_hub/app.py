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

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPBasic
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from klik.link import protocol as p
from klik_hub import judge, tournament_api
from klik_hub.inbox import Clerk, TooLargeError
from klik_hub.store import COMMAND_KINDS, Store
from klik_hub.tournaments import TournamentError

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
ENVELOPE_PATHS = {"/api/v1/results": "result", "/api/v1/heartbeats": "heartbeat"}
ENVELOPE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": ENVELOPE_SCHEMA}},
    }
}


class Answer(BaseModel):
    status: str = Field(description="stored, duplicate, conflict, ok, refused or invalid")
    receipt: str | None = Field(None, description="the result's receipt, R-XXXXX on screens")
    error: str | None = Field(None, description="what was wrong, naming the field")
    commands: list[dict[str, Any]] | None = None
    ack: dict[str, Any] | None = Field(None, description="the same answer, signed for the table")


class CommandIn(BaseModel):
    kind: str = Field(description=f"one of {', '.join(COMMAND_KINDS)}")
    args: dict[str, Any] = Field(default_factory=dict)


class JudgeBasic(HTTPBasic):
    """HTTP Basic in the OpenAPI; the header itself is checked by ``judge.Gate`` (a bad one
    gets the hub's own one-line 401, not FastAPI's)."""

    async def __call__(self, request: Request) -> None:  # type: ignore[override]
        return None


# Module level: FastAPI reads the judge's dependency's annotations from this module's names.
BASIC = JudgeBasic(auto_error=False, description="user judge, the judge's password")
CONSOLE_HEADER = "x-klik-console"  # sent by the judge's console (web/console.js)
POSTGRESQL_CLERKS = 4  # PostgreSQL takes several writers at once; SQLite one


def make_app(store: Store) -> FastAPI:
    clerk = Clerk(store, 1 if store.engine.dialect.name == "sqlite" else POSTGRESQL_CLERKS)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        clerk.stop()

    app = FastAPI(
        title="Klik hub",
        version="1",
        description="Results, heartbeats and commands of a Rummikub tournament's tables.",
        lifespan=lifespan,
    )
    app.add_middleware(EnvelopeLane, clerk=clerk)
    gate = judge.Gate(lambda: store.setting(judge.SETTING))

    def judge_only(request: Request, _sent: Annotated[None, Depends(BASIC)]) -> None:
        """Routes that change the tournament or order a table: the judge's password."""
        if not gate.allows(request.headers.get("authorization")):
            raise NeedJudgeError

    @app.exception_handler(NeedJudgeError)
    async def need_judge(request: Request, _problem: NeedJudgeError) -> JSONResponse:
        message = "the judge's password is needed (HTTP Basic, user judge)"
        # A browser meets "Basic" with its own password prompt, which would hold up the
        # console's request; the console asks in its own form, so it is told another scheme.
        console = CONSOLE_HEADER in request.headers
        challenge = judge.CONSOLE_REALM if console else judge.REALM
        return JSONResponse({"error": message}, 401, {"WWW-Authenticate": challenge})

    @app.exception_handler(TournamentError)
    async def tournament_says_no(_request: Request, problem: TournamentError) -> JSONResponse:
        return tournament_api.refused(problem)

    app.include_router(tournament_api.router(store, Depends(judge_only)))
    app.include_router(tournament_api.pages(store))

    @app.exception_handler(RequestValidationError)
    async def one_line(_request: Request, problem: RequestValidationError) -> JSONResponse:
        """A request that breaks its schema: the first fault in one line, as every error."""
        first = problem.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return JSONResponse({"error": f"{where}: {first.get('msg', 'invalid')}"}, 422)

    @app.post(
        "/api/v1/results",
        status_code=201,
        response_model=Answer,
        response_model_exclude_none=True,
        openapi_extra=ENVELOPE_BODY,
        responses={code: {"model": Answer} for code in (200, 401, 409, 413, 422)},
    )
    async def post_result(request: Request) -> JSONResponse:
        """A finished game's result: 201 stored, 200 duplicate, 409 conflict (both kept)."""
        return await answer(clerk, request.stream(), "result")

    @app.post(
        "/api/v1/heartbeats",
        response_model=Answer,
        response_model_exclude_none=True,
        openapi_extra=ENVELOPE_BODY,
        responses={code: {"model": Answer} for code in (401, 413, 422)},
    )
    async def post_heartbeat(request: Request) -> JSONResponse:
        """A table's state; the answer carries the commands waiting for it."""
        return await answer(clerk, request.stream(), "heartbeat")

    @app.get("/api/v1/results")
    def get_results(
        table: Annotated[int | None, Query(ge=1, le=999)] = None,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
    ) -> list[dict[str, Any]]:
        """The stored results, newest first; ``table`` keeps one table's."""
        return store.results(table_no=table, limit=limit)

    @app.get("/api/v1/tables")
    def get_tables() -> list[dict[str, Any]]:
        """Every paired table: last contact, last heartbeat's state, commands waiting."""
        return store.tables()

    @app.post(
        "/api/v1/tables/{table}/commands",
        dependencies=[Depends(judge_only)],
        status_code=201,
        response_model=Answer,
        response_model_exclude_none=True,
        responses={404: {"model": Answer}, 422: {"model": Answer}},
    )
    def post_command(table: Annotated[int, Path(ge=1, le=999)], command: CommandIn) -> JSONResponse:
        """Queue a hub → table command (pause, resume, round-over, start, players)."""
        if not store.paired(table):
            return JSONResponse({"status": "invalid", "error": f"table {table} is not paired"}, 404)
        if command.kind not in COMMAND_KINDS:
            error = f"kind: allowed are {', '.join(COMMAND_KINDS)}"
            return JSONResponse({"status": "invalid", "error": error}, 422)
        try:
            p.canonical(command.args)
        except p.ProtocolError as error:
            return JSONResponse({"status": "invalid", "error": f"args.{error}"}, 422)
        command_id = store.command(table, command.kind, command.args)
        return JSONResponse({"status": "queued", "id": command_id}, 201)

    @app.get("/api/v1/judge", dependencies=[Depends(judge_only)])
    def is_judge() -> dict[str, bool]:
        """200 ``{"judge": true}`` with the judge's password (or none set); else 401."""
        return {"judge": True}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse(_web("index.html"))

    @app.get("/console.js", include_in_schema=False)
    def script() -> Response:
        return Response(_web("console.js"), media_type="text/javascript; charset=utf-8")

    return app


def _web(name: str) -> str:
    return resources.files("klik_hub").joinpath(f"web/{name}").read_text(encoding="utf-8")


class EnvelopeLane:
    """``POST`` to the envelope routes, answered in front of the router (pure ASGI)."""

    def __init__(self, app: ASGIApp, clerk: Clerk) -> None:
        self.app = app
        self.clerk = clerk

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = ENVELOPE_PATHS.get(scope["path"]) if scope["type"] == "http" else None
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


class NeedJudgeError(Exception):
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
