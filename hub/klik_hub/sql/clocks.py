"""The round's clock at each table (``round_clocks``): when it was started, the judge's
extra time, and when its round-over was queued.

``of_table`` is on the heartbeat's path (every table, every 2 s): one indexed statement,
built once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, insert, select, update

from klik_hub.sql.schema import round_clocks, tournaments

#: A table's latest clock, with its tournament's round time (the heartbeat's answer).
OF_TABLE = (
    select(
        round_clocks.c.tournament_id,
        round_clocks.c.round_no,
        round_clocks.c.started_ms,
        round_clocks.c.extra_s,
        round_clocks.c.over_ms,
        tournaments.c.round_time_s,
    )
    .join(tournaments, tournaments.c.id == round_clocks.c.tournament_id)
    .where(round_clocks.c.table_no == bindparam("table_no"))
    .order_by(round_clocks.c.started_ms.desc())
    .limit(1)
)


def of_round(db: Connection, tid: int, round_no: int) -> Sequence[Any]:
    """Round ``round_no``'s clocks, by table."""
    return db.execute(
        select(round_clocks)
        .where(round_clocks.c.tournament_id == tid, round_clocks.c.round_no == round_no)
        .order_by(round_clocks.c.table_no)
    ).all()


def start(db: Connection, tid: int, round_no: int, tables: Iterable[int], now_ms: int) -> None:
    """Start the clocks of ``tables`` (none of which has one yet) at ``now_ms``."""
    rows = [
        {"tournament_id": tid, "round_no": round_no, "table_no": t, "started_ms": now_ms}
        for t in tables
    ]
    if rows:
        db.execute(insert(round_clocks), rows)


def extend(db: Connection, tid: int, round_no: int, table_no: int, seconds: int) -> bool:
    """Give table ``table_no`` ``seconds`` more, while its round-over is not queued; False
    if it was (or it has no clock)."""
    done = db.execute(
        update(round_clocks)
        .where(*_running(tid, round_no, table_no))
        .values(extra_s=round_clocks.c.extra_s + seconds)
    )
    return done.rowcount == 1


def running(db: Connection) -> Sequence[Any]:
    """Every clock with a round time whose round-over is not queued yet, with its time."""
    return db.execute(
        select(round_clocks, tournaments.c.round_time_s)
        .join(tournaments, tournaments.c.id == round_clocks.c.tournament_id)
        .where(round_clocks.c.over_ms.is_(None), tournaments.c.round_time_s.is_not(None))
    ).all()


def mark_over(
    db: Connection, tid: int, round_no: int, tables: Iterable[int], now_ms: int
) -> list[int]:
    """Mark the round-over of ``tables`` queued at ``now_ms``; the tables marked now (a table
    another process or the judge marked first is not marked twice)."""
    marked = []
    for table_no in tables:
        done = db.execute(
            update(round_clocks).where(*_running(tid, round_no, table_no)).values(over_ms=now_ms)
        )
        if done.rowcount == 1:
            marked.append(table_no)
    return marked


def _running(tid: int, round_no: int, table_no: int) -> tuple[ColumnElement[bool], ...]:
    """A table's clock, while its round-over is not queued."""
    return (
        round_clocks.c.tournament_id == tid,
        round_clocks.c.round_no == round_no,
        round_clocks.c.table_no == table_no,
        round_clocks.c.over_ms.is_(None),
    )


def of_table(db: Connection, table_no: int) -> Any:
    """Table ``table_no``'s latest clock with its round time, or None."""
    return db.execute(OF_TABLE, {"table_no": table_no}).first()
