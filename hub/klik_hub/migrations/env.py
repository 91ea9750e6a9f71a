"""Alembic's environment: the hub hands it an open connection (``klik_hub.storage.db.migrate``)."""

from __future__ import annotations

from alembic import context

from klik_hub.sql.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
