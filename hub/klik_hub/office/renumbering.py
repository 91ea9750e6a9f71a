"""Renumbering a paired table (the judge's console, *Stoły*): table 7 becomes table 12.

The hub's records follow the table: its device (id and key stay), its last heartbeat and
its commands still waiting; the table hears it by a ``renumber`` command (``{"table": 12}``),
which it carries out by rewriting its ``paired.toml`` and showing its new number. The
results it sent as table 7 stay table 7's. It is an event of the judge's log (``sql.events``,
``renumber`` with ``{"table", "to"}``) of the tournament in play (the console's), or of the
newest when none is marked.

Refused (ConflictError, 409) while it would lose or misfile a result:

- the new number is this one's; or another paired table's (HeldTableError with when it was
  last heard), unless the judge says to replace it: that device is let go (its envelopes are
  refused from then on, as an unpaired device's), an event ``replace_table``;
- the table is in a game (its last heartbeat says a game under way: ``move``, ``timed_out``,
  ``paused`` or ``scoring``), or has results waiting in its outbox: they carry the old
  number, which the hub would then refuse;
- the table took a round's lineup (``game`` command) and still owes games of that round:
  the round's slots and its results name the table by its number.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from klik.link import protocol as p
from klik.words import words
from klik_hub import hall, sql
from klik_hub.office import counting
from klik_hub.office.errors import ConflictError, HeldTableError, NotFoundError
from klik_hub.storage.store import Store, utc_iso

log = logging.getLogger("klik_hub.office.renumbering")

#: A table's heartbeat states in which a game is under way.
PLAYING = frozenset(("move", "timed_out", "paused", "scoring"))


def renumber(
    store: Store, table_no: int, new_no: int, *, reason: str, by: str, replace: bool = False
) -> dict[str, Any]:
    """Make paired table ``table_no`` table ``new_no`` and queue its ``renumber`` command;
    returns ``{"table": new_no, "was": table_no, "device", "id"}`` (the command's id).
    NotFoundError when ``table_no`` is not paired; HeldTableError when ``new_no`` is another
    paired table's, unless ``replace`` (that device is let go, ``replace_table`` in the
    judge's log); ConflictError when it is not safe (see the module's docstring)."""
    now = store.now_ms()
    try:
        with store.writing() as db:
            found = sql.devices.status_of(db, table_no)
            if found is None:
                raise NotFoundError(words("table {table} is not paired", table=table_no))
            holder = sql.devices.holder(db, new_no)
            if new_no == table_no:
                raise ConflictError(
                    words("table {table} is paired already: choose another number", table=new_no)
                )
            if holder is not None and not replace:
                raise HeldTableError(*hall.pairing.held(new_no, holder.seen_ms, now))
            _refuse_in_play(table_no, None if found.body is None else json.loads(found.body))
            _refuse_in_round(db, table_no)
            if holder is not None:  # the judge said to replace it: that device is let go
                sql.devices.forget(db, holder.device)
                hall.pairing.replaced(db, new_no, holder.device, found.device, now)
            sql.devices.renumber(db, found.device, new_no)
            sql.commands.move_pending(db, table_no, new_no)
            (command,) = sql.commands.queue(
                db, [(new_no, p.CommandKind.RENUMBER.value, {"table": new_no})], now
            )
            playing = sql.tournaments.in_play_or_newest(db)
            if playing is not None:
                sql.events.log(
                    db, playing, "renumber", player_no=None,
                    args={"table": table_no, "to": new_no}, reason=reason, by=by,
                    at=utc_iso(now),
                )  # fmt: skip
    except IntegrityError:  # another judge took the number meanwhile (PostgreSQL)
        raise ConflictError(
            words("table {table} is paired already: choose another number", table=new_no)
        ) from None
    log.info("stół %d: teraz stół %d (%s)", table_no, new_no, by)
    return {"table": new_no, "was": table_no, "device": found.device, "id": command}


def _refuse_in_play(table_no: int, status: dict[str, Any] | None) -> None:
    """ConflictError while the table's last heartbeat says a game is under way or results
    wait in its outbox."""
    if status is None:
        return
    if status.get("state") in PLAYING:
        raise ConflictError(
            words(
                "table {table} is playing game {game}: renumber it between games",
                table=table_no,
                game=status.get("game"),
            )
        )
    if status.get("outbox"):
        raise ConflictError(
            words(
                "table {table} has results still to send: renumber it once they are in",
                table=table_no,
            )
        )


def _refuse_in_round(db: Connection, table_no: int) -> None:
    """ConflictError while the table owes games of a round whose lineup it took."""
    rounds: set[tuple[int, int]] = set()
    for _, args in sql.commands.sent_games(db, [table_no]):
        lineup = json.loads(args)
        tid, round_no = sql.results.id_of(lineup.get("tournament")), lineup.get("round")
        if tid is not None and isinstance(round_no, int):
            rounds.add((tid, round_no))
    for tid in sorted({tid for tid, _ in rounds}):
        if sql.tournaments.of(db, tid) is None:
            continue
        drawn = sql.rounds.drawn(db, tid)
        listed = counting.counted(db, tid, sql.players.names(db, tid), drawn)
        for kept in drawn:
            if (tid, kept.round_no) not in rounds:
                continue
            owed = {m["table"] for m in counting.missing(kept, listed)}
            if table_no in owed:
                raise ConflictError(
                    words(
                        "table {table} owes games of round {round} of tournament {tid}: "
                        "renumber it once the round's results are in",
                        table=table_no,
                        round=kept.round_no,
                        tid=tid,
                    )
                )
