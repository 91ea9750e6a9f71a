"""The judge's corrections (``corrections``): rows added to a result, never changes to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, insert, select

from klik_hub.sql.schema import corrections


def of_tournament(db: Connection, tid: int) -> Sequence[Any]:
    """Tournament ``tid``'s corrections, in the order they were made."""
    return db.execute(
        select(corrections).where(corrections.c.tournament_id == tid).order_by(corrections.c.id)
    ).all()


def add(
    db: Connection,
    *,
    tid: int,
    result_id: int,
    kind: str,
    seat: str | None,
    value: int,
    reason: str,
    by: str,
    at: str,
    args: str | None,
) -> int:
    """Keep a correction of result ``result_id``; its id."""
    new = db.execute(
        insert(corrections)
        .values(
            tournament_id=tid,
            result_id=result_id,
            kind=kind,
            seat=seat,
            value=value,
            reason=reason,
            by=by,
            at=at,
            args=args,
        )
        .returning(corrections.c.id)
    )
    return int(new.scalar_one())


def corrected_among(db: Connection, ids: list[int]) -> set[int]:
    """Those of the results ``ids`` that the judge has corrected."""
    return set(
        db.execute(
            select(corrections.c.result_id).where(corrections.c.result_id.in_(ids))
        ).scalars()
    )


def assigned(tid: int | None = None) -> Select[Any]:
    """The ids of the results the judge assigned to a slot of tournament ``tid`` (of any
    tournament when None), as a subquery."""
    chosen = select(corrections.c.result_id)
    if tid is None:
        return chosen.where(corrections.c.kind == "assign")
    return chosen.where(corrections.c.tournament_id == tid, corrections.c.kind == "assign")
