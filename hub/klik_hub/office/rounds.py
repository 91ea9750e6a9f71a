"""A drawn round: shown with what each table still owes and the results no slot holds yet,
undone while none of its results has come, and sent to its tables (their lineups, start,
round over, pause, resume)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from klik.core.game import SEATS
from klik.link import protocol as p
from klik.rules import RULE_SETS, canonical, shipped
from klik.words import Words, nwords, words
from klik_hub import sql
from klik_hub.hall.health import other_protocol
from klik_hub.office import clock, counting, release
from klik_hub.office.draws import Drawn, seen
from klik_hub.office.errors import ConflictError, NotFoundError, TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import draw as d
from klik_hub.tournament import formats as f


def get(store: Store, tid: int, round_no: int) -> dict[str, Any]:
    """A drawn round: its tables with their players, the games each still owes and its
    clock (null until started), the round's clock (``round_time_s``, ``started_at``,
    ``ends_at``, ``left_ms``: ``office.clock.shown``; ``left_ms`` null once the games are
    all in, the round's once every table's are, so no page counts down after the round),
    the results that belong to no slot yet (``unplaced``: the judge assigns or excludes
    them), the reserves who took a seat in it (``replacements``), and whether its results
    wait for its other tables before the public sees them (``held``: ``release``)."""
    with store.reading() as db:
        row = tournament(db, tid)
        drawn_rounds = sql.rounds.drawn(db, tid)
        found = [x for x in drawn_rounds if x.round_no == round_no]
        if not found:
            raise NotFoundError(_no_round(tid, round_no))
        kept = found[0]
        names = sql.players.names(db, tid)
        listed = counting.counted(db, tid, names, drawn_rounds)
        owed = counting.missing(kept, listed)
        unplaced = _unplaced(db, kept, drawn_rounds, listed)
        before = [x.tables for x in drawn_rounds if x.round_no < round_no]
        checked = seen(db, tid, before, kept.tables)
        clocks = sql.clocks.of_round(db, tid, round_no)
        held = round_no in release.held_in(db, row, drawn_rounds, listed)
        reserves = [
            {"table": x.table_no, "seat": x.seat, "player": x.player_no,
             "reserve": x.reserve_no, "from_game": x.from_game}
            for x in sql.rounds.replacements(db, tid, round_no)
        ]  # fmt: skip
    timed = clock.shown(clocks, row.round_time_s, store.now_ms())
    repeated = d.repeats([*before, kept.tables]) - d.repeats(before)
    stages = {x.name: x for x in f.load_format(row.format).stages}
    seeded = kept.stage in stages and stages[kept.stage].tables is f.Tables.SEEDED
    drawn = Drawn(
        kept.round_no, kept.stage, kept.games, kept.seed, kept.tables, repeated, seen=checked,
        seeded=seeded,
    ).json()  # fmt: skip
    missing = {m["table"]: m["missing"] for m in owed}
    for table in drawn["tables"]:
        table["missing"] = missing.get(table["table"], 0)
        table["clock"] = timed["clocks"].get(table["table"])
        if table["clock"] is not None and not table["missing"]:
            table["clock"]["left_ms"] = None  # its games are all in: its time stops
    del timed["clocks"]
    if not owed:  # every table's games are in: the round is over, its clock stops everywhere
        timed["left_ms"] = None
    drawn.update(timed)
    drawn["unplaced"] = unplaced
    drawn["replacements"] = reserves
    drawn["held"] = held
    return drawn


def undraw(store: Store, tid: int, round_no: int, reason: str, by: str) -> dict[str, Any]:
    """Undo the last drawn round while none of its results has come (a slip at the draw),
    as a logged event; returns the round as it was drawn. ConflictError naming the
    tables that reported once results have come, or if ``round_no`` is not the last. The
    late arrivals enrolled while it was drawn are drawn from it again when it is drawn
    anew (``players.from_round``)."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        drawn = sql.rounds.drawn(db, tid)
        found = [x for x in drawn if x.round_no == round_no]
        if not found:
            raise NotFoundError(_no_round(tid, round_no))
        if drawn[-1].round_no != round_no:
            said = words(
                "round {round}: only the last round drawn, {last}, can be undone",
                round=round_no,
                last=drawn[-1].round_no,
            )
            raise ConflictError(said)
        kept = found[0]
        reported = sql.results.reported_tables(db, tid, round_no)
        for c in counting.made(db, tid).values():
            reported |= {x.assign.table for x in c if x.assign and x.assign.round_no == round_no}
        if reported:
            shown = ", ".join(map(str, sorted(reported)))
            said = nwords(
                "round {round}: table {tables} has reported results; it stays drawn "
                "(exclude the results or draw the next round)",
                "round {round}: tables {tables} have reported results; it stays drawn "
                "(exclude the results or draw the next round)",
                len(reported),
                round=round_no,
                tables=shown,
            )
            raise ConflictError(said)
        sql.rounds.undo(db, tid, round_no)
        sql.players.draw_from(db, tid, round_no + 1, round_no)
        undone = Drawn(kept.round_no, kept.stage, kept.games, kept.seed, kept.tables).json()
        for extra in (
            "seeded", "repeats", "unpaired", "repeated_pairs", "same_club", "same_family"
        ):  # fmt: skip
            del undone[extra]
        sql.events.log(
            db,
            tid,
            "undraw",
            player_no=None,
            args=undone,
            reason=reason,
            by=by,
            at=utc_iso(store.now_ms()),
        )
    return undone


