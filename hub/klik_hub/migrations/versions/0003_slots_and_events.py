"""Commands in the order they were queued (``commands.rank``); the judge's log: an
``assign`` correction's slot (``corrections.args``), a player's withdrawal
(``players.active``) and the judge's other events (``events``: withdrawals, renames,
undrawn rounds, sanctions).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("commands", sa.Column("rank", sa.BigInteger, nullable=True))
    op.execute("UPDATE commands SET rank = created_ms * 1000")
    op.add_column("corrections", sa.Column("args", sa.Text, nullable=True))
    op.add_column(
        "players", sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true())
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_no", sa.Integer, nullable=True),
        sa.Column("args", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("by", sa.String(100), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_events_tournament_id", "events", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_events_tournament_id", "events")
    op.drop_table("events")
    with op.batch_alter_table("players") as players:
        players.drop_column("active")
    with op.batch_alter_table("corrections") as corrections:
        corrections.drop_column("args")
    with op.batch_alter_table("commands") as commands:
        commands.drop_column("rank")
