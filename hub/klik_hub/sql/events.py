"""The judge's other events (``events``), the rest of the audit log beside the corrections:
a player withdrawn, reinstated or renamed, a round undrawn, a sanction. Only ever added."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select

from klik_hub.sql.schema import events


def log(
    db: Connection,
    tid: int,
    kind: str,
    *,
    player_no: int | None,
    args: dict[str, Any],
    reason: str,
    by: str,
    at: str,
) -> None:
    """Add one event to tournament ``tid``'s log; ``args`` is kept as canonical JSON."""
    db.execute(
        insert(events).values(
            tournament_id=tid,
            kind=kind,
            player_no=player_no,
            args=json.dumps(args, ensure_ascii=False, sort_keys=True),
            reason=reason,
            by=by,
            at=at,
        )
    )


def of_tournament(db: Connection, tid: int, kinds: Sequence[str] | None = None) -> Sequence[Any]:
    """Tournament ``tid``'s events (of ``kinds`` only, when given), oldest first."""
    query = select(events).where(events.c.tournament_id == tid)
    if kinds is not None:
        query = query.where(events.c.kind.in_(kinds))
    return db.execute(query.order_by(events.c.id)).all()


def excluded(db: Connection, tid: int) -> set[int]:
    """The players the judge excluded from tournament ``tid`` (start numbers)."""
    found = db.execute(
        select(events.c.player_no).where(
            events.c.tournament_id == tid, events.c.kind == "exclusion"
        )
    ).scalars()
    return set(found)


def released_early(db: Connection, tid: int) -> frozenset[int]:
    """The rounds of tournament ``tid`` whose results the judge released before every table
    was done (``release`` events), as drawn now: a round undrawn since (``undraw``) and drawn
    anew is held again."""
    released: set[int] = set()
    for x in of_tournament(db, tid, ("release", "undraw")):
        round_no = json.loads(x.args)["round"]
        if x.kind == "release":
            released.add(round_no)
        else:
            released.discard(round_no)
    return frozenset(released)
