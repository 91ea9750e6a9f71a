"""The players: enrolled in a list (all or none), listed, renamed, withdrawn or reinstated.

A tournament takes at most ``roster.MAX_PLAYERS`` players; a withdrawn player is not drawn
again, and their games stay and count for their opponents. A player enrolled once a round is
drawn is a late arrival: drawn from the next round on (``from_round``), and present, so
checked in (check-in is for the day's start: ``checkin``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection

from klik.words import Language, words
from klik_hub import sql
from klik_hub.office import rounds
from klik_hub.office.errors import ConflictError, NotFoundError, TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament.needs import Needs
from klik_hub.tournament.roster import (
    MAX_PLAYERS,
    EnrolledAlreadyError,
    Entrant,
    RosterError,
    check_new,
    entrant,
)

# A player's code: their page's address (/p/CODE) and their badge's QR code. Ten letters and
# digits of 32, none that a phone's reader or a child mixes up (no 0/O, no 1/I): 50 bits, so
# a code is never guessed, and short enough to type from the badge.
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 10


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def enrol(
    store: Store, tid: int, entrants: Sequence[Entrant], *, allow_same_name: bool = False
) -> list[dict[str, Any]]:
    """Enrol ``entrants`` (all or none) with the next start numbers; they are returned.
    A list that would enrol someone again is a ConflictError (``roster.check_new``). Once a
    round is drawn they are late arrivals: ``from_round`` is the round after the last drawn
    (1 before the first draw), and they are checked in (they are here)."""
    with store.writing() as db:
        # The tournament's row is locked (PostgreSQL) so two enrolments number in turn;
        # SQLite's writer lock does the same.
        tournament(db, tid, lock=True)
        enrolled = {x.player_no: Entrant(x.name, x.club) for x in sql.players.enrolled(db, tid)}
        try:
            check_new(entrants, enrolled, allow_same_name=allow_same_name)
        except EnrolledAlreadyError as error:
            raise ConflictError(error.message) from None
        if len(enrolled) + len(entrants) > MAX_PLAYERS:
            said = words(
                "players: tournament {tid} has {enrolled} and the list {listed}; "
                "a tournament takes at most {most}",
                tid=tid,
                enrolled=len(enrolled),
                listed=len(entrants),
                most=MAX_PLAYERS,
            )
            raise TournamentError(said)
        first = max(enrolled, default=0) + 1
        drawn = sql.rounds.listed(db, tid)
        from_round = drawn[-1].round_no + 1 if drawn else 1
        at = utc_iso(store.now_ms())
        rows = [
            {
                "tournament_id": tid,
                "player_no": first + k,
                "name": e.name,
                "club": e.club,
                "code": new_code(),
                "from_round": from_round,
                "checked_in": from_round > 1,
                "person_id": person_of(db, e, at),
                **sql.players.needs_values(e.needs),
            }
            for k, e in enumerate(entrants)
        ]
        sql.players.enrol(db, rows)
    return [
        {
            "id": x["player_no"],
            "name": x["name"],
            "club": x["club"],
            "family": "",
            "active": True,
            "code": x["code"],
            "checked_in": x["checked_in"],
            "from_round": from_round,
            "person": x["person_id"],
            "needs": e.needs.json(),
        }
        for x, e in zip(rows, entrants, strict=True)
    ]


def person_of(db: Connection, entrant: Entrant, at: str) -> int:
    """The person an enrolment is: the one the list's ``id`` names (made if new), else a new
    person of the hub's own. Never a match by name: the judge links those (``league.people``)."""
    if entrant.person:
        known = sql.people.by_federation_id(db, entrant.person)
        if known is not None:
            return known
    return sql.people.add(db, entrant.name, entrant.club, entrant.person or None, at)


def listed(store: Store, tid: int) -> list[dict[str, Any]]:
    """Every enrolled player by start number, ``active`` false once withdrawn."""
    with store.reading() as db:
        tournament(db, tid)
        found = sql.players.by_number(db, tid)
    return [player_json(x) for x in found]


def enrolled(db: Connection, tid: int, player_no: int) -> Any:
    """Player ``player_no``'s row in tournament ``tid``; NotFoundError when none is enrolled."""
    row = sql.players.one(db, tid, player_no)
    if row is None:
        said = words("tournament {tid} has no player {player}", tid=tid, player=player_no)
        raise NotFoundError(said)
    return row