def send(
    store: Store, tid: int, round_no: int, kind: str, tables: Sequence[int] | None = None
) -> list[dict[str, Any]]:
    """Queue ``kind`` for every table of the round, or for ``tables`` of it: ``game`` (its
    lineup: players, rule set, move time, games), or ``start``, ``round-over``, ``pause``,
    ``resume``. Sent to the whole round, it goes to every paired table and the answer names
    the others (``{"table", "id": None, "unpaired": True}`` each: the judge pairs them on the
    console's Tables tab and sends again, which is harmless); ``tables`` named by the judge
    are all sent or none: one not paired is a ConflictError naming it. A table the round
    does not have is a NotFoundError. ``start`` sends a table its lineup
    first if it was never sent, so no round is played as "Gracz A-D" because the judge
    started it before sending the lineups, and starts the round's clock of each table not
    started yet (``office.clock``: a late table's time counts from its own start);
    ``round-over`` marks their clocks over. ``start`` is a ConflictError naming the tables
    whose last heartbeat names another protocol revision than the hub's (a table not heard
    yet, or an older one that says none, is started: its revision is not known)."""
    if kind not in p.ROUND_KINDS:
        kinds = ", ".join(p.ROUND_KINDS)
        raise TournamentError(words("kind {kind!r}: allowed are {kinds}", kind=kind, kinds=kinds))
    with store.reading() as db:
        row = tournament(db, tid)
        found = [x for x in sql.rounds.drawn(db, tid) if x.round_no == round_no]
        if not found:
            raise NotFoundError(_no_round(tid, round_no))
        kept = found[0]
        paired = sql.devices.paired_tables(db)
        names = shown_names(db, tid, round_no)
        needs = shown_needs(db, tid, round_no)
        every = range(1, len(kept.tables) + 1)
        if unknown := sorted(set(tables or ()) - set(every)):
            said = words("round {round} has no table {table}", round=round_no, table=unknown[0])
            raise NotFoundError(said)
        numbers = sorted(set(tables)) if tables else list(every)
        unpaired = [k for k in numbers if k not in paired]
        if unpaired and tables:
            raise ConflictError(_unpaired(unpaired))
        numbers = [k for k in numbers if k in paired]
        lineups = {
            k: _lineup(tid, row, kept, kept.tables[k - 1], names, needs=needs) for k in numbers
        }
        sent = set()
        others: dict[int, int] = {}  # table: the other protocol its last heartbeat names
        if kind == "start":
            others = _others(db, numbers)
            sent = {
                int(k)
                for k, args in sql.commands.sent_games(db, numbers)
                if args == p.canonical(lineups[int(k)]).decode("ascii")
            }
    if others:
        raise ConflictError(_other_protocol(others))
    orders: list[tuple[int, str, dict[str, Any]]] = []
    for k in numbers:
        if kind == "game" or (kind == "start" and k not in sent):
            orders.append((k, "game", lineups[k]))
        if kind != "game":
            orders.append((k, kind, {}))
    now = store.now_ms()
    with store.writing() as db:
        ids = sql.commands.queue(db, orders, now)
        if kind == p.CommandKind.START:
            started = {x.table_no for x in sql.clocks.of_round(db, tid, round_no)}
            sql.clocks.start(db, tid, round_no, [k for k in numbers if k not in started], now)
        elif kind == p.CommandKind.ROUND_OVER:
            sql.clocks.mark_over(db, tid, round_no, numbers, now)
    sent_to = [
        {"table": k, "id": i} for (k, what, _), i in zip(orders, ids, strict=True) if what == kind
    ]
    skipped = [{"table": k, "id": None, "unpaired": True} for k in unpaired]
    return sorted(sent_to + skipped, key=lambda x: int(str(x["table"])))


