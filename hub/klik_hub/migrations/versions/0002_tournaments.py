"""Tournaments, their players, drawn rounds and seatings; results found by tournament; the
hub's settings (the judge's password hash); the judge's corrections.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_results_tournament", "results", ["tournament", "round_no"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("rules", sa.String(16), nullable=False),
        sa.Column("format", sa.String(32), nullable=False),
        sa.Column("move_time_s", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("player_no", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("club", sa.String(100), nullable=False),
    )
    op.create_table(
        "rounds",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("round_no", sa.Integer, primary_key=True),
        sa.Column("stage", sa.String(64), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("override", sa.Boolean, nullable=False),
        sa.Column("drawn_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "seatings",
        sa.Column("tournament_id", sa.Integer, primary_key=True),
        sa.Column("round_no", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("seat", sa.String(1), primary_key=True),
        sa.Column("player_no", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
        ),
        sa.UniqueConstraint("tournament_id", "round_no", "player_no", name="uq_seatings_player"),
    )

    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.String(1), nullable=True),
        sa.Column("value", sa.Integer, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("by", sa.String(100), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_corrections_tournament_id", "corrections", ["tournament_id"])
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in ("settings", "corrections", "seatings", "rounds", "players", "tournaments"):
        op.drop_table(name)
    op.drop_index("ix_results_tournament", "results")