def edit(
    store: Store, tid: int, player_no: int, change: dict[str, Any], *, reason: str, by: str
) -> dict[str, Any]:
    """Rename a player, fix their club, mark their family (``family``: a label the draw
    keeps apart, empty for none), withdraw (``active`` false) or reinstate them, as a logged
    event with ``reason``, ``by`` and the hub's time; returns the player. A withdrawn player
    is not drawn again; their games stay and count for their opponents."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        row = enrolled(db, tid, player_no)
        before = {
            "name": row.name, "club": row.club, "family": row.family, "active": bool(row.active),
            "needs": sql.players.needs(row).json(),
        }  # fmt: skip
        wanted = {k: v for k, v in change.items() if v is not None}
        if "needs" in wanted:  # any of its keys: the others stay
            wanted["needs"] = replace(sql.players.needs(row), **wanted["needs"]).json()
        if "family" in wanted:
            wanted["family"] = " ".join(wanted["family"].split())
        if "name" in wanted or "club" in wanted:
            try:
                checked = entrant(
                    wanted.get("name", row.name), wanted.get("club", row.club), "player"
                )
            except RosterError as error:
                raise TournamentError(error.message) from None
            wanted |= {"name": checked.name, "club": checked.club}
        after = before | wanted
        if after == before:
            said = words("name, club, family, active, needs: nothing would change")
            raise TournamentError(said)
        columns = {k: v for k, v in after.items() if k != "needs"}
        sql.players.change(db, tid, player_no, columns | _needs_columns(after["needs"]))
        changed_keys = {k for k in after if after[k] != before[k]}
        kind = (
            "family" if changed_keys == {"family"}  # the judge's label for the draw alone
            else "needs" if changed_keys == {"needs"}  # the player's, the judge's to know
            else "rename" if after["active"] == before["active"]
            else "reinstate" if after["active"]
            else "withdraw"
        )  # fmt: skip
        changed = {k: [before[k], after[k]] for k in after if after[k] != before[k]}
        sql.events.log(
            db,
            tid,
            kind,
            player_no=player_no,
            args={"changed": changed},
            reason=reason,
            by=by,
            at=utc_iso(store.now_ms()),
        )
        if "needs" in changed_keys:
            _tell_tables(store, db, tid, player_no)
        found = sql.players.one(db, tid, player_no)
        return player_json(found)


#: The reason a check-in's needs are logged with: the hall's language, as ``checkin.ABSENT``.
TOLD = words("needs told at the check-in")


def tell_needs(store: Store, tid: int, player_no: int, given: dict[str, Any], by: str) -> None:
    """The needs a player tells at the check-in desk (any of ``needs.KEYS``, the others
    stay): kept, logged (``needs``) and sent on to a table playing their round, when they
    change anything; nothing when they do not (a desk's form sends them every time)."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        row = enrolled(db, tid, player_no)
        before = sql.players.needs(row)
        after = replace(before, **given)
        if after == before:
            return
        sql.players.change(db, tid, player_no, sql.players.needs_values(after))
        sql.events.log(
            db,
            tid,
            "needs",
            player_no=player_no,
            args={"changed": {"needs": [before.json(), after.json()]}},
            reason=TOLD.into(Language.PL),
            by=by,
            at=utc_iso(store.now_ms()),
        )
        _tell_tables(store, db, tid, player_no)


def _needs_columns(needs: dict[str, Any]) -> dict[str, Any]:
    return sql.players.needs_values(Needs(**needs))


def _tell_tables(store: Store, db: Connection, tid: int, player_no: int) -> None:
    """A player's new needs reach their table mid-round: where the last round
    drawn seats them and its lineup was queued for their paired table, the lineup is queued
    again, as a reserve's name is (``rounds.tell``); a table not told yet gets them
    with its lineup."""
    drawn = sql.rounds.drawn(db, tid)
    if not drawn:
        return
    kept = drawn[-1]
    table = next((k for k, t in enumerate(kept.tables, 1) if player_no in t), None)
    if table is not None:
        row = tournament(db, tid)
        rounds.tell(db, tid, row, kept, last=True, table=table, now=store.now_ms())


def active(db: Connection, tid: int) -> dict[int, str]:
    """The players who may be drawn: every one the judge has not withdrawn or excluded,
    by start number."""
    found = sql.players.active_names(db, tid)
    out = sql.events.excluded(db, tid)
    return {player: name for player, name in found.items() if player not in out}


def player_json(row: Any) -> dict[str, Any]:
    """A player as the judge's routes answer: with their code."""
    return {
        "id": row.player_no,
        "name": row.name,
        "club": row.club,
        "family": row.family,
        "active": bool(row.active),
        "code": row.code,
        "checked_in": bool(row.checked_in),
        "from_round": row.from_round,
        "person": row.person_id,
        "needs": sql.players.needs(row).json(),
    }
