"""A result refers to its tournament by foreign key (``results.tournament_id``), read by
round through ``ix_results_tournament_id``; ``results.tournament`` stays as the table named it.

Results kept before get the id of the tournament they name, where it is one of this hub's.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # A column that may be null, with its reference: SQLite adds that in place, where
        # Alembic would copy the table (and have to move its claims and corrections).
        op.execute(
            "ALTER TABLE results ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id)"
        )
    else:
        op.add_column("results", sa.Column("tournament_id", sa.Integer, nullable=True))
        op.create_foreign_key(None, "results", "tournaments", ["tournament_id"], ["id"])
    op.execute(
        "UPDATE results SET tournament_id = ("
        " SELECT tournaments.id FROM tournaments"
        " WHERE CAST(tournaments.id AS VARCHAR(16)) = results.tournament)"
    )
    op.drop_index("ix_results_tournament", "results")
    op.create_index("ix_results_tournament_id", "results", ["tournament_id", "round_no"])


def downgrade() -> None:
    op.drop_index("ix_results_tournament_id", "results")
    op.create_index("ix_results_tournament", "results", ["tournament", "round_no"])
    with op.batch_alter_table("results") as batch:  # SQLite drops a reference by a copy
        batch.drop_column("tournament_id")
