"""The public's side of the hub (issue 20): a player's own page by the code on their badge,
the tournament's board with its QR code for the projector, and the stream of events that
keeps both up to date on the hall's phones. Read-only, no login: nothing here changes the
tournament, and nothing names a player's code but the player's own page's address.

Every answer comes from the tournament's tally (``office.tally``), worked out once for each
revision of it, so a hall of phones asking at once after a result costs one count.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from klik.words import Language, spoken, templates, words
from klik_hub import office
from klik_hub.api.deps import Id, RatingsDep
from klik_hub.api.feed import Feed
from klik_hub.door import answers
from klik_hub.door.addresses import hall_base
from klik_hub.door.answers import refusals, refusals_in_json
from klik_hub.office.errors import NotFoundError
from klik_hub.office.tally import Tallies

Code = Annotated[
    str,
    Path(
        description="the player's code (10 signs of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ, printed on "
        "their badge); anything else is 404",
    ),
]
RETRY_MS = 3000  # a page whose stream broke asks again after this long
TOO_MANY = words("too many pages are open; this page tries again by itself")
EVENTS = {
    "description": "server-sent events: ``revision`` now, then at each change (``data``: "
    '``{"revision": "…"}``; ``id``: the same); ``: ping`` comments keep it open',
}  # FastAPI describes each event (``itemSchema``, as OpenAPI 3.2 does)


router = APIRouter()
SHOWN = templates("klik_hub")


async def tallies_of(request: Request) -> Tallies:
    """The app's tallies (``app.state.tallies``): every answer here is worked out from them."""
    tallies: Tallies = request.app.state.tallies
    return tallies


async def feed_of(request: Request) -> Feed:
    """The app's feed (``app.state.feed``): which revision each tournament is at."""
    feed: Feed = request.app.state.feed
    return feed


TalliesDep = Annotated[Tallies, Depends(tallies_of)]
FeedDep = Annotated[Feed, Depends(feed_of)]


def page_of(name: str, lang: str, status: int = 200, **context: Any) -> HTMLResponse:
    # Polish unless English is asked for (as the projector: any other ``lang`` is Polish)
    said = spoken(Language.EN if lang == "en" else Language.PL)
    return HTMLResponse(SHOWN.get_template(name).render(**context, **said), status)


@router.get(
    "/api/v1/p/{code}",
    tags=["public"],
    response_model=answers.PlayerPage,
    responses=refusals(404, 422),  # 422: FastAPI describes one for any parameter
)
async def player_page(
    code: Code, tallies: TalliesDep, feed: FeedDep, ratings: RatingsDep
) -> Response:
    """A player's page: where they sit now (``table``, ``seat``, ``round``; null before
    their first draw) and who starts the first game there (``starts``; null where the
    format draws it at the table), their seat in the next round once drawn (``next``),
    their games as they count now (``games``), their place (``place``), what the judge
    changed about them (``notices``), ``checked_in``."""
    # The JSON made once per revision (a hall of phones asks at once): as the model says;
    # from memory while the feed knows the revision (waiting for its next read if a change
    # may be under way), else read in a worker thread.
    shown = office.player_page.page_json_known(tallies, code, feed.known)
    if shown is None and (tid := office.player_page.tournament_known(tallies, code)):
        await feed.known_soon(tid)
        shown = office.player_page.page_json_known(tallies, code, feed.known)
    if shown is None:
        shown = await run_in_threadpool(office.player_page.page_json, tallies, code, feed.known)
    # Their rating across the hub's tournaments (``league.ratings``): from memory for the
    # page's revision (a hall of phones asks at once), else worked out in a worker thread.
    page = json.loads(shown)
    where = tallies.known(code) or await run_in_threadpool(tallies.player, code)
    said = b"null"
    if where is not None:
        tid, player = where
        known = ratings.page_known(tid, player, page["revision"])
        if known is None:
            known = await run_in_threadpool(ratings.page_made, tid, player, page["revision"])
        said = known
    page["rating"] = json.loads(said)
    return Response(json.dumps(page, ensure_ascii=False), media_type="application/json")


@router.post(
    "/api/v1/p/{code}/check-in",
    tags=["public"],
    response_model=answers.CheckedIn,
    responses=refusals(403, 404, 409, 422),
)
def check_in(code: Code, tallies: TalliesDep) -> dict[str, Any]:
    """The player checks in from their page → 200 ``{"checked_in": true}`` while the
    judge has the check-in open (again: the same, nothing changes); 409 while it is not
    open, or for a withdrawn player. The code is the player's key: no password."""
    return office.checkin.by_player(tallies.store, code)


