"""The tournament's public board (``/t/ID``, the QR code on the projector): the live
standings and the round's seatings, for anyone in the hall. Read-only, and it names no
player's code. Worked out once for each revision of the tournament (``tally``)."""

from __future__ import annotations

import json
from typing import Any

from klik.core.game import SEATS
from klik_hub.office import counting
from klik_hub.office.standings import shown
from klik_hub.office.tally import Tallies, Tally
from klik_hub.office.tournaments import stages_of


def board(tallies: Tallies, tid: int, revision: str | None = None) -> dict[str, Any]:
    """Tournament ``tid``'s board: ``{"id", "name", "revision", "round", "standings",
    "held"}``.

    ``round`` is the last drawn round (null before the first draw): ``{"round", "stage",
    "games", "tables": [{"table", "missing", "seats": [{"seat", "player", "name",
    "club"}]}]}``, ``missing`` the games a table still owes. ``standings`` is the
    classification as ``GET /api/v1/tournaments/{id}/standings`` gives it to the public.
    ``held``: the rounds whose results wait for their last tables (``release``), ``{"round",
    "tables", "ready"}`` each, ``ready`` the tables that owe nothing; empty unless the
    tournament releases results together. NotFoundError if there is no such tournament.
    ``revision``: the tournament's revision as the pages' feed knows it (``Tallies.at``)."""
    return _of(tallies.at(tid, revision))


def board_json(tallies: Tallies, tid: int, revision: str | None = None) -> bytes:
    """``board`` as the JSON answered (UTF-8), made once per revision."""
    return _json(tallies.at(tid, revision))


def board_json_known(tallies: Tallies, tid: int, revision: str) -> bytes | None:
    """``board_json`` from memory alone, if the tally of ``revision`` is kept; else None."""
    tally = tallies.cached(tid, revision)
    return None if tally is None else _json(tally)


def _json(tally: Tally) -> bytes:
    if "board json" not in tally.memo:
        shown = json.dumps(_of(tally), ensure_ascii=False, separators=(",", ":"))
        tally.memo["board json"] = shown.encode()
    answer: bytes = tally.memo["board json"]
    return answer


def _of(tally: Tally) -> dict[str, Any]:
    if "board" not in tally.memo:
        tally.memo["board"] = of_tally(tally)
    shown: dict[str, Any] = tally.memo["board"]
    return shown


def of_tally(tally: Tally) -> dict[str, Any]:
    return {
        "id": tally.tid,
        "name": tally.row.name,
        "revision": tally.revision,
        "round": _round(tally) if tally.drawn else None,
        "standings": standings(tally),
        "held": held(tally),
        "stages": stages_of(tally.row.format),
        "seasons": [{"id": i, "name": n} for i, n in tally.seasons],
    }


def standings(tally: Tally) -> list[dict[str, Any]]:
    """The classification's rows, each with the player's club."""
    return [shown(x, tally.clubs.get(x.player, "")) for x in tally.ranked]


def held(tally: Tally) -> list[dict[str, int]]:
    """Each round whose results the public does not see yet, with how many of its tables
    are done."""
    shown = []
    for x in tally.drawn:
        if x.round_no in tally.held:
            owing = sum(1 for r, _ in tally.owing if r == x.round_no)
            ready = len(x.tables) - owing
            shown.append({"round": x.round_no, "tables": len(x.tables), "ready": ready})
    return shown


def _round(tally: Tally) -> dict[str, Any]:
    owed = {m["table"]: m["missing"] for m in counting.missing(tally.drawn[-1], tally.listed)}
    last = tally.sitting[-1]  # a reserve sits where they took a seat
    return {
        "round": last.round_no,
        "stage": last.stage,
        "games": last.games,
        "tables": [
            {
                "table": k,
                "missing": owed.get(k, 0),
                "seats": [
                    {
                        "seat": seat,
                        "player": player,
                        "name": tally.names.get(player, ""),
                        "club": tally.clubs.get(player, ""),
                    }
                    for seat, player in zip(SEATS, table, strict=False)
                ],
            }
            for k, table in enumerate(last.tables, start=1)
        ],
    }
