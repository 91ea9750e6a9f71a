"""What the hub's API answers: one pydantic model per answer, so ``/openapi.json`` describes
every answer and the fuzz test (``tests/hub/test_hub_fuzz.py``) holds each to its model.

The office (``klik_hub.office``) returns plain dicts, which the console's pages, the printed
sheets and the exports read too; the routes hand them to FastAPI, which validates them against
these models and serialises them. A key that is not always there (a correction's ``round``:
only an ``assign`` has one; the health's ``trouble``) is a field with no value, and its route
answers only the fields set (``response_model_exclude_unset``), so an answer keeps exactly the
keys it had; a ``null`` that is in an answer stays in it.

The two routes the tables post to answer in front of the router (``app.EnvelopeLane``), with
no validation pass: ``Answer`` only describes them. A refusal is never validated either (it is
answered as it is made); ``Refusal`` describes them all.

The seats' letters come from ``klik.core.game.SEATS``, their one definition (``Seat``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from klik.core.game import SEATS
from klik.rules import RULE_SETS
from klik_hub.hall.health import HealthWarning
from klik_hub.tournament.corrections import Kind

SEATS_SAID = " or ".join([", ".join(map(repr, SEATS[:-1])), repr(SEATS[-1])])  # 'A', … or 'D'


def _seat(value: object) -> str:
    # As a Literal of the letters would, to the letter (pydantic's literal_error and its
    # "expected"), so klik_hub.door.faults says it in the reader's language as before.
    if isinstance(value, str) and value in SEATS:
        return value
    raise PydanticCustomError(
        "literal_error", "Input should be {expected}", {"expected": SEATS_SAID}
    )


#: A seat's letter, in a request or an answer: an enum of ``SEATS`` in the OpenAPI.
Seat = Annotated[
    str, PlainValidator(_seat), WithJsonSchema({"type": "string", "enum": list(SEATS)})
]
Rules = Annotated[str, Field(description=f"the rule set: {', '.join(RULE_SETS)}")]
At = Annotated[str, Field(description="the hub's time, ISO 8601 UTC")]
#: A logged entry's ``reason`` and ``by``: the judge's words stay on the console (issue 36).
JUDGES_OWN = (
    "the judge's answers only (``office.release.unsigned``): absent in anyone else's, who "
    "reads what was done, not why nor by whom"
)


# --- refusals ----------------------------------------------------------------------------


class Owed(BaseModel):
    table: int
    missing: int = Field(description="games the table still owes")


class HeldBy(BaseModel):
    """The paired table holding a number the judge asked for."""

    table: int
    seen_s_ago: int | None = Field(description="seconds since its last heartbeat; null: none")


class Refusal(BaseModel):
    """Every refusal: one line saying what is wrong and what is allowed, in the reader's
    language (``Accept-Language``)."""

    model_config = ConfigDict(extra="allow")  # a route may say more than the line

    error: str = Field(description="what is wrong, naming the field, and what is allowed")
    missing: list[Owed] | None = Field(
        None, description="a draw refused for missing results (409): the tables that owe games"
    )
    status: str | None = Field(
        None, description="the tables' routes and a command to a table: invalid"
    )
    held_by: HeldBy | None = Field(
        None,
        description="pairing or renumbering onto a paired table's number (409): that table; "
        "send replace to let it go",
    )


#: Why each refusal comes; ``refusals`` makes a route's ``responses`` of them.
WHY = {
    401: "not the judge: log in, or HTTP Basic with the user judge",
    403: "a request from another site's page",
    404: "no such tournament, round, player, result or table",
    409: "the tournament's present state refuses it (sent twice, a round not over, a table "
    "not paired)",
    413: "the body is over the route's limit",
    415: "a body of another type than the route takes",
    422: "the request breaks its schema or the tournament's rules",
    429: "too many wrong passwords: try again after Retry-After seconds",
    503: "the disk is full or the database does not answer: nothing can be stored now",
}
JUDGE = (401, 403, 413, 429)  # what the guard answers a route that changes anything


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """A route's ``responses``: each status in ``codes`` answered with a ``Refusal``."""
    return {code: {"model": Refusal, "description": WHY[code]} for code in codes}


