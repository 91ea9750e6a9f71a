"""The judge's requests answered once (issue 37): each ``Idempotency-Key``'s first answer on
its route, replayed to a repeat of the same key for 24 hours (``klik_hub.door.once``).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "once",
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("route", sa.String(512), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("content_type", sa.String(128), nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column("kept_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_once_kept_ms", "once", ["kept_ms"])


def downgrade() -> None:
    op.drop_index("ix_once_kept_ms", "once")
    op.drop_table("once")
