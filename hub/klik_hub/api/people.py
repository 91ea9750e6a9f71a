"""People across tournaments and their ratings (``klik_hub.league``).

``GET /api/v1/ratings`` (public) is the rating list, best first, and ``GET /ratings.csv`` the
same as CSV; ``GET /api/v1/tournaments/{tid}/players/{p}/people`` (the judge's) suggests the
known people an enrolment may be, and ``PUT …/players/{p}/person`` ``{"person"}`` links it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from klik_hub import league
from klik_hub.api.deps import (
    JUDGE_ONLY,
    JUDGE_READS,
    Checked,
    FreeText,
    Id,
    Lang,
    RatingsDep,
    StoreDep,
)
from klik_hub.api.models import In
from klik_hub.api.prints import attached, csv_file
from klik_hub.api.public import page_of
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.reports import exports

router = APIRouter(route_class=Checked)
Player = Annotated[int, Path(ge=1, le=2**31 - 1, description="the player's start number")]


class Rated(BaseModel):
    person: int = Field(description="the person's id on this hub, across tournaments")
    name: str
    rating: float = Field(description="the conservative figure, mu - 3 sigma (0 for a newcomer)")
    mu: float = Field(description="the rating's skill estimate (25 for a newcomer)")
    sigma: float = Field(description="how unsure it is (25/3 for a newcomer)")
    games: int = Field(description="the counted games it is made of")
    provisional: bool = Field(description="fewer than 30 games")


class Suggested(BaseModel):
    person: int
    name: str
    club: str
    federation_id: str | None
    same_club: bool
    tournaments: list[str] = Field(description="the tournaments the person played, oldest first")


class PersonIn(In):
    person: int = Field(ge=1, le=2**31 - 1, description="the known person this enrolment is")
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who links it")


@router.get("/api/v1/ratings", tags=["public"], response_model=list[Rated])
def ratings(rated: RatingsDep) -> list[dict[str, Any]]:
    """Every rated person, best first: OpenSkill's Plackett–Luce over every counted game."""
    return rated.listed()


@router.get("/ratings", response_class=HTMLResponse, include_in_schema=False)
def ratings_page(rated: RatingsDep, lang: str = "pl") -> HTMLResponse:
    """The rating list as a page, for a phone or the hall's screen."""
    return page_of("ratings.html", lang, rows=rated.listed())


@router.get(
    "/ratings.csv",
    tags=["public"],
    response_class=Response,
    responses={200: csv_file("the rating list, a person a line, best first"), **refusals(422)},
)
def ratings_csv(rated: RatingsDep, lang: Lang = "pl") -> Response:
    """The rating list as CSV."""
    name = "rankingi.csv" if lang == "pl" else "ratings.csv"
    return attached(exports.ratings_csv(rated.listed(), lang), name)


@router.get(
    "/api/v1/tournaments/{tid}/players/{player}/people",
    tags=["players"],
    dependencies=JUDGE_READS,
    response_model=list[Suggested],
    responses=refusals(404, 422, *JUDGE),
)
def suggestions(tid: Id, player: Player, store: StoreDep) -> list[dict[str, Any]]:
    """The known people this enrolment may be (the same name; the same club first)."""
    return league.people.suggestions(store, tid, player)


@router.put(
    "/api/v1/tournaments/{tid}/players/{player}/person",
    tags=["players"],
    dependencies=JUDGE_ONLY,
    response_model=answers.Player,
    responses=refusals(404, 422, *JUDGE),
)
def link(tid: Id, player: Player, body: PersonIn, store: StoreDep) -> dict[str, Any]:
    """This enrolment is that person from now on (logged as ``link_person``)."""
    return league.people.link(store, tid, player, body.person, reason=body.reason, by=body.by)
