"""The enrolled players (``players``), numbered 1, 2, … within their tournament: a player's
id is their start number, an integer (text only on the wire to and from the tables: see
``klik_hub.office``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from klik_hub.sql.schema import players
from klik_hub.tournament.needs import Needs


def count(db: Connection, tid: int) -> int:
    return int(
        db.execute(
            select(func.count()).select_from(players).where(players.c.tournament_id == tid)
        ).scalar_one()
    )


def enrolled(db: Connection, tid: int) -> Sequence[Any]:
    """Tournament ``tid``'s players, in no particular order."""
    return list(db.execute(select(players).where(players.c.tournament_id == tid)))


def by_number(db: Connection, tid: int) -> Sequence[Any]:
    """Tournament ``tid``'s players by start number."""
    return db.execute(
        select(players).where(players.c.tournament_id == tid).order_by(players.c.player_no)
    ).all()


def one(db: Connection, tid: int, player_no: int) -> Any:
    """Player ``player_no`` of tournament ``tid``, or None."""
    return db.execute(
        select(players).where(players.c.tournament_id == tid, players.c.player_no == player_no)
    ).first()


def by_code(db: Connection, code: str) -> Any:
    """The player whose page's code is ``code`` (in any tournament), or None."""
    return db.execute(select(players).where(players.c.code == code)).first()


def names(db: Connection, tid: int) -> dict[int, str]:
    """Every player's name by start number, withdrawn or not."""
    found = db.execute(
        select(players.c.player_no, players.c.name)
        .where(players.c.tournament_id == tid)
        .order_by(players.c.player_no)
    ).all()
    return {x.player_no: x.name for x in found}


def active_names(db: Connection, tid: int) -> dict[int, str]:
    """The name of every player not withdrawn, by start number."""
    found = db.execute(
        select(players.c.player_no, players.c.name)
        .where(players.c.tournament_id == tid, players.c.active)
        .order_by(players.c.player_no)
    ).all()
    return {x.player_no: x.name for x in found}


def enrol(db: Connection, rows: list[dict[str, Any]]) -> None:
    """Keep new players: ``tournament_id``, ``player_no``, ``name``, ``club``, ``code``,
    ``from_round`` and ``checked_in`` each."""
    db.execute(insert(players), rows)


def draw_from(db: Connection, tid: int, was: int, now: int) -> None:
    """The players of tournament ``tid`` drawn from round ``was`` on are drawn from round
    ``now`` on (``from_round``)."""
    db.execute(
        update(players)
        .where(players.c.tournament_id == tid, players.c.from_round == was)
        .values(from_round=now)
    )


def change(db: Connection, tid: int, player_no: int, values: dict[str, Any]) -> None:
    """Set the player's ``name``, ``club``, ``family``, ``active`` or needs' columns
    (``needs_values``) to ``values``."""
    db.execute(
        update(players)
        .where(players.c.tournament_id == tid, players.c.player_no == player_no)
        .values(**values)
    )


def needs(row: Any) -> Needs:
    """A player's row's needs (``tournament.needs``)."""
    return Needs(
        vibration=bool(row.needs_vibration),
        large=bool(row.needs_large),
        quiet=bool(row.needs_quiet),
        fixed_table=row.fixed_table,
    )


def needs_values(wanted: Needs) -> dict[str, Any]:
    """``wanted`` as the players' columns, for ``enrol`` and ``change``."""
    return {
        "needs_vibration": wanted.vibration,
        "needs_large": wanted.large,
        "needs_quiet": wanted.quiet,
        "fixed_table": wanted.fixed_table,
    }
