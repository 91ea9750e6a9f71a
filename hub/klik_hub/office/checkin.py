"""Check-in (issue 20): before a stage's first draw, who is in the hall. The judge opens it;
each player checks in once from their page (the button on ``/p/CODE``) while it is open, or
the judge ticks them at the desk (open or not); the draw then seats the checked-in players
only and says who is absent (``drawable``), and the judge withdraws the absentees in one
step. Every change is an event of the judge's log (``sql.events``): ``checkin`` (a player
in or out, and by whom), ``checkin_open``, ``checkin_close``, and a ``withdraw`` for each
absentee.

Once the judge has opened it, a tournament's check-in stays in force for its draws (opened
again or closed): a late player is ticked in by the judge and drawn from the next round. A
player enrolled once a round is drawn (a late arrival, ``players.enrol``) is checked in at
their enrolment: they are here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from klik.words import Language, words
from klik_hub import sql
from klik_hub.office.errors import ConflictError, NotFoundError
from klik_hub.office.player_page import NO_PAGE, code_of
from klik_hub.office.players import active, enrolled
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso

OPEN, CLOSED = "open", "closed"
ABSENT = words("absent at check-in")  # the reason logged for an absentee withdrawn


def state(store: Store, tid: int) -> dict[str, Any]:
    """The check-in as the console lists it: ``{"check_in", "checked_in", "absent"}``:
    ``check_in`` null (never opened), ``open`` or ``closed``; the start numbers of the
    players not withdrawn who have checked in, and of those who have not."""
    with store.reading() as db:
        return _state(db, tid)


def set_open(store: Store, tid: int, opened: bool, by: str) -> dict[str, Any]:
    """Open or close the check-in (a logged event); its ``state``."""
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        wanted = OPEN if opened else CLOSED
        if row.check_in != wanted:
            sql.tournaments.set_check_in(db, tid, wanted)
            kind = "checkin_open" if opened else "checkin_close"
            _log(store, db, tid, kind, player=None, args={}, by=by)
        return _state(db, tid)


def by_player(store: Store, code: str) -> dict[str, Any]:
    """The player whose code is ``code`` checks in from their page: ``{"checked_in": true}``.
    Once: checking in again changes nothing. A ConflictError while the check-in is not open
    (or for a withdrawn player); NotFoundError for a code that is nobody's."""
    kept = code_of(code)
    if kept is None:
        raise NotFoundError(NO_PAGE)
    with store.writing() as db:
        found = sql.players.by_code(db, kept)
        if found is None:
            raise NotFoundError(NO_PAGE)
        tid, player = found.tournament_id, found.player_no
        row = tournament(db, tid, lock=True)
        if row.check_in != OPEN:
            raise ConflictError(words("the check-in is not open; ask the judge"))
        if not found.active:
            raise ConflictError(words("you are withdrawn from the tournament; ask the judge"))
        if not found.checked_in:
            sql.players.change(db, tid, player, {"checked_in": True})
            _log(store, db, tid, "checkin", player=player, args={"in": True}, by="player")
    return {"checked_in": True}


def tick(store: Store, tid: int, player: int, checked_in: bool, by: str) -> dict[str, Any]:
    """The judge ticks a player in (or out) at the desk, open or not; the check-in's
    ``state``. NotFoundError for a player not enrolled."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        row = enrolled(db, tid, player)
        if bool(row.checked_in) != checked_in:
            sql.players.change(db, tid, player, {"checked_in": checked_in})
            _log(store, db, tid, "checkin", player=player, args={"in": checked_in}, by=by)
        return _state(db, tid)


def withdraw_absent(store: Store, tid: int, by: str) -> dict[str, Any]:
    """Withdraw every player not withdrawn who has not checked in, in one step (a logged
    ``withdraw`` each, ``ABSENT`` its reason): ``{"withdrawn": [ids], **state}``."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        absent = _state(db, tid)["absent"]
        at = utc_iso(store.now_ms())
        for player in absent:
            sql.players.change(db, tid, player, {"active": False})
            changed = {"active": [True, False]}
            sql.events.log(db, tid, "withdraw", player_no=player, args={"changed": changed},
                           reason=ABSENT.into(Language.PL), by=by, at=at)  # fmt: skip
        return {"withdrawn": absent, **_state(db, tid)}


def drawable(db: Connection, tid: int, check_in: str | None) -> tuple[dict[int, str], list[int]]:
    """Who a draw seats, and who it leaves out as absent: every player the judge has not
    withdrawn or excluded, but once the check-in was opened, only those checked in."""
    players = active(db, tid)
    if check_in is None:
        return players, []
    here = {x.player_no for x in sql.players.enrolled(db, tid) if x.checked_in}
    return {p: n for p, n in players.items() if p in here}, [p for p in players if p not in here]


def _state(db: Connection, tid: int) -> dict[str, Any]:
    row = tournament(db, tid)
    listed = sql.players.by_number(db, tid)
    playing = set(active(db, tid))
    return {
        "check_in": row.check_in,
        "checked_in": [x.player_no for x in listed if x.checked_in and x.player_no in playing],
        "absent": [x.player_no for x in listed if not x.checked_in and x.player_no in playing],
    }


def _log(
    store: Store, db: Connection, tid: int, kind: str, *, player: int | None,
    args: dict[str, Any], by: str,
) -> None:  # fmt: skip
    sql.events.log(db, tid, kind, player_no=player, args=args, reason="", by=by,
                   at=utc_iso(store.now_ms()))  # fmt: skip
