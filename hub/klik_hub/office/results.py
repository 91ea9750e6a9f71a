"""A tournament's results as they count now: each with its slot, its seats' points as the
hub scores them (``counting``) and the judge's corrections to it."""

from __future__ import annotations

from typing import Any

from klik_hub import sql
from klik_hub.office import corrections, counting
from klik_hub.office.tournaments import tournament
from klik_hub.store import Store
from klik_hub.tournament import corrections as cr


def listed(store: Store, tid: int) -> list[dict[str, Any]]:
    """The tournament's results, oldest first, each with what it counts for now and the
    slot it fills (``slot``: round, table and the game within the round, or null)."""
    with store.reading() as db:
        tournament(db, tid)
        names = sql.players.names(db, tid)
        listed = counting.counted(db, tid, names, sql.rounds.drawn(db, tid))
        made = corrections.entries(db, tid)
    notes: dict[int, list[dict[str, Any]]] = {}
    for c in made:
        notes.setdefault(c["result"], []).append(c)
    return [
        {
            "id": x.row.id,
            "round": x.round_no,
            "table": x.row.table_no,
            "game": x.row.game,
            "slot": None if x.placed.slot is None else counting.slot_json(x.placed.slot),
            "receipt": x.row.receipt,
            "received_at": x.row.received_at,
            "counts": x.now.counts,
            "held": x.now.held,
            "corrected": x.now.corrected,
            "winners": list(x.now.winners),
            "seats": {s: _seat(x.now, s, names) for s in x.now.small},
            "corrections": notes.get(x.row.id, []),
        }
        for x in listed
    ]


def _seat(now: cr.Counted, seat: str, names: dict[int, str]) -> dict[str, Any]:
    """One seat of a result as the API shows it: its player's id and name (null and "" when
    the table named no player the hub knows as a number) and its points."""
    player = now.players[seat]
    return {
        "player": player,
        "name": "" if player is None else names.get(player, ""),
        "rack": now.rack[seat],
        "small": now.small[seat],
        "big": now.big[seat],
    }
