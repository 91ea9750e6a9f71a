"""The judge's corrections to results (``tournament.corrections`` checks each), and the
audit log: every correction and every other event of the judge's, with reason, who and
when. A correction is added to a result, never a change of it."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection

from klik.rules import RULE_SETS
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.errors import NotFoundError, TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import corrections as cr


def correct(
    store: Store, tid: int, result_id: int, request: dict[str, Any], by: str = "judge"
) -> dict[str, Any]:
    """Add the judge's correction to a result of this tournament; returns it. ``assign``
    may also take a result that names no tournament (a table that played without the
    round's lineup) into this one."""
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        found = sql.results.body_of(db, result_id)
        mine = found is not None and found.tournament_id == tid
        stray = found is not None and found.tournament is None
        if found is None or not (mine or (stray and request.get("kind") == "assign")):
            said = words("tournament {tid} has no result {result}", tid=tid, result=result_id)
            raise NotFoundError(said)
        body = json.loads(found.body)
        earlier = counting.made(db, tid).get(result_id, [])
        try:
            made = cr.check(request, counting.readable(body), RULE_SETS[row.rules], earlier)
        except cr.CorrectionError as error:
            raise TournamentError(error.message) from None
        names = sql.players.names(db, tid)
        if made.kind is cr.Kind.PLAYER and made.value not in names:
            said = words(
                "value: no player {player} in tournament {tid}", player=made.value, tid=tid
            )
            raise TournamentError(said)
        if made.assign is not None:
            _check_assign(db, tid, made.assign, names)
        new = sql.corrections.add(
            db,
            tid=tid,
            result_id=result_id,
            kind=made.kind.value,
            seat=made.seat,
            value=int(made.value),
            reason=made.reason,
            by=by,
            at=utc_iso(store.now_ms()),
            args=None if made.assign is None else json.dumps(made.assign.json()),
        )
        return next(c for c in entries(db, tid) if c["id"] == new)


def _check_assign(db: Connection, tid: int, assign: cr.Assign, names: dict[int, str]) -> None:
    """The slot of an ``assign`` must be one the tournament has, for its table's players."""
    if unknown := [p for _, p in assign.players if p not in names]:
        said = words("players: no player {player} in tournament {tid}", player=unknown[0], tid=tid)
        raise TournamentError(said)
    found = [x for x in sql.rounds.drawn(db, tid) if x.round_no == assign.round_no]
    if not found:
        said = words("round: tournament {tid} has no round {round}", tid=tid, round=assign.round_no)
        raise TournamentError(said)
    kept = found[0]
    if not 1 <= assign.table <= len(kept.tables):
        said = words(
            "table: round {round} has tables 1 to {most}",
            round=kept.round_no,
            most=len(kept.tables),
        )
        raise TournamentError(said)
    if assign.game > kept.games:
        said = words(
            "game: round {round} has games 1 to {most}", round=kept.round_no, most=kept.games
        )
        raise TournamentError(said)
    seated = sorted(kept.tables[assign.table - 1])
    if sorted(p for _, p in assign.players) != seated:
        shown = ", ".join(map(str, seated))
        said = words(
            "players: table {table} of round {round} seats players {players}",
            table=assign.table,
            round=kept.round_no,
            players=shown,
        )
        raise TournamentError(said)


def log(store: Store, tid: int) -> list[dict[str, Any]]:
    """The audit log, newest first: every correction (``"log": "correction"``) and every
    other event of the judge's (``"log": "event"``: withdraw, reinstate, rename, undraw),
    each with its reason, who and when."""
    with store.reading() as db:
        tournament(db, tid)
        made = [{"log": "correction", **c} for c in entries(db, tid)]
        logged = sql.events.of_tournament(db, tid)
    other = [
        {
            "log": "event",
            "id": x.id,
            "result": None,
            "kind": x.kind,
            "player": x.player_no,
            "reason": x.reason,
            "by": x.by,
            "at": x.at,
            **json.loads(x.args),
        }
        for x in logged
    ]
    both = sorted(made + other, key=lambda e: (e["at"], e["log"], e["id"]))
    return both[::-1]


def entries(db: Connection, tid: int) -> list[dict[str, Any]]:
    """Every correction of tournament ``tid``, in the order made, as the API shows it."""
    shown = []
    for c in sql.corrections.of_tournament(db, tid):
        entry = {
            "id": c.id,
            "result": c.result_id,
            "kind": c.kind,
            "seat": c.seat,
            "value": counting.correction(c).value,
            "reason": c.reason,
            "by": c.by,
            "at": c.at,
        }
        if c.args is not None:
            entry.update(json.loads(c.args))
        shown.append(entry)
    return shown
