"""The rule sets the hub knows (``klik.rules``): listed and shown to anyone (a player may read
the rules a tournament is played under), and a judge's own set added from the console.

``GET /api/v1/rules`` lists them; ``GET /api/v1/rules/{name}`` is one as TOML, every key (as
``klik rules show``); ``POST /api/v1/rules`` ``{"toml": "..."}`` (the judge) keeps a new set
or a new version of one → 201 ``{"name", "version"}``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from klik import rules as r
from klik.words import words
from klik_hub import league
from klik_hub.api.deps import JUDGE_ONLY, Checked, Reader, StoreDep, error
from klik_hub.api.models import In
from klik_hub.door.answers import JUDGE, refusals
from klik_hub.league.rule_sets import MAX_TEXT

router = APIRouter(prefix="/api/v1/rules", tags=["rules"], route_class=Checked)
TOML = "application/toml; charset=utf-8"


class RuleSetIn(In):
    toml: str = Field(min_length=1, max_length=MAX_TEXT, description="the rule set's file")


class RuleSetAdded(BaseModel):
    name: str
    version: int


class RuleSetListed(BaseModel):
    name: str
    version: int
    title_pl: str
    title_en: str
    source: str
    open: list[str] = Field(description="what the source leaves open, and what was chosen")
    aliases: list[str] = Field(description="older names a result or a lineup may give")
    move_time_s: int
    shipped: bool = Field(description="one of Klik's own; false: a judge added it here")


@router.get("", response_model=list[RuleSetListed])
def listed() -> list[dict[str, Any]]:
    """Every rule set the hub knows, Klik's own first."""
    return league.rule_sets.listed()


@router.get(
    "/{name}",
    response_class=Response,
    responses={200: {"content": {TOML: {"schema": {"type": "string"}}}}, **refusals(404, 422)},
)
def shown(name: str, language: Reader) -> Response:
    """One set as TOML, every key (``klik rules show``); an older name shows its set."""
    if name not in r.RULE_SETS:
        said = words("no rule set {name}: allowed are {names}", name=name,
                     names=", ".join(r.RULE_SETS))  # fmt: skip
        return error(404, said.into(language))
    return Response(r.to_toml(r.RULE_SETS[name]), media_type=TOML)


@router.post(
    "",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=RuleSetAdded,
    responses=refusals(409, 422, *JUDGE),
)
def add(body: RuleSetIn, store: StoreDep) -> dict[str, Any] | JSONResponse:
    """A judge's own rule set, checked as ``klik rules check`` checks a file: 201."""
    return league.rule_sets.add(store, body.toml)
