"""Devices, results with their claims, heartbeats and hub → table commands.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("device", sa.String(64), primary_key=True),
        sa.Column("table_no", sa.Integer, nullable=False, unique=True),
        sa.Column("key_hex", sa.String(64), nullable=False),
        sa.Column("paired_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("device", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("tournament", sa.String(200), nullable=True),
        sa.Column("round_no", sa.Integer, nullable=True),
        sa.Column("game", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("receipt", sa.String(8), nullable=False),
        sa.Column("points_check", sa.String(8), nullable=False),
        sa.Column("conflict", sa.Boolean, nullable=False),
        sa.Column("received_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("device", "seq", "digest", name="uq_results_send"),
    )
    op.create_table(
        "claims",
        sa.Column("claim", sa.String(400), primary_key=True),
        sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=False),
    )
    op.create_table(
        "status",
        sa.Column("device", sa.String(64), primary_key=True),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "commands",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("args", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("acked_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_commands_table_no", "commands", ["table_no"])


def downgrade() -> None:
    for name in ("commands", "status", "claims", "results", "devices"):
        op.drop_table(name)
