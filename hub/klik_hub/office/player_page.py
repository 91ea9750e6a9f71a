"""A player's own page (``/p/CODE``, the code on their badge): where to sit now and who starts,
their seat in the next round as soon as it is drawn, their games as they count now, and their
place. Public and read-only: whoever holds the code reads it, and the page names nobody
else's code.

What the page says is worked out by the pure core (``tournament.whereabouts`` for the seats,
``tournament.standings`` by way of ``standings.ranked`` for the place) from what ``counting``
says every result counts for, so it agrees with the round's board, the results and the
standings.
"""

from __future__ import annotations

from typing import Any

from klik.core.game import SEATS
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting, standings
from klik_hub.office.errors import NotFoundError
from klik_hub.office.players import CODE_ALPHABET, CODE_LENGTH
from klik_hub.office.tournaments import tournament
from klik_hub.store import Store
from klik_hub.tournament import formats as f
from klik_hub.tournament import whereabouts as wh

NO_PAGE = words("no player has this code; check the code on your badge")


def is_code(text: str) -> bool:
    """Whether ``text`` could be a player's code at all (``players.new_code``): anything else
    is refused before the database is asked."""
    return len(text) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in text)


def page(store: Store, code: str) -> dict[str, Any]:
    """The page of the player whose code is ``code``: NotFoundError if nobody's.

    ``{"name", "tournament", "round", "table", "seat", "starts", "next", "games", "place",
    "checked_in"}``: ``round``/``table``/``seat`` where they sit now (``whereabouts``; null
    before their first draw), ``starts`` the seat that starts the first game at that table
    (null where the format draws it at the table), ``next`` their ``{"round", "table",
    "seat"}`` in a round drawn after that one (or null), ``games`` every result they played,
    oldest first, with their seat's small and big points as it counts now and ``counts``,
    ``place`` their place in the tournament's classification (null until a game of theirs
    counts). ``checked_in`` is false: check-in is a later step of issue 20."""
    if not is_code(code):
        raise NotFoundError(NO_PAGE)
    with store.reading() as db:
        found = sql.players.by_code(db, code)
        if found is None:
            raise NotFoundError(NO_PAGE)
        tid, player = found.tournament_id, found.player_no
        row = tournament(db, tid)
        names = sql.players.names(db, tid)
        drawn = sql.rounds.drawn(db, tid)
        listed = counting.counted(db, tid, names, drawn)
    owing = {(x.round_no, m["table"]) for x in drawn for m in counting.missing(x, listed)}
    rounds = [(x.round_no, x.tables) for x in drawn]
    now, then = wh.now_and_next(player, rounds, owing)
    starts = None
    if now is not None:
        kept = next(x for x in drawn if x.round_no == now.round_no)
        seats = SEATS[: len(kept.tables[now.table - 1])]
        starts = wh.first_starter(f.load_format(row.format).first_starter, seats)
    mine = [r for r in standings.ranked(store, tid) if r.player == player]
    return {
        "name": found.name,
        "tournament": row.name,
        "round": None if now is None else now.round_no,
        "table": None if now is None else now.table,
        "seat": None if now is None else now.seat,
        "starts": starts,
        "next": None if then is None else _spot(then),
        "games": [g for x in listed for g in _games(x, player)],
        "place": mine[0].place if mine and mine[0].games else None,
        "checked_in": False,
    }


def _spot(spot: wh.Spot) -> dict[str, Any]:
    return {"round": spot.round_no, "table": spot.table, "seat": spot.seat}


def _games(x: counting.Counted, player: int) -> list[dict[str, Any]]:
    """``player``'s seat of result ``x`` as it counts now: its slot's round and game (those
    the result names while it fills none), the table and seat, small and big points."""
    slot = x.placed.slot
    named = x.body.get("round_game")
    return [
        {
            "round": x.round_no if slot is None else slot.round_no,
            "game": (named if type(named) is int else None) if slot is None else slot.game,
            "table": x.row.table_no if slot is None else slot.table,
            "seat": seat,
            "small": x.now.small[seat],
            "big": x.now.big[seat],
            "counts": x.now.counts and slot is not None,
        }
        for seat in x.now.small
        if x.now.players[seat] == player
    ]
