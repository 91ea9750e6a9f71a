"""A table re-paired to another number carries its results (issue 38): the device a request
to join proved it was (``proves``), and each device's earlier table numbers whose results it
still sends (``device_links``).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("pairing_requests", sa.Column("proves", sa.String(64), nullable=True))
    op.create_table(
        "device_links",
        sa.Column("device", sa.String(64), primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("old_device", sa.String(64), nullable=False),
        sa.Column("linked_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("device_links")
    op.drop_column("pairing_requests", "proves")
