"""Tournament formats as data: the stages, their rounds and games, and how tables are made.

A format is a TOML file; the presets ship in ``formats/`` (liga, szczecin, open), and
``formats/liga.toml`` is the commented example of every key. At the top: ``name``, ``title_pl``,
``title_en``, ``rules`` (the rule set of klik.core.scoring the format is played under, or a list
of those it allows, the first by default: a tournament's rule set scores, ranks and seeds it,
so one that contradicts its format is refused), ``tie_breaks`` (the standings' order: big,
small, wins), ``first_starter`` (who starts a round's first game at a table: ``"A"``, or
``"draw"``: the player who drew the highest tile, 001), ``round_time_s`` (a round's time at
a table, 000 o: at its end the tables still playing get round-over; none without it),
``late_may_qualify`` (whether a player enrolled after the first draw may qualify for a seeded
stage; true by default), ``replacements`` (whom a reserve's games at a player's seat count
for: ``"reserve"``, ``"replaced"`` or ``"nobody"``, the default; ``reserves``) and
``classification`` (the final
classification: ``"by_stage"``, the players of the last stage reached first, by that stage's
standings, then those who stopped a stage earlier, and so on; or ``"all_rounds"``, one table
of every round). Then ``[[stages]]`` in the
order they are played, each with a unique ``name`` (the standings' stage, as the Polish pages
and every answer name it), ``title_en`` (its name on the English pages; the name itself
without one), ``rounds`` (0: as many as the judge draws), ``games_per_round`` and ``tables``:

* ``"random"``: balanced random tables of 3-4, drawn by draw.py for every round;
* ``"seeded"``: one round at tables made from the standings of the earlier stages, by
  ``qualify = "top"`` (the best N overall; ``field = [8, 6]`` lists the N allowed, preferred
  first) or ``qualify = "table"`` (the best ``per_table`` of each table of the previous stage,
  by that stage's own standings), and seated by ``seating.N = [[1, 3, 5, 7], [2, 4, 6, 8]]``:
  the qualifiers numbered 1..N in the order of those standings, each table in seat order
  A, B, C, D (here table 1 gets places 1, 3, 5, 7, with the first of them at A).

A bad file is a FormatError of one line: what, where (file and key), what is allowed.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from importlib import resources
from typing import Any

from klik.core.scoring import RuleSet
from klik.errors import KlikError
from klik.link import protocol as p
from klik.rules import RULE_SETS, canonical
from klik.validate import (
    OBJECT,
    TRUE_FALSE,
    Choice,
    Each,
    Number,
    Text,
    Voice,
    check,
    known,
    refused,
    required,
    take,
)
from klik_hub.tournament.draw import DrawError, table_sizes
from klik_hub.tournament.reserves import CountsFor
from klik_hub.tournament.roster import MAX_PLAYERS  # a tournament's players
from klik_hub.tournament.standings import Row, TieBreak

MAX_ROUNDS, MAX_GAMES, MAX_FIELD, MAX_PER_TABLE = 20, 9, 64, 3
# seat A starts a round's first game (000 f, 004 6), or the drawn seat (001)
FIRST_STARTERS = p.FIRST_STARTERS
#: A round's time at a table (000 o "czas rundy"), in seconds: 5 minutes to 6 hours.
ROUND_TIME_S = (300, 21_600)
MIN_SEATS, MAX_SEATS = 2, 4  # a seeded final may be a table of two (scoring has its points)

Pattern = tuple[tuple[int, ...], ...]  # tables of places, each in seat order A, B, C, D


class FormatError(KlikError, ValueError):
    """A format file is not what Klik accepts; the message says where and what is allowed."""


class SeedingError(KlikError, ValueError):
    """A seeded stage cannot be seated from the standings given (a tie at the cut, say)."""


class Tables(Enum):
    RANDOM = "random"  # balanced random tables of 3-4, drawn by draw.py
    SEEDED = "seeded"  # qualifiers seated by a pattern from the earlier stages' standings


class Classification(Enum):
    """How the final classification is made (seed 001 ZASADY 2b-c, 004 22-23)."""

    BY_STAGE = "by_stage"  # by the last stage reached, each group by that stage's standings
    ALL_ROUNDS = "all_rounds"  # one table of every round's games


class Qualify(Enum):
    TOP = "top"  # the best N of the standings over every earlier stage
    TABLE = "table"  # the best K of each table of the previous stage, by its own standings


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of a format, as its ``[[stages]]`` table says."""

    name: str
    rounds: int  # 0: open-ended, as many rounds as the judge draws
    games_per_round: int
    tables: Tables
    qualify: Qualify | None = None  # seeded stages only
    field: tuple[int, ...] = ()  # Qualify.TOP: the sizes allowed, the preferred first
    per_table: int = 0  # Qualify.TABLE: how many of each table go on
    seating: tuple[Pattern, ...] = ()  # one for each number of qualifiers
    title_en: str = ""  # the name in English ("final"); the name itself where none is given

    def title(self, english: bool) -> str:
        """The stage's name for a reader: its English title, or its own (Polish) name."""
        return self.title_en if english and self.title_en else self.name

    def pattern(self, players: int) -> Pattern | None:
        """The seating for ``players`` qualifiers, if the format has one."""
        return next((p for p in self.seating if sum(map(len, p)) == players), None)


