"""Late arrivals and replacements (issue 20): the first round a player may be drawn into
(``players.from_round``) and the reserves who took a seat for the rest of a round
(``replacements``).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "players", sa.Column("from_round", sa.Integer(), nullable=False, server_default="1")
    )
    op.create_table(
        "replacements",
        sa.Column("tournament_id", sa.Integer(), primary_key=True),
        sa.Column("round_no", sa.Integer(), primary_key=True),
        sa.Column("table_no", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.String(1), primary_key=True),
        sa.Column("player_no", sa.Integer(), nullable=False),
        sa.Column("reserve_no", sa.Integer(), nullable=False),
        sa.Column("from_game", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
        ),
    )


def downgrade() -> None:
    op.drop_table("replacements")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("from_round")
