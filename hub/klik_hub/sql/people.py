"""People across tournaments (``people``) and which person each enrolment is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select, update

from klik_hub.sql.schema import people, players


def add(db: Connection, name: str, club: str, federation_id: str | None, at: str) -> int:
    """A new person; their id."""
    made = db.execute(
        insert(people)
        .values(name=name, club=club, federation_id=federation_id, created_at=at)
        .returning(people.c.id)
    )
    return int(made.scalar_one())


def by_federation_id(db: Connection, federation_id: str) -> int | None:
    found = db.execute(select(people.c.id).where(people.c.federation_id == federation_id))
    value = found.scalar()
    return None if value is None else int(value)


def one(db: Connection, person: int) -> Any:
    return db.execute(select(people).where(people.c.id == person)).first()


def every(db: Connection) -> Sequence[Any]:
    """Every person, by id."""
    return db.execute(select(people).order_by(people.c.id)).all()


def of_players(db: Connection, tid: int | None = None) -> dict[tuple[int, int], int]:
    """(tournament, player) -> person, for every enrolment with one (of ``tid`` only)."""
    query = select(players.c.tournament_id, players.c.player_no, players.c.person_id).where(
        players.c.person_id.is_not(None)
    )
    if tid is not None:
        query = query.where(players.c.tournament_id == tid)
    return {(t, p): int(person) for t, p, person in db.execute(query)}


def enrolments(db: Connection, person: int) -> Sequence[Any]:
    """A person's enrolments: (tournament_id, player_no, name, club), oldest first."""
    return db.execute(
        select(players.c.tournament_id, players.c.player_no, players.c.name, players.c.club)
        .where(players.c.person_id == person)
        .order_by(players.c.tournament_id)
    ).all()


def link(db: Connection, tid: int, player_no: int, person: int) -> None:
    """Enrolment (``tid``, ``player_no``) is ``person``."""
    db.execute(
        update(players)
        .where(players.c.tournament_id == tid, players.c.player_no == player_no)
        .values(person_id=person)
    )
