"""The judge's own rule sets (issue 39): each version of a set's TOML as the judge sent it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rule_sets",
        sa.Column("name", sa.String(16), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("added_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rule_sets")
