"""What is printed or shown off the console: the projector's page and script, the printed
pages, and the CSV exports for the judge's spreadsheet.

``pages`` (not in the OpenAPI): the projector and the printed standings are public (a read
of results the judge's if it is, ``JUDGE_READS``); the printed pages that carry the players'
codes, the table sheets, the badges and the enrolment list, are the judge's only (the guard
lets the console's session cookie open them from a plain link, see
``guard.PRINTED_WITH_CODES``). ``router``: the exports (UTF-8 with BOM, ``;``, a Polish
header by default); anyone else gets a tournament's results as released (``public``).
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from klik_hub import office
from klik_hub.api.deps import JUDGE_ONLY, JUDGE_READS, Checked, Id, Lang, StoreDep, Tid, public
from klik_hub.door.addresses import hall_base
from klik_hub.door.answers import refusals
from klik_hub.reports import exports, printing
from klik_hub.storage.store import Store

pages = APIRouter(include_in_schema=False)
router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)


@pages.get("/projector", response_class=HTMLResponse)
def projector() -> HTMLResponse:
    page = resources.files("klik_hub").joinpath("web/projector.html")
    return HTMLResponse(page.read_text(encoding="utf-8"))


@pages.get("/projector.js")
def projector_script() -> Response:
    # A file of its own: the pages' Content-Security-Policy runs scripts from files only.
    script = resources.files("klik_hub").joinpath("web/projector.js")
    return Response(script.read_text(encoding="utf-8"), media_type="text/javascript")


@pages.get("/print/sheets", response_class=HTMLResponse, dependencies=JUDGE_ONLY)
def sheets(
    request: Request,
    t: Tid,
    round_no: Annotated[int, Query(alias="round", ge=1, le=10_000)],
    store: StoreDep,
    lang: Lang = "pl",
) -> Response:
    tournament = office.tournaments.get(store, t)
    drawn = office.rounds.get(store, t, round_no)
    players = {p["id"]: p for p in office.players.listed(store, t)}
    return HTMLResponse(printing.sheets(tournament, drawn, players, _hall(request), lang))


@pages.get("/print/badges", response_class=HTMLResponse, dependencies=JUDGE_ONLY)
def badges(request: Request, t: Tid, store: StoreDep, lang: Lang = "pl") -> Response:
    tournament = office.tournaments.get(store, t)
    players = office.players.listed(store, t)
    return HTMLResponse(printing.badges(tournament, players, _hall(request), lang))


@pages.get("/print/players", response_class=HTMLResponse, dependencies=JUDGE_ONLY)
def enrolment(request: Request, t: Tid, store: StoreDep, lang: Lang = "pl") -> Response:
    tournament = office.tournaments.get(store, t)
    players = office.players.listed(store, t)
    return HTMLResponse(printing.enrolment(tournament, players, _hall(request), lang))


@pages.get("/print/standings", response_class=HTMLResponse, dependencies=JUDGE_READS)
def standings(request: Request, t: Tid, store: StoreDep, lang: Lang = "pl") -> Response:
    tournament = office.tournaments.get(store, t)
    rows = office.release.ranked(store, t, public=public(request))
    clubs, corrected = _clubs_and_corrected(store, t, public(request))
    return HTMLResponse(printing.standings(tournament, rows, clubs, corrected, lang))


def _hall(request: Request) -> str:
    """The hub's address in the printed QR codes: as the printing request reached it (the
    guard let in no other name), or the hall's for the hub's own ``localhost``."""
    return hall_base(str(request.base_url), request.app.state.listening)


def _clubs_and_corrected(store: Store, tid: int, public: bool) -> tuple[dict[int, str], set[int]]:
    """Each player's club, and the players with a corrected game that counts (every seat of
    a result that counts names an enrolled player; a seat a reserve played counts for whom
    the format says, maybe nobody)."""
    clubs = {p["id"]: p["club"] for p in office.players.listed(store, tid)}
    corrected = {
        e["player"] if e["reserve"] is None else e["reserve"]["counts_for"]
        for x in office.release.listed(store, tid, public=public)
        if x["counts"] and x["corrected"]
        for e in x["seats"].values()
    } - {None}
    return clubs, corrected


def csv_file(what: str) -> dict[str, Any]:
    """An answer that is a CSV file: its media type, described as such in the OpenAPI."""
    return {
        "description": f"{what}: UTF-8 with BOM, ``;`` between the fields",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }


def attached(data: bytes, name: str) -> Response:
    return Response(
        data,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get(
    "/{tid}/standings.csv",
    dependencies=JUDGE_READS,
    response_class=Response,
    responses={200: csv_file("the standings, a player a line"), **refusals(404, 422)},
)
def standings_csv(
    request: Request,
    tid: Id,
    store: StoreDep,
    stage: Annotated[str | None, Query(max_length=64)] = None,
    lang: Lang = "pl",
) -> Response:
    """The standings as CSV, a player a line, with whether a corrected game counts."""
    rows = office.release.ranked(store, tid, stage, public=public(request))
    clubs, corrected = _clubs_and_corrected(store, tid, public(request))
    named = printing.stage_namer(office.tournaments.get(store, tid)["format"], lang)
    data = exports.standings_csv(rows, clubs, corrected, lang, named)
    return attached(data, f"klasyfikacja-{tid}.csv" if lang == "pl" else f"standings-{tid}.csv")


@router.get(
    "/{tid}/results.csv",
    dependencies=JUDGE_READS,
    response_class=Response,
    responses={200: csv_file("the results, a seat a line"), **refusals(404, 422)},
)
def results_csv(request: Request, tid: Id, store: StoreDep, lang: Lang = "pl") -> Response:
    """The results as CSV, a seat a line, as they count now (corrections applied)."""
    listed = office.release.listed(store, tid, public=public(request))
    name = f"wyniki-{tid}.csv" if lang == "pl" else f"results-{tid}.csv"
    return attached(exports.results_csv(listed, lang), name)
