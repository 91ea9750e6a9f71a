"""The tournament's API for the judge's console: tournaments, players, rounds, standings.

Every error is one line of JSON, ``{"error": "..."}``, saying what is wrong and what is
allowed; a draw refused for missing results also lists them (``"missing"``). The routes are
documented in ``/openapi.json``, every answer by its model (``klik_hub.door.answers``); the README's
table of them is the contract.

What comes in is held to what the database can keep, as the tables' envelopes are
(``klik.link.protocol``): no text holds NUL or a lone surrogate (``Text``), and a JSON body
nested deeper than ``protocol.MAX_DEPTH`` is refused before it is parsed (``Checked``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Coroutine
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, field_validator
from pydantic_core import PydanticCustomError

from klik.core.limits import GAME
from klik.errors import KlikError
from klik.link import protocol as p
from klik.words import N_, Language, Words, language_of, words
from klik_hub import office
from klik_hub.door import answers, faults
from klik_hub.door.addresses import hall_base
from klik_hub.door.answers import JUDGE, Seat, refusals
from klik_hub.office.errors import (
    ConflictError,
    MissingResultsError,
    NotFoundError,
    TournamentError,
)
from klik_hub.reports import exports, printing
from klik_hub.storage.store import Store
from klik_hub.tournament import draw as d
from klik_hub.tournament import formats as f
from klik_hub.tournament import roster

MOVE_TIME = GAME["move_time_s"]
MAX_CSV = 1 << 20  # bytes: a thousand players with long names fit many times over
Id = Annotated[int, Path(ge=1, le=2**31 - 1, description="the tournament's id")]
RoundNo = Annotated[int, Path(ge=1, le=10_000, description="the round")]


def _storable(text: str) -> str:
    if p.UNSTORABLE.search(text):
        raise PydanticCustomError("text", p.NOT_STORABLE)
    return text


# Text a request may carry to the database: PostgreSQL refuses NUL in text (a 500 where
# SQLite took it), and a lone surrogate has no UTF-8 for either database.
Text = Annotated[str, AfterValidator(_storable)]


class TournamentIn(BaseModel):
    name: Text = Field(min_length=1, max_length=200, description="shown on every page")

    @field_validator("name")
    @classmethod
    def _printable(cls, name: str) -> str:
        # As a player's name: no control, bidirectional-override or zero-width character,
        # which would turn a projected title around or hide one tournament behind another.
        if any(unicodedata.category(ch).startswith("C") for ch in name):
            raise PydanticCustomError("name", N_("the name holds a control character"))
        if not name.strip():
            raise PydanticCustomError("name", N_("the name is empty"))
        return name

    rules: Literal["tournament", "league"] | None = Field(
        None,
        description="the rule set that scores, ranks and seeds it: the format's own (liga: "
        "league, szczecin: tournament, open: either; by default the format's first)",
    )
    format: Text = Field(description=f"a preset: {', '.join(f.preset_names())}")
    move_time_s: int = Field(
        ge=int(MOVE_TIME.lo), le=int(MOVE_TIME.hi), description="seconds for every move"
    )
    round_time_s: int | None = Field(
        None,
        ge=0,
        le=f.ROUND_TIME_S[1],
        description="a round's time at a table in seconds, counted from the table's start "
        f"(000 o), {f.ROUND_TIME_S[0]} to {f.ROUND_TIME_S[1]}; 0 for no limit; by default "
        "the format's",
    )
    release_together: bool = Field(
        False,
        description="the public pages and the projector show a round's results only once "
        "every table of the round has reported (the console always sees them)",
    )

    @field_validator("round_time_s")
    @classmethod
    def _long_enough(cls, seconds: int | None) -> int | None:
        if seconds and seconds < f.ROUND_TIME_S[0]:
            raise PydanticCustomError(
                "round_time_s", faults.ROUND_TIME, {"least": f.ROUND_TIME_S[0]}
            )
        return seconds


def _round_kind(kind: p.CommandKind) -> p.CommandKind:
    if kind not in p.ROUND_KINDS:
        allowed = ", ".join(p.ROUND_KINDS)
        raise PydanticCustomError("kind", faults.ROUND_KIND, {"allowed": allowed})
    return kind


class RoundCommandIn(BaseModel):
    kind: Annotated[p.CommandKind, AfterValidator(_round_kind)] = Field(
        description="what every table of the round is told",
        json_schema_extra={"enum": list(p.ROUND_KINDS)},
    )
    tables: list[Annotated[int, Field(ge=1, le=999)]] | None = Field(
        None,
        min_length=1,
        max_length=999,
        description="these tables of the round only (a late table started on its own, its "
        "round time counted from its own start); by default every table",
    )


class ExtendIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seconds: int = Field(
        ge=1, le=office.clock.MAX_EXTRA_S, description="more round time for this table"
    )
    reason: Text = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: Text = Field("judge", min_length=1, max_length=100, description="who extends it")


class CorrectionIn(BaseModel):
    kind: Literal["rack", "could_open", "player", "exclude", "accept", "assign"] = Field(
        description="rack: a seat's rack sum; could_open: the seat could have opened (−200); "
        "player: a seat's player id; exclude: the game does not count; accept: it counts "
        "(and takes its game's slot); assign: put it in a round's slot"
    )
    seat: Seat | None = Field(None, description="rack, could_open, player: the seat")
    value: int | bool | None = Field(
        None, description="a rack sum, a player's id, or true / false (not for assign)"
    )
    round: int | None = Field(None, ge=1, le=10_000, description="assign: the round")
    table: int | None = Field(None, ge=1, le=999, description="assign: the table")
    game: int | None = Field(None, ge=1, le=9, description="assign: the game within the round")
    players: dict[Seat, int] | None = Field(None, description="assign: each seat's player id")
    reason: Text = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: Text = Field("judge", min_length=1, max_length=100, description="who corrects")


class PlayerChangeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field must not pass as no change

    name: Text | None = Field(None, min_length=1, max_length=100, description="the new name")
    club: Text | None = Field(None, max_length=100, description="the new club or school")
    family: Text | None = Field(
        None,
        max_length=100,
        description="the player's family: players with one label are never drawn to one "
        "table in a random stage while the tables allow it; empty for none",
    )
    active: bool | None = Field(
        None, description="false: withdraw the player (not drawn again); true: reinstate"
    )
    reason: Text = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: Text = Field("judge", min_length=1, max_length=100, description="who changes it")


class SanctionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: int = Field(ge=1, le=2**31 - 1, description="the player's id (start number)")
    kind: Literal["warning", "deduction", "exclusion"] = Field(
        description="warning: logged only; deduction: big points off; exclusion: out of the "
        "tournament (not drawn again, marked on the standings)"
    )
    big: int | None = Field(None, ge=1, le=100, description="deduction only: big points off")
    reason: Text = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: Text = Field("judge", min_length=1, max_length=100, description="who gives it")


class UndrawIn(BaseModel):
    reason: Text = Field(
        "losowanie cofnięte", min_length=1, max_length=500, description="why: kept in the log"
    )
    by: Text = Field("judge", min_length=1, max_length=100, description="who undoes it")


class ReplacementIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: int = Field(ge=1, le=999, description="the table, of the round's")
    seat: Seat = Field(description="the seat of the player who must leave")
    reserve: int = Field(
        ge=1,
        le=2**31 - 1,
        description="who takes the seat: an enrolled player not withdrawn nor excluded who "
        "sits nowhere in the round (a late arrival, say, or one who did not qualify)",
    )
    from_game: int | None = Field(
        None,
        ge=1,
        le=9,
        description="the round's game at the table from which on the reserve plays the seat "
        "(by default the first the table has not reported)",
    )
    withdraw: StrictBool = Field(
        True, description="withdraw the player who left (a logged withdrawal); false: not"
    )
    reason: Text = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: Text = Field("judge", min_length=1, max_length=100, description="who replaces")


class RoundIn(BaseModel):
    seed: int | None = Field(
        None, ge=0, le=2**63 - 1, description="the draw's seed (default: a new one)"
    )
    override: bool = Field(False, description="draw although results of the last are missing")
    field: int | None = Field(
        None, ge=2, le=64, description="a seeded stage's size, of those its format allows"
    )
    tie_break: list[int] = Field(
        default_factory=list,
        max_length=2000,
        description="player ids: among players who share a place, these first, in this order",
    )
    round: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="the round meant (default: the next); 409 if it is not the next one, so "
        "a draw sent twice draws once",
    )
    clubs_weight: float = Field(
        d.CLUBS_WEIGHT,
        ge=0,
        le=d.MAX_CLUBS_WEIGHT,
        description="a random stage: how hard players of one club or school are kept apart, "
        "in repeated pairs (0.5: two of one club at one table weigh half a pair that meets "
        "again; 1: as much; 0: off); players of one family (set per player) are kept apart "
        "always",
    )


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
                        "properties": {"name": {"type": "string"}, "club": {"type": "string"}},
                    },
                }
            },
            "text/csv": {"schema": {"type": "string"}},
        },
    }
}


def error(status: int, message: str, **more: Any) -> JSONResponse:
    return JSONResponse({"error": message, **more}, status_code=status)


def reader(request: Request) -> Language:
    """The language of whoever reads the answer: the console says its own in
    ``Accept-Language`` with every request; a script that says none reads English."""
    return language_of(request.headers.get("accept-language"))


class Checked(APIRoute):
    """A route that refuses a JSON body nested deeper than ``protocol.MAX_DEPTH`` (422)
    before FastAPI parses it: Python's JSON parser recurses, and a player list nested 5,000
    deep was a RecursionError (500). Any other body (a CSV file) is the route's to check."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            # The body is read once: FastAPI takes it from the request, where it stays.
            if kind != "text/csv" and p.deeper_than(await request.body(), p.MAX_DEPTH):
                why = f"arrays and objects nest deeper than {p.MAX_DEPTH} levels"
                return error(422, f"body: {why}")
            return await handler(request)

        return checked


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