#: Last in a format's ``rules``: any rule set the hub knows may play it, a judge's own too.
ANY = "any"


@dataclass(frozen=True, slots=True)
class Format:
    """A tournament format: its titles, rule set, standings order and stages in order."""

    name: str
    title_pl: str
    title_en: str
    rules: tuple[str, ...]  # the rule sets (keys of RULE_SETS) it may be played under
    tie_breaks: tuple[TieBreak, ...]
    stages: tuple[Stage, ...]
    classification: Classification = Classification.BY_STAGE
    players: tuple[int, int] | None = None  # the players the rules take, fewest and most
    # Who starts a round's first game: seat A, or "draw" (001); None: as the rule set says.
    first_starter: str | None = None
    round_time_s: int | None = None  # a round's time at a table (000 o), None for no limit
    # A late arrival (enrolled after the first draw: ``players.from_round`` above 1) may
    # qualify for a seeded stage; False: the next players go on in their stead.
    late_may_qualify: bool = True
    # Whom a reserve's games at a player's seat count for (``reserves``): by default nobody,
    # so no player's standings hold games the draw did not give them.
    replacements: CountsFor = CountsFor.NOBODY

    def may_qualify(self, from_round: int) -> bool:
        """Whether a player drawn from round ``from_round`` on may qualify for a seeded
        stage."""
        return from_round <= 1 or self.late_may_qualify

    @property
    def rule_set(self) -> RuleSet:
        """The rule set a tournament of this format is played under unless it says another."""
        return RULE_SETS[self.rules[0]]

    def starter(self, rules: str) -> str:
        """Who starts a round's first game under the tournament's ``rules``: the format's
        word if it has one, else the rule set's."""
        return self.first_starter or RULE_SETS[rules].first_starter

    def stage_title(self, name: str | None, english: bool) -> str | None:
        """A stage's name for a reader (``Stage.title``); a name the format lacks as it is."""
        found = next((s for s in self.stages if s.name == name), None)
        return name if found is None else found.title(english)

    def check_rules(self, rules: str) -> None:
        """FormatError unless a tournament of this format may be played under ``rules``: a
        set it lists, or with ``"any"`` in its list any set the hub knows."""
        if canonical(rules) not in self.rules and not (ANY in self.rules and rules in RULE_SETS):
            allowed = " or ".join(self.rules)
            raise FormatError(
                f"rules {_show(rules)}: the format {self.name} is played under {allowed}"
            )


