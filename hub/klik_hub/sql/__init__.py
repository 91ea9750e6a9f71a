"""The hub's SQL, a module per concept: each owns the statements on its tables.

Why a folder of its own: the SQL is the one layer that knows the schema (``klik_hub.sql.schema``),
and reading it by concept (``devices``, ``results``, ``commands``, ``clocks``, ``tournaments``,
``players``, ``rounds``, ``corrections``, ``events``, ``heartbeats``, ``pairing``, ``settings``,
``sessions``, ``once``) is how one finds a statement. Every function runs its statements on a
connection it is given, in a transaction its caller opened (``Store.reading`` or
``Store.writing``): none opens, commits or decides anything, none reads the clock (a time
comes in as an argument), and none raises a tournament's error (a row that is not there is
``None``). The rules live in the callers: the link's in ``klik_hub.storage.store``, the
tournament's in ``klik_hub.office`` with its pure core, ``klik_hub.tournament``.

Used as ``from klik_hub import sql`` and ``sql.rounds.drawn(db, tid)``: every call names its
concept.
"""

from klik_hub.sql import (
    clocks,
    commands,
    corrections,
    devices,
    events,
    heartbeats,
    once,
    pairing,
    people,
    players,
    results,
    rounds,
    rule_sets,
    seasons,
    sessions,
    settings,
    tournaments,
)

__all__ = [
    "clocks",
    "commands",
    "corrections",
    "devices",
    "events",
    "heartbeats",
    "once",
    "pairing",
    "people",
    "players",
    "results",
    "rounds",
    "rule_sets",
    "seasons",
    "sessions",
    "settings",
    "tournaments",
]
