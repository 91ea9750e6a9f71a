"""The sanctions (001 ZASADY 3, 000 u, 004 19): a warning, a deduction of big points, an
exclusion; each an event of the judge's log (``sql.events``)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection

from klik.words import words
from klik_hub import sql
from klik_hub.office.errors import ConflictError, TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import formats as f

SANCTIONS = ("warning", "deduction", "exclusion")
MAX_DEDUCTION = 100  # big points one deduction takes: far above a whole day's


def give(
    store: Store, tid: int, player_no: int, *, kind: str, big: int | None, reason: str, by: str
) -> dict[str, Any]:
    """A sanction as a logged event; returns it. A ``deduction`` of ``big`` big points counts
    in the stage in play when it is given (the last drawn round's, or the first stage before
    any draw) and in the classification; an ``exclusion`` keeps the player out of every later
    draw and marks them on the standings; a ``warning`` is only logged."""
    if kind not in SANCTIONS:
        said = words("kind {kind!r}: allowed are {kinds}", kind=kind, kinds=", ".join(SANCTIONS))
        raise TournamentError(said)
    if (kind == "deduction") != (big is not None):
        said = words(
            "big: a deduction takes 1 to {most} big points, and only a deduction",
            most=MAX_DEDUCTION,
        )
        raise TournamentError(said)
    if big is not None and not 1 <= big <= MAX_DEDUCTION:
        said = words("big: a deduction takes 1 to {most} big points", most=MAX_DEDUCTION)
        raise TournamentError(said)
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        names = sql.players.names(db, tid)
        if player_no not in names:
            said = words(
                "player: no player {player} in tournament {tid}", player=player_no, tid=tid
            )
            raise TournamentError(said)
        if kind == "exclusion" and player_no in sql.events.excluded(db, tid):
            raise ConflictError(words("player {player} is excluded already", player=player_no))
        drawn = sql.rounds.drawn(db, tid)
        stage = drawn[-1].stage if drawn else f.load_format(row.format).stages[0].name
        args: dict[str, Any] = {"stage": stage, "big": big}
        sql.events.log(
            db,
            tid,
            kind,
            player_no=player_no,
            args=args,
            reason=reason,
            by=by,
            at=utc_iso(store.now_ms()),
        )
        return given(db, tid)[-1]


def listed(store: Store, tid: int) -> list[dict[str, Any]]:
    """Every sanction, newest first."""
    with store.reading() as db:
        tournament(db, tid)
        return given(db, tid)[::-1]


def given(db: Connection, tid: int) -> list[dict[str, Any]]:
    """Every sanction of tournament ``tid``, oldest first, in ``db``'s transaction."""
    names = sql.players.names(db, tid)
    found = sql.events.of_tournament(db, tid, SANCTIONS)
    shown = []
    for x in found:
        args = json.loads(x.args)
        shown.append(
            {
                "id": x.id,
                "player": x.player_no,
                "name": names.get(x.player_no, ""),
                "kind": x.kind,
                "big": args.get("big"),
                "stage": args.get("stage"),
                "reason": x.reason,
                "by": x.by,
                "at": x.at,
            }
        )
    return shown
