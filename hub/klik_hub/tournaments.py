"""Tournaments in the hub's database: players, drawn rounds, their results and standings.

The adapter around the pure core (``klik_hub.tournament``): it reads what the core needs from
the database, asks the core, and keeps what the core decided, in one transaction each time.
Ids: a tournament's id is a whole number; a player's id is the start number within its
tournament (1, 2, …). A table's result names them as text (``"tournament": "3"``,
``"player": "17"``), as the protocol's fields are text.

A round is drawn only when every table of the round before has reported all its games
(``MissingResultsError``, 409), unless the judge overrides. Two draws of one round at once
meet at the ``rounds`` primary key: one is kept and the other is told the round exists.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, insert, select
from sqlalchemy.exc import IntegrityError

from klik_hub.schema import (
    corrections,
    devices,
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
from klik_hub.tournament.roster import Entrant
from klik_hub.tournament.standings import Row, Score, break_ties, standings

SEATS = "ABCD"
ROUND_COMMANDS = ("game", "start", "round-over", "pause", "resume")


class TournamentError(Exception):
    """A request the tournament cannot take; ``status`` is its HTTP answer."""

    status = 422


class NotFoundError(TournamentError):
    status = 404


class ConflictError(TournamentError):
    status = 409


class MissingResultsError(ConflictError):
    """The current round has games without a result; ``missing`` lists them."""

    def __init__(self, message: str, missing: list[dict[str, int]]) -> None:
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

    def json(self) -> dict[str, Any]:
        return {
            "round": self.round_no,
            "stage": self.stage,
            "games": self.games,
            "seed": self.seed,
            "repeats": self.repeats,
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

    def create(self, name: str, rules: str, format_name: str, move_time_s: int) -> int:
        f.load_format(format_name)  # FormatError if there is no such preset
        with self.store._write() as db:
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
        """Every tournament, newest first: ``{"id", "name", "rules", "format", "move_time_s"}``."""
        with self.store._read() as db:
            found = db.execute(select(tournaments).order_by(tournaments.c.id.desc())).all()
        return [
            {"id": x.id, "name": x.name, "rules": x.rules, "format": x.format,
             "move_time_s": x.move_time_s}
            for x in found
        ]  # fmt: skip

    def get(self, tid: int) -> dict[str, Any]:
        with self.store._read() as db:
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
            "players": enrolled,
            "rounds": [
                {"round": x.round_no, "stage": x.stage, "games": x.games, "seed": x.seed}
                for x in drawn
            ],
        }

    def enrol(self, tid: int, entrants: Sequence[Entrant]) -> list[dict[str, Any]]:
        """Enrol ``entrants`` (all or none) with the next start numbers; they are returned."""
        with self.store._write() as db:
            # The tournament's row is locked (PostgreSQL) so two enrolments number in turn;
            # SQLite's writer lock does the same.
            self._tournament(db, tid, lock=True)
            last = db.execute(
                select(func.max(players.c.player_no)).where(players.c.tournament_id == tid)
            ).scalar()
            first = (last or 0) + 1
            rows = [
                {"tournament_id": tid, "player_no": first + k, "name": e.name, "club": e.club}
                for k, e in enumerate(entrants)
            ]
            db.execute(insert(players), rows)
        return [{"id": x["player_no"], "name": x["name"], "club": x["club"]} for x in rows]

    def players(self, tid: int) -> list[dict[str, Any]]:
        with self.store._read() as db:
            self._tournament(db, tid)
            found = db.execute(
                select(players).where(players.c.tournament_id == tid).order_by(players.c.player_no)
            ).all()
        return [{"id": x.player_no, "name": x.name, "club": x.club} for x in found]

    # --- rounds ----------------------------------------------------------------------------

    def draw(
        self,
        tid: int,
        seed: int | None = None,
        *,
        override: bool = False,
        field: int | None = None,
        tie_break: Sequence[int] = (),
    ) -> Drawn:
        """Draw the next round and keep it; see the module's docstring for when it may.

        A seeded stage: ``field`` is the judge's pick of its size (liga: 8 or 6), and
        ``tie_break`` settles ties in the standings that choose (player ids, first first).
        """
        seed = secrets.randbelow(1_000_000) if seed is None else seed
        with self.store._read() as db:
            row = self._tournament(db, tid)
            fmt = f.load_format(row.format)
            names = self._names(db, tid)
            earlier = self._rounds(db, tid)
            if earlier and not override:
                last = earlier[-1]
                missing = self._missing(db, tid, last)
                if missing:
                    games = sum(m["missing"] for m in missing)
                    raise MissingResultsError(
                        f"round {last.round_no}: {games} games without a result at "
                        f"{len(missing)} tables; draw with override to go on anyway",
                        missing,
                    )
            stage, ahead = _next_stage(fmt, [x.stage for x in earlier])
            if stage.tables is f.Tables.RANDOM:
                try:
                    tables = d.draw_round(
                        list(names), [x.tables for x in earlier], seed, ahead=ahead
                    )
                except d.DrawError as problem:
                    raise ConflictError(f"{problem}; enrol more players") from None
            else:
                judge = Judged(field, tuple(str(p) for p in tie_break))
                tables = self._seeded(
                    db, tid=tid, fmt=fmt, stage=stage, earlier=earlier, names=names, judge=judge
                )
        before = [x.tables for x in earlier]
        repeated = d.repeats([*before, tables]) - d.repeats(before)
        drawn = Drawn(len(earlier) + 1, stage.name, stage.games_per_round, seed, tables, repeated)
        self._keep(tid, drawn, override)
        return drawn

    def _keep(self, tid: int, drawn: Drawn, override: bool) -> None:
        try:
            with self.store._write() as db:
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
        except IntegrityError:
            raise ConflictError(f"round {drawn.round_no} was drawn meanwhile") from None

    def round(self, tid: int, round_no: int) -> dict[str, Any]:
        """A drawn round: its tables with their players and the games each still owes."""
        with self.store._read() as db:
            self._tournament(db, tid)
            drawn_rounds = self._rounds(db, tid)
            found = [x for x in drawn_rounds if x.round_no == round_no]
            if not found:
                raise NotFoundError(f"tournament {tid} has no round {round_no}")
            kept = found[0]
            owed = {m["table"]: m["missing"] for m in self._missing(db, tid, kept)}
        before = [x.tables for x in drawn_rounds if x.round_no < round_no]
        repeated = d.repeats([*before, kept.tables]) - d.repeats(before)
        drawn = Drawn(
            kept.round_no, kept.stage, kept.games, kept.seed, kept.tables, repeated
        ).json()
        for table in drawn["tables"]:
            table["missing"] = owed.get(table["table"], 0)
        return drawn

    def send(self, tid: int, round_no: int, kind: str) -> list[dict[str, Any]]:
        """Queue ``kind`` for every table of the round: ``game`` (its lineup: players, rule
        set, move time, games), or ``start``, ``round-over``, ``pause``, ``resume``. All
        tables or none: a table that is not paired is a ConflictError naming it."""
        if kind not in ROUND_COMMANDS:
            raise TournamentError(f"kind {kind!r}: allowed are {', '.join(ROUND_COMMANDS)}")
        with self.store._read() as db:
            row = self._tournament(db, tid)
            found = [x for x in self._rounds(db, tid) if x.round_no == round_no]
            if not found:
                raise NotFoundError(f"tournament {tid} has no round {round_no}")
            kept = found[0]
            paired = set(db.execute(select(devices.c.table_no)).scalars())
            names = self._names(db, tid)
        numbers = range(1, len(kept.tables) + 1)
        if unpaired := [k for k in numbers if k not in paired]:
            shown = ", ".join(map(str, unpaired))
            raise ConflictError(f"tables {shown} are not paired: klik pair --table {unpaired[0]}")
        orders = []
        for k, table in zip(numbers, kept.tables, strict=True):
            args: dict[str, Any] = {}
            if kind == "game":
                args = {
                    "tournament": str(tid),
                    "round": round_no,
                    "games": kept.games,
                    "rules": row.rules,
                    "move_time_s": row.move_time_s,
                    "seats": {
                        seat: {"player": player, "name": names[player]}
                        for seat, player in zip(SEATS, table, strict=False)
                    },
                }
            orders.append((k, kind, args))
        ids = self.store.commands(orders)
        return [{"table": k, "id": i} for (k, _, _), i in zip(orders, ids, strict=True)]

    # --- results and corrections ----------------------------------------------------------

    def results(self, tid: int) -> list[dict[str, Any]]:
        """The tournament's results, oldest first, each with what it counts for now."""
        with self.store._read() as db:
            self._tournament(db, tid)
            names = self._names(db, tid)
            listed = self._counted(db, tid, names)
            made = self._corrections(db, tid)
        notes: dict[int, list[dict[str, Any]]] = {}
        for c in made:
            notes.setdefault(c["result"], []).append(c)
        return [
            {
                "id": x.id,
                "round": x.round_no,
                "table": x.table_no,
                "game": x.game,
                "receipt": x.receipt,
                "received_at": x.received_at,
                "counts": now.counts,
                "held": now.held,
                "corrected": now.corrected,
                "winners": list(now.winners),
                "seats": {
                    s: {
                        "player": _player_id(now.players[s]),
                        "name": names.get(str(now.players[s]), ""),
                        "rack": now.rack[s],
                        "small": now.small[s],
                        "big": now.big[s],
                    }
                    for s in now.small
                },
                "corrections": notes.get(x.id, []),
            }
            for x, now in listed
        ]

    def correct(
        self, tid: int, result_id: int, request: dict[str, Any], by: str = "judge"
    ) -> dict[str, Any]:
        """Add the judge's correction to a result of this tournament; returns it."""
        with self.store._write() as db:
            self._tournament(db, tid, lock=True)
            found = db.execute(
                select(results.c.body).where(
                    results.c.id == result_id, results.c.tournament == str(tid)
                )
            ).first()
            if found is None:
                raise NotFoundError(f"tournament {tid} has no result {result_id}")
            body = json.loads(found.body)
            try:
                made = cr.check(
                    request.get("kind"),
                    request.get("seat"),
                    request.get("value"),
                    request.get("reason"),
                    body,
                )
            except cr.CorrectionError as error:
                raise TournamentError(str(error)) from None
            if made.kind is cr.Kind.PLAYER and str(made.value) not in self._names(db, tid):
                raise TournamentError(f"value: no player {made.value} in tournament {tid}")
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
                )
                .returning(corrections.c.id)
            ).scalar_one()
            return next(c for c in self._corrections(db, tid) if c["id"] == new)

    def corrections(self, tid: int) -> list[dict[str, Any]]:
        """The audit log: every correction, newest first."""
        with self.store._read() as db:
            self._tournament(db, tid)
            return self._corrections(db, tid)[::-1]

    @staticmethod
    def _corrections(db: Connection, tid: int) -> list[dict[str, Any]]:
        found = db.execute(
            select(corrections).where(corrections.c.tournament_id == tid).order_by(corrections.c.id)
        ).all()
        return [
            {
                "id": c.id,
                "result": c.result_id,
                "kind": c.kind,
                "seat": c.seat,
                "value": _correction(c).value,
                "reason": c.reason,
                "by": c.by,
                "at": c.at,
            }
            for c in found
        ]

    # --- standings -------------------------------------------------------------------------

    def standings(self, tid: int, stage: str | None = None) -> list[Row]:
        """Big, then small points (the format's tie-breaks), of the results that count."""
        with self.store._read() as db:
            row = self._tournament(db, tid)
            fmt = f.load_format(row.format)
            if stage is not None and stage not in [s.name for s in fmt.stages]:
                allowed = ", ".join(s.name for s in fmt.stages)
                raise TournamentError(f"stage {stage!r}: allowed are {allowed}")
            names = self._names(db, tid)
            scores = self._scores(db, tid, names)
        return standings(
            names,
            scores,
            rules=fmt.rule_set,
            tie_breaks=fmt.tie_breaks,
            stages=None if stage is None else (stage,),
        )

    # --- reading ---------------------------------------------------------------------------

    @staticmethod
    def _tournament(db: Connection, tid: int, *, lock: bool = False) -> Any:
        query = select(tournaments).where(tournaments.c.id == tid)
        row = db.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise NotFoundError(f"no tournament {tid}")
        return row

    @staticmethod
    def _names(db: Connection, tid: int) -> dict[str, str]:
        found = db.execute(
            select(players.c.player_no, players.c.name)
            .where(players.c.tournament_id == tid)
            .order_by(players.c.player_no)
        ).all()
        return {str(x.player_no): x.name for x in found}

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
            )
            for x in kept
        ]

    @staticmethod
    def _missing(db: Connection, tid: int, kept: _Round) -> list[dict[str, int]]:
        """Each table of ``kept`` that owes games: ``{"table", "missing"}``."""
        reported = db.execute(
            select(results.c.table_no, func.count(results.c.game.distinct()))
            .where(results.c.tournament == str(tid), results.c.round_no == kept.round_no)
            .group_by(results.c.table_no)
        ).all()
        done = {table: int(count) for table, count in reported}
        return [
            {"table": k, "missing": kept.games - done.get(k, 0)}
            for k in range(1, len(kept.tables) + 1)
            if done.get(k, 0) < kept.games
        ]

    def _scores(self, db: Connection, tid: int, names: dict[str, str]) -> list[Score]:
        """Every seat of every result that counts (see ``_counted``)."""
        stage_of = self._stage_of(db, tid)
        scores = []
        for x, now in self._counted(db, tid, names):
            if not now.counts or x.round_no not in stage_of:
                continue
            stage = stage_of[x.round_no]
            for s in now.small:
                won = s in now.winners
                scores.append(Score(str(now.players[s]), stage, now.big[s], now.small[s], won))
        return scores

    def _stage_of(self, db: Connection, tid: int) -> dict[int, str]:
        found = db.execute(
            select(rounds.c.round_no, rounds.c.stage).where(rounds.c.tournament_id == tid)
        ).all()
        return {int(n): str(stage) for n, stage in found}

    @staticmethod
    def _counted(db: Connection, tid: int, names: dict[str, str]) -> list[tuple[Any, cr.Counted]]:
        """Each of the tournament's results with what it counts for now: scored by the hub
        from its racks after the judge's corrections; held out while it is in conflict, its
        points do not match, a seat's player is unknown, or the judge excluded it."""
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
            )
            .where(results.c.tournament == str(tid))
            .order_by(results.c.id)
        ).all()
        made: dict[int, list[cr.Correction]] = {}
        for c in db.execute(
            select(corrections).where(corrections.c.tournament_id == tid).order_by(corrections.c.id)
        ).all():
            made.setdefault(c.result_id, []).append(_correction(c))
        out = []
        for x in found:
            held = "conflict" if x.conflict else None if x.points_check == "ok" else "mismatch"
            body = json.loads(x.body)
            out.append((x, cr.counted(body, held, made.get(x.id, []), names)))
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
    ) -> tuple[tuple[str, ...], ...]:
        scores = self._scores(db, tid, names)
        done = [s.name for s in fmt.stages[: fmt.stages.index(stage)]]
        try:
            if stage.qualify is f.Qualify.TABLE:
                previous = done[-1]
                ranked = standings(
                    names, scores, rules=fmt.rule_set, tie_breaks=fmt.tie_breaks, stages=(previous,)
                )
                last = [x for x in earlier if x.stage == previous][-1]
                return f.seat_stage(stage, break_ties(ranked, judge.tie_break), last.tables)
            ranked = standings(
                names, scores, rules=fmt.rule_set, tie_breaks=fmt.tie_breaks, stages=done
            )
            # Only who played qualifies: a player enrolled late (or who never came) would
            # otherwise stand on zeros, above every player whose small points are below 0.
            played = break_ties([row for row in ranked if row.games > 0], judge.tie_break)
            return f.seat_stage(stage, played, field=judge.field)
        except f.SeedingError as error:
            raise ConflictError(str(error)) from None


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


def _player_id(player: str | None) -> int | None:
    """A seat's player as the API shows ids: a number, or null when the table had none."""
    return int(player) if player is not None and player.isdigit() else None


def _correction(row: Any) -> cr.Correction:
    kind = cr.Kind(row.kind)
    counted = kind in (cr.Kind.RACK, cr.Kind.PLAYER)
    value: int | bool = int(row.value) if counted else bool(row.value)
    return cr.Correction(kind, row.seat, value, row.reason, row.by, row.at)


def _next_stage(fmt: f.Format, drawn: Sequence[str]) -> tuple[f.Stage, int]:
    """The stage of the next round, and how many more of its rounds follow that one."""
    for stage in fmt.stages:
        had = drawn.count(stage.name)
        if stage.rounds == 0:
            return stage, 0  # open-ended: the judge draws until the evening ends
        if had < stage.rounds:
            return stage, stage.rounds - had - 1
    raise ConflictError(f"every round of the format {fmt.name} is drawn ({len(drawn)} rounds)")
