"""A player's needs (issue 40): the seat's vibration, large screens and quiet, and a fixed table.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NOT NULL columns with a default, and a nullable one: SQLite adds them in place.
    for name in ("needs_vibration", "needs_large", "needs_quiet"):
        op.add_column(
            "players", sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false())
        )
    op.add_column("players", sa.Column("fixed_table", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        for name in ("fixed_table", "needs_quiet", "needs_large", "needs_vibration"):
            batch.drop_column(name)
