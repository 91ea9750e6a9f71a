"""Tournaments in the hub's database: players, drawn rounds, their results and standings.

The adapter around the pure core (``klik_hub.tournament``): it reads what the core needs from
the database, asks the core, and keeps what the core decided, in one transaction each time.
Ids: a tournament's id is a whole number; a player's id is the start number within its
tournament (1, 2, …). A table's result names them as text (``"tournament": "3"``,
``"player": "17"``), as the protocol's fields are text.

A round is drawn only when every table of the round before has reported all its games
(``MissingResultsError``, 409), unless the judge overrides. A tournament draws one round at
a time (``draw`` locks its row), and takes at most ``roster.MAX_PLAYERS`` players.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, or_, select, update

from klik.core.scoring import RULE_SETS, RuleSet
from klik.errors import KlikError
from klik.link import protocol as p
from klik.words import Words, nwords, words
from klik_hub.schema import (
    commands,
    corrections,
    devices,
    events,
    players,
    results,
    rounds,
    seatings,
    tournaments,
)
from klik_hub.store import Store, utc_iso
from klik_hub.tournament import corrections as cr
from klik_hub.tournament import draw as d
from klik_hub.tournament import formats as f
from klik_hub.tournament import slots as sl
from klik_hub.tournament.roster import (
    MAX_PLAYERS,
    EnrolledAlreadyError,
    Entrant,
    RosterError,
    check_new,
    entrant,
)
from klik_hub.tournament.standings import (
    Row,
    Score,
    TieBreak,
    break_ties,
    classification,
    stage_players,
    standings,
)

SEATS = "ABCD"
IN_PLAY = "tournament_in_play"  # the hub's setting: the id of the tournament in play
SANCTIONS = ("warning", "deduction", "exclusion")
MAX_DEDUCTION = 100  # big points one deduction takes: far above a whole day's


class TournamentError(KlikError):
    """A request the tournament cannot take (the routes answer 422); ``str()`` says why."""


class NotFoundError(TournamentError):
    """No such tournament, round, player or result (404)."""


class ConflictError(TournamentError):
    """A request that the tournament's present state refuses (409): a round not yet over,
    a draw that is not the next, a table not paired."""


class MissingResultsError(ConflictError):
    """The current round has games without a result; ``missing`` lists them."""

    def __init__(self, message: str | Words, missing: list[dict[str, int]]) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True, slots=True)
class Drawn:
    """A drawn round as the API answers it."""

    round_no: int
    stage: str
    games: int
    seed: int
    tables: tuple[tuple[str, ...], ...]  # player ids, seat order A, B, C, D; table 1 first
    repeats: int = 0  # meetings this round adds that an earlier round already had
    unpaired: tuple[int, ...] = ()  # its tables no table is paired as (yet)

    def json(self) -> dict[str, Any]:
        return {
            "round": self.round_no,
            "stage": self.stage,
            "games": self.games,
            "seed": self.seed,
            "repeats": self.repeats,
            "unpaired": list(self.unpaired),
            "tables": [
                {"table": k, "seats": {s: int(p) for s, p in zip(SEATS, table, strict=False)}}
                for k, table in enumerate(self.tables, 1)
            ],
        }


class Tournaments:
    """The tournaments kept in ``store``'s database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # --- tournaments and players ---------------------------------------------------------

    def create(self, name: str, rules: str | None, format_name: str, move_time_s: int) -> int:
        """A new tournament; ``rules`` None plays it under its format's rule set. A rule set
        the format is not played under is a TournamentError: one rule set scores, ranks and
        seeds a tournament, and a format's seeding is made for its own."""
        fmt = f.load_format(format_name)  # FormatError if there is no such preset
        rules = fmt.rules[0] if rules is None else rules
        try:
            fmt.check_rules(rules)
        except f.FormatError as error:
            raise TournamentError(error.message) from None
        with self.store.writing() as db:
            new = db.execute(
                insert(tournaments)
                .values(
                    name=name,
                    rules=rules,
                    format=format_name,
                    move_time_s=move_time_s,
                    created_at=utc_iso(self.store.now_ms()),
                )
                .returning(tournaments.c.id)
            )
            return int(new.scalar_one())

    def listed(self) -> list[dict[str, Any]]:
        """Every tournament, newest first: ``{"id", "name", "rules", "format", "move_time_s",
        "in_play"}``."""
        with self.store.reading() as db:
            found = db.execute(select(tournaments).order_by(tournaments.c.id.desc())).all()
        playing = self.in_play()
        return [
            {"id": x.id, "name": x.name, "rules": x.rules, "format": x.format,
             "move_time_s": x.move_time_s, "in_play": x.id == playing}
            for x in found
        ]  # fmt: skip

    def get(self, tid: int) -> dict[str, Any]:
        with self.store.reading() as db:
            row = self._tournament(db, tid)
            enrolled = db.execute(
                select(func.count()).select_from(players).where(players.c.tournament_id == tid)
            ).scalar_one()
            drawn = db.execute(
                select(rounds).where(rounds.c.tournament_id == tid).order_by(rounds.c.round_no)
            ).all()
        return {
            "id": row.id,
            "name": row.name,
            "rules": row.rules,
            "format": row.format,
            "move_time_s": row.move_time_s,
            "in_play": row.id == self.in_play(),
            "players": enrolled,
            "rounds": [
                {"round": x.round_no, "stage": x.stage, "games": x.games, "seed": x.seed}
                for x in drawn
            ],
        }

    def enrol(
        self, tid: int, entrants: Sequence[Entrant], *, allow_same_name: bool = False
    ) -> list[dict[str, Any]]:
        """Enrol ``entrants`` (all or none) with the next start numbers; they are returned.
        A list that would enrol someone again is a ConflictError (``roster.check_new``)."""
        with self.store.writing() as db:
            # The tournament's row is locked (PostgreSQL) so two enrolments number in turn;
            # SQLite's writer lock does the same.
            self._tournament(db, tid, lock=True)
            enrolled = {
                x.player_no: Entrant(x.name, x.club)
                for x in db.execute(select(players).where(players.c.tournament_id == tid))
            }
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
            rows = [
                {"tournament_id": tid, "player_no": first + k, "name": e.name, "club": e.club}
                for k, e in enumerate(entrants)
            ]
            db.execute(insert(players), rows)
        return [
            {"id": x["player_no"], "name": x["name"], "club": x["club"], "active": True}
            for x in rows
        ]

    def players(self, tid: int) -> list[dict[str, Any]]:
        """Every enrolled player by start number, ``active`` false once withdrawn."""
        with self.store.reading() as db:
            self._tournament(db, tid)
            found = db.execute(
                select(players).where(players.c.tournament_id == tid).order_by(players.c.player_no)
            ).all()
        return [_player_json(x) for x in found]

    def edit_player(
        self, tid: int, player_no: int, change: dict[str, Any], reason: str, by: str
    ) -> dict[str, Any]:
        """Rename a player, fix their club, withdraw (``active`` false) or reinstate them, as
        a logged event with ``reason``, ``by`` and the hub's time; returns the player. A
        withdrawn player is not drawn again; their games stay and count for their opponents."""
        with self.store.writing() as db:
            self._tournament(db, tid, lock=True)
            row = db.execute(
                select(players).where(
                    players.c.tournament_id == tid, players.c.player_no == player_no
                )
            ).first()
            if row is None:
                said = words("tournament {tid} has no player {player}", tid=tid, player=player_no)
                raise NotFoundError(said)
            before = {"name": row.name, "club": row.club, "active": bool(row.active)}
            wanted = {k: v for k, v in change.items() if v is not None}
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
                raise TournamentError(words("name, club, active: nothing would change"))
            db.execute(
                update(players)
                .where(players.c.tournament_id == tid, players.c.player_no == player_no)
                .values(**{k: after[k] for k in ("name", "club", "active")})
            )
            kind = (
                "rename" if after["active"] == before["active"]
                else "reinstate" if after["active"]
                else "withdraw"
            )  # fmt: skip
            changed = {k: [before[k], after[k]] for k in after if after[k] != before[k]}
            self._log(
                db, tid, kind, player_no=player_no, args={"changed": changed}, reason=reason, by=by
            )
            found = db.execute(
                select(players).where(
                    players.c.tournament_id == tid, players.c.player_no == player_no
                )
            ).one()
            return _player_json(found)

    def _log(
        self,
        db: Connection,
        tid: int,
        kind: str,
        *,
        player_no: int | None,
        args: dict[str, Any],
        reason: str,
        by: str,
    ) -> None:
        """One event of the judge's audit log (``events``), in ``db``'s transaction."""
        db.execute(
            insert(events).values(
                tournament_id=tid,
                kind=kind,
                player_no=player_no,
                args=json.dumps(args, ensure_ascii=False, sort_keys=True),
                reason=reason,
                by=by,
                at=utc_iso(self.store.now_ms()),
            )
        )

    def sanction(
        self, tid: int, player_no: int, *, kind: str, big: int | None, reason: str, by: str
    ) -> dict[str, Any]:
        """A sanction (001 ZASADY 3, 000 u, 004 19) as a logged event; returns it. A
        ``deduction`` of ``big`` big points counts in the stage in play when it is given (the
        last drawn round's, or the first stage before any draw) and in the classification; an
        ``exclusion`` keeps the player out of every later draw and marks them on the standings;
        a ``warning`` is only logged."""
        if kind not in SANCTIONS:
            said = words(
                "kind {kind!r}: allowed are {kinds}", kind=kind, kinds=", ".join(SANCTIONS)
            )
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
        with self.store.writing() as db:
            row = self._tournament(db, tid, lock=True)
            names = self._names(db, tid)
            if str(player_no) not in names:
                said = words(
                    "player: no player {player} in tournament {tid}", player=player_no, tid=tid
                )
                raise TournamentError(said)
            if kind == "exclusion" and str(player_no) in self._excluded(db, tid):
                raise ConflictError(words("player {player} is excluded already", player=player_no))
            drawn = self._rounds(db, tid)
            stage = drawn[-1].stage if drawn else f.load_format(row.format).stages[0].name
            args: dict[str, Any] = {"stage": stage, "big": big}
            self._log(db, tid, kind, player_no=player_no, args=args, reason=reason, by=by)
            return self._sanctions(db, tid)[-1]

    def sanctions(self, tid: int) -> list[dict[str, Any]]:
        """Every sanction, newest first."""
        with self.store.reading() as db:
            self._tournament(db, tid)
            return self._sanctions(db, tid)[::-1]

    def _sanctions(self, db: Connection, tid: int) -> list[dict[str, Any]]:
        names = self._names(db, tid)
        found = db.execute(
            select(events)
            .where(events.c.tournament_id == tid, events.c.kind.in_(SANCTIONS))
            .order_by(events.c.id)
        ).all()
        listed = []
        for x in found:
            args = json.loads(x.args)
            listed.append(
                {
                    "id": x.id,
                    "player": x.player_no,
                    "name": names.get(str(x.player_no), ""),
                    "kind": x.kind,
                    "big": args.get("big"),
                    "stage": args.get("stage"),
                    "reason": x.reason,
                    "by": x.by,
                    "at": x.at,
                }
            )
        return listed

    @staticmethod
    def _excluded(db: Connection, tid: int) -> set[str]:
        """The players the judge excluded from the tournament."""
        found = db.execute(
            select(events.c.player_no).where(
                events.c.tournament_id == tid, events.c.kind == "exclusion"
            )
        ).scalars()
        return {str(p) for p in found}

    def in_play(self) -> int | None:
        """The tournament the judge marked in play (the projector's and console's)."""
        kept = self.store.setting(IN_PLAY)
        return int(kept) if kept is not None and kept.isdigit() else None

    def play(self, tid: int) -> None:
        """Mark ``tid`` the tournament in play: the projector and the console follow it."""
        with self.store.reading() as db:
            self._tournament(db, tid)
        self.store.set_setting(IN_PLAY, str(tid))

    # --- rounds ----------------------------------------------------------------------------

    def draw(
        self,
        tid: int,
        seed: int | None = None,
        *,
        override: bool = False,
        field: int | None = None,
        tie_break: Sequence[int] = (),
        round_no: int | None = None,
    ) -> Drawn:
        """Draw the next round and keep it; see the module's docstring for when it may.

        A seeded stage: ``field`` is the judge's pick of its size (liga: 8 or 6), and
        ``tie_break`` settles ties in the standings that choose (player ids, first first).
        ``round_no``, when given, is the round the judge means to draw: a ConflictError if
        it is not the next one (a draw sent twice draws once).

        One draw at a time per tournament: it reads, decides and keeps in one transaction
        with the tournament's row locked (PostgreSQL; SQLite's writer lock does the same),
        so it decides on every round, player and sanction as they are when it is kept. Read
        in one transaction and kept in another, a draw raced the others (twelve at once
        made two or three rounds and refused the rest, as the timing fell) and could keep
        a round decided on one undrawn meanwhile.
        """
        seed = secrets.randbelow(1_000_000) if seed is None else seed
        with self.store.writing() as db:
            row = self._tournament(db, tid, lock=True)
            fmt = f.load_format(row.format)
            names = self._names(db, tid)
            active = self._active(db, tid)
            earlier = self._rounds(db, tid)
            following = len(earlier) + 1
            if round_no is not None and round_no != following:
                said = words(
                    "round: round {round} is not the next to draw; round {next} is",
                    round=round_no,
                    next=following,
                )
                raise ConflictError(said)
            if not earlier:
                _check_field(fmt, len(active), override=override)
            if earlier and not override:
                last = earlier[-1]
                missing = self._missing(last, self._counted(db, tid, names, earlier))
                if missing:
                    games = sum(m["missing"] for m in missing)
                    said = words(
                        "round {round}: {games} without a result {tables}; "
                        "draw with override to go on anyway",
                        round=last.round_no,
                        games=nwords("{n} game", "{n} games", games),
                        tables=nwords("at {n} table", "at {n} tables", len(missing)),
                    )
                    raise MissingResultsError(said, missing)
            stage, ahead = _next_stage(fmt, [x.stage for x in earlier])
            if stage.tables is f.Tables.RANDOM:
                try:
                    # Who met whom among the players still in: a withdrawn player is
                    # drawn no more, so the draw neither needs nor knows them.
                    met = [
                        tuple(tuple(p for p in table if p in active) for table in x.tables)
                        for x in earlier
                    ]
                    tables = d.draw_round(list(active), met, seed, ahead=ahead)
                except d.DrawError as problem:
                    said = words("{problem}; enrol more players", problem=problem.message)
                    raise ConflictError(said) from None
            else:
                judge = Judged(field, tuple(str(p) for p in tie_break))
                tables = self._seeded(
                    db, tid=tid, fmt=fmt, stage=stage, earlier=earlier, names=names, judge=judge,
                    active=set(active),
                )  # fmt: skip
            paired = set(db.execute(select(devices.c.table_no)).scalars())
            before = [x.tables for x in earlier]
            repeated = d.repeats([*before, tables]) - d.repeats(before)
            unpaired = tuple(k for k in range(1, len(tables) + 1) if k not in paired)
            drawn = Drawn(
                following, stage.name, stage.games_per_round, seed, tables, repeated, unpaired
            )
            self._keep(db, tid, drawn, override)
        return drawn

    def _keep(self, db: Connection, tid: int, drawn: Drawn, override: bool) -> None:
        """The drawn round and its seats, in the draw's transaction ``db``."""
        db.execute(
            insert(rounds).values(
                tournament_id=tid,
                round_no=drawn.round_no,
                stage=drawn.stage,
                games=drawn.games,
                seed=drawn.seed,
                override=override,
                drawn_at=utc_iso(self.store.now_ms()),
            )
        )
        db.execute(
            insert(seatings),
            [
                {
                    "tournament_id": tid,
                    "round_no": drawn.round_no,
                    "table_no": k,
                    "seat": seat,
                    "player_no": int(player),
                }
                for k, table in enumerate(drawn.tables, 1)
                for seat, player in zip(SEATS, table, strict=False)
            ],
        )

    def undraw(self, tid: int, round_no: int, reason: str, by: str) -> dict[str, Any]:
        """Undo the last drawn round while none of its results has come (a slip at the draw),
        as a logged event; returns the round as it was drawn. ConflictError naming the
        tables that reported once results have come, or if ``round_no`` is not the last."""
        with self.store.writing() as db:
            self._tournament(db, tid, lock=True)
            drawn = self._rounds(db, tid)
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
            reported = set(
                db.execute(
                    select(results.c.table_no).where(
                        results.c.tournament == str(tid), results.c.round_no == round_no
                    )
                ).scalars()
            )
            for c in self._made(db, tid).values():
                reported |= {
                    x.assign.table for x in c if x.assign and x.assign.round_no == round_no
                }
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
            where = (seatings.c.tournament_id == tid, seatings.c.round_no == round_no)
            db.execute(delete(seatings).where(*where))
            db.execute(
                delete(rounds).where(rounds.c.tournament_id == tid, rounds.c.round_no == round_no)
            )
            undone = Drawn(kept.round_no, kept.stage, kept.games, kept.seed, kept.tables).json()
            del undone["repeats"], undone["unpaired"]
            self._log(db, tid, "undraw", player_no=None, args=undone, reason=reason, by=by)
        return undone

    def round(self, tid: int, round_no: int) -> dict[str, Any]:
        """A drawn round: its tables with their players and the games each still owes, and
        the results that belong to no slot yet (``unplaced``: the judge assigns or excludes
        them)."""
        with self.store.reading() as db:
            self._tournament(db, tid)
            drawn_rounds = self._rounds(db, tid)
            found = [x for x in drawn_rounds if x.round_no == round_no]
            if not found:
                raise NotFoundError(_no_round(tid, round_no))
            kept = found[0]
            names = self._names(db, tid)
            listed = self._counted(db, tid, names, drawn_rounds)
            owed = self._missing(kept, listed)
            unplaced = self._unplaced(db, tid, kept, drawn_rounds, listed)
        before = [x.tables for x in drawn_rounds if x.round_no < round_no]
        repeated = d.repeats([*before, kept.tables]) - d.repeats(before)
        drawn = Drawn(
            kept.round_no, kept.stage, kept.games, kept.seed, kept.tables, repeated
        ).json()
        missing = {m["table"]: m["missing"] for m in owed}
        for table in drawn["tables"]:
            table["missing"] = missing.get(table["table"], 0)
        drawn["unplaced"] = unplaced
        return drawn

    def send(self, tid: int, round_no: int, kind: str) -> list[dict[str, Any]]:
        """Queue ``kind`` for every table of the round: ``game`` (its lineup: players, rule
        set, move time, games), or ``start``, ``round-over``, ``pause``, ``resume``. All
        tables or none: a table that is not paired is a ConflictError naming it. ``start``
        sends a table its lineup first if it was never sent, so no round is played as
        "Gracz A-D" because the judge started it before sending the lineups."""
        if kind not in p.ROUND_KINDS:
            kinds = ", ".join(p.ROUND_KINDS)
            raise TournamentError(
                words("kind {kind!r}: allowed are {kinds}", kind=kind, kinds=kinds)
            )
        with self.store.reading() as db:
            row = self._tournament(db, tid)
            found = [x for x in self._rounds(db, tid) if x.round_no == round_no]
            if not found:
                raise NotFoundError(_no_round(tid, round_no))
            kept = found[0]
            paired = set(db.execute(select(devices.c.table_no)).scalars())
            names = self._names(db, tid)
            numbers = range(1, len(kept.tables) + 1)
            lineups = {
                k: _lineup(tid, row, kept, table, names)
                for k, table in zip(numbers, kept.tables, strict=True)
            }
            sent = set()
            if kind == "start":
                sent = {
                    int(k)
                    for k, args in db.execute(
                        select(commands.c.table_no, commands.c.args).where(
                            commands.c.kind == "game", commands.c.table_no.in_(list(numbers))
                        )
                    ).all()
                    if args == p.canonical(lineups[int(k)]).decode("ascii")
                }
        if unpaired := [k for k in numbers if k not in paired]:
            shown = ", ".join(map(str, unpaired))
            said = nwords(
                "table {tables} is not paired: klik pair --table {first}",
                "tables {tables} are not paired: klik pair --table {first}",
                len(unpaired),
                tables=shown,
                first=unpaired[0],
            )
            raise ConflictError(said)
        orders: list[tuple[int, str, dict[str, Any]]] = []
        for k in numbers:
            if kind == "game" or (kind == "start" and k not in sent):
                orders.append((k, "game", lineups[k]))
            if kind != "game":
                orders.append((k, kind, {}))
        ids = self.store.commands(orders)
        return [
            {"table": k, "id": i}
            for (k, what, _), i in zip(orders, ids, strict=True)
            if what == kind
        ]

    # --- results and corrections ----------------------------------------------------------

    def results(self, tid: int) -> list[dict[str, Any]]:
        """The tournament's results, oldest first, each with what it counts for now and the
        slot it fills (``slot``: round, table and the game within the round, or null)."""
        with self.store.reading() as db:
            self._tournament(db, tid)
            names = self._names(db, tid)
            listed = self._counted(db, tid, names, self._rounds(db, tid))
            made = self._corrections(db, tid)
        notes: dict[int, list[dict[str, Any]]] = {}
        for c in made:
            notes.setdefault(c["result"], []).append(c)
        return [
            {
                "id": x.row.id,
                "round": x.round_no,
                "table": x.row.table_no,
                "game": x.row.game,
                "slot": None if x.placed.slot is None else _slot_json(x.placed.slot),
                "receipt": x.row.receipt,
                "received_at": x.row.received_at,
                "counts": x.now.counts,
                "held": x.now.held,
                "corrected": x.now.corrected,
                "winners": list(x.now.winners),
                "seats": {
                    s: {
                        "player": _player_id(x.now.players[s]),
                        "name": names.get(str(x.now.players[s]), ""),
                        "rack": x.now.rack[s],
                        "small": x.now.small[s],
                        "big": x.now.big[s],
                    }
                    for s in x.now.small
                },
                "corrections": notes.get(x.row.id, []),
            }
            for x in listed
        ]

    def correct(
        self, tid: int, result_id: int, request: dict[str, Any], by: str = "judge"
    ) -> dict[str, Any]:
        """Add the judge's correction to a result of this tournament; returns it. ``assign``
        may also take a result that names no tournament (a table that played without the
        round's lineup) into this one."""
        with self.store.writing() as db:
            row = self._tournament(db, tid, lock=True)
            found = db.execute(
                select(results.c.body, results.c.tournament).where(results.c.id == result_id)
            ).first()
            mine = found is not None and found.tournament == str(tid)
            stray = found is not None and found.tournament is None
            if found is None or not (mine or (stray and request.get("kind") == "assign")):
                said = words("tournament {tid} has no result {result}", tid=tid, result=result_id)
                raise NotFoundError(said)
            body = json.loads(found.body)
            earlier = self._made(db, tid).get(result_id, [])
            try:
                made = cr.check(request, body, RULE_SETS[row.rules], earlier)
            except cr.CorrectionError as error:
                raise TournamentError(error.message) from None
            names = self._names(db, tid)
            if made.kind is cr.Kind.PLAYER and str(made.value) not in names:
                said = words(
                    "value: no player {player} in tournament {tid}", player=made.value, tid=tid
                )
                raise TournamentError(said)
            if made.assign is not None:
                self._check_assign(db, tid, made.assign, names)
            new = db.execute(
                insert(corrections)
                .values(
                    tournament_id=tid,
                    result_id=result_id,
                    kind=made.kind.value,
                    seat=made.seat,
                    value=int(made.value),
                    reason=made.reason,
                    by=by,
                    at=utc_iso(self.store.now_ms()),
                    args=None if made.assign is None else json.dumps(made.assign.json()),
                )
                .returning(corrections.c.id)
            ).scalar_one()
            return next(c for c in self._corrections(db, tid) if c["id"] == new)

    def _check_assign(
        self, db: Connection, tid: int, assign: cr.Assign, names: dict[str, str]
    ) -> None:
        """The slot of an ``assign`` must be one the tournament has, for its table's players."""
        if unknown := [p for _, p in assign.players if p not in names]:
            said = words(
                "players: no player {player} in tournament {tid}", player=unknown[0], tid=tid
            )
            raise TournamentError(said)
        found = [x for x in self._rounds(db, tid) if x.round_no == assign.round_no]
        if not found:
            said = words(
                "round: tournament {tid} has no round {round}", tid=tid, round=assign.round_no
            )
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
            shown = ", ".join(seated)
            said = words(
                "players: table {table} of round {round} seats players {players}",
                table=assign.table,
                round=kept.round_no,
                players=shown,
            )
            raise TournamentError(said)

    def corrections(self, tid: int) -> list[dict[str, Any]]:
        """The audit log, newest first: every correction (``"log": "correction"``) and every
        other event of the judge's (``"log": "event"``: withdraw, reinstate, rename, undraw),
        each with its reason, who and when."""
        with self.store.reading() as db:
            self._tournament(db, tid)
            made = [{"log": "correction", **c} for c in self._corrections(db, tid)]
            logged = db.execute(
                select(events).where(events.c.tournament_id == tid).order_by(events.c.id)
            ).all()
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

    @staticmethod
    def _corrections(db: Connection, tid: int) -> list[dict[str, Any]]:
        found = db.execute(
            select(corrections).where(corrections.c.tournament_id == tid).order_by(corrections.c.id)
        ).all()
        listed = []
        for c in found:
            entry = {
                "id": c.id,
                "result": c.result_id,
                "kind": c.kind,
                "seat": c.seat,
                "value": _correction(c).value,
                "reason": c.reason,
                "by": c.by,
                "at": c.at,
            }
            if c.args is not None:
                entry.update(json.loads(c.args))
            listed.append(entry)
        return listed

    # --- standings -------------------------------------------------------------------------

    def standings(self, tid: int, stage: str | None = None) -> list[Row]:
        """The final classification (by the last stage reached, as the format says), or with
        ``stage`` that stage's standings of its own players: big, then small points (the
        format's tie-breaks) of the results that count, in the tournament's rule set."""
        with self.store.reading() as db:
            row = self._tournament(db, tid)
            fmt = f.load_format(row.format)
            if stage is not None and stage not in [s.name for s in fmt.stages]:
                allowed = ", ".join(s.name for s in fmt.stages)
                said = words("stage {stage!r}: allowed are {stages}", stage=stage, stages=allowed)
                raise TournamentError(said)
            names = self._names(db, tid)
            drawn = self._rounds(db, tid)
            scores = self._scores(db, tid, names, drawn)
            out = self._excluded(db, tid)
        return [
            replace(x, excluded=x.player in out)
            for x in self._ranked(
                row, fmt=fmt, names=names, drawn=drawn, scores=scores, stage=stage
            )
        ]

    @staticmethod
    def _ranked(
        row: Any,
        *,
        fmt: f.Format,
        names: dict[str, str],
        drawn: Sequence[_Round],
        scores: Sequence[Score],
        stage: str | None,
    ) -> list[Row]:
        rules = RULE_SETS[row.rules]
        seated = _seated(drawn)
        if stage is not None:
            ranked = _stage_standings(
                names, scores, seated, stage, rules=rules, tie_breaks=fmt.tie_breaks
            )
            return [replace(x, stage=stage) for x in ranked]
        if fmt.classification is f.Classification.ALL_ROUNDS:
            return standings(names, scores, rules=rules, tie_breaks=fmt.tie_breaks)
        return classification(
            names,
            scores,
            rules=rules,
            tie_breaks=fmt.tie_breaks,
            stages=[s.name for s in fmt.stages],
            seated=seated,
        )

    # --- reading ---------------------------------------------------------------------------

    @staticmethod
    def _tournament(db: Connection, tid: int, *, lock: bool = False) -> Any:
        query = select(tournaments).where(tournaments.c.id == tid)
        row = db.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise NotFoundError(words("no tournament {tid}", tid=tid))
        return row

    @staticmethod
    def _names(db: Connection, tid: int) -> dict[str, str]:
        found = db.execute(
            select(players.c.player_no, players.c.name)
            .where(players.c.tournament_id == tid)
            .order_by(players.c.player_no)
        ).all()
        return {str(x.player_no): x.name for x in found}

    def _active(self, db: Connection, tid: int) -> dict[str, str]:
        """The players who may be drawn: every one the judge has not withdrawn or excluded."""
        found = db.execute(
            select(players.c.player_no, players.c.name)
            .where(players.c.tournament_id == tid, players.c.active)
            .order_by(players.c.player_no)
        ).all()
        out = self._excluded(db, tid)
        return {str(x.player_no): x.name for x in found if str(x.player_no) not in out}

    @staticmethod
    def _rounds(db: Connection, tid: int) -> list[_Round]:
        kept = db.execute(
            select(rounds).where(rounds.c.tournament_id == tid).order_by(rounds.c.round_no)
        ).all()
        seated = db.execute(
            select(seatings)
            .where(seatings.c.tournament_id == tid)
            .order_by(seatings.c.round_no, seatings.c.table_no, seatings.c.seat)
        ).all()
        tables: dict[int, dict[int, list[str]]] = {}
        for x in seated:
            tables.setdefault(x.round_no, {}).setdefault(x.table_no, []).append(str(x.player_no))
        return [
            _Round(
                x.round_no,
                x.stage,
                x.games,
                x.seed,
                tuple(tuple(t) for _, t in sorted(tables.get(x.round_no, {}).items())),
                x.drawn_at,
            )
            for x in kept
        ]

    @staticmethod
    def _missing(kept: _Round, listed: Sequence[_Counted]) -> list[dict[str, int]]:
        """Each table of ``kept`` that owes games: ``{"table", "missing"}``. A game is owed
        until a result fills its slot (one held for a points mismatch fills it: it came)."""
        placed = {x.row.id: x.placed for x in listed}
        owed = sl.owed([kept.lineup], placed)
        missing: dict[int, int] = {}
        for slot, filled in owed.items():
            if not filled:
                missing[slot.table] = missing.get(slot.table, 0) + 1
        return [{"table": k, "missing": n} for k, n in sorted(missing.items())]

    def _unplaced(
        self,
        db: Connection,
        tid: int,
        kept: _Round,
        drawn: Sequence[_Round],
        listed: Sequence[_Counted],
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
        assigned = select(corrections.c.result_id).where(corrections.c.kind == "assign")
        query = select(results).where(
            results.c.tournament.is_(None),
            results.c.table_no.between(1, len(kept.tables)),
            results.c.received_at >= kept.drawn_at,
            results.c.id.not_in(assigned),
        )
        if after:
            query = query.where(results.c.received_at < after[0])
        for x in db.execute(query.order_by(results.c.id)).all():
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

    def _scores(
        self, db: Connection, tid: int, names: dict[str, str], drawn: Sequence[_Round]
    ) -> list[Score]:
        """Every seat of every result that counts (see ``_counted``), in its slot's stage."""
        stage_of = {x.round_no: x.stage for x in drawn}
        scores = [
            Score(str(x["player"]), x["stage"], -x["big"], 0, game=False)
            for x in self._sanctions(db, tid)
            if x["kind"] == "deduction" and str(x["player"]) in names
        ]
        for x in self._counted(db, tid, names, drawn):
            if not x.now.counts or x.placed.slot is None:
                continue
            stage = stage_of[x.placed.slot.round_no]
            for s in x.now.small:
                won = s in x.now.winners
                player = str(x.now.players[s])
                scores.append(Score(player, stage, x.now.big[s], x.now.small[s], won))
        return scores

    @staticmethod
    def _made(db: Connection, tid: int) -> dict[int, list[cr.Correction]]:
        made: dict[int, list[cr.Correction]] = {}
        for c in db.execute(
            select(corrections).where(corrections.c.tournament_id == tid).order_by(corrections.c.id)
        ).all():
            made.setdefault(c.result_id, []).append(_correction(c))
        return made

    def _counted(
        self, db: Connection, tid: int, names: dict[str, str], drawn: Sequence[_Round]
    ) -> list[_Counted]:
        """Each of the tournament's results (and those the judge assigned to it) with what
        it counts for now: placed in the round's slots (``slots``), scored by the hub from
        its racks under the tournament's rule set after the judge's corrections; held out
        while it fills no slot, is in conflict, its points do not match, it was played under
        another rule set, a seat's player is unknown, or the judge excluded it."""
        rules = RULE_SETS[self._tournament(db, tid).rules]
        assigned = select(corrections.c.result_id).where(
            corrections.c.tournament_id == tid, corrections.c.kind == "assign"
        )
        found = db.execute(
            select(
                results.c.id,
                results.c.round_no,
                results.c.table_no,
                results.c.game,
                results.c.receipt,
                results.c.body,
                results.c.conflict,
                results.c.points_check,
                results.c.received_at,
                results.c.tournament,
            )
            .where(
                or_(
                    results.c.tournament == str(tid),
                    and_(results.c.tournament.is_(None), results.c.id.in_(assigned)),
                )
            )
            .order_by(results.c.id)
        ).all()
        made = self._made(db, tid)
        bodies = [json.loads(x.body) for x in found]
        claims = []
        for x, body in zip(found, bodies, strict=True):
            amended = cr.amend(body, made.get(x.id, []))
            round_game = body.get("round_game")
            claims.append(
                sl.Claim(
                    x.id,
                    x.round_no,
                    x.table_no,
                    round_game if type(round_game) is int else None,
                    amended.players,
                    judged=amended.judged,
                    assigned=None if amended.assign is None else _slot_of(amended.assign),
                    excluded=amended.excluded,
                    accepted=amended.accepted,
                )
            )
        placed = sl.fill([x.lineup for x in drawn], claims)
        out = []
        for x, body in zip(found, bodies, strict=True):
            held = "conflict" if x.conflict else None if x.points_check == "ok" else "mismatch"
            where = placed[x.id]
            now = cr.counted(
                body,
                held,
                made.get(x.id, []),
                names,
                rules=rules,
                slot_held=None if where.held is None else where.held.value,
            )
            round_no = x.round_no if where.slot is None else where.slot.round_no
            out.append(_Counted(x, body, now, where, round_no))
        return out

    def _seeded(
        self,
        db: Connection,
        *,
        tid: int,
        fmt: f.Format,
        stage: f.Stage,
        earlier: Sequence[_Round],
        names: dict[str, str],
        judge: Judged,
        active: set[str],
    ) -> tuple[tuple[str, ...], ...]:
        rules = RULE_SETS[self._tournament(db, tid).rules]
        scores = self._scores(db, tid, names, earlier)
        done = [s.name for s in fmt.stages[: fmt.stages.index(stage)]]
        try:
            if stage.qualify is f.Qualify.TABLE:
                previous = done[-1]
                seated = _seated(earlier)
                ranked = _stage_standings(
                    names, scores, seated, previous, rules=rules, tie_breaks=fmt.tie_breaks
                )
                last = [x for x in earlier if x.stage == previous][-1]
                # A withdrawn player goes on from no table: the next of its table does.
                going = [[p for p in table if p in active] for table in last.tables]
                ranked = [row for row in ranked if row.player in active]
                return f.seat_stage(stage, break_ties(ranked, judge.tie_break), going)
            ranked = standings(names, scores, rules=rules, tie_breaks=fmt.tie_breaks, stages=done)
            # Only who played qualifies: a player enrolled late (or who never came) would
            # otherwise stand on zeros, above every player whose small points are below 0.
            # A withdrawn player does not qualify either.
            played = break_ties(
                [row for row in ranked if row.games > 0 and row.player in active],
                judge.tie_break,
            )
            return f.seat_stage(stage, played, field=judge.field)
        except f.SeedingError as error:
            raise ConflictError(error.message) from None


@dataclass(frozen=True, slots=True)
class Judged:
    """What the judge decided for a seeded stage: its size, and how ties are broken."""

    field: int | None = None
    tie_break: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Round:
    round_no: int
    stage: str
    games: int
    seed: int
    tables: tuple[tuple[str, ...], ...]
    drawn_at: str = ""

    @property
    def lineup(self) -> sl.Lineup:
        return sl.Lineup(self.round_no, self.games, self.tables)


@dataclass(frozen=True, slots=True)
class _Counted:
    """A stored result, what it counts for now, and the slot it fills or names."""

    row: Any
    body: dict[str, Any]
    now: cr.Counted
    placed: sl.Placed
    round_no: int | None  # its slot's round, or the round its body names


def _stage_standings(
    names: dict[str, str],
    scores: Sequence[Score],
    seated: dict[str, set[str]],
    stage: str,
    *,
    rules: RuleSet,
    tie_breaks: Sequence[TieBreak],
) -> list[Row]:
    """One stage's standings, of the players who played it only."""
    own = stage_players(stage, seated, scores)
    return standings(
        {p: n for p, n in names.items() if p in own},
        [x for x in scores if x.player in own],
        rules=rules,
        tie_breaks=tie_breaks,
        stages=(stage,),
    )


def _seated(drawn: Sequence[_Round]) -> dict[str, set[str]]:
    """Who sat at a round of each stage."""
    seated: dict[str, set[str]] = {}
    for x in drawn:
        seated.setdefault(x.stage, set()).update(p for table in x.tables for p in table)
    return seated


def _slot_of(assign: cr.Assign) -> sl.Slot:
    return sl.Slot(assign.round_no, assign.table, assign.game)


def _slot_json(slot: sl.Slot) -> dict[str, int]:
    return {"round": slot.round_no, "table": slot.table, "game": slot.game}


def _lineup(
    tid: int, row: Any, kept: _Round, table: Sequence[str], names: dict[str, str]
) -> dict[str, Any]:
    """The ``game`` command's args for one table of a round (``p.RoundLineup``)."""
    seated = tuple(zip(SEATS, table, strict=False))
    return p.RoundLineup(
        tournament=str(tid),
        round_no=kept.round_no,
        games=kept.games,
        rules=row.rules,
        move_time_s=row.move_time_s,
        seats=tuple(seat for seat, _ in seated),
        players=seated,
        names=tuple((seat, names[player]) for seat, player in seated),
        first_starter=f.load_format(row.format).first_starter,
    ).json()


def _player_json(row: Any) -> dict[str, Any]:
    return {"id": row.player_no, "name": row.name, "club": row.club, "active": bool(row.active)}


def _player_id(player: str | None) -> int | None:
    """A seat's player as the API shows ids: a number, or null when the table had none."""
    return int(player) if player is not None and player.isdigit() else None


def _correction(row: Any) -> cr.Correction:
    kind = cr.Kind(row.kind)
    counted = kind in (cr.Kind.RACK, cr.Kind.PLAYER)
    value: int | bool = int(row.value) if counted else bool(row.value)
    assign = None
    if kind is cr.Kind.ASSIGN and row.args is not None:
        args = json.loads(row.args)
        players = tuple((s, str(p)) for s, p in args["players"].items())
        assign = cr.Assign(args["round"], args["table"], args["game"], players)
    return cr.Correction(kind, row.seat, value, row.reason, row.by, row.at, assign)


def _check_field(fmt: f.Format, count: int, *, override: bool) -> None:
    """Before the first draw: ``count`` players can play ``fmt`` to its end, and are as many
    as its rules take (unless the judge overrides that)."""
    if (why := f.cannot_finish(fmt, count)) is not None:
        said = words(
            "the format {format} cannot be played to its end with {n} players ({why}); "
            "it can with {playable} players",
            format=fmt.name,
            n=count,
            why=why,
            playable=f.playable(fmt),
        )
        raise ConflictError(said)
    if fmt.players is not None and not override:
        fewest, most = fmt.players
        if not fewest <= count <= most:
            said = words(
                "the format {format} takes {fewest} to {most} players and {n} are enrolled; "
                "draw with override to play anyway",
                format=fmt.name,
                fewest=fewest,
                most=most,
                n=count,
            )
            raise ConflictError(said)


def _next_stage(fmt: f.Format, drawn: Sequence[str]) -> tuple[f.Stage, int]:
    """The stage of the next round, and how many more of its rounds follow that one."""
    for stage in fmt.stages:
        had = drawn.count(stage.name)
        if stage.rounds == 0:
            return stage, 0  # open-ended: the judge draws until the evening ends
        if had < stage.rounds:
            return stage, stage.rounds - had - 1
    said = words(
        "every round of the format {format} is drawn ({n} rounds)", format=fmt.name, n=len(drawn)
    )
    raise ConflictError(said)


def _no_round(tid: int, round_no: int) -> Words:
    return words("tournament {tid} has no round {round}", tid=tid, round=round_no)
