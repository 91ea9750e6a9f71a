"""The hub's HTTP API and live page (FastAPI); ``docs/protocol.md`` is the contract.

Envelopes are read as raw bytes and parsed by ``klik.link.protocol`` (strictly: no coercion,
so the MAC is checked over exactly what the table signed). The order of the checks is the
contract's: the envelope's shape (422), then who signed it (401), then the result's schema
(422), then whether the device may speak for that table (401). Every answer to a table
carries an ``ack`` envelope signed with the table's key, so a table believes a receipt only
if it comes from its hub.
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from klik.link import protocol as p
from klik_hub.inbox import TooLargeError, take
from klik_hub.store import COMMAND_KINDS, Store

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


class Answer(BaseModel):
    status: str = Field(description="stored, duplicate, conflict, ok, refused or invalid")
    receipt: str | None = Field(None, description="the result's receipt, R-XXXXX on screens")
    error: str | None = Field(None, description="what was wrong, naming the field")
    commands: list[dict[str, Any]] | None = None
    ack: dict[str, Any] | None = Field(None, description="the same answer, signed for the table")


class CommandIn(BaseModel):
    kind: str = Field(description=f"one of {', '.join(COMMAND_KINDS)}")
    args: dict[str, Any] = Field(default_factory=dict)


def make_app(store: Store) -> FastAPI:
    app = FastAPI(
        title="Klik hub",
        version="1",
        description="Results, heartbeats and commands of a Rummikub tournament's tables.",
    )

    async def envelope(request: Request, kind: str) -> JSONResponse:
        try:
            data = await _body(request)
        except TooLargeError as error:
            return JSONResponse({"status": "invalid", "error": str(error)}, 413)
        answer = await run_in_threadpool(take, store, data, kind)
        return JSONResponse(answer.body, status_code=answer.status)

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
        return await envelope(request, "result")

    @app.post(
        "/api/v1/heartbeats",
        response_model=Answer,
        response_model_exclude_none=True,
        openapi_extra=ENVELOPE_BODY,
        responses={code: {"model": Answer} for code in (401, 413, 422)},
    )
    async def post_heartbeat(request: Request) -> JSONResponse:
        """A table's state; the answer carries the commands waiting for it."""
        return await envelope(request, "heartbeat")

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
        status_code=201,
        response_model=Answer,
        response_model_exclude_none=True,
        responses={404: {"model": Answer}, 422: {"model": Answer}},
    )
    def post_command(table: int, command: CommandIn) -> JSONResponse:
        """Queue a hub → table command (pause, resume, round-over, start, players)."""
        if not any(t["table"] == table for t in store.tables()):
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

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse(resources.files("klik_hub").joinpath("web/index.html").read_text())

    return app


async def _body(request: Request) -> bytes:
    """The request's bytes, refused (413) past ``MAX_BODY`` without reading them all."""
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > p.MAX_BODY:
            raise TooLargeError(f"(envelope): over {p.MAX_BODY} bytes")
    return bytes(data)
