"""A league's season (issue 39): its meetings ranked together by person.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("best", sa.Integer, nullable=True),
        sa.Column("points", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "season_meetings",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id"), primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("season_meetings")
    op.drop_table("seasons")
