"""The paired tables as the judge's console sees them: every table's last contact and state,
the results they sent, and a command queued for one (``hall.commands``). The tables' own
routes, the envelopes, are ``klik_hub.app``'s (answered in front of the router)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse

from klik.link import protocol as p
from klik.words import Language, catalogue, words
from klik_hub import hall, office
from klik_hub.api.deps import JUDGE_ONLY, JUDGE_READS, Reader, StoreDep, public
from klik_hub.api.models import SENT_KINDS, CommandIn
from klik_hub.door import answers, fields
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.storage.store import Store

router = APIRouter()


@router.get(
    "/api/v1/results",
    response_model=list[answers.StoredResult],
    responses=refusals(422),
    dependencies=JUDGE_READS,
)
def get_results(
    request: Request,
    store: StoreDep,
    table: Annotated[int | None, Query(ge=1, le=999)] = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[dict[str, Any]]:
    """The stored results, newest first; ``table`` keeps one table's. Anyone but the
    judge is not shown the results of a round held back (``office.release``)."""
    return office.release.stored(
        store,
        hall.results.newest(store, table_no=table, limit=limit),
        public=public(request),
    )


@router.get("/api/v1/tables", response_model=list[answers.Table])
def get_tables(store: StoreDep) -> list[dict[str, Any]]:
    """Every paired table: last contact, last heartbeat's state, commands waiting."""
    return hall.devices.tables(store)


@router.post(
    "/api/v1/tables/{table}/commands",
    dependencies=JUDGE_ONLY,
    status_code=201,
    response_model=answers.Queued,
    responses=refusals(404, 409, 422, *JUDGE),
)
def post_command(
    table: Annotated[int, Path(ge=1, le=999)],
    command: CommandIn,
    store: StoreDep,
    language: Reader,
) -> answers.Queued | JSONResponse:
    """Queue a hub → table command (pause, resume, round-over, start, players); 409 for
    a ``start`` of a table whose last heartbeat names another protocol revision."""
    refused = _not_for(store, table, command.kind, language)
    if refused is not None:
        return refused
    try:
        p.canonical(command.args)
    except p.ProtocolError as error:
        return JSONResponse({"status": "invalid", "error": _args_fault(error, language)}, 422)
    command_id = hall.commands.send(store, table, command.kind, command.args)
    return answers.Queued(status="queued", id=command_id)


def _args_fault(error: p.ProtocolError, language: Language) -> str:
    """Why a command's args cannot go to a table: ``args.x: …`` in English (scripts send
    args), ``Argumenty, x: …`` in Polish, the field named by its label."""
    if language is Language.EN:
        return f"args.{error}"
    label = fields.named(("body", "args"), language)
    where = label if error.field == "(top)" else f"{label}, {error.field}"
    why = catalogue(language).gettext(error.why)
    return f"{where}: {why.format(**error.names) if error.names else why}"


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
