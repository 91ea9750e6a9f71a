"""Every player has a code of their own (``players.code``): their page's address, ``/p/CODE``,
printed on their badge as a QR code. Players enrolled before get theirs here.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# As klik_hub.office.players makes them (a migration keeps its own copy: it must make the
# same codes however the code changes later).
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LENGTH = 10


def upgrade() -> None:
    # NOT NULL from the start, with a default only until every row has its code: SQLite
    # adds such a column in place (it keeps the default; nothing enrols without a code),
    # where making it NOT NULL afterwards would copy the table and its seatings' references.
    op.add_column("players", sa.Column("code", sa.String(16), nullable=False, server_default=""))
    db = op.get_bind()
    found = db.execute(sa.text("SELECT tournament_id, player_no FROM players")).all()
    for tid, player_no in found:
        code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
        db.execute(
            sa.text("UPDATE players SET code = :code WHERE tournament_id = :t AND player_no = :p"),
            {"code": code, "t": tid, "p": player_no},
        )
    if db.dialect.name != "sqlite":
        op.alter_column("players", "code", server_default=None)
    op.create_index("ix_players_code", "players", ["code"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_code", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("code")