def _show(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


#: How a format file is refused: ``where`` (the file) is set for each file read.
VOICE = Voice(
    lambda at, line: FormatError(line),
    wrong="{where}: {at} = {value}: {allowed}",  # {allowed}: "allowed are ...", in full
    unknown="{where}: {at} is unknown: {hint}allowed are {allowed}",
    missing="{where}: {at} is missing: {allowed}",
    near="{} ",
    shown=_show,
)


# The shared checks (klik.validate) in a format's words: "allowed is/are ..." in full.


def _table(table: object, voice: Voice, path: str, keys: Sequence[str] = ()) -> dict[str, Any]:
    """``table``, a TOML table with none but ``keys`` (any, if none are given)."""
    checked: dict[str, Any] = check(
        table, OBJECT, voice, path or "the file", words="allowed is a table"
    )
    if keys:
        known(checked, keys, voice, path)
    return checked


def _number(table: Mapping[str, Any], key: str, voice: Voice, path: str, span: Number) -> int:
    lo, hi = span.lo, span.hi
    allowed = f"allowed is {lo}" if lo == hi else f"allowed are {lo} to {hi}"
    return int(take(table, key, span, voice, path, words=allowed))


def _text(table: Mapping[str, Any], key: str, voice: Voice, path: str = "") -> str:
    return str(take(table, key, Text(blank=False), voice, path, words="allowed is a text"))


def _choice(
    table: Mapping[str, Any], key: str, voice: Voice, path: str, choices: Sequence[str]
) -> str:
    words = f"allowed are {', '.join(choices)}"
    return str(take(table, key, Choice(choices), voice, path, words=words))


def parse_format(text: str, where: str) -> Format:
    """The format in TOML ``text``; ``where`` names it in errors (a file name, say)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise FormatError(f"{where}: not TOML: {error}") from None
    voice = replace(VOICE, where=where)
    known_keys = (
        "name", "title_pl", "title_en", "rules", "tie_breaks", "classification", "players",
        "first_starter", "round_time_s", "late_may_qualify", "replacements", "stages",
    )  # fmt: skip
    top = _table(data, voice, "", known_keys)
    name = _text(top, "name", voice)
    title_pl, title_en = _text(top, "title_pl", voice), _text(top, "title_en", voice)
    sets = sorted(RULE_SETS)
    allowed_rules = (
        f"allowed is one of {', '.join(sets)}, or a list of them, each once (and {ANY!r} last:"
        " any set the hub knows)"
    )
    given = required(top, "rules", voice, allowed=allowed_rules)
    listed = given if isinstance(given, list) else [given]
    if not listed or len(set(map(str, listed))) != len(listed):
        raise refused(top, "rules", voice, allowed=allowed_rules)
    if ANY in listed[1:] and listed[-1] == ANY:
        listed = listed[:-1]
        anything = True
    else:
        anything = False
    if not Each(Choice(RULE_SETS)).allows(listed):
        raise refused(top, "rules", voice, allowed=allowed_rules)
    rules = tuple(canonical(str(r)) for r in listed)  # "league" is "pl-liga"
    rules += (ANY,) if anything else ()
    classification = Classification.BY_STAGE
    if "classification" in data:
        kinds = [c.value for c in Classification]
        classification = Classification(_choice(top, "classification", voice, "", kinds))
    field = None
    if "players" in data:
        allowed = f"allowed are [fewest, most], from 2 to {MAX_PLAYERS}"
        given_players = data["players"]
        if not Each(Number(2, MAX_PLAYERS)).allows(given_players) or len(given_players) != 2:
            raise refused(top, "players", voice, allowed=allowed)
        if given_players[0] > given_players[1]:
            raise refused(top, "players", voice, allowed=allowed)
        field = (int(given_players[0]), int(given_players[1]))
    breaks = required(top, "tie_breaks", voice, allowed="allowed is a list of big, small, wins")
    names = [t.value for t in TieBreak]
    if not isinstance(breaks, list) or not breaks or len(set(map(str, breaks))) != len(breaks):
        raise refused(
            top, "tie_breaks", voice, allowed=f"allowed is a list of {', '.join(names)}, each once"
        )
    if bad := [b for b in breaks if b not in names]:
        raise refused(
            top, "tie_breaks", voice, allowed=f"{_show(bad[0])} is not one of {', '.join(names)}"
        )
    raw = required(top, "stages", voice, allowed="allowed is a list of [[stages]]")
    if not isinstance(raw, list) or not raw:
        raise refused(top, "stages", voice, allowed="allowed is a list of [[stages]], at least one")
    stages: list[Stage] = []
    for i, table in enumerate(raw):
        stages.append(_stage(table, voice, f"stages[{i}]", stages))
    tie_breaks = tuple(TieBreak(b) for b in breaks)
    return Format(
        name, title_pl, title_en, rules, tie_breaks, tuple(stages), classification, field,
        **_optional(top, voice),
    )  # fmt: skip


def _optional(top: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The optional keys of how rounds are played and who plays them, as ``Format``'s
    keywords: each one the file gives, checked."""
    found: dict[str, Any] = {}
    if "first_starter" in top:
        found["first_starter"] = _choice(top, "first_starter", voice, "", FIRST_STARTERS)
    if "round_time_s" in top:
        found["round_time_s"] = _number(top, "round_time_s", voice, "", Number(*ROUND_TIME_S))
    if "late_may_qualify" in top:
        said = "allowed are true, false"
        found["late_may_qualify"] = take(top, "late_may_qualify", TRUE_FALSE, voice, words=said)
    if "replacements" in top:
        counts = [c.value for c in CountsFor]
        found["replacements"] = CountsFor(_choice(top, "replacements", voice, "", counts))
    return found


_COMMON = ("name", "title_en", "rounds", "games_per_round", "tables")
_KNOWN: Mapping[Tables | Qualify, tuple[str, ...]] = {
    Tables.RANDOM: _COMMON,
    Tables.SEEDED: (*_COMMON, "qualify", "field", "per_table", "seating"),
    Qualify.TOP: (*_COMMON, "qualify", "field", "seating"),
    Qualify.TABLE: (*_COMMON, "qualify", "per_table", "seating"),
}


def _stage(table: object, voice: Voice, path: str, earlier: Sequence[Stage]) -> Stage:
    stage = _table(table, voice, path, _KNOWN[Tables.SEEDED])
    name = _text(stage, "name", voice, path)
    if name in {s.name for s in earlier}:
        raise refused(stage, "name", voice, path, allowed="allowed is a name no earlier stage has")
    english = _text(stage, "title_en", voice, path) if "title_en" in stage else ""
    tables = Tables(_choice(stage, "tables", voice, path, [t.value for t in Tables]))
    if tables is Tables.RANDOM:
        known(stage, _KNOWN[Tables.RANDOM], voice, path)
        rounds = _number(stage, "rounds", voice, path, Number(0, MAX_ROUNDS))
        games = _number(stage, "games_per_round", voice, path, Number(1, MAX_GAMES))
        return Stage(name, rounds, games, tables, title_en=english)
    if not earlier:
        why = "the first stage has no standings to seed from: allowed is random"
        raise refused(stage, "tables", voice, path, allowed=why)
    qualify = Qualify(_choice(stage, "qualify", voice, path, [q.value for q in Qualify]))
    known(stage, _KNOWN[qualify], voice, path)
    # A seeded stage is one round at the tables it seats.
    rounds = _number(stage, "rounds", voice, path, Number(1, 1))
    games = _number(stage, "games_per_round", voice, path, Number(1, MAX_GAMES))
    by_size = _seating(stage, voice, path)
    if qualify is Qualify.TOP:
        allowed = f"allowed is a list of sizes 2 to {MAX_FIELD}, each once"
        field = required(stage, "field", voice, path, allowed=allowed)
        if (
            not field
            or not Each(Number(2, MAX_FIELD)).allows(field)
            or len(set(field)) != len(field)
        ):
            raise refused(stage, "field", voice, path, allowed=allowed)
        if set(field) != set(by_size):
            allowed = f"allowed are the sizes that have a seating: {sorted(by_size)}"
            raise refused(stage, "field", voice, path, allowed=allowed)
        seating = tuple(by_size[n] for n in field)  # in the field's order of preference
        return Stage(
            name, rounds, games, tables, qualify, field=tuple(field), seating=seating,
            title_en=english,
        )  # fmt: skip
    if earlier[-1].rounds != 1:
        why = "the previous stage has several rounds: allowed is top"
        raise refused(stage, "qualify", voice, path, allowed=why)
    per_table = _number(stage, "per_table", voice, path, Number(1, MAX_PER_TABLE))
    seating = tuple(by_size.values())
    return Stage(
        name, rounds, games, tables, qualify, per_table=per_table, seating=seating,
        title_en=english,
    )  # fmt: skip


def _seating(stage: Mapping[str, Any], voice: Voice, path: str) -> dict[int, Pattern]:
    """A seeded stage's ``seating``: a pattern for each number of qualifiers, by that number."""
    given = required(stage, "seating", voice, path, allowed="allowed are patterns by field size")
    at = voice.at(path, "seating")
    by_size = _table(given, voice, at)
    patterns: dict[int, Pattern] = {}
    for size, pattern in by_size.items():
        if not size.isdecimal() or not 2 <= int(size) <= MAX_FIELD:
            why = f"allowed are keys 2 to {MAX_FIELD}, the number of players"
            raise refused(by_size, size, voice, at, allowed=why)
        n = int(size)
        tables: list[Any] = pattern if isinstance(pattern, list) else [None]
        places = Each(Number(1, n))
        ok = all(places.allows(t) and MIN_SEATS <= len(t) <= MAX_SEATS for t in tables)
        if not ok or sorted(p for t in tables for p in t) != list(range(1, n + 1)):
            seats = f"tables of {MIN_SEATS} to {MAX_SEATS} seats"
            why = f"allowed are {seats} holding places 1 to {n} once each"
            raise refused(by_size, size, voice, at, allowed=why)
        patterns[n] = tuple(tuple(t) for t in pattern)
    if not patterns:
        raise voice.refuse(
            "{where}: {at} is empty: {allowed}", at, allowed="allowed are patterns by field size"
        )
    return patterns


# The presets are package data, read through importlib.resources: shipped files, not state.
_PRESETS = resources.files("klik_hub.tournament") / "formats"


@cache
def preset_names() -> tuple[str, ...]:
    """The formats shipped with the hub, by name (read once: shipped files do not change;
    every player's page asks for its tournament's format)."""
    files = (f.name for f in _PRESETS.iterdir() if f.name.endswith(".toml"))
    return tuple(sorted(f.removesuffix(".toml") for f in files))


@cache
def load_format(name: str) -> Format:
    """The preset ``name``, read once (a frozen ``Format``, shared); an unknown name is a
    FormatError that lists the presets (not kept: an exception is never cached)."""
    names = preset_names()
    if name not in names:
        unknown = "format {value} is unknown: {hint}allowed are {allowed}"
        check(name, Choice(names), VOICE, "format", says=unknown)
    where = f"{name}.toml"
    found = parse_format((_PRESETS / where).read_text(encoding="utf-8"), where)
    if found.name != name:
        raise FormatError(
            f"{where}: name = {_show(found.name)}: allowed is {_show(name)}, the file's name"
        )
    return found


def seat_stage(
    stage: Stage,
    ranked: Sequence[Row],
    previous_tables: Sequence[Sequence[int]] = (),
    *,
    field: int | None = None,
) -> tuple[tuple[int, ...], ...]:
    """The tables of a seeded ``stage``: each a tuple of player ids in seat order A, B, C, D.

    ``ranked`` are the standings that choose. For ``qualify = "top"``: the standings over every
    earlier stage; ``field`` is the judge's pick of the stage's sizes (by default the first
    one there are players enough for). For ``"table"``: the standings of the previous stage
    alone, and ``previous_tables`` are that stage's tables. The qualifiers are numbered 1..N in
    the order of ``ranked`` and sit as the stage's pattern for N says.

    A tie at the cut (the last to go on and the first to stay share a place) is a SeedingError:
    the seeds leave it to the judge, who passes ``ranked`` again with the tie broken.
    """
    if stage.tables is not Tables.SEEDED:
        raise SeedingError(f"{stage.name}: its tables are drawn at random, not seeded")
    if stage.qualify is Qualify.TOP:
        sizes = ", ".join(map(str, stage.field))
        if field is not None and field not in stage.field:
            raise SeedingError(f"{stage.name}: a field of {field}: allowed are {sizes}")
        fits = [n for n in stage.field if n <= len(ranked) and field in (None, n)]
        if not fits:
            raise SeedingError(f"{stage.name}: {len(ranked)} players ranked: it takes {sizes}")
        _check_cut(stage, ranked, fits[0], "")
        qualifiers = list(ranked[: fits[0]])
    else:
        position = {row.player: i for i, row in enumerate(ranked)}
        qualifiers = []
        for number, table in enumerate(previous_tables, 1):
            if missing := [p for p in table if p not in position]:
                unknown = f"player {missing[0]!r} of table {number}"
                raise SeedingError(f"{stage.name}: {unknown} is not in the standings")
            rows = sorted((ranked[position[p]] for p in table), key=lambda r: position[r.player])
            _check_cut(stage, rows, stage.per_table, f" at table {number}")
            qualifiers += rows[: stage.per_table]
        qualifiers.sort(key=lambda r: position[r.player])
    pattern = stage.pattern(len(qualifiers))
    if pattern is None:
        sizes = ", ".join(str(sum(map(len, p))) for p in stage.seating)
        raise SeedingError(
            f"{stage.name}: {len(qualifiers)} players go on: the format seats {sizes}"
        )
    return tuple(tuple(qualifiers[place - 1].player for place in table) for table in pattern)


def _check_cut(stage: Stage, rows: Sequence[Row], size: int, where: str) -> None:
    if len(rows) > size and rows[size - 1].place == rows[size].place:
        last, first = rows[size - 1], rows[size]
        raise SeedingError(
            f"{stage.name}: {last.name} and {first.name} share place {last.place}{where}, "
            f"where the best {size} go on: the judge breaks the tie"
        )


def cannot_finish(fmt: Format, players: int) -> str | None:
    """Why ``fmt`` cannot be played to its end with ``players`` players, or None if it can.

    Follows the stages as a draw would: random tables of 3-4, a seeded stage's field (the
    largest the format allows that there are players for) or the best of each table of the
    stage before, and the seating the format has for that many.
    """
    tables: tuple[int, ...] = ()
    going = players
    for stage in fmt.stages:
        if stage.tables is Tables.RANDOM:
            try:
                tables = table_sizes(going)
            except DrawError as error:
                return f"{stage.name}: {error}"
            continue
        seats = ", ".join(str(sum(map(len, p))) for p in stage.seating)
        if stage.qualify is Qualify.TOP:
            fits = [n for n in stage.field if n <= going]
            if not fits:
                return f"{stage.name} takes {seats} players, of {going}"
            going = fits[0]
        else:
            going = sum(min(stage.per_table, size) for size in tables)
        pattern = stage.pattern(going)
        if pattern is None:
            where = f"from {len(tables)} tables"
            return f"{stage.name}: {going} players go on {where}, and it seats {seats}"
        tables = tuple(len(table) for table in pattern)
    return None


def playable(fmt: Format, up_to: int = 200) -> str:
    """The numbers of players ``fmt`` can be played to its end with, in words (``9 to 16``,
    ``3, 4, 6 and more``)."""
    fits = [n for n in range(2, up_to + 1) if cannot_finish(fmt, n) is None]
    runs: list[list[int]] = []
    for n in fits:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    words = []
    for run in runs:
        if run[-1] == up_to:
            words.append(f"{run[0]} and more")
        elif len(run) == 1:
            words.append(str(run[0]))
        elif len(run) == 2:
            words.append(f"{run[0]}, {run[1]}")
        else:
            words.append(f"{run[0]} to {run[-1]}")
    return ", ".join(words) if words else "none"
