"""The tournament office: what the judge does with a tournament, a module per concept
(``tournaments``, ``players``, ``sanctions``, ``draws``, ``rounds``, ``clock`` (a round's
time at each table), ``replacements`` (a reserve at a seat for the rest of a round),
``results``, ``corrections``, ``renumbering`` (a paired table given another number),
``standings``, ``release`` (what the public sees of a round's results); ``player_page``
and ``board``, what a player's own page and the tournament's public board say, from
``tally``, the tournament worked out once per revision; ``counting`` what every result
counts for, which several of them read).

Why "office": it is the tournament office's work (Tabbycat's folders, one per thing a
tournament director does), between the routes (``klik_hub.api``) and the
database. Each use case is a function of the hub's ``Store``: it opens a transaction, reads
through ``klik_hub.sql``, asks the pure core (``klik_hub.tournament``: draws, formats, slots,
corrections, standings) and keeps what it decided in that same transaction (``rounds.send``
reads in one and queues every table's commands in another). It raises
the tournament's own errors (``errors``), which know no HTTP: the routes answer each kind
with its status. What it returns is plain JSON-able data for the routes.

Used as ``from klik_hub import office`` and ``office.draws.draw(store, tid)``: every call
names its concept (and the routes keep their own names).

Ids: a tournament's id is a whole number; a player's id is the start number within its
tournament (1, 2, …). Both are integers everywhere in the hub: the database, the pure core's
types, the office and the API. Only on the wire are they text, as the protocol's fields are
(``"tournament": "3"``, ``"player": "17"``), and they are converted at its two edges: written
into a table's lineup by ``rounds._lineup``, and read back from a result's body by
``counting.player_id`` (players; ``counting.readable`` gives the core the body so read) and
``sql.results.named`` (its tournament), both by one rule, ``sql.results.id_of``.
"""

from klik_hub.office import (
    board,
    checkin,
    clock,
    corrections,
    counting,
    draws,
    errors,
    player_page,
    players,
    release,
    renumbering,
    replacements,
    results,
    rounds,
    sanctions,
    standings,
    tally,
    tournaments,
)

__all__ = [
    "board",
    "checkin",
    "clock",
    "corrections",
    "counting",
    "draws",
    "errors",
    "player_page",
    "players",
    "release",
    "renumbering",
    "replacements",
    "results",
    "rounds",
    "sanctions",
    "standings",
    "tally",
    "tournaments",
]