def refusals_in_json(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``refusals`` for a route whose success is not JSON (a stream of events): FastAPI would
    describe a ``model`` in the route's own media type, but a refusal is JSON."""
    schema = {"$ref": "#/components/schemas/Refusal"}
    json = {"application/json": {"schema": schema}}
    return {code: {"description": WHY[code], "content": json} for code in codes}


# --- the tables' envelopes -----------------------------------------------------------------


class Command(BaseModel):
    """A hub → table command, waiting until the table's heartbeat acknowledges it."""

    id: str
    kind: str = Field(description="pause, resume, round-over, start, players or game")
    args: dict[str, Any]


class Answer(BaseModel):
    """The answer to a table's envelope (a result or a heartbeat)."""

    status: str = Field(
        description="stored, duplicate, conflict, ok, stale (a heartbeat not newer than the "
        "last), refused or invalid"
    )
    receipt: str | None = Field(None, description="the result's receipt, R-XXXXX on screens")
    error: str | None = Field(None, description="what was wrong, naming the field")
    commands: list[Command] | None = None
    last_seq: int | None = Field(None, description="stale: the last heartbeat seq the hub holds")
    last_result_seq: int | None = Field(
        None,
        description="a heartbeat with seq_in_doubt: the last result seq the hub holds from "
        "the device (0 if none)",
    )
    resend_after: int | None = Field(
        None,
        description="a heartbeat whose acked_seq is above the highest result seq the hub holds "
        "from the device: that seq (0 if none); the table sends its results above it again",
    )
    settled: list[int] | None = Field(
        None,
        description="a heartbeat listing conflicts: the seqs among them whose conflict the "
        "judge has settled (a result of it accepted, excluded or assigned); the table stops "
        "reporting them",
    )
    ack: dict[str, Any] | None = Field(None, description="the same answer, signed for the table")


class Queued(BaseModel):
    status: Literal["queued"]
    id: str = Field(description="the command's id, acknowledged by the table")


class StoredResult(BaseModel):
    """A result as the table sent it, with the hub's check of its points."""

    id: int
    table: int
    device: str
    seq: int
    tournament: str | None = Field(description="the tournament as the table named it")
    round: int | None
    game: int
    receipt: str
    ending: str = Field(description="rummikub or exhausted")
    ended_by: str | None = Field(description="an exhausted game: why; older tables: null")
    winners: list[Seat]
    names: dict[Seat, str]
    racks: dict[Seat, int]
    small: dict[Seat, int]
    big: dict[Seat, int]
    points_check: str = Field(description="ok, or mismatch: the points are not the racks'")
    conflict: bool = Field(description="another result for the same send or game came")
    corrected: bool = Field(description="the judge has corrected it since")
    received_at: At
    finished_at: str | None = Field(description="the table's clock, ISO 8601 UTC")
    body: dict[str, Any] = Field(description="the result exactly as the table signed it")


class Moves(BaseModel):
    """How a seat moved (``docs/protocol.md``, A seat's moves): its finished moves' figures."""

    count: int = Field(description="the moves the seat finished")
    draws: int = Field(description="those in which it took tiles from the pile")
    timeouts: int = Field(description="those its clock ran out")
    mean_ms: int = Field(description="their mean time on the clock, milliseconds")
    longest_ms: int = Field(description="the longest of them, milliseconds")


class Watched(BaseModel):
    """A seat the judge should watch while the round runs: a slow mover, or repeated
    timeouts (``klik_hub.hall.heartbeats.watch``)."""

    seat: Seat
    name: str = Field(description="the name on the seat's screen (its heartbeat's)")
    slow: bool = Field(description="its mean move time is 80% of the move time or more")
    timeouts: int = Field(
        description="its timeouts this game (two or more list a seat that is not slow)"
    )
    count: int = Field(description="its moves this game")
    mean_ms: int
    longest_ms: int


class Table(BaseModel):
    """A paired table: its last contact, its last heartbeat's state, the seats to watch, its
    commands waiting."""

    table: int
    device: str
    paired_at: At
    seen_s_ago: float | None = Field(description="seconds since its last heartbeat; null: none")
    status: dict[str, Any] | None = Field(description="its last heartbeat's body")
    watch: list[Watched] = Field(
        description="from its last heartbeat: its slow movers and repeated timeouts, by seat"
    )
    warnings: list[HealthWarning] = Field(
        description="from its last heartbeat's health (status.health), the worst first; "
        "none without one (klik_hub.hall.health.warnings)"
    )
    commands: list[Command]
    resending_after: int | None = Field(
        description="the hub lost results it acknowledged to this table: the highest seq it "
        "holds from it, asked to be sent again (status.acked_seq is above it); null: none lost"
    )
    carried: list[int] = Field(
        default_factory=list,
        description="the table's earlier numbers, whose results it still sends: it re-paired "
        "to this number with the proof of its old pairing (docs/protocol.md); the console "
        "shows `stół 3 → 8`",
    )


class Health(BaseModel):
    ok: bool
    trouble: Literal["disk_full", "database_down"] | None = Field(
        None, description="only while ok is false"
    )
    error: str | None = Field(None, description="only while ok is false: the trouble in words")


class Judge(BaseModel):
    judge: bool
    open: bool = Field(description="no password is set: a hub on loopback, nobody logs in")


class LoggedIn(BaseModel):
    judge: bool


# --- tournaments, players, sanctions -------------------------------------------------------


class Created(BaseModel):
    id: int = Field(description="the new tournament's id")


class TournamentListed(BaseModel):
    id: int
    name: str
    rules: Rules
    format: str
    move_time_s: int
    round_time_s: int | None = Field(
        description="a round's time at a table in seconds (000 o), null for no limit"
    )
    release_together: bool = Field(
        description="the public pages and the projector show a round's results only once "
        "every table of the round has reported"
    )
    in_play: bool = Field(description="the tournament the projector and the console show")


class StageTitle(BaseModel):
    """A stage of the tournament's format, in the order played: the pages name it by these."""

    name: str = Field(description="its name, as every answer's stage says it (Polish)")
    title_en: str = Field(description="its name on the English pages")


class RoundListed(BaseModel):
    round: int
    stage: str
    games: int = Field(description="games a table plays in the round")
    seed: int


class Tournament(TournamentListed):
    players: int = Field(description="how many are enrolled")
    rounds: list[RoundListed]
    stages: list[StageTitle] = Field(description="its format's stages, in the order played")


class InPlay(BaseModel):
    in_play: int = Field(description="the tournament's id")


class Needs(BaseModel):
    """A player's needs (issue 40): how their seat is set up, and their fixed table."""

    vibration: bool = Field(description="the seat's vibration motor pulses")
    large: bool = Field(description="the seat's screens are large")
    quiet: bool = Field(description="no buzzer at the player's table")
    fixed_table: int | None = Field(description="the table the player is always drawn to")


class Player(BaseModel):
    id: int = Field(description="the start number")
    name: str
    club: str
    family: str = Field(
        description="the judge's label for the player's family, kept apart in random "
        "stages' draws; empty for none"
    )
    active: bool = Field(description="false once withdrawn: not drawn again")
    code: str = Field(
        description="their page's code (/p/CODE, the badge's QR code): the judge's to hand out"
    )
    checked_in: bool = Field(description="checked in for the day (their page or the judge)")
    from_round: int = Field(
        description="the first round they are drawn into: 1, or for a late arrival (enrolled "
        "once a round was drawn) the round after the last drawn then"
    )
    person: int | None = Field(
        description="the person across tournaments (their ratings and seasons): the one the "
        "list's id named, or a new one; the judge links another (…/players/{p}/person)"
    )
    needs: Needs


class CheckIn(BaseModel):
    """The tournament's check-in, as the console lists it."""

    check_in: Literal["open", "closed"] | None = Field(
        description="null before the judge first opens it; once opened, draws seat the "
        "checked-in players only"
    )
    checked_in: list[int] = Field(description="players not withdrawn who have checked in")
    absent: list[int] = Field(description="players not withdrawn who have not")


class AbsentWithdrawn(CheckIn):
    withdrawn: list[int] = Field(description="the absentees just withdrawn")


class CheckedIn(BaseModel):
    checked_in: Literal[True]


class Sanction(BaseModel):
    id: int
    player: int
    name: str
    kind: Literal["warning", "deduction", "exclusion"]
    big: int | None = Field(description="a deduction's big points off")
    stage: str | None = Field(description="the stage in play when it was given")
    reason: str | None = Field(None, description=JUDGES_OWN)
    by: str | None = Field(None, description=JUDGES_OWN)
    at: At


# --- rounds -------------------------------------------------------------------------------


class DrawnTable(BaseModel):
    table: int
    seats: dict[Seat, int] = Field(description="each seat's player id")


class Undrawn(RoundListed):
    """A round undone, as it was drawn."""

    tables: list[DrawnTable]


class RepeatedPair(BaseModel):
    table: int
    players: list[int] = Field(description="the two players' ids, in seat order")
    met: int = Field(description="how often they have sat together, this round included")


class SameClub(BaseModel):
    table: int
    club: str
    players: list[int] = Field(description="its players of that club, in seat order")


class SameFamily(BaseModel):
    table: int
    family: str
    players: list[int] = Field(description="its players of that family, in seat order")


class Checked(BaseModel):
    """The judge's check of a draw: what it repeats, and who shares a table with their own
    club or family (as the players' clubs and families are now)."""

    repeated_pairs: list[RepeatedPair] = Field(
        description="the pairs at its tables who had met in an earlier round"
    )
    same_club: list[SameClub] = Field(
        description="its tables that seat two or more of one club or school"
    )
    same_family: list[SameFamily] = Field(
        description="its tables that seat two or more of one family (none while the tables "
        "allow it)"
    )


SEEDED = (
    "whether its stage seats the players from the standings (the format's tables = "
    '"seeded"): then its seed draws nothing and its repeats are the seating\'s'
)


class Drawn(Undrawn, Checked):
    seeded: bool = Field(description=SEEDED)
    repeats: int = Field(description="meetings this round adds that an earlier round had")
    unpaired: list[int] = Field(description="its tables no table is paired as (yet)")
    absent: list[int] = Field(
        description="players not drawn for not having checked in (once the check-in was opened)"
    )


class TableClock(BaseModel):
    """A table's round clock, from its own start (000 o)."""

    started_at: At = Field(description="when the judge started the table")
    ends_at: At | None = Field(
        description="when its round time runs out, with its extra time; null without a round time"
    )
    left_ms: int | None = Field(description="its time left as of this answer")
    extra_s: int = Field(description="the judge's extra time for this table (logged)")
    over_at: At | None = Field(
        description="when the hub sent round-over (or marked it over, all games in)"
    )


class Extended(TableClock):
    table: int


class RoundTable(DrawnTable):
    missing: int = Field(description="games the table still owes")
    clock: TableClock | None = Field(description="the table's round clock; null until started")


class Unplaced(BaseModel):
    """A result no slot of the round holds yet: the judge assigns or excludes it."""

    id: int
    table: int
    game: int
    receipt: str
    received_at: At
    tournament: str | None = Field(description="the tournament as the table named it")
    names: dict[Seat, str]
    players: dict[Seat, str | None] = Field(description="each seat's player as the table sent")


class Replacement(BaseModel):
    """A reserve at a player's seat for the rest of a round: from the table's game
    ``from_game`` on, the seat's games are the reserve's (the format's ``replacements`` says
    whom they count for)."""

    table: int
    seat: Seat
    player: int = Field(description="who left the seat (the drawn player)")
    reserve: int = Field(description="who took it")
    from_game: int = Field(description="the round's game at the table from which on, 1-based")


class Replaced(Replacement):
    """The judge's replacement, as kept and logged."""

    round: int
    withdrawn: bool = Field(description="the player who left was withdrawn with it")
    sent: str | None = Field(
        description="the id of the table's lineup queued again with the reserve's name on the "
        "seat's screen; null when the table has not had the round's lineup (it gets the "
        "reserve's name with it)"
    )
    reason: str
    by: str
    at: At


class Round(RoundListed, Checked):
    round_time_s: int | None = Field(
        description="the round's time at each table in seconds, null for no limit"
    )
    started_at: At | None = Field(description="when the round's first table was started")
    ends_at: At | None = Field(
        description="when the round's time runs out for the tables started first (a late "
        "table's own end is in its clock); null before the start or without a round time"
    )
    left_ms: int | None = Field(description="the round's time left as of this answer")
    seeded: bool = Field(description=SEEDED)
    repeats: int = Field(description="meetings this round adds that an earlier round had")
    unpaired: list[int] = Field(description="its tables no table is paired as (yet)")
    tables: list[RoundTable]
    unplaced: list[Unplaced]
    replacements: list[Replacement] = Field(
        description="the reserves who took a seat in the round, by table and seat"
    )
    held: bool = Field(
        description="its results wait for its other tables before the public sees them (the "
        "tournament's release_together); the judge may release them now (…/release)"
    )


class Released(BaseModel):
    round: int
    missing: list[int] = Field(description="the tables that still owed games when released")


class Sent(BaseModel):
    table: int
    id: str | None = Field(description="the command's id; null for a table not paired")
    unpaired: bool = Field(
        False, description="not sent: no table is paired as this one (the Tables tab pairs it)"
    )


class Taken(BaseModel):
    """Big points the judge took from a player (a deduction), in the stage it was given in."""

    stage: str | None = Field(description="the stage the deduction was given in")
    big: int = Field(description="the big points taken (a positive number)")


class StandingRow(BaseModel):
    place: int | None = Field(
        description="the place; null for a player no game of whose counts (status unplaced, "
        "or withdrawn or excluded before their first game), listed after every place"
    )
    player: int
    name: str
    club: str = Field(description="the player's club or school (the public's view of them)")
    big: int
    small: int
    games: int
    stage: str | None = Field(
        description="the stage whose standings placed the player: the last one they played"
    )
    status: Literal["classified", "unplaced", "withdrawn", "excluded"] = Field(
        description="withdrawn or excluded where the judge did so, else unplaced for a player "
        "with no game, else classified"
    )
    excluded: bool = Field(description="the judge excluded the player")
    deductions: list[Taken] = Field(
        description="the big points the judge took from the player, each with its stage; "
        "counted in big, whatever stage the row's points are of"
    )
    from_round: int | None = Field(
        description="a late arrival: the first round they were drawn into; null for a player "
        "there from round 1"
    )
    reserve_games: int = Field(
        description="of the games counted in the row, those a reserve played at a seat (the "
        "format's replacements says whom they count for)"
    )


# --- a player's own page --------------------------------------------------------------------


class Spot(BaseModel):
    round: int
    table: int
    seat: Seat


class SeatReserve(BaseModel):
    """A seat a reserve played, for the rest of the round (the judge's replacement)."""

    player: int = Field(description="who left the seat (the drawn player, as the table names)")
    reserve: int = Field(description="who played it")
    name: str = Field(description="the reserve's name")
    counts_for: int | None = Field(
        description="whose standings its points count in, as the format's replacements says: "
        "the reserve's, the player's who left, or null: nobody's"
    )


class PlayerGame(BaseModel):
    round: int | None = Field(description="the round of the slot it fills (or that it names)")
    stage: str | None = Field(description="that round's stage (null: a round not drawn)")
    game: int | None = Field(description="the game within the round, or null if none is named")
    table: int
    seat: Seat = Field(description="the player's seat in it")
    small: int | None = Field(
        description="the player's small points, as the game counts now; null while the "
        "round's results wait for its other tables (the tournament's release_together)"
    )
    big: int | None = Field(
        description="the player's big points, as the game counts now; null while the "
        "round's results wait for its other tables"
    )
    counts: bool = Field(
        description="false while it is held or waits for the other tables, or excluded by the judge"
    )
    moves: Moves | None = Field(
        description="how the player moved in it, as the table sent it (null: an older table)"
    )
    reserve: SeatReserve | None = Field(
        description="the seat was a reserve's: who left it, who played it, whom it counts "
        "for; null for a game the seat's own player played"
    )


class Notice(BaseModel):
    """Something the judge changed about a player (their page's notices)."""

    at: str = Field(description="when (ISO 8601 UTC, the hub's clock)")
    kind: Literal[
        "correction", "rename", "withdraw", "reinstate", "warning", "deduction", "exclusion"
    ] = Field(description="a correction to a game of theirs, or the judge's event about them")
    round: int | None = Field(description="a corrected game's round")
    game: int | None = Field(description="a corrected game's number in its round")
    table: int | None = Field(description="a corrected game's table")
    big: int | None = Field(description="the big points a deduction took")


class PlayerRating(BaseModel):
    value: float = Field(description="the conservative figure, mu - 3 sigma")
    change_today: float = Field(description="how much today's games moved it")
    provisional: bool = Field(description="fewer than 30 games")


class PlayerPage(BaseModel):
    """A player's page (``/p/CODE``): where to sit now and next, their games, their place."""

    name: str
    tournament: str = Field(description="the tournament's name")
    round: int | None = Field(description="the round the player sits in now (null: not drawn)")
    table: int | None = Field(description="where the player sits now (null: not drawn yet)")
    seat: Seat | None = Field(description="their seat there (null: not drawn yet)")
    starts: Seat | None = Field(
        description="the seat that starts the first game at that table; null where the "
        "format draws it at the table (the highest tile)"
    )
    next: Spot | None = Field(description="their seat in a round drawn after this one")
    games: list[PlayerGame] = Field(description="every game of theirs, oldest first")
    place: int | None = Field(description="their place in the classification (null: no game)")
    stage: str | None = Field(
        description="the stage whose standings give the place: its games decide it (null: no "
        "place, or a format that ranks every round together)"
    )
    notices: list[Notice] = Field(description="what the judge changed about them, oldest first")
    tournament_id: int = Field(description="for the tournament's events (its stream)")
    revision: str = Field(description="the tournament's revision the page is of (its events')")
    checked_in: bool = Field(description="the player has checked in (their page or the judge)")
    check_in_open: bool = Field(description="the check-in is open: the page offers its button")
    stages: list[StageTitle] = Field(description="the format's stages, in the order played")
    rating: PlayerRating | None = Field(
        description="their rating on this hub (GET /api/v1/ratings); null before a rated game"
    )


class BoardSeat(BaseModel):
    seat: Seat
    player: int
    name: str
    club: str


class BoardTable(BaseModel):
    table: int
    missing: int = Field(description="the games the table still owes")
    seats: list[BoardSeat]


class BoardRound(BaseModel):
    round: int
    stage: str
    games: int = Field(description="games a table plays in the round")
    tables: list[BoardTable]


class HeldRound(BaseModel):
    """A round whose results wait for its last tables (the tournament's release_together)."""

    round: int
    tables: int = Field(description="the round's tables")
    ready: int = Field(description="its tables that have reported all their games")


class SeasonNamed(BaseModel):
    id: int
    name: str


class Board(BaseModel):
    """The tournament's public board (``/t/ID``): the last drawn round's seatings and the
    standings. Read by anyone; names no player's code."""

    id: int
    name: str
    revision: str = Field(description="changes with anything the board shows")
    round: BoardRound | None = Field(description="the last drawn round (null before a draw)")
    standings: list[StandingRow] = Field(
        description="the classification, without the results of the rounds held"
    )
    held: list[HeldRound] = Field(
        description="the rounds whose results are shown once every table of theirs has "
        "reported (release_together); empty otherwise"
    )
    stages: list[StageTitle] = Field(description="the format's stages, in the order played")
    seasons: list[SeasonNamed] = Field(
        description="the league's seasons it is a meeting of (their tables: /s/ID)"
    )


# --- results and corrections ----------------------------------------------------------------


class Correction(BaseModel):
    """A correction to a result, as the judge made it; ``assign`` also has where it put it."""

    id: int
    result: int = Field(description="the result's id")
    kind: Kind
    seat: Seat | None
    value: int | bool = Field(description="a rack sum, a player's id, or true / false")
    reason: str | None = Field(None, description=JUDGES_OWN)
    by: str | None = Field(None, description=JUDGES_OWN)
    at: At
    round: int | None = Field(None, description="assign only")
    table: int | None = Field(None, description="assign only")
    game: int | None = Field(None, description="assign only: the game within the round")
    players: dict[Seat, int] | None = Field(None, description="assign only: each seat's id")


class Slot(BaseModel):
    round: int
    table: int
    game: int = Field(description="the game within the round")


class ResultSeat(BaseModel):
    player: int | None = Field(description="the player's id; null: the table had none")
    name: str
    rack: int
    small: int
    big: int
    moves: Moves | None = Field(
        description="how the seat moved, as the table sent it; null: an older table's result"
    )
    reserve: SeatReserve | None = Field(
        description="a reserve played the seat (player and name stay the seat's drawn "
        "player's, as the table names them); null for the seat's own player"
    )


class Result(BaseModel):
    """A tournament's result as it counts now (the judge's corrections applied)."""

    id: int
    round: int | None
    table: int
    game: int
    slot: Slot | None = Field(description="the round's slot it fills; null: none")
    receipt: str
    received_at: At
    counts: bool
    held: str | None = Field(
        description="why it does not count: conflict, mismatch, rules, players, excluded, "
        "not_in_round, impossible; null: it counts"
    )
    corrected: bool
    winners: list[Seat]
    seats: dict[Seat, ResultSeat]
    corrections: list[Correction]


class LoggedCorrection(Correction):
    log: Literal["correction"]


class LoggedEvent(BaseModel):
    """Another of the judge's events: rename, withdraw, reinstate, undraw, extend (a table's
    round time), round_over (the hub's, at a table's zero), replace (a reserve took a
    player's seat for the rest of a round), renumber (a paired table given another number),
    replace_table (a paired table's number taken by another device, the judge's choice),
    repair_table (a table re-paired to another number with the proof of its old pairing: its
    results carried over), or a sanction, with
    what it kept (``changed``; the round undone; a sanction's ``stage`` and ``big``)."""

    # The event's own fields are kept as the hub wrote them, whatever its version was.
    model_config = ConfigDict(extra="allow")

    log: Literal["event"]
    id: int
    result: None
    kind: str
    player: int | None
    reason: str | None = Field(None, description=JUDGES_OWN)
    by: str | None = Field(None, description=JUDGES_OWN)
    at: At
    changed: dict[str, list[str | bool | Needs]] | None = Field(
        None,
        description="rename, withdraw, reinstate, family, needs: each field's value before "
        "and after",
    )
    stage: str | None = Field(None, description="undraw, a sanction")
    big: int | None = Field(None, description="a deduction")
    round: int | None = Field(None, description="undraw, extend, round_over, replace")
    games: int | None = Field(None, description="undraw")
    seed: int | None = Field(None, description="undraw")
    tables: list[DrawnTable] | None = Field(None, description="undraw")
    table: int | None = Field(
        None,
        description="extend: the table given more time; round_over: the table sent it; "
        "replace: the reserve's table; renumber, repair_table: its number before; "
        "replace_table: its number",
    )
    to: int | None = Field(None, description="renumber, repair_table: the table's new number")
    old_device: str | None = Field(
        None, description="replace_table: the device let go; repair_table: the one retired"
    )
    new_device: str | None = Field(None, description="replace_table, repair_table: the new device")
    seconds: int | None = Field(None, description="extend: how much more round time")
    seat: Seat | None = Field(None, description="replace: the seat the reserve took")
    reserve: int | None = Field(None, description="replace: who took it")
    from_game: int | None = Field(None, description="replace: from the table's game")
    withdrawn: bool | None = Field(None, description="replace: the player who left withdrawn")


Logged = Annotated[LoggedCorrection | LoggedEvent, Field(discriminator="log")]
