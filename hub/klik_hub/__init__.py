"""The tournament hub: every table's results kept, checked and shown to the head judge.

A program for a laptop (or a Pi 4/5), not for the tables: FastAPI on uvicorn over a
SQLAlchemy Core store (``store``) with Alembic migrations; SQLite is the embedded default and
PostgreSQL serves a hall that one laptop cannot. Installed with the extra ``klik[hub]``; the
``klik hub`` and ``klik pair`` commands reach it lazily, so the table's commands stay fast.
"""
