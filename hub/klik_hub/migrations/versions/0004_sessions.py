"""The judge's console sessions (``sessions``): a token's SHA-256, the password's it was
opened with, and when it expires.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        sa.Column("password_sha256", sa.String(64), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sessions")
