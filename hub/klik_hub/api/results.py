"""A tournament's results as they count, and the judge's corrections to them with their
audit log. Anyone but the judge gets a tournament's results as released (``JUDGE_READS``,
``public``: a round held back is not shown)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from klik_hub import office
from klik_hub.api.deps import JUDGE_ONLY, JUDGE_READS, Checked, Id, StoreDep, public
from klik_hub.api.models import CorrectionIn
from klik_hub.door import answers
from klik_hub.door.answers import JUDGE, refusals

router = APIRouter(prefix="/api/v1/tournaments", tags=["tournament"], route_class=Checked)


# A correction's assign-only keys are there for an assign only: the answers keep to the
# keys the office gave (``answers``'s docstring).
@router.get(
    "/{tid}/results",
    dependencies=JUDGE_READS,
    response_model=list[answers.Result],
    response_model_exclude_unset=True,
    responses=refusals(404, 422),
)
def get_results(request: Request, tid: Id, store: StoreDep) -> list[dict[str, Any]]:
    """The tournament's results, oldest first: each with what it counts for now (``counts``,
    ``held``: conflict, mismatch, players or excluded), its seats' points as the hub scores
    them, ``corrected`` and its corrections. Anyone but the judge is not shown the
    results of a round held back (the tournament's ``release_together``), nor a
    correction's ``reason`` and ``by``."""
    return office.release.listed(store, tid, public=public(request))


@router.post(
    "/{tid}/results/{result_id}/corrections",
    status_code=201,
    dependencies=JUDGE_ONLY,
    response_model=answers.Correction,
    response_model_exclude_unset=True,
    responses=refusals(404, 422, *JUDGE),
)
def correct(
    tid: Id,
    result_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    correction: CorrectionIn,
    store: StoreDep,
) -> dict[str, Any]:
    """A correction, added to the result as an event (the result itself never changes)
    → 201 the correction; it counts from now on, in the standings and every export."""
    request = correction.model_dump(exclude={"by"})
    return office.corrections.correct(store, tid, result_id, request, by=correction.by)


@router.get(
    "/{tid}/corrections",
    dependencies=JUDGE_READS,
    response_model=list[answers.Logged],
    response_model_exclude_unset=True,
    responses=refusals(404, 422),
)
def get_corrections(request: Request, tid: Id, store: StoreDep) -> list[dict[str, Any]]:
    """The audit log, newest first: every correction and every other event of the judge's,
    with when; the judge also reads each one's ``reason`` and ``by`` (anyone else: neither,
    and no correction to a result of a round held back)."""
    return office.release.log(store, tid, public=public(request))
