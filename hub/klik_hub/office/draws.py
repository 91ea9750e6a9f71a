"""Drawing the next round: tables of 3–4 from a seed (``tournament.draw``) or a seeded
stage from the standings (``tournament.formats``), kept with its seats.

A late arrival (``players.from_round``) is drawn like everyone else once enrolled: a random
stage seats them (they have met nobody yet); a seeded stage passes them over where the format
says they may not qualify (``late_may_qualify``), and the next players go on.

A player with a fixed table (``needs``, issue 40) sits at it in every round: a random
stage's draw seats them there and parts repeats around them; a seeded stage's tables are
numbered so (who meets whom is the standings', never changed). Fixed tables the round cannot
honour are a ConflictError naming the players.

A round is drawn only when every table of the round before has reported all its games
(``MissingResultsError``), unless the judge overrides; a tournament draws one round at a
time (``draw`` locks its row).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from klik.core.game import SEATS
from klik.rules import RULE_SETS
from klik.words import Words, nwords, words
from klik_hub import sql
from klik_hub.office import checkin, counting
from klik_hub.office.errors import ConflictError, MissingResultsError
from klik_hub.office.standings import of_stage, seated
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import draw as d
from klik_hub.tournament import formats as f
from klik_hub.tournament import needs as n
from klik_hub.tournament.standings import break_ties, standings

#: The family label the best-rated players share in a first round drawn ``by_rating``.
STRONG = "\u2691 ranking"


@dataclass(frozen=True, slots=True)
class Seen:
    """What a drawn round repeats, and where it seats players who share a club or a family:
    the judge's check of the draw (the answer's ``repeated_pairs``, ``same_club`` and
    ``same_family``)."""

    repeated: tuple[tuple[int, int, int, int], ...] = ()  # (table, player, player, meetings)
    same_club: tuple[tuple[int, str, tuple[int, ...]], ...] = ()  # (table, club, players)
    same_family: tuple[tuple[int, str, tuple[int, ...]], ...] = ()

    def json(self) -> dict[str, Any]:
        return {
            "repeated_pairs": [
                {"table": k, "players": [a, b], "met": m} for k, a, b, m in self.repeated
            ],
            "same_club": [
                {"table": k, "club": c, "players": list(ps)} for k, c, ps in self.same_club
            ],
            "same_family": [
                {"table": k, "family": c, "players": list(ps)} for k, c, ps in self.same_family
            ],
        }


def seen(
    db: Connection,
    tid: int,
    before: Sequence[tuple[tuple[int, ...], ...]],
    tables: tuple[tuple[int, ...], ...],
) -> Seen:
    """The repeated pairs of ``tables`` (a round drawn after the rounds ``before``) and its
    tables where players share a club or a family, as the players' clubs and families are
    now."""
    rows = sql.players.by_number(db, tid)
    clubs = {x.player_no: x.club for x in rows}
    families = {x.player_no: x.family for x in rows}
    return Seen(
        tuple(d.repeated_pairs(before, tables)),
        tuple(d.same_label(tables, clubs)),
        tuple(d.same_label(tables, families)),
    )


@dataclass(frozen=True, slots=True)
class Drawn:
    """A drawn round as the API answers it."""

    round_no: int
    stage: str
    games: int
    seed: int
    tables: tuple[tuple[int, ...], ...]  # player ids, seat order A, B, C, D; table 1 first
    repeats: int = 0  # meetings this round adds that an earlier round already had
    unpaired: tuple[int, ...] = ()  # its tables no table is paired as (yet)
    seen: Seen = Seen()
    absent: tuple[int, ...] = ()  # players not drawn for not having checked in
    # Seated from the standings (the stage's tables = "seeded"): its seed draws nothing, and
    # its meetings are the seating's, not the draw's (the console shows neither).
    seeded: bool = False

    def json(self) -> dict[str, Any]:
        return self.seen.json() | {
            "round": self.round_no,
            "stage": self.stage,
            "games": self.games,
            "seed": self.seed,
            "seeded": self.seeded,
            "repeats": self.repeats,
            "unpaired": list(self.unpaired),
            "absent": list(self.absent),
            "tables": [
                {"table": k, "seats": dict(zip(SEATS, table, strict=False))}
                for k, table in enumerate(self.tables, 1)
            ],
        }


@dataclass(frozen=True, slots=True)
class Judged:
    """What the judge decided for a seeded stage: its size, and how ties are broken."""

    field: int | None = None
    tie_break: tuple[int, ...] = ()


def draw(
    store: Store,
    tid: int,
    seed: int | None = None,
    *,
    override: bool = False,
    field: int | None = None,
    tie_break: Sequence[int] = (),
    round_no: int | None = None,
    clubs_weight: float = d.CLUBS_WEIGHT,
    strong: Sequence[int] = (),
) -> Drawn:
    """Draw the next round and keep it; see the module's docstring for when it may.

    A seeded stage: ``field`` is the judge's pick of its size (liga: 8 or 6), and
    ``tie_break`` settles ties in the standings that choose (player ids, first first).
    ``round_no``, when given, is the round the judge means to draw: a ConflictError if
    it is not the next one (a draw sent twice draws once). A random stage keeps players
    of one club apart as far as ``clubs_weight`` weighs it (in repeated pairs; 0: off), and
    players of one family always (``players.family``, the judge's label). ``strong``: the
    players best-rated first (``league.ratings``); in a random stage's first round as many
    of them as there are tables are kept at different tables, as a family is (one who has a
    family label of their own keeps it).

    One draw at a time per tournament: it reads, decides and keeps in one transaction
    with the tournament's row locked (PostgreSQL; SQLite's writer lock does the same),
    so it decides on every round, player and sanction as they are when it is kept. Read
    in one transaction and kept in another, a draw raced the others (twelve at once
    made two or three rounds and refused the rest, as the timing fell) and could keep
    a round decided on one undrawn meanwhile.
    """
    seed = secrets.randbelow(1_000_000) if seed is None else seed
    with store.writing() as db:
        row = tournament(db, tid, lock=True)
        fmt = f.load_format(row.format)
        names = sql.players.names(db, tid)
        # The players not withdrawn nor excluded; once the check-in was opened, the
        # checked-in ones among them (the rest are absent, and the answer names them).
        active, absent = checkin.drawable(db, tid, row.check_in)
        earlier = sql.rounds.drawn(db, tid)
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
            missing = counting.missing(last, counting.counted(db, tid, names, earlier))
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
        fixed = _fixed(db, tid, active)
        try:
            if stage.tables is f.Tables.RANDOM:
                tables = _random(
                    db, tid, active, earlier, seed, ahead=ahead, strong=strong,
                    clubs_weight=clubs_weight, fixed=fixed,
                )  # fmt: skip
            else:
                judge = Judged(field, tuple(tie_break))
                late = {x.player_no: x.from_round for x in sql.players.enrolled(db, tid)}
                may = {p for p in active if fmt.may_qualify(late.get(p, 1))}
                seeded_tables = _seeded(
                    db, tid=tid, fmt=fmt, stage=stage, earlier=earlier, names=names,
                    judge=judge, active=may,
                )  # fmt: skip
                tables = n.fixed_tables(seeded_tables, fixed)
        except d.FixedTablesError as problem:
            raise ConflictError(_unfixed(problem, names)) from None
        paired = sql.devices.paired_tables(db)
        before = [x.tables for x in earlier]
        repeated = d.repeats([*before, tables]) - d.repeats(before)
        unpaired = tuple(k for k in range(1, len(tables) + 1) if k not in paired)
        drawn = Drawn(
            following, stage.name, stage.games_per_round, seed, tables, repeated, unpaired,
            seen(db, tid, before, tables), absent=tuple(absent),
            seeded=stage.tables is f.Tables.SEEDED,
        )  # fmt: skip
        drawn_at = utc_iso(store.now_ms())
        kept = Round(drawn.round_no, drawn.stage, drawn.games, drawn.seed, drawn.tables, drawn_at)
        seats = [
            (k, seat, player)
            for k, table in enumerate(drawn.tables, 1)
            for seat, player in zip(SEATS, table, strict=False)
        ]
        sql.rounds.keep(db, tid, kept, override=override, seats=seats)
    return drawn


def _fixed(db: Connection, tid: int, active: Mapping[int, str]) -> dict[int, int]:
    """The fixed tables of the players who may be drawn: player -> table."""
    return {
        x.player_no: x.fixed_table
        for x in sql.players.enrolled(db, tid)
        if x.fixed_table is not None and x.player_no in active
    }


def _random(
    db: Connection,
    tid: int,
    active: Mapping[int, str],
    earlier: Sequence[Round],
    seed: int,
    *,
    ahead: int,
    strong: Sequence[int],
    clubs_weight: float,
    fixed: Mapping[int, int],
) -> tuple[tuple[int, ...], ...]:
    """A random stage's round: ``draw.draw_round`` with the players' clubs, families and
    fixed tables (a FixedTablesError passes on; any other DrawError is a ConflictError)."""
    try:
        # Who met whom among the players still in: a withdrawn player is
        # drawn no more, so the draw neither needs nor knows them.
        met = [tuple(tuple(p for p in table if p in active) for table in x.tables) for x in earlier]
        rows = [x for x in sql.players.by_number(db, tid) if x.player_no in active]
        families = {x.player_no: x.family for x in rows}
        if strong and not earlier:
            tables_of = -(-len(active) // 4)  # tables of 3-4: as many as a 4 fills
            top = [p for p in strong if p in active][:tables_of]
            families |= {p: families.get(p) or STRONG for p in top}
        apart = d.Apart(
            clubs={x.player_no: x.club for x in rows},
            families=families,
            clubs_weight=clubs_weight,
        )
        return d.draw_round(list(active), met, seed, ahead=ahead, apart=apart, fixed=fixed)
    except d.FixedTablesError:
        raise
    except d.DrawError as problem:
        said = words("{problem}; enrol more players", problem=problem.message)
        raise ConflictError(said) from None


def _seeded(
    db: Connection,
    *,
    tid: int,
    fmt: f.Format,
    stage: f.Stage,
    earlier: Sequence[Round],
    names: dict[int, str],
    judge: Judged,
    active: set[int],
) -> tuple[tuple[int, ...], ...]:
    """The tables of a seeded ``stage``; ``active`` are the players who may qualify (not
    withdrawn nor excluded, and not late where the format says a late arrival may not)."""
    rules = RULE_SETS[tournament(db, tid).rules]
    scores = counting.scores(db, tid, names, earlier)
    done = [s.name for s in fmt.stages[: fmt.stages.index(stage)]]
    try:
        if stage.qualify is f.Qualify.TABLE:
            previous = done[-1]
            ranked = of_stage(
                names, scores, seated(earlier), previous, rules=rules, tie_breaks=fmt.tie_breaks
            )
            last = [x for x in earlier if x.stage == previous][-1]
            # A withdrawn player (or a late one the format passes over) goes on from no
            # table: the next of its table does.
            going = [[p for p in table if p in active] for table in last.tables]
            ranked = [row for row in ranked if row.player in active]
            return f.seat_stage(stage, break_ties(ranked, judge.tie_break), going)
        ranked = standings(names, scores, rules=rules, tie_breaks=fmt.tie_breaks, stages=done)
        # Only who played qualifies: a player enrolled late (or who never came) would
        # otherwise stand on zeros, above every player whose small points are below 0.
        # A withdrawn player does not qualify either, nor a late arrival where the format
        # says so (``late_may_qualify``): the next players move up.
        played = break_ties(
            [row for row in ranked if row.games > 0 and row.player in active],
            judge.tie_break,
        )
        return f.seat_stage(stage, played, field=judge.field)
    except f.SeedingError as error:
        raise ConflictError(error.message) from None


def _unfixed(problem: d.FixedTablesError, names: dict[int, str]) -> Words:
    """The refusal of a round whose fixed tables cannot all be honoured, naming the players
    with their tables."""
    players = ", ".join(f"{names.get(q, q)} ({k})" for q, k in problem.players)
    return nwords(
        "fixed tables: the round has {n} table and cannot seat {players} (in brackets, the "
        "fixed table) as their needs say; change a player's fixed table",
        "fixed tables: the round has {n} tables and cannot seat {players} (in brackets, the "
        "fixed table) as their needs say; change a player's fixed table",
        problem.tables,
        players=players,
    )


def _check_field(fmt: f.Format, count: int, *, override: bool) -> None:
    """Before the first draw: ``count`` players can play ``fmt`` to its end, and are as many
    as its rules take (unless the judge overrides that)."""
    if (why := f.cannot_finish(fmt, count)) is not None:
        said = nwords(
            "the format {format} cannot be played to its end with {n} player ({why}); "
            "it can with {playable} players",
            "the format {format} cannot be played to its end with {n} players ({why}); "
            "it can with {playable} players",
            count,
            format=fmt.name,
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
