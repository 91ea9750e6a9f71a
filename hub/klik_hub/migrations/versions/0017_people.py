"""People across tournaments (issue 39): ``people``, and each enrolment's ``person_id``. Every
player enrolled before gets a person of their own, as a new enrolment does.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    people = op.create_table(
        "people",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("club", sa.String(100), nullable=False),
        sa.Column("federation_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_people_federation", "people", ["federation_id"], unique=True)
    op.add_column("players", sa.Column("person_id", sa.Integer, nullable=True))
    op.create_index("ix_players_person", "players", ["person_id"])
    players = sa.table(
        "players",
        sa.column("tournament_id", sa.Integer),
        sa.column("player_no", sa.Integer),
        sa.column("name", sa.String),
        sa.column("club", sa.String),
        sa.column("person_id", sa.Integer),
    )
    bind = op.get_bind()
    enrolled = bind.execute(
        sa.select(
            players.c.tournament_id, players.c.player_no, players.c.name, players.c.club
        ).order_by(players.c.tournament_id, players.c.player_no)
    ).all()
    for tid, no, name, club in enrolled:
        person = bind.execute(
            sa.insert(people).values(name=name, club=club, created_at="").returning(people.c.id)
        ).scalar_one()
        bind.execute(
            sa.update(players)
            .where(players.c.tournament_id == tid, players.c.player_no == no)
            .values(person_id=person)
        )


def downgrade() -> None:
    op.drop_index("ix_players_person", "players")
    op.drop_column("players", "person_id")
    op.drop_index("ix_people_federation", "people")
    op.drop_table("people")
