"""The drawn rounds (``rounds``), who sits where in them (``seatings``) and the reserves who
took a seat for the rest of a round (``replacements``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from klik_hub.sql.schema import replacements as replacements_table
from klik_hub.sql.schema import round_clocks, rounds, seatings


@dataclass(frozen=True, slots=True)
class Round:
    """A drawn round as kept: its tables' players (ids) in seat order, table 1 first."""

    round_no: int
    stage: str
    games: int
    seed: int
    tables: tuple[tuple[int, ...], ...]
    drawn_at: str = ""


def listed(db: Connection, tid: int) -> Sequence[Any]:
    """Tournament ``tid``'s rounds' rows, first first, without their seats."""
    return db.execute(
        select(rounds).where(rounds.c.tournament_id == tid).order_by(rounds.c.round_no)
    ).all()


def drawn(db: Connection, tid: int) -> list[Round]:
    """Tournament ``tid``'s rounds, first first, with their seats."""
    kept = listed(db, tid)
    seated = db.execute(
        select(seatings)
        .where(seatings.c.tournament_id == tid)
        .order_by(seatings.c.round_no, seatings.c.table_no, seatings.c.seat)
    ).all()
    tables: dict[int, dict[int, list[int]]] = {}
    for x in seated:
        tables.setdefault(x.round_no, {}).setdefault(x.table_no, []).append(x.player_no)
    return [
        Round(
            x.round_no,
            x.stage,
            x.games,
            x.seed,
            tuple(tuple(t) for _, t in sorted(tables.get(x.round_no, {}).items())),
            x.drawn_at,
        )
        for x in kept
    ]


def keep(
    db: Connection,
    tid: int,
    kept: Round,
    *,
    override: bool,
    seats: Iterable[tuple[int, str, int]],
) -> None:
    """Keep round ``kept`` (drawn with earlier results missing if ``override``) and its
    ``seats``: (table, seat, player) each."""
    db.execute(
        insert(rounds).values(
            tournament_id=tid,
            round_no=kept.round_no,
            stage=kept.stage,
            games=kept.games,
            seed=kept.seed,
            override=override,
            drawn_at=kept.drawn_at,
        )
    )
    db.execute(
        insert(seatings),
        [
            {
                "tournament_id": tid,
                "round_no": kept.round_no,
                "table_no": table_no,
                "seat": seat,
                "player_no": player_no,
            }
            for table_no, seat, player_no in seats
        ],
    )


def replacements(db: Connection, tid: int, round_no: int | None = None) -> Sequence[Any]:
    """Tournament ``tid``'s reserves (of round ``round_no`` only, when given), by round,
    table and seat."""
    query = select(replacements_table).where(replacements_table.c.tournament_id == tid)
    if round_no is not None:
        query = query.where(replacements_table.c.round_no == round_no)
    order = (
        replacements_table.c.round_no,
        replacements_table.c.table_no,
        replacements_table.c.seat,
    )
    return db.execute(query.order_by(*order)).all()


def replace(
    db: Connection, tid: int, round_no: int, table_no: int, seat: str, *, player_no: int,
    reserve_no: int, from_game: int,
) -> None:  # fmt: skip
    """Keep a reserve at ``seat`` of table ``table_no`` in round ``round_no``: ``player_no``
    left it, ``reserve_no`` plays it from the table's game ``from_game`` of the round on. A
    seat replaced already meets the primary key (IntegrityError)."""
    db.execute(
        insert(replacements_table).values(
            tournament_id=tid,
            round_no=round_no,
            table_no=table_no,
            seat=seat,
            player_no=player_no,
            reserve_no=reserve_no,
            from_game=from_game,
        )
    )


def undo(db: Connection, tid: int, round_no: int) -> None:
    """Delete round ``round_no`` and its seats (with its clocks and reserves, if any)."""
    for kept in (round_clocks, replacements_table):
        db.execute(delete(kept).where(kept.c.tournament_id == tid, kept.c.round_no == round_no))
    where = (seatings.c.tournament_id == tid, seatings.c.round_no == round_no)
    db.execute(delete(seatings).where(*where))
    db.execute(delete(rounds).where(rounds.c.tournament_id == tid, rounds.c.round_no == round_no))
