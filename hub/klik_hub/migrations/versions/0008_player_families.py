"""Families (issue 20, better draws): the judge marks players of one family with one label
(``players.family``, empty for none), and a random stage's draw seats them at different
tables whenever the tables allow it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A NOT NULL column with a default: SQLite adds it in place.
    op.add_column("players", sa.Column("family", sa.String(100), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("family")
