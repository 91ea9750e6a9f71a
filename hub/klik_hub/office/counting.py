"""What each of a tournament's results counts for now, which the rounds, results, draws and
standings all read: placed in its round's slots (``tournament.slots``), scored by the hub
from its racks under the tournament's rule set after the judge's corrections
(``tournament.corrections``); held out while it fills no slot, is in conflict, its points do
not match, it was played under another rule set, a seat's player is unknown, or the judge
excluded it. A seat a reserve took for the rest of its round (``tournament.reserves``) is
marked, and its points count for whom the format's ``replacements`` says. Read in the
caller's transaction, decided by the pure core; nothing is kept.

A result's body names its seats' players as text, as the lineup sent to the table did
(``"player": "17"``); ``readable`` reads them into the hub's ids (``player_id``) before the
core sees the body, and nowhere else are they read."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from klik.rules import RULE_SETS
from klik_hub import sql
from klik_hub.office import sanctions
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.tournament import corrections as cr
from klik_hub.tournament import formats as f
from klik_hub.tournament import reserves as rs
from klik_hub.tournament import slots as sl
from klik_hub.tournament.standings import Score


@dataclass(frozen=True, slots=True)
class Counted:
    """A stored result, what it counts for now, and the slot it fills or names."""

    row: Any
    body: dict[str, Any]  # as the table sent it: its seats' players are text
    now: cr.Counted
    placed: sl.Placed
    round_no: int | None  # its slot's round, or the round its body names
    # The seats a reserve played (``reserves.reserved``), and whom each seat's points count
    # for: its player, or for a reserve's seat whom the format says (None: nobody).
    reserves: dict[str, rs.Replacement] = field(default_factory=dict)
    credit: dict[str, int | None] = field(default_factory=dict)


def player_id(text: object) -> int | None:
    """The player a result's seat names (``"player": "17"``, as the table echoed its lineup),
    as the hub's id; None for null, or any text the hub never writes as an id ("017", "+17",
    a stand-alone table's own): such a seat's player is unknown, and its result is held
    until the judge names the player. The same reading as a result's tournament's
    (``sql.results.id_of``)."""
    return sql.results.id_of(text)


def readable(body: Mapping[str, Any]) -> dict[str, Any]:
    """A stored result's ``body`` as the pure core reads it (``tournament.corrections``):
    each seat's ``player`` an id (``player_id``) or None. A copy: ``body`` is not changed."""
    seats = {s: {**e, "player": player_id(e.get("player"))} for s, e in body["seats"].items()}
    return {**body, "seats": seats}


def lineup(kept: Round) -> sl.Lineup:
    """The games round ``kept`` owes, as the slots see it."""
    return sl.Lineup(kept.round_no, kept.games, kept.tables)


def counted(
    db: Connection, tid: int, names: dict[int, str], drawn: Sequence[Round]
) -> list[Counted]:
    """Each of the tournament's results (and those the judge assigned to it), oldest first,
    with what it counts for now (see the module's docstring)."""
    row = tournament(db, tid)
    rules = RULE_SETS[row.rules]
    found = sql.results.of_tournament(db, tid)
    swaps = replacements(db, tid)
    # The format is read only where a reserve played: every standings' read counts results.
    rule = f.load_format(row.format).replacements if swaps else rs.CountsFor.NOBODY
    corrected = made(db, tid)
    bodies = [json.loads(x.body) for x in found]
    read = [readable(body) for body in bodies]
    claims = []
    for x, body in zip(found, read, strict=True):
        amended = cr.amend(body, corrected.get(x.id, []))
        round_game = body.get("round_game")
        claims.append(
            sl.Claim(
                x.id,
                x.round_no,
                x.table_no,
                round_game if type(round_game) is int else None,
                amended.players,
                judged=amended.judged,
                assigned=None if amended.assign is None else slot_of(amended.assign),
                excluded=amended.excluded,
                accepted=amended.accepted,
            )
        )
    placed = sl.fill([lineup(x) for x in drawn], claims)
    out = []
    for x, body, sent in zip(found, read, bodies, strict=True):
        held = "conflict" if x.conflict else None if x.points_check == "ok" else "mismatch"
        where = placed[x.id]
        now = cr.counted(
            body,
            held,
            corrected.get(x.id, []),
            names,
            rules=rules,
            slot_held=None if where.held is None else where.held.value,
        )
        round_no = x.round_no if where.slot is None else where.slot.round_no
        seats = {} if where.slot is None else rs.reserved(swaps, where.slot, now.players)
        credit = rs.credited(now.players, seats, rule)
        out.append(Counted(x, sent, now, where, round_no, seats, credit))
    return out


