"""The round's clock (000 o: "skończy się czas rundy"): each table's round time, counted from
its start, with the judge's extra time for one table; at its zero the hub queues round-over
for the table if it is still playing.

A table is started with the round's ``start`` (every table, or the late ones one by one:
``office.rounds.send`` with ``tables``), which starts its clock here once: a Start pressed
twice does not give a table more time. Each heartbeat's answer tells the table how long its
round has left (``hall.heartbeats``), so a table that loses contact ends the round by itself
at its own zero. ``due`` runs every second in the hub (``klik_hub.app``): the statement that
marks a table's round-over is conditional, so two hub processes never send it twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from sqlalchemy import Connection

from klik.link import protocol as p
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.errors import ConflictError, NotFoundError, TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament.clock import ends_ms, left_ms

MAX_EXTRA_S = 3600  # the most extra time a table is given in one round, in all
OVER_REASON = "czas rundy minął"  # the log's reason for the hub's own round-over


def shown(clocks: Sequence[Any], round_time_s: int | None, now_ms: int) -> dict[str, Any]:
    """A round's clock for its ``GET``: when it started (its first table), when its time ends
    (``ends_at``, ISO UTC, null without a round time or before its start) and how long is
    left as of ``now_ms`` (``left_ms``); each table's own in ``tables``."""
    tables = {}
    for x in clocks:
        end = ends_ms(x.started_ms, round_time_s, x.extra_s)
        tables[x.table_no] = {
            "started_at": utc_iso(x.started_ms),
            "ends_at": None if end is None else utc_iso(end),
            "left_ms": left_ms(end, now_ms),
            "extra_s": x.extra_s,
            "over_at": None if x.over_ms is None else utc_iso(x.over_ms),
        }
    first = min((x.started_ms for x in clocks), default=None)
    end = None if first is None else ends_ms(first, round_time_s, 0)
    return {
        "round_time_s": round_time_s,
        "started_at": None if first is None else utc_iso(first),
        "ends_at": None if end is None else utc_iso(end),
        "left_ms": left_ms(end, now_ms),
        "clocks": tables,
    }


def extend(
    store: Store, tid: int, round_no: int, table_no: int, *, seconds: int, reason: str, by: str
) -> dict[str, Any]:
    """Give one table ``seconds`` more of the round's time (logged, ``extend``); its clock as
    the round's ``GET`` shows it. ConflictError if the table was not started, or its
    round-over was sent already; TournamentError (422) past ``MAX_EXTRA_S`` in all, naming
    the minutes left."""
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        if not any(x.round_no == round_no for x in sql.rounds.listed(db, tid)):
            raise NotFoundError(words("tournament {tid} has no round {round}",
                                      tid=tid, round=round_no))  # fmt: skip
        if row.round_time_s is None:
            raise ConflictError(words("tournament {tid} has no round time", tid=tid))
        given = sum(
            x.extra_s for x in sql.clocks.of_round(db, tid, round_no) if x.table_no == table_no
        )
        if given + seconds > MAX_EXTRA_S:  # eight quick clicks are not 40 minutes more
            said = words(
                "round {round}, table {table}: at most {most} min of extra time in all; "
                "{left} min left",
                round=round_no,
                table=table_no,
                most=MAX_EXTRA_S // 60,
                left=(MAX_EXTRA_S - given) // 60,
            )
            raise TournamentError(said)
        if not sql.clocks.extend(db, tid, round_no, table_no, seconds):
            said = words(
                "round {round}, table {table}: not started, or its round-over was sent "
                "already; no time to extend",
                round=round_no,
                table=table_no,
            )
            raise ConflictError(said)
        now = store.now_ms()
        sql.events.log(db, tid, "extend", player_no=None,
                       args={"round": round_no, "table": table_no, "seconds": seconds},
                       reason=reason, by=by, at=utc_iso(now))  # fmt: skip
        clocks = sql.clocks.of_round(db, tid, round_no)
    table: dict[str, Any] = shown(clocks, row.round_time_s, now)["clocks"][table_no]
    return {"table": table_no, **table}


def due(store: Store) -> list[tuple[int, int, int]]:
    """Queue round-over for every table whose round time has run out while it still owes
    games, and mark every such table's clock over (logged once per round, ``round_over``,
    by the hub, ``round_over`` for each table sent it); the (tournament, round, table) sent
    round-over now."""
    now = store.now_ms()
    with store.reading() as db:
        ripe = [
            x
            for x in sql.clocks.running(db)
            if (end := ends_ms(x.started_ms, x.round_time_s, x.extra_s)) is not None and end <= now
        ]
    sent: list[tuple[int, int, int]] = []
    ripe.sort(key=lambda x: (x.tournament_id, x.round_no))
    for (tid, round_no), clocks in groupby(ripe, key=lambda x: (x.tournament_id, x.round_no)):
        tables = [x.table_no for x in clocks]
        with store.writing() as db:
            owed = _owed(db, tid, round_no)
            marked = sql.clocks.mark_over(db, tid, round_no, tables, now)
            playing = [t for t in marked if owed.get(t, 0) > 0]
            if playing:
                kind = p.CommandKind.ROUND_OVER.value
                sql.commands.queue(db, [(t, kind, {}) for t in playing], now)
            for table_no in playing:
                sql.events.log(db, tid, "round_over", player_no=None,
                               args={"round": round_no, "table": table_no},
                               reason=OVER_REASON, by="hub", at=utc_iso(now))  # fmt: skip
        sent += [(tid, round_no, t) for t in playing]
    return sent


def _owed(db: Connection, tid: int, round_no: int) -> Mapping[int, int]:
    """The games each table of round ``round_no`` still owes, by table."""
    drawn = sql.rounds.drawn(db, tid)
    kept = [x for x in drawn if x.round_no == round_no]
    if not kept:
        return {}
    listed = counting.counted(db, tid, sql.players.names(db, tid), drawn)
    return {m["table"]: m["missing"] for m in counting.missing(kept[0], listed)}