@router.get("/p/{code}", response_class=HTMLResponse, include_in_schema=False)
def player(code: str, tallies: TalliesDep, lang: str = "pl") -> HTMLResponse:
    """The page for a phone (``templates/player.html``, ``web/player.js``). The code is
    in the address only: every answer's ``Referrer-Policy: no-referrer`` (the guard)
    keeps it from the sites a page links to."""
    try:
        office.player_page.page(tallies, code)
    except NotFoundError:
        return page_of("player.html", lang, 404, known=False)
    return page_of("player.html", lang, known=True)


@router.get(
    "/api/v1/tournaments/{tid}/board",
    tags=["public"],
    response_model=answers.Board,
    responses=refusals(404, 422),
)
async def board(tid: Id, tallies: TalliesDep, feed: FeedDep) -> Response:
    """The tournament's public board: the last drawn round's tables (who sits where,
    the games each still owes) and the standings."""
    # As the player's page: the JSON made once per revision, as the model says.
    revision = await feed.known_soon(tid)
    shown = None if revision is None else office.board.board_json_known(tallies, tid, revision)
    if shown is None:
        shown = await run_in_threadpool(office.board.board_json, tallies, tid, revision)
    return Response(shown, media_type="application/json")


@router.get("/t/{tid}", response_class=HTMLResponse, include_in_schema=False)
def board_page(tid: Id, tallies: TalliesDep, lang: str = "pl") -> HTMLResponse:
    """The board for a phone (``templates/board.html``, ``web/board.js``): the standings
    and the round's seatings, searchable by name."""
    try:
        office.board.board(tallies, tid)
    except NotFoundError:
        return page_of("board.html", lang, 404, known=False, tid=tid)
    return page_of("board.html", lang, known=True, tid=tid)


# HEAD too: the projector reads the address from the header without the picture.


@router.api_route("/t/{tid}/qr.svg", methods=["GET", "HEAD"], include_in_schema=False)
def board_qr(request: Request, tid: Id, feed: FeedDep) -> Response:
    """The board's address as a QR code, for the projector: as the hall's phones reach
    the hub (``addresses.hall_base``), not the projector's ``localhost``."""
    if not feed.revision(tid):
        raise NotFoundError(words("no tournament {tid}", tid=tid))
    address = f"{hall_base(str(request.base_url), request.app.state.listening)}t/{tid}"
    drawn = io.BytesIO()
    # omitsize: a viewBox instead of a size, so the picture fills the box it is shown in
    segno.make_qr(address, error="m").save(drawn, kind="svg", border=2, omitsize=True,
                                           dark="#0d1b2a", light="#ffffff")  # fmt: skip
    headers = {"x-klik-address": address, "cache-control": "no-cache"}
    return Response(drawn.getvalue(), media_type="image/svg+xml", headers=headers)


def opened(request: Request, tid: Id, feed: FeedDep) -> None:
    """A stream may open (404: no such tournament; 503: every stream the hub keeps is
    open); the tournament's revision now goes to the stream as ``request.state.first``."""
    if feed.full():
        raise HTTPException(503, str(TOO_MANY), {"retry-after": "10"})
    first = feed.revision(tid)
    if not first:
        raise NotFoundError(words("no tournament {tid}", tid=tid))
    request.state.first = first


@router.get(
    "/api/v1/tournaments/{tid}/events",
    tags=["public"],
    response_class=EventSourceResponse,
    responses={200: EVENTS, **refusals_in_json(404, 422, 503)},
    dependencies=[Depends(opened)],
)
async def events(request: Request, tid: Id, feed: FeedDep) -> AsyncIterator[ServerSentEvent]:
    """The tournament's events for its public pages: one at once with its revision, then
    one each time anything the pages show changes (a result, a correction, a draw, a
    withdrawal…), at most four a second. A page asks for its answer again at each."""
    first: str = request.state.first
    changes = feed.changes(tid, first)
    try:
        async for revision in changes:
            yield ServerSentEvent(
                data={"revision": revision}, event="revision", id=revision, retry=RETRY_MS
            )
    finally:
        await changes.aclose()


def _script(name: str) -> Any:
    def script() -> Response:
        # A file of its own: the pages' Content-Security-Policy runs scripts from files only.
        text = resources.files("klik_hub").joinpath(f"web/{name}").read_text(encoding="utf-8")
        return Response(text, media_type="text/javascript; charset=utf-8")

    return script


for script_name in ("player.js", "board.js", "live.js", "standings.js"):
    router.add_api_route(f"/{script_name}", _script(script_name), include_in_schema=False)
