"""The tournament's API for the judge's console: a tournament made, listed, read, put in play,
and its standings. Its players, rounds, check-in, results and exports are the modules beside
it (``players``, ``rounds``, ``checkin``, ``results``, ``prints``), under the same prefix.

Every error is one line of JSON, ``{"error": "..."}``, saying what is wrong and what is
allowed; a draw refused for missing results also lists them (``"missing"``). The routes are
documented in ``/openapi.json``, every answer by its model (``klik_hub.door.answers``); the
README's table of them is the contract. The tournament's errors know no HTTP: ``refused``
answers each kind with its status, for every route (the app's exception handler).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from klik.words import Language, words
from klik_hub import office
from klik_hub.api.deps import JUDGE_ONLY, JUDGE_READS, Checked, Id, Reader, StoreDep, error, public
from klik_hub.api.models import TournamentIn
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.office.errors import (
    ConflictError,
    HeldTableError,
    MissingResultsError,
    NotFoundError,
    TournamentError,
)
from klik_hub.tournament import formats as f

router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)
OF_ONE = refusals(404, 422)  # a route about tournament ``tid``: there may be none

# The tournament's errors know no HTTP; the routes answer each kind with its status.
STATUS_OF = ((NotFoundError, 404), (ConflictError, 409), (TournamentError, 422))


def refused(problem: TournamentError, language: Language) -> JSONResponse:
    """Any route's TournamentError, as the app's exception handler answers it: one line, in
    the reader's ``language``."""
    status = next(code for kind, code in STATUS_OF if isinstance(problem, kind))
    if isinstance(problem, MissingResultsError):
        return error(status, problem.into(language), missing=problem.missing)
    if isinstance(problem, HeldTableError):
        return error(status, problem.into(language), held_by=problem.held_by)
    return error(status, problem.into(language))


@router.post(
    "",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Created,
    responses=refusals(422, *JUDGE),
)
def create(
    tournament: TournamentIn, store: StoreDep, language: Reader
) -> answers.Created | JSONResponse:
    """A new tournament → 201 ``{"id": ...}``."""
    if tournament.format not in f.preset_names():
        allowed = ", ".join(f.preset_names())
        said = words(
            "format {format!r}: allowed are {formats}",
            format=tournament.format,
            formats=allowed,
        )
        return error(422, said.into(language))
    new = office.tournaments.create(
        store,
        tournament.name.strip(),
        tournament.rules,
        tournament.format,
        tournament.move_time_s,
        round_time_s=tournament.round_time_s,
        release_together=tournament.release_together,
    )
    return answers.Created(id=new)


@router.get("", response_model=list[answers.TournamentListed])
def listed(store: StoreDep) -> list[dict[str, Any]]:
    """Every tournament, newest first."""
    return office.tournaments.listed(store)


@router.get("/{tid}", response_model=answers.Tournament, responses=OF_ONE)
def get(tid: Id, store: StoreDep) -> dict[str, Any]:
    """The tournament: its settings, how many players, the rounds drawn."""
    return office.tournaments.get(store, tid)


@router.post(
    "/{tid}/play",
    dependencies=JUDGE_ONLY,
    response_model=answers.InPlay,
    responses=refusals(404, 422, *JUDGE),
)
def play(tid: Id, store: StoreDep) -> answers.InPlay:
    """Mark the tournament in play: ``/projector`` and the console show it → 200."""
    office.tournaments.play(store, tid)
    return answers.InPlay(in_play=tid)


@router.get(
    "/{tid}/standings",
    dependencies=JUDGE_READS,
    response_model=list[answers.StandingRow],
    responses=OF_ONE,
)
def get_standings(
    request: Request,
    tid: Id,
    store: StoreDep,
    stage: Annotated[str | None, Query(max_length=64)] = None,
) -> list[answers.StandingRow]:
    """The final classification, best first: ``{"place", "player", "name", "big",
    "small", "games", "stage", "status", "deductions"}``; by the last stage each player
    reached (the format's ``classification``), each row with the points of the stage that
    placed it (``stage``), and each player's ``club``. ``status``: ``withdrawn`` or
    ``excluded`` where the judge did so, else ``unplaced`` for a player no game of whose
    counts (``place`` null, after everyone with a place), else ``classified``.
    ``deductions``: the big points the judge took, each with the stage it was given in
    (counted in ``big``). ``stage`` gives that stage's standings, of its own players only.
    Anyone but the judge is not shown the results of a round held back (the tournament's
    ``release_together``)."""
    clubs = {p["id"]: p["club"] for p in office.players.listed(store, tid)}
    return [
        answers.StandingRow(**office.standings.shown(x, clubs.get(x.player, "")))
        for x in office.release.ranked(store, tid, stage, public=public(request))
    ]