def replacements(db: Connection, tid: int) -> list[rs.Replacement]:
    """The reserves who took a seat in the tournament's rounds, as the pure core reads
    them."""
    return [
        rs.Replacement(x.round_no, x.table_no, x.seat, x.player_no, x.reserve_no, x.from_game)
        for x in sql.rounds.replacements(db, tid)
    ]


def scores(
    db: Connection,
    tid: int,
    names: dict[int, str],
    drawn: Sequence[Round],
    listed: Sequence[Counted] | None = None,
) -> list[Score]:
    """Every seat of every result that counts (see ``counted``; ``listed`` if the caller has
    it already), in its slot's stage, and every deduction the judge gave, in the stage it was
    given in."""
    stage_of = {x.round_no: x.stage for x in drawn}
    given = [
        Score(x["player"], x["stage"], -x["big"], 0, game=False)
        for x in sanctions.given(db, tid)
        if x["kind"] == "deduction" and x["player"] in names
    ]
    for x in counted(db, tid, names, drawn) if listed is None else listed:
        if not x.now.counts or x.placed.slot is None:
            continue
        stage = stage_of[x.placed.slot.round_no]
        for s in x.now.small:
            won = s in x.now.winners
            player = x.credit[s]
            if player is None:
                continue  # a reserve's seat whose games count for nobody (the format's say)
            reserve = s in x.reserves
            given.append(Score(player, stage, x.now.big[s], x.now.small[s], won, reserve=reserve))
    return given


def missing(kept: Round, listed: Sequence[Counted]) -> list[dict[str, int]]:
    """Each table of ``kept`` that owes games: ``{"table", "missing"}``. A game is owed
    until a result fills its slot (one held for a points mismatch fills it: it came)."""
    placed = {x.row.id: x.placed for x in listed}
    owed = sl.owed([lineup(kept)], placed)
    tables: dict[int, int] = {}
    for slot, filled in owed.items():
        if not filled:
            tables[slot.table] = tables.get(slot.table, 0) + 1
    return [{"table": k, "missing": n} for k, n in sorted(tables.items())]


def made(db: Connection, tid: int) -> dict[int, list[cr.Correction]]:
    """The judge's corrections of tournament ``tid``, by result, in the order made."""
    by_result: dict[int, list[cr.Correction]] = {}
    for c in sql.corrections.of_tournament(db, tid):
        by_result.setdefault(c.result_id, []).append(correction(c))
    return by_result


def correction(row: Any) -> cr.Correction:
    """A ``corrections`` row as the pure core takes it."""
    kind = cr.Kind(row.kind)
    counts = kind in (cr.Kind.RACK, cr.Kind.PLAYER)
    value: int | bool = int(row.value) if counts else bool(row.value)
    assign = None
    if kind is cr.Kind.ASSIGN and row.args is not None:
        args = json.loads(row.args)
        # Numbers in the JSON, as ``Assign.json`` has always written them.
        players = tuple(args["players"].items())
        assign = cr.Assign(args["round"], args["table"], args["game"], players)
    return cr.Correction(kind, row.seat, value, row.reason, row.by, row.at, assign)


def slot_of(assign: cr.Assign) -> sl.Slot:
    return sl.Slot(assign.round_no, assign.table, assign.game)


def slot_json(slot: sl.Slot) -> dict[str, int]:
    return {"round": slot.round_no, "table": slot.table, "game": slot.game}
