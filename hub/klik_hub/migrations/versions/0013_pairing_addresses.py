"""Pairing at hall scale (issue 36): the network address each request to join came from,
so one address holds only a few undecided requests (``klik_hub.hall.pairing``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("pairing_requests", sa.Column("address", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("pairing_requests", "address")
