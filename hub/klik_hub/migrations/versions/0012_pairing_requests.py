"""Pairing at the table (issue 21): the tables asking to join (``pairing_requests``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pairing_requests",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("table_key", sa.String(64), nullable=False),
        sa.Column("hub_nonce", sa.String(32), nullable=False),
        sa.Column("table_nonce", sa.String(32), nullable=True),
        sa.Column("digits", sa.String(6), nullable=True),
        sa.Column("link", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=True),
        sa.Column("sealed", sa.Text(), nullable=True),
        sa.Column("asked_ms", sa.BigInteger(), nullable=False),
        sa.Column("seen_ms", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("pairing_requests")
