"""Replacements (issue 20): a player who must leave mid-round is replaced at their seat by a
reserve for the round's remaining games at their table.

The judge names the round, the table, the seat, the reserve (an enrolled player who plays on
and sits nowhere in the round: a late arrival, say, or a player who did not qualify for the
stage) and the table's game from which on the reserve played it (by default the first game
the table has not reported). The hub keeps it (``replacements``), logs it (event
``replace``), withdraws the player who left unless the judge says not to (they left the
tournament: a ``withdraw`` event, as ``players.edit`` logs one), and, where the table plays
the round's lineup already, queues that lineup again with the reserve's name on the seat's
screen (the table takes a corrected name from the next game it begins).

Only the name changes at the table: its results still name the seat's drawn player, so they
fill the round's slots as before (the opponents' games, what the table owes and when the
round is complete do not change), and ``counting`` reads the seat's games from ``from_game``
on as the reserve's, marked, counting for whom the format says (``tournament.reserves``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from klik.core.game import SEATS
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting, rounds
from klik_hub.office.errors import ConflictError, NotFoundError, TournamentError
from klik_hub.office.players import active
from klik_hub.office.tournaments import drawn_round, tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import slots as sl


def replace(
    store: Store,
    tid: int,
    round_no: int,
    *,
    table: int,
    seat: str,
    reserve: int,
    from_game: int | None,
    reason: str,
    by: str,
    withdraw: bool = True,
) -> dict[str, Any]:
    """Put ``reserve`` at ``seat`` of ``table`` in round ``round_no`` from the table's game
    ``from_game`` on (None: its first game not reported), as the module's docstring says;
    returns the replacement as kept, with ``withdrawn`` (the player who left was withdrawn
    now) and ``sent`` (the id of the lineup queued for the table, or None).

    NotFoundError for a round or table the tournament does not have; TournamentError for a
    seat the table does not have or a game outside the round's; ConflictError for a seat
    replaced already, or a reserve who is not an enrolled player playing on or who sits in
    the round already."""
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        drawn, kept = drawn_round(db, tid, round_no)
        if not 1 <= table <= len(kept.tables):
            said = words("round {round} has no table {table}", round=round_no, table=table)
            raise NotFoundError(said)
        seats = dict(zip(SEATS, kept.tables[table - 1], strict=False))
        if seat not in seats:
            said = words(
                "seat: table {table} of round {round} has seats {seats}",
                table=table,
                round=round_no,
                seats=", ".join(seats),
            )
            raise TournamentError(said)
        player = seats[seat]
        swaps = sql.rounds.replacements(db, tid, round_no)
        if any(x.table_no == table and x.seat == seat for x in swaps):
            said = words(
                "seat {seat} of table {table} in round {round} has a reserve already",
                seat=seat,
                table=table,
                round=round_no,
            )
            raise ConflictError(said)
        _check_reserve(db, tid, kept, swaps, reserve)
        from_game = _from_game(db, tid, kept, drawn, table=table, given=from_game)
        sql.rounds.replace(
            db, tid, round_no, table, seat, player_no=player, reserve_no=reserve,
            from_game=from_game,
        )  # fmt: skip
        now = store.now_ms()
        at = utc_iso(now)
        withdrawn = False
        if withdraw and player in sql.players.active_names(db, tid):
            sql.players.change(db, tid, player, {"active": False})
            changed = {"active": [True, False]}
            sql.events.log(db, tid, "withdraw", player_no=player, args={"changed": changed},
                           reason=reason, by=by, at=at)  # fmt: skip
            withdrawn = True
        kept_as = {"round": round_no, "table": table, "seat": seat, "reserve": reserve,
                   "from_game": from_game, "withdrawn": withdrawn}  # fmt: skip
        sql.events.log(db, tid, "replace", player_no=player, args=kept_as, reason=reason,
                       by=by, at=at)  # fmt: skip
        last = kept.round_no == drawn[-1].round_no
        sent = rounds.tell(db, tid, row, kept, last=last, table=table, now=now)
    return {**kept_as, "player": player, "sent": sent, "reason": reason, "by": by, "at": at}


def _check_reserve(db: Connection, tid: int, kept: Round, swaps: Any, reserve: int) -> None:
    """ConflictError unless ``reserve`` is an enrolled player who plays on (not withdrawn
    nor excluded) and sits nowhere in round ``kept``, as a drawn player or a reserve."""
    if reserve not in active(db, tid):
        said = words(
            "reserve: tournament {tid} has no player {player} who plays on (enrolled, not "
            "withdrawn nor excluded)",
            tid=tid,
            player=reserve,
        )
        raise ConflictError(said)
    seated = {p for table in kept.tables for p in table} | {x.reserve_no for x in swaps}
    if reserve in seated:
        said = words(
            "reserve: player {player} already sits in round {round}",
            player=reserve,
            round=kept.round_no,
        )
        raise ConflictError(said)


def _from_game(
    db: Connection, tid: int, kept: Round, drawn: list[Round], *, table: int, given: int | None
) -> int:
    """The game from which on the reserve plays: ``given`` if the round has it, else the
    table's first game without a result (TournamentError if it has reported them all)."""
    if given is not None:
        if not 1 <= given <= kept.games:
            said = words(
                "from_game: round {round} has games 1 to {most}",
                round=kept.round_no,
                most=kept.games,
            )
            raise TournamentError(said)
        return given
    listed = counting.counted(db, tid, sql.players.names(db, tid), drawn)
    owed = sl.owed([counting.lineup(kept)], {x.row.id: x.placed for x in listed})
    left = [slot.game for slot, filled in owed.items() if slot.table == table and not filled]
    if not left:
        said = words(
            "from_game: table {table} has reported every game of round {round}; say from "
            "which game on the reserve played",
            table=table,
            round=kept.round_no,
        )
        raise TournamentError(said)
    return min(left)