def _unpaired(tables: Sequence[int]) -> Words:
    """The refusal to send a command to ``tables`` that no table is paired as."""
    return nwords(
        "table {tables} is not paired: pair it on the Tables tab",
        "tables {tables} are not paired: pair them on the Tables tab",
        len(tables),
        tables=", ".join(map(str, tables)),
    )


def startable(store: Store, tables: Sequence[int]) -> None:
    """ConflictError naming the ``tables`` whose last heartbeat names another protocol
    revision than the hub's, as a round's ``start`` does (the judge's start of one table,
    ``POST /api/v1/tables/{N}/commands``, checks the same)."""
    with store.reading() as db:
        others = _others(db, tables)
    if others:
        raise ConflictError(_other_protocol(others))


def _others(db: Connection, tables: Sequence[int]) -> dict[int, int]:
    """Each of ``tables`` whose last heartbeat names another protocol revision: that one."""
    return {
        x.table_no: theirs
        for x in sql.devices.with_heartbeats(db)
        if x.table_no in tables and x.body is not None
        if (theirs := other_protocol(json.loads(x.body))) is not None
    }


def _other_protocol(others: dict[int, int]) -> Words:
    """The refusal to start a round on tables ``others`` (table: its protocol revision)."""
    tables = sorted(others)
    return nwords(
        "table {tables} runs protocol version {theirs}, the hub {ours}: update it, then start "
        "the round",
        "tables {tables} run protocol versions {theirs}, the hub {ours}: update them, then "
        "start the round",
        len(tables),
        tables=", ".join(map(str, tables)),
        theirs=", ".join(str(others[k]) for k in tables),
        ours=p.REVISION,
    )


def _unplaced(
    db: Connection, kept: Round, drawn: Sequence[Round], listed: Sequence[counting.Counted]
) -> list[dict[str, Any]]:
    """Results the judge may put in a slot of round ``kept``: the tournament's results
    for this round that fill no slot, and results with no tournament at all (a table
    that played without its lineup) from this round's tables, sent while it was the
    last round drawn."""
    offered = [
        (x.row, x.body)
        for x in listed
        if x.placed.slot is None and x.round_no == kept.round_no and not x.now.counts
    ]
    after = [x.drawn_at for x in drawn if x.round_no > kept.round_no]
    strays = sql.results.strays(
        db, tables=len(kept.tables), since=kept.drawn_at, until=after[0] if after else None
    )
    for x in strays:
        offered.append((x, json.loads(x.body)))
    return [
        {
            "id": x.id,
            "table": x.table_no,
            "game": x.game,
            "receipt": x.receipt,
            "received_at": x.received_at,
            "tournament": x.tournament,
            "names": {s: e["name"] for s, e in body["seats"].items()},
            "players": {s: e.get("player") for s, e in body["seats"].items()},
        }
        for x, body in offered
    ]


