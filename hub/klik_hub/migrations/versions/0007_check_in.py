"""Check-in (issue 20): whether each player has checked in (``players.checked_in``) and
whether the tournament's check-in is open (``tournaments.check_in``: null before it was ever
opened, ``open`` or ``closed``). Who checked in, and when, is in the judge's log (``events``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Added in place on SQLite too: a NOT NULL column with a default, and a nullable one.
    op.add_column(
        "players",
        sa.Column("checked_in", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("tournaments", sa.Column("check_in", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("check_in")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("checked_in")
