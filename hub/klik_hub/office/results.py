"""A tournament's results as they count now: each with its slot, its seats' points as the
hub scores them (``counting``), how each seat moved (as the table sent it), the seats a
reserve played (``reserve``) and the judge's corrections to it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from klik_hub import sql
from klik_hub.office import corrections, counting
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store


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
            "seats": {s: _seat(x, s, names) for s in x.now.small},
            "corrections": notes.get(x.row.id, []),
        }
        for x in listed
    ]


def seat_moves(body: Mapping[str, Any], seat: str) -> dict[str, int] | None:
    """How ``seat`` moved in the game of the stored result ``body`` (``docs/protocol.md``, A
    seat's moves: ``count``, ``draws``, ``timeouts``, ``mean_ms``, ``longest_ms``), as the
    table sent it; None for an older table's result, which has none (or a seat it has not)."""
    entry = body.get("seats", {}).get(seat)
    moves = entry.get("moves") if isinstance(entry, dict) else None
    return dict(moves) if isinstance(moves, dict) else None


def reserve_of(x: counting.Counted, seat: str, names: Mapping[int, str]) -> dict[str, Any] | None:
    """``seat`` of result ``x`` as a reserve played it: ``{"player", "reserve", "name",
    "counts_for"}`` (who left, who played and their name, whom its points count for: None,
    nobody); None for a seat its own player played."""
    r = x.reserves.get(seat)
    if r is None:
        return None
    name = names.get(r.reserve, "")
    return {"player": r.player, "reserve": r.reserve, "name": name, "counts_for": x.credit[seat]}


def _seat(x: counting.Counted, seat: str, names: dict[int, str]) -> dict[str, Any]:
    """One seat of a result as the API shows it: its player's id and name (null and "" when
    the table named no player the hub knows as a number), its points, how it moved
    (``seat_moves``), and the reserve who played it (``reserve_of``)."""
    now = x.now
    player = now.players[seat]
    return {
        "player": player,
        "name": "" if player is None else names.get(player, ""),
        "rack": now.rack[seat],
        "small": now.small[seat],
        "big": now.big[seat],
        "moves": seat_moves(x.body, seat),
        "reserve": reserve_of(x, seat, names),
    }