# The tournament's errors know no HTTP; the routes answer each kind with its status.
STATUS_OF = ((NotFoundError, 404), (ConflictError, 409), (TournamentError, 422))


def refused(problem: TournamentError, language: Language) -> JSONResponse:
    """Any route's TournamentError, as the app's exception handler answers it: one line, in
    the reader's ``language``."""
    status = next(code for kind, code in STATUS_OF if isinstance(problem, kind))
    if isinstance(problem, MissingResultsError):
        return error(status, problem.into(language), missing=problem.missing)
    return error(status, problem.into(language))


def router(store: Store, judge_only: Any, judge_reads: Any) -> APIRouter:
    """The routes; ``judge_only`` (a ``Depends``) guards every one that changes anything;
    ``judge_reads`` (a ``Depends``) marks a read of results the judge's if it is (``public``)."""
    api = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)
    guarded = [judge_only]
    shows = [judge_reads]
    of_one = refusals(404, 422)  # a route about tournament ``tid``: there may be none

    @api.post(
        "",
        status_code=201,
        dependencies=guarded,
        response_model=answers.Created,
        responses=refusals(422, *JUDGE),
    )
    def create(tournament: TournamentIn, request: Request) -> answers.Created | JSONResponse:
        """A new tournament → 201 ``{"id": ...}``."""
        if tournament.format not in f.preset_names():
            allowed = ", ".join(f.preset_names())
            said = words(
                "format {format!r}: allowed are {formats}",
                format=tournament.format,
                formats=allowed,
            )
            return error(422, said.into(reader(request)))
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

    @api.get("", response_model=list[answers.TournamentListed])
    def listed() -> list[dict[str, Any]]:
        """Every tournament, newest first."""
        return office.tournaments.listed(store)

    @api.get("/{tid}", response_model=answers.Tournament, responses=of_one)
    def get(tid: Id) -> dict[str, Any]:
        """The tournament: its settings, how many players, the rounds drawn."""
        return office.tournaments.get(store, tid)

    @api.post(
        "/{tid}/players",
        status_code=201,
        openapi_extra=PLAYERS_BODY,
        dependencies=guarded,
        response_model=list[answers.Player],
        responses=refusals(404, 409, 415, 422, *JUDGE),
    )
    async def enrol(
        tid: Id, request: Request, allow_same_name: bool = False
    ) -> list[dict[str, Any]] | JSONResponse:
        """Enrol players: a JSON list of ``{"name", "club"}`` or a CSV file (``text/csv``),
        all or none → 201 with the new players and their ids (start numbers). 409 for a list
        whose players are all enrolled already (sent twice), or for an entry with the name
        and club of an enrolled player unless ``allow_same_name``."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        try:
            entrants = entrants_of(kind, await request.body())
            enrolled = office.players.enrol(store, tid, entrants, allow_same_name=allow_same_name)
            return enrolled
        except BadListError as problem:
            return error(problem.status, problem.into(reader(request)))
        except roster.RosterError as problem:
            return error(422, problem.into(reader(request)))

    @api.get(
        "/{tid}/players",
        dependencies=guarded,
        response_model=list[answers.Player],
        responses=refusals(404, 422, *JUDGE),
    )
    def players(tid: Id) -> list[dict[str, Any]]:
        """Every enrolled player: ``{"id", "name", "club", "active", "code"}`` by start
        number; the judge's only, as it carries each player's code (their page's address)."""
        return office.players.listed(store, tid)

    @api.post(
        "/{tid}/play",
        dependencies=guarded,
        response_model=answers.InPlay,
        responses=refusals(404, 422, *JUDGE),
    )
    def play(tid: Id) -> answers.InPlay:
        """Mark the tournament in play: ``/projector`` and the console show it → 200."""
        office.tournaments.play(store, tid)
        return answers.InPlay(in_play=tid)

    @api.post(
        "/{tid}/rounds",
        status_code=201,
        dependencies=guarded,
        response_model=answers.Drawn,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def draw(tid: Id, ask: RoundIn) -> dict[str, Any]:
        """Draw the next round → 201 ``{"round", "stage", "games", "seed", "tables"}``; 409
        while results of the last round are missing (unless ``override``), or if ``round``
        is given and is not the next. One draw at a time: a draw waits for the one before."""
        drawn = office.draws.draw(
            store, tid, ask.seed, override=ask.override, field=ask.field,
            tie_break=ask.tie_break, round_no=ask.round, clubs_weight=ask.clubs_weight,
        )  # fmt: skip
        return drawn.json()

    @api.delete(
        "/{tid}/rounds/{round_no}",
        dependencies=guarded,
        response_model=answers.Undrawn,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def undraw(
        tid: Id,
        round_no: RoundNo,
        why: UndrawIn | None = None,
    ) -> dict[str, Any]:
        """Undo the last drawn round while none of its results has come → 200 the round as it
        was drawn (a logged event); 409 naming the tables that reported, or if it is not the
        last round."""
        why = why or UndrawIn.model_validate({})
        return office.rounds.undraw(store, tid, round_no, why.reason, why.by)

    @api.get("/{tid}/rounds/{round_no}", response_model=answers.Round, responses=of_one)
    def get_round(tid: Id, round_no: RoundNo) -> dict[str, Any]:
        """A drawn round: its tables, and how many games each table still owes."""
        return office.rounds.get(store, tid, round_no)

    @api.post(
        "/{tid}/rounds/{round_no}/commands",
        status_code=201,
        dependencies=guarded,
        response_model=list[answers.Sent],
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def send(tid: Id, round_no: RoundNo, command: RoundCommandIn) -> list[dict[str, Any]]:
        """Send every table of the round (or ``tables``) a command: ``game`` (its players,
        rule set, move time and games: the names go on the seats' screens and the ids into
        the results), ``start`` (and the round's clock of each table not started yet),
        ``round-over`` (the round's time is up), ``pause`` or ``resume`` → 201
        ``[{"table", "id"}]``; 409 if a table is not paired, 404 for a table the round does
        not have."""
        kind = command.kind.value
        return office.rounds.send(store, tid, round_no, kind, command.tables)

    @api.post(
        "/{tid}/rounds/{round_no}/tables/{table_no}/extend",
        dependencies=guarded,
        response_model=answers.Extended,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def extend(
        tid: Id,
        round_no: RoundNo,
        table_no: Annotated[int, Path(ge=1, le=999)],
        more: ExtendIn,
    ) -> dict[str, Any]:
        """Give one table more round time (logged) → 200 its clock; 409 if it was not
        started or its round-over was sent already, or the tournament has no round time."""
        return office.clock.extend(
            store, tid, round_no, table_no, seconds=more.seconds, reason=more.reason, by=more.by
        )

    @api.get(
        "/{tid}/standings",
        dependencies=shows,
        response_model=list[answers.StandingRow],
        responses=of_one,
    )
    def get_standings(
        request: Request, tid: Id, stage: Annotated[str | None, Query(max_length=64)] = None
    ) -> list[answers.StandingRow]:
        """The final classification, best first: ``{"place", "player", "name", "big",
        "small", "games", "stage"}``; by the last stage each player reached (the format's
        ``classification``), each row with the points of the stage that placed it, and
        ``excluded`` for a player the judge excluded, and each player's ``club``. ``stage``
        gives that stage's standings, of its own players only. Anyone but the judge is not
        shown the results of a round held back (the tournament's ``release_together``)."""
        clubs = {p["id"]: p["club"] for p in office.players.listed(store, tid)}
        return [
            answers.StandingRow(
                place=x.place,
                player=x.player,
                name=x.name,
                club=clubs.get(x.player, ""),
                big=x.big,
                small=x.small,
                games=x.games,
                stage=x.stage or None,
                excluded=x.excluded,
                from_round=x.from_round,
                reserve_games=x.reserve_games,
            )
            for x in office.release.ranked(store, tid, stage, public=public(request))
        ]

    _player_routes(api, store, guarded)
    _check_in_routes(api, store, guarded)
    _replacement_routes(api, store, guarded)
    _result_routes(api, store, guarded, shows)
    _export_routes(api, store, shows)
    return api


def pages(store: Store, judge_only: Any, judge_reads: Any) -> APIRouter:
    """The pages: the projector and the printed standings (public; ``judge_reads`` as in
    ``router``), and the printed pages that carry the players' codes, the table sheets, the
    badges and the enrolment list (``judge_only``, a ``Depends``, as in ``router``; the guard
    lets the console's session cookie open them from a plain link, see
    ``guard.PRINTED_WITH_CODES``)."""
    web = APIRouter(include_in_schema=False)

    @web.get("/projector", response_class=HTMLResponse)
    def projector() -> HTMLResponse:
        page = resources.files("klik_hub").joinpath("web/projector.html")
        return HTMLResponse(page.read_text(encoding="utf-8"))

    @web.get("/projector.js")
    def projector_script() -> Response:
        # A file of its own: the pages' Content-Security-Policy runs scripts from files only.
        script = resources.files("klik_hub").joinpath("web/projector.js")
        return Response(script.read_text(encoding="utf-8"), media_type="text/javascript")

    @web.get("/print/sheets", response_class=HTMLResponse, dependencies=[judge_only])
    def sheets(
        request: Request,
        t: Tid,
        round_no: Annotated[int, Query(alias="round", ge=1, le=10_000)],
        lang: Lang = "pl",
    ) -> Response:
        tournament = office.tournaments.get(store, t)
        drawn = office.rounds.get(store, t, round_no)
        players = {p["id"]: p for p in office.players.listed(store, t)}
        return HTMLResponse(printing.sheets(tournament, drawn, players, _hall(request), lang))

    @web.get("/print/badges", response_class=HTMLResponse, dependencies=[judge_only])
    def badges(request: Request, t: Tid, lang: Lang = "pl") -> Response:
        tournament = office.tournaments.get(store, t)
        players = office.players.listed(store, t)
        return HTMLResponse(printing.badges(tournament, players, _hall(request), lang))

    @web.get("/print/players", response_class=HTMLResponse, dependencies=[judge_only])
    def enrolment(request: Request, t: Tid, lang: Lang = "pl") -> Response:
        tournament = office.tournaments.get(store, t)
        players = office.players.listed(store, t)
        return HTMLResponse(printing.enrolment(tournament, players, _hall(request), lang))

    @web.get("/print/standings", response_class=HTMLResponse, dependencies=[judge_reads])
    def standings(request: Request, t: Tid, lang: Lang = "pl") -> Response:
        tournament = office.tournaments.get(store, t)
        rows = office.release.ranked(store, t, public=public(request))
        clubs, corrected = _clubs_and_corrected(store, t, public(request))
        return HTMLResponse(printing.standings(tournament, rows, clubs, corrected, lang))

    return web


def _hall(request: Request) -> str:
    """The hub's address in the printed QR codes: as the printing request reached it (the
    guard let in no other name), or the hall's for the hub's own ``localhost``."""
    return hall_base(str(request.base_url), request.app.state.listening)


def public(request: Request) -> bool:
    """Whether a read of results is the public's, not the judge's (``judge_reads`` marks
    the judge's): it shows them as released (``office.release``)."""
    return not getattr(request.state, "judge", False)


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


Lang = Annotated[Literal["pl", "en"], Query(description="the header line's language")]
Tid = Annotated[int, Query(ge=1, le=2**31 - 1, description="the tournament's id")]


def csv_file(what: str) -> dict[str, Any]:
    """An answer that is a CSV file: its media type, described as such in the OpenAPI."""
    return {
        "description": f"{what}: UTF-8 with BOM, ``;`` between the fields",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }


def _export_routes(api: APIRouter, store: Store, shows: list[Any]) -> None:
    """CSV for the judge's spreadsheet (UTF-8 with BOM, ``;``, a Polish header by default);
    anyone else gets a tournament's results as released (``shows``, ``public``)."""

    def attached(data: bytes, name: str) -> Response:
        return Response(
            data,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @api.get(
        "/{tid}/standings.csv",
        dependencies=shows,
        response_class=Response,
        responses={200: csv_file("the standings, a player a line"), **refusals(404, 422)},
    )
    def standings_csv(
        request: Request,
        tid: Id,
        stage: Annotated[str | None, Query(max_length=64)] = None,
        lang: Lang = "pl",
    ) -> Response:
        """The standings as CSV, a player a line, with whether a corrected game counts."""
        rows = office.release.ranked(store, tid, stage, public=public(request))
        clubs, corrected = _clubs_and_corrected(store, tid, public(request))
        data = exports.standings_csv(rows, clubs, corrected, lang)
        return attached(data, f"klasyfikacja-{tid}.csv" if lang == "pl" else f"standings-{tid}.csv")

    @api.get(
        "/{tid}/results.csv",
        dependencies=shows,
        response_class=Response,
        responses={200: csv_file("the results, a seat a line"), **refusals(404, 422)},
    )
    def results_csv(request: Request, tid: Id, lang: Lang = "pl") -> Response:
        """The results as CSV, a seat a line, as they count now (corrections applied)."""
        listed = office.release.listed(store, tid, public=public(request))
        name = f"wyniki-{tid}.csv" if lang == "pl" else f"results-{tid}.csv"
        return attached(exports.results_csv(listed, lang), name)


class CheckInIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    open: StrictBool = Field(description="true: players may check in from their pages; false: not")
    by: Text = Field("judge", min_length=1, max_length=100, description="who")


class TickIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checked_in: StrictBool = Field(description="true: the player is here; false: not after all")
    by: Text = Field("judge", min_length=1, max_length=100, description="who")


class ByIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    by: Text = Field("judge", min_length=1, max_length=100, description="who")


def _check_in_routes(api: APIRouter, store: Store, guarded: list[Any]) -> None:
    """The check-in (``office.checkin``): the judge opens and closes it, ticks players,
    withdraws the absentees; each a logged event."""
    said = refusals(404, 422, *JUDGE)

    @api.get("/{tid}/check-in", response_model=answers.CheckIn, responses=refusals(404, 422))
    def check_in(tid: Id) -> dict[str, Any]:
        """Who has checked in and who is absent, among the players not withdrawn."""
        return office.checkin.state(store, tid)

    @api.post(
        "/{tid}/check-in", dependencies=guarded, response_model=answers.CheckIn, responses=said
    )
    def open_check_in(tid: Id, sent: CheckInIn) -> dict[str, Any]:
        """Open (``{"open": true}``) or close the check-in → 200 who has checked in and who
        is absent. Once opened, the tournament's draws seat the checked-in players only."""
        return office.checkin.set_open(store, tid, sent.open, sent.by)

    @api.post(
        "/{tid}/players/{player}/check-in",
        dependencies=guarded,
        response_model=answers.CheckIn,
        responses=said,
    )
    def tick(
        tid: Id, player: Annotated[int, Path(ge=1, le=2**31 - 1)], sent: TickIn
    ) -> dict[str, Any]:
        """The judge ticks a player in (or out) at the desk, whether the check-in is open or
        not → 200 who has checked in and who is absent."""
        return office.checkin.tick(store, tid, player, sent.checked_in, sent.by)

    @api.post(
        "/{tid}/check-in/absent",
        dependencies=guarded,
        response_model=answers.AbsentWithdrawn,
        responses=said,
    )
    def withdraw_absent(tid: Id, sent: ByIn | None = None) -> dict[str, Any]:
        """Withdraw every player not withdrawn who has not checked in, in one step (a logged
        ``withdraw`` each) → 200 ``withdrawn`` and the check-in as it is now."""
        return office.checkin.withdraw_absent(store, tid, (sent or ByIn.model_validate({})).by)


def _replacement_routes(api: APIRouter, store: Store, guarded: list[Any]) -> None:
    """A reserve at the seat of a player who must leave mid-round (``office.replacements``)."""

    @api.post(
        "/{tid}/rounds/{round_no}/replacements",
        status_code=201,
        dependencies=guarded,
        response_model=answers.Replaced,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def replace(tid: Id, round_no: RoundNo, sent: ReplacementIn) -> dict[str, Any]:
        """A reserve takes a player's seat for the rest of the round → 201 the replacement
        (a logged event ``replace``; the player who left is withdrawn unless ``withdraw`` is
        false). The table plays on with its lineup: its screen shows the reserve's name from
        its next game (``sent``: the lineup queued again), and the seat's games from
        ``from_game`` on are the reserve's, marked, counting for whom the format says
        (``replacements``: the reserve, the player who left, or nobody); the opponents'
        games count as ever. 404 for a round or table it does not have; 409 for a seat with
        a reserve already, or a reserve who is not a player playing on or sits in the round;
        422 for a seat the table has not, or a game outside the round's."""
        return office.replacements.replace(
            store, tid, round_no, table=sent.table, seat=sent.seat, reserve=sent.reserve,
            from_game=sent.from_game, reason=sent.reason, by=sent.by, withdraw=sent.withdraw,
        )  # fmt: skip


def _player_routes(api: APIRouter, store: Store, guarded: list[Any]) -> None:
    """A player's changes and sanctions, each a logged event of the judge's."""

    @api.patch(
        "/{tid}/players/{player}",
        dependencies=guarded,
        response_model=answers.Player,
        responses=refusals(404, 422, *JUDGE),
    )
    def edit_player(
        tid: Id, player: Annotated[int, Path(ge=1, le=2**31 - 1)], change: PlayerChangeIn
    ) -> dict[str, Any]:
        """Rename a player, fix their club, mark their family (``family``: kept apart in
        random stages' draws), withdraw (``"active": false``: not drawn again, their games
        still count for their opponents) or reinstate them → 200 the player; a logged event
        with its reason, who and when."""
        wanted = change.model_dump(include={"name", "club", "family", "active"})
        return office.players.edit(store, tid, player, wanted, reason=change.reason, by=change.by)

    @api.post(
        "/{tid}/sanctions",
        status_code=201,
        dependencies=guarded,
        response_model=answers.Sanction,
        responses=refusals(404, 409, 422, *JUDGE),
    )
    def sanction(tid: Id, given: SanctionIn) -> dict[str, Any]:
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

    @api.get(
        "/{tid}/sanctions", response_model=list[answers.Sanction], responses=refusals(404, 422)
    )
    def sanctions(tid: Id) -> list[dict[str, Any]]:
        """Every sanction, newest first."""
        return office.sanctions.listed(store, tid)


def _result_routes(api: APIRouter, store: Store, guarded: list[Any], shows: list[Any]) -> None:
    """The results as they count, and the judge's corrections to them; anyone but the judge
    gets a tournament's results as released (``shows``, ``public``)."""

    # A correction's assign-only keys are there for an assign only: the answers keep to the
    # keys the office gave (``answers``'s docstring).
    @api.get(
        "/{tid}/results",
        dependencies=shows,
        response_model=list[answers.Result],
        response_model_exclude_unset=True,
        responses=refusals(404, 422),
    )
    def get_results(request: Request, tid: Id) -> list[dict[str, Any]]:
        """The tournament's results, oldest first: each with what it counts for now (``counts``,
        ``held``: conflict, mismatch, players or excluded), its seats' points as the hub scores
        them, ``corrected`` and its corrections. Anyone but the judge is not shown the
        results of a round held back (the tournament's ``release_together``)."""
        return office.release.listed(store, tid, public=public(request))

    @api.post(
        "/{tid}/results/{result_id}/corrections",
        status_code=201,
        dependencies=guarded,
        response_model=answers.Correction,
        response_model_exclude_unset=True,
        responses=refusals(404, 422, *JUDGE),
    )
    def correct(
        tid: Id, result_id: Annotated[int, Path(ge=1, le=2**31 - 1)], correction: CorrectionIn
    ) -> dict[str, Any]:
        """A correction, added to the result as an event (the result itself never changes)
        → 201 the correction; it counts from now on, in the standings and every export."""
        request = correction.model_dump(exclude={"by"})
        return office.corrections.correct(store, tid, result_id, request, by=correction.by)

    @api.get(
        "/{tid}/corrections",
        dependencies=shows,
        response_model=list[answers.Logged],
        response_model_exclude_unset=True,
        responses=refusals(404, 422),
    )
    def get_corrections(request: Request, tid: Id) -> list[dict[str, Any]]:
        """The audit log: every correction with its reason, who and when, newest first
        (anyone but the judge: none to a result of a round held back)."""
        return office.release.log(store, tid, public=public(request))
