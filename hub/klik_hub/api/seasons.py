"""A league's seasons (``klik_hub.league.seasons``): made and given meetings by the judge,
their table public.

``POST /api/v1/seasons`` ``{"name", "best": N | null, "points": "big" | [points for place
1, 2, …]}`` → 201 ``{"id"}``; ``POST /api/v1/seasons/{id}/tournaments`` ``{"tournament": T}``
→ 201, the season; ``GET /api/v1/seasons`` and ``GET /api/v1/seasons/{id}``;
``GET /api/v1/seasons/{id}/standings`` → ``[{"place", "person", "name", "points",
"meetings"}]``; ``GET /s/{id}`` the table as a page.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from klik_hub import league
from klik_hub.api.deps import JUDGE_ONLY, Checked, FreeText, StoreDep
from klik_hub.api.models import In
from klik_hub.api.public import page_of
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.office.errors import NotFoundError
from klik_hub.tournament.seasons import MAX_MEETINGS, MAX_POINTS

router = APIRouter(route_class=Checked)
Sid = Annotated[int, Path(ge=1, le=2**31 - 1, description="the season's id")]
Points = Annotated[int, Field(ge=0, le=MAX_POINTS)]
PLACES = 64  # points for at most so many places: beyond the list a place gives 0
PerPlace = Annotated[list[Points], Field(min_length=1, max_length=PLACES)]


class SeasonIn(In):
    name: FreeText = Field(min_length=1, max_length=200, description="shown on the season's table")
    best: int | None = Field(
        None, ge=1, le=MAX_MEETINGS, description="a person's best N meetings count; null: all"
    )
    points: Literal["big"] | PerPlace = Field(
        "big",
        description='"big": each meeting gives a person their big points; or the points for '
        "place 1, 2, … of its classification (none above the one before; a place beyond the "
        "list gives 0)",
    )


class MeetingIn(In):
    tournament: int = Field(ge=1, le=2**31 - 1, description="a tournament of this hub")


class Season(BaseModel):
    id: int
    name: str
    best: int | None
    points: str | list[int]
    meetings: list[int] = Field(description="its tournaments, oldest first")


class SeasonLine(BaseModel):
    place: int = Field(description="shared on a tie (1, 2, 2, 4)")
    person: int
    name: str
    points: int
    meetings: int = Field(description="the meetings the person was placed in")


@router.post(
    "/api/v1/seasons",
    tags=["seasons"],
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Created,
    responses=refusals(422, *JUDGE),
)
def create(body: SeasonIn, store: StoreDep) -> dict[str, int]:
    """A new season → 201 ``{"id"}``."""
    points = body.points if isinstance(body.points, str) else list(body.points)
    return {"id": league.seasons.create(store, body.name.strip(), body.best, points)}


@router.get("/api/v1/seasons", tags=["seasons"], response_model=list[Season])
def listed(store: StoreDep) -> list[dict[str, Any]]:
    """Every season, newest first."""
    return league.seasons.listed(store)


@router.get(
    "/api/v1/seasons/{sid}", tags=["seasons"], response_model=Season, responses=refusals(404, 422)
)
def one(sid: Sid, store: StoreDep) -> dict[str, Any]:
    return league.seasons.one(store, sid)


@router.post(
    "/api/v1/seasons/{sid}/tournaments",
    tags=["seasons"],
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=Season,
    responses=refusals(404, 409, 422, *JUDGE),
)
def add_meeting(sid: Sid, body: MeetingIn, store: StoreDep) -> dict[str, Any]:
    """A tournament becomes a meeting of the season → 201, the season."""
    return league.seasons.add_meeting(store, sid, body.tournament)


@router.get(
    "/api/v1/seasons/{sid}/standings",
    tags=["seasons"],
    response_model=list[SeasonLine],
    responses=refusals(404, 422),
)
def standings(sid: Sid, store: StoreDep) -> list[dict[str, Any]]:
    """The season's table, best first (public)."""
    return league.seasons.standings(store, sid)


@router.get("/s/{sid}", response_class=HTMLResponse, include_in_schema=False)
def page(sid: int, store: StoreDep, lang: str = "pl") -> HTMLResponse:
    """The season's table as a page, for a phone or the hall's screen."""
    try:
        season = league.seasons.one(store, sid)
    except NotFoundError:
        return page_of("season.html", lang, 404, season=None, rows=[])
    return page_of("season.html", lang, season=season, rows=league.seasons.standings(store, sid))
