"""The round's clock (issue 20): a tournament's round time (``tournaments.round_time_s``,
null for none) and each table's start, extra time and round-over (``round_clocks``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("round_time_s", sa.Integer(), nullable=True))
    op.create_table(
        "round_clocks",
        sa.Column("tournament_id", sa.Integer(), primary_key=True),
        sa.Column("round_no", sa.Integer(), primary_key=True),
        sa.Column("table_no", sa.Integer(), primary_key=True),
        sa.Column("started_ms", sa.BigInteger(), nullable=False),
        sa.Column("extra_s", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("over_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
        ),
    )
    op.create_index("ix_round_clocks_table", "round_clocks", ["table_no", "started_ms"])


def downgrade() -> None:
    op.drop_index("ix_round_clocks_table", table_name="round_clocks")
    op.drop_table("round_clocks")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("round_time_s")
