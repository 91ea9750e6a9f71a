"""A tournament's rounds: drawn and undone, read, their tables sent commands and given more
time, and a reserve seated for a player who must leave mid-round; each change of the judge's
(the routes are the judge's only but for reading a round)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from klik_hub import office
from klik_hub.api.deps import JUDGE_ONLY, Checked, Id, RatingsDep, RoundNo, StoreDep
from klik_hub.api.models import (
    ExtendIn,
    ReleaseIn,
    ReplacementIn,
    RoundCommandIn,
    RoundIn,
    UndrawIn,
)
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals

router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)


@router.post(
    "/{tid}/rounds",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Drawn,
    responses=refusals(404, 409, 422, *JUDGE),
)
def draw(tid: Id, ask: RoundIn, store: StoreDep, ratings: RatingsDep) -> dict[str, Any]:
    """Draw the next round → 201 ``{"round", "stage", "games", "seed", "tables"}``; 409
    while results of the last round are missing (unless ``override``), or if ``round``
    is given and is not the next. One draw at a time: a draw waits for the one before.
    ``by_rating``: the first round keeps the best-rated players apart."""
    strong = ratings.ranked_players(tid) if ask.by_rating else ()
    drawn = office.draws.draw(
        store, tid, ask.seed, override=ask.override, field=ask.field,
        tie_break=ask.tie_break, round_no=ask.round, clubs_weight=ask.clubs_weight,
        strong=strong,
    )  # fmt: skip
    return drawn.json()


@router.delete(
    "/{tid}/rounds/{round_no}",
    dependencies=JUDGE_ONLY,
    response_model=answers.Undrawn,
    responses=refusals(404, 409, 422, *JUDGE),
)
def undraw(
    tid: Id,
    round_no: RoundNo,
    store: StoreDep,
    why: UndrawIn | None = None,
) -> dict[str, Any]:
    """Undo the last drawn round while none of its results has come → 200 the round as it
    was drawn (a logged event); 409 naming the tables that reported, or if it is not the
    last round."""
    why = why or UndrawIn.model_validate({})
    return office.rounds.undraw(store, tid, round_no, why.reason, why.by)


@router.post(
    "/{tid}/rounds/{round_no}/release",
    dependencies=JUDGE_ONLY,
    response_model=answers.Released,
    responses=refusals(404, 409, 422, *JUDGE),
)
def release(
    tid: Id,
    round_no: RoundNo,
    store: StoreDep,
    why: ReleaseIn | None = None,
) -> dict[str, Any]:
    """Release a held round's results now, before every table is done (a tournament that
    releases results together) → 200 ``{"round", "missing"}``, a logged event ``release``:
    the public sees the round's results at once, and its later ones as they come. 409 if
    the tournament shows every result at once, or the round is not held."""
    why = why or ReleaseIn.model_validate({})
    return office.release.release_now(store, tid, round_no, why.reason, why.by)


@router.get("/{tid}/rounds/{round_no}", response_model=answers.Round, responses=refusals(404, 422))
def get_round(tid: Id, round_no: RoundNo, store: StoreDep) -> dict[str, Any]:
    """A drawn round: its tables, and how many games each table still owes."""
    return office.rounds.get(store, tid, round_no)


@router.post(
    "/{tid}/rounds/{round_no}/commands",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=list[answers.Sent],
    responses=refusals(404, 409, 422, *JUDGE),
)
def send(
    tid: Id, round_no: RoundNo, command: RoundCommandIn, store: StoreDep
) -> list[dict[str, Any]]:
    """Send every table of the round (or ``tables``) a command: ``game`` (its players,
    rule set, move time and games: the names go on the seats' screens and the ids into
    the results), ``start`` (and the round's clock of each table not started yet),
    ``round-over`` (the round's time is up), ``pause`` or ``resume`` → 201
    ``[{"table", "id"}]``; 409 if a table is not paired, 404 for a table the round does
    not have."""
    kind = command.kind.value
    return office.rounds.send(store, tid, round_no, kind, command.tables)


@router.post(
    "/{tid}/rounds/{round_no}/tables/{table_no}/extend",
    dependencies=JUDGE_ONLY,
    response_model=answers.Extended,
    responses=refusals(404, 409, 422, *JUDGE),
)
def extend(
    tid: Id,
    round_no: RoundNo,
    table_no: Annotated[int, Path(ge=1, le=999)],
    more: ExtendIn,
    store: StoreDep,
) -> dict[str, Any]:
    """Give one table more round time (logged) → 200 its clock; 409 if it was not
    started or its round-over was sent already, or the tournament has no round time."""
    return office.clock.extend(
        store, tid, round_no, table_no, seconds=more.seconds, reason=more.reason, by=more.by
    )


@router.post(
    "/{tid}/rounds/{round_no}/replacements",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Replaced,
    responses=refusals(404, 409, 422, *JUDGE),
)
def replace(tid: Id, round_no: RoundNo, sent: ReplacementIn, store: StoreDep) -> dict[str, Any]:
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