def shown_names(db: Connection, tid: int, round_no: int) -> dict[int, str]:
    """The names the seats' screens show in round ``round_no``, by the drawn player's id:
    each player's own, or for a seat a reserve took, the reserve's. Only the names: the ids
    stay the drawn players', which the table's results carry (``tournament.reserves``)."""
    names = sql.players.names(db, tid)
    swaps = sql.rounds.replacements(db, tid, round_no)
    return names | {x.player_no: names[x.reserve_no] for x in swaps}


def shown_needs(db: Connection, tid: int, round_no: int) -> dict[int, tuple[str, ...]]:
    """What each seat of round ``round_no`` is set up with (``p.NEEDS`` words), by the drawn
    player's id: the player's own needs, or for a seat a reserve took, the reserve's (who
    sits there is who reads the screen and feels the motor)."""
    own = {x.player_no: sql.players.needs(x).seat() for x in sql.players.enrolled(db, tid)}
    swaps = sql.rounds.replacements(db, tid, round_no)
    return own | {x.player_no: own[x.reserve_no] for x in swaps}


def lineup(db: Connection, tid: int, row: Any, kept: Round, table_no: int) -> dict[str, Any]:
    """Table ``table_no``'s lineup for round ``kept`` (the ``game`` command's args), as
    ``send`` queues it: with a reserve's name (and needs) on a seat they took."""
    names = shown_names(db, tid, kept.round_no)
    needs = shown_needs(db, tid, kept.round_no)
    return _lineup(tid, row, kept, kept.tables[table_no - 1], names, needs=needs)


def _lineup(
    tid: int,
    row: Any,
    kept: Round,
    table: Sequence[int],
    names: dict[int, str],
    *,
    needs: dict[int, tuple[str, ...]],
) -> dict[str, Any]:
    """The ``game`` command's args for one table of a round (``p.RoundLineup``).

    Where the hub's ids become the wire's text: the protocol's ``tournament`` and seats'
    ``player`` are text ("3", "17"), which the table echoes in its results and
    ``counting.player_id`` reads back."""
    seated = tuple(zip(SEATS, table, strict=False))
    return p.RoundLineup(
        tournament=str(tid),
        round_no=kept.round_no,
        games=kept.games,
        rules=row.rules,
        move_time_s=row.move_time_s,
        seats=tuple(seat for seat, _ in seated),
        players=tuple((seat, str(player)) for seat, player in seated),
        names=tuple((seat, names[player]) for seat, player in seated),
        first_starter=f.load_format(row.format).starter(row.rules),
        # A judge's own set goes with the lineup: the tables know only Klik's.
        rule_set=None if canonical(row.rules) in shipped() else RULE_SETS[row.rules],
        # Each seat set up for its player (issue 40); a fixed table is the hub's, not sent.
        needs=tuple((seat, needs[player]) for seat, player in seated if needs.get(player)),
    ).json()


def tell(
    db: Connection, tid: int, row: Any, kept: Round, *, last: bool, table: int, now: int
) -> str | None:
    """Queue the table's lineup again (a reserve's name on a seat, ``replacements``; a
    player's new needs, ``players.edit``), if it plays the round's lineup already (the round
    is the ``last`` drawn, the table paired, and its lineup was queued for it); its id, or
    None. A table not told yet gets them with its lineup."""
    if not last or table not in sql.devices.paired_tables(db):
        return None
    had = any(
        _of_round(args, tid, kept.round_no) for _, args in sql.commands.sent_games(db, [table])
    )
    if not had:
        return None
    args = lineup(db, tid, row, kept, table)
    (sent,) = sql.commands.queue(db, [(table, p.CommandKind.GAME.value, args)], now)
    return sent


def _of_round(args: str, tid: int, round_no: int) -> bool:
    """Whether a queued ``game`` command's ``args`` (canonical JSON) is round ``round_no``
    of tournament ``tid``."""
    queued = json.loads(args)
    return bool(queued.get("tournament") == str(tid) and queued.get("round") == round_no)


def _no_round(tid: int, round_no: int) -> Words:
    return words("tournament {tid} has no round {round}", tid=tid, round=round_no)
