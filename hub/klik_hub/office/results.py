"""A tournament's results as they count now: each with its slot, its seats' points as the
hub scores them (``counting``) and the judge's corrections to it."""

from __future__ import annotations

from typing import Any

from klik_hub import sql
from klik_hub.office import corrections, counting
from klik_hub.office.tournaments import tournament
from klik_hub.store import Store


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
            "seats": {
                s: {
                    "player": _player_id(x.now.players[s]),
                    "name": names.get(str(x.now.players[s]), ""),
                    "rack": x.now.rack[s],
                    "small": x.now.small[s],
                    "big": x.now.big[s],
                }
                for s in x.now.small
            },
            "corrections": notes.get(x.row.id, []),
        }
        for x in listed
    ]


def _player_id(player: str | None) -> int | None:
    """A seat's player as the API shows ids: a number, or null when the table had none."""
    return int(player) if player is not None and player.isdigit() else None
