"""A tournament's players: enrolled from a list (JSON or a CSV file, all or none), listed for
the judge with their codes, changed (renamed, withdrawn, reinstated, a family marked) and
sanctioned; each change a logged event of the judge's."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse

from klik.errors import KlikError
from klik.words import Words, words
from klik_hub import office
from klik_hub.api.deps import (
    JUDGE_ONLY,
    JUDGE_READS,
    Checked,
    Id,
    Reader,
    StoreDep,
    error,
    public,
)
from klik_hub.api.models import PlayerChangeIn, SanctionIn
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.tournament import roster

router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)
MAX_CSV = 1 << 20  # bytes: a thousand players with long names fit many times over
PLAYERS_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string"},
                            "club": {"type": "string"},
                            "needs": {"$ref": "#/components/schemas/NeedsIn"},
                        },
                    },
                }
            },
            "text/csv": {"schema": {"type": "string"}},
        },
    }
}


class BadListError(KlikError, ValueError):
    def __init__(self, status: int, message: Words) -> None:
        super().__init__(message)
        self.status = status


def entrants_of(kind: str, data: bytes) -> list[roster.Entrant]:
    """The players of an enrolment's body: a CSV file or a JSON list (RosterError if bad)."""
    if len(data) > MAX_CSV:
        raise BadListError(413, words("the list is over {most} bytes", most=MAX_CSV))
    if kind not in ("text/csv", "application/json"):
        raise BadListError(415, words("send application/json or text/csv"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        said = words("byte {at}: not UTF-8; save the file as UTF-8", at=bad.start)
        raise BadListError(422, said) from None
    if kind == "text/csv":
        return roster.from_csv(text)
    try:
        sent = json.loads(text)
    except ValueError:
        raise BadListError(422, words("the body is not JSON")) from None
    return roster.from_json(sent)


@router.post(
    "/{tid}/players",
    status_code=201,
    openapi_extra=PLAYERS_BODY,
    dependencies=JUDGE_ONLY,
    response_model=list[answers.Player],
    responses=refusals(404, 409, 415, 422, *JUDGE),
)
async def enrol(
    tid: Id, request: Request, store: StoreDep, language: Reader, allow_same_name: bool = False
) -> list[dict[str, Any]] | JSONResponse:
    """Enrol players: a JSON list of ``{"name", "club", "needs"}`` (club and needs optional)
    or a CSV file (``text/csv``, a ``needs`` column of words: ``vibration,large,quiet,table=3``),
    all or none → 201 with the new players and their ids (start numbers). 409 for a list
    whose players are all enrolled already (sent twice), or for an entry with the name
    and club of an enrolled player unless ``allow_same_name``."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        entrants = entrants_of(kind, await request.body())
        enrolled = office.players.enrol(store, tid, entrants, allow_same_name=allow_same_name)
        return enrolled
    except BadListError as problem:
        return error(problem.status, problem.into(language))
    except roster.RosterError as problem:
        return error(422, problem.into(language))


@router.get(
    "/{tid}/players",
    dependencies=JUDGE_ONLY,
    response_model=list[answers.Player],
    responses=refusals(404, 422, *JUDGE),
)
def players(tid: Id, store: StoreDep) -> list[dict[str, Any]]:
    """Every enrolled player: ``{"id", "name", "club", "active", "code", "needs"}`` by start
    number; the judge's only, as it carries each player's code (their page's address)."""
    return office.players.listed(store, tid)


@router.patch(
    "/{tid}/players/{player}",
    dependencies=JUDGE_ONLY,
    response_model=answers.Player,
    responses=refusals(404, 422, *JUDGE),
)
def edit_player(
    tid: Id,
    player: Annotated[int, Path(ge=1, le=2**31 - 1)],
    change: PlayerChangeIn,
    store: StoreDep,
) -> dict[str, Any]:
    """Rename a player, fix their club, mark their family (``family``: kept apart in
    random stages' draws), set their needs (``needs``: any of its keys, the others stay; a
    table playing the round is sent its lineup again), withdraw (``"active": false``: not
    drawn again, their games still count for their opponents) or reinstate them → 200 the
    player; a logged event with its reason, who and when."""
    wanted = change.model_dump(include={"name", "club", "family", "active"})
    wanted["needs"] = change.needs.given() if change.needs is not None else None
    return office.players.edit(store, tid, player, wanted, reason=change.reason, by=change.by)


@router.post(
    "/{tid}/sanctions",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Sanction,
    responses=refusals(404, 409, 422, *JUDGE),
)
def sanction(tid: Id, given: SanctionIn, store: StoreDep) -> dict[str, Any]:
    """A sanction (001 ZASADY 3, 000 u, 004 19) → 201 ``{"id", "player", "name", "kind",
    "big", "stage", "reason", "by", "at"}``: a warning, a deduction of big points (in the
    stage in play and the classification) or an exclusion (not drawn again, marked on the
    standings); every one in the audit log."""
    return office.sanctions.give(
        store,
        tid,
        given.player,
        kind=given.kind,
        big=given.big,
        reason=given.reason,
        by=given.by,
    )


@router.get(
    "/{tid}/sanctions",
    dependencies=JUDGE_READS,
    response_model=list[answers.Sanction],
    response_model_exclude_unset=True,
    responses=refusals(404, 422),
)
def sanctions(request: Request, tid: Id, store: StoreDep) -> list[dict[str, Any]]:
    """Every sanction, newest first: its kind, big points and stage; the judge also reads
    its ``reason`` and ``by`` (anyone else's answer has neither: ``office.release``)."""
    return office.release.given(store, tid, public=public(request))
