"""The check-in (``office.checkin``): the judge opens and closes it, ticks players, withdraws
the absentees; each a logged event. (A player checks in from their own page: ``public``.)"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from klik_hub import office
from klik_hub.api.deps import JUDGE_ONLY, Checked, Id, StoreDep
from klik_hub.api.models import ByIn, CheckInIn, TickIn
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals

router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)
SAID = refusals(404, 422, *JUDGE)


@router.get("/{tid}/check-in", response_model=answers.CheckIn, responses=refusals(404, 422))
def check_in(tid: Id, store: StoreDep) -> dict[str, Any]:
    """Who has checked in and who is absent, among the players not withdrawn."""
    return office.checkin.state(store, tid)


@router.post(
    "/{tid}/check-in", dependencies=JUDGE_ONLY, response_model=answers.CheckIn, responses=SAID
)
def open_check_in(tid: Id, sent: CheckInIn, store: StoreDep) -> dict[str, Any]:
    """Open (``{"open": true}``) or close the check-in → 200 who has checked in and who
    is absent. Once opened, the tournament's draws seat the checked-in players only."""
    return office.checkin.set_open(store, tid, sent.open, sent.by)


@router.post(
    "/{tid}/players/{player}/check-in",
    dependencies=JUDGE_ONLY,
    response_model=answers.CheckIn,
    responses=SAID,
)
def tick(
    tid: Id, player: Annotated[int, Path(ge=1, le=2**31 - 1)], sent: TickIn, store: StoreDep
) -> dict[str, Any]:
    """The judge ticks a player in (or out) at the desk, whether the check-in is open or
    not, and keeps the needs they tell (``needs``: any of its keys, the others stay) → 200
    who has checked in and who is absent."""
    if sent.needs is not None:
        office.players.tell_needs(store, tid, player, sent.needs.given(), sent.by)
    return office.checkin.tick(store, tid, player, sent.checked_in, sent.by)


@router.post(
    "/{tid}/check-in/absent",
    dependencies=JUDGE_ONLY,
    response_model=answers.AbsentWithdrawn,
    responses=SAID,
)
def withdraw_absent(tid: Id, store: StoreDep, sent: ByIn | None = None) -> dict[str, Any]:
    """Withdraw every player not withdrawn who has not checked in, in one step (a logged
    ``withdraw`` each) → 200 ``withdrawn`` and the check-in as it is now."""
    return office.checkin.withdraw_absent(store, tid, (sent or ByIn.model_validate({})).by)
