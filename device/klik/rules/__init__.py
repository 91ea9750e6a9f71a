"""Rummikub's rule sets as data: one TOML file a set, read and checked here.

A rule set is everything the engine and the hub take from a tournament's rules: the move
time, a timeout's penalty tiles, who starts, how many seats, what a joker and an unopened
rack cost, how small points are signed and an exhausted game scored, and the big points per
place at 2, 3 and 4 seats (``klik.core.scoring.RuleSet``). The sets Klik ships sit beside
this module (``pl-turniej.toml``, ``pl-liga.toml``, ...), each naming its source and saying
what the source leaves open; ``klik rules list | show | check`` prints and checks them, and
the hub adds the judge's own (``add``).

A file gives every key; a bad one is refused in one line naming the key (``RulesError``)::

    my.toml: big_points.4 = [4, 1, 2, 0]: allowed is a list of 4 whole numbers from 0 to
    100, none above the one before

The names ``tournament`` and ``league`` (the wire's, before the sets were files) are
aliases of ``pl-turniej`` and ``pl-liga``: a result or lineup naming either still reads.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from klik.core.limits import GAME
from klik.core.scoring import RuleSet
from klik.errors import KlikError
from klik.validate import (
    TRUE_FALSE,
    Choice,
    Each,
    Number,
    Text,
    Voice,
    known,
    take,
)

MAX_NAME = 16  # the hub keeps a tournament's rule set in 16 characters
NAME = re.compile(r"[a-z][a-z0-9-]{0,15}")
MAX_BIG = 100  # big points for one place
MAX_PENALTY = 1000  # what an unopened rack may cost
SIGNS = {"winner-plus": +1, "losers-plus": -1}
FIRST = ("A", "draw")  # game 1 of a round: seat A starts, or the highest tile drawn (001)
ROTATIONS = ("clockwise",)  # the next game's starter: the next seat clockwise (000 f)
EXHAUSTED = ("difference",)  # the lowest rack wins; every other seat loses the difference
TIES = ("share-better",)  # seats tied on a place each get that place's big points
TOP = ("name", "version", "title_pl", "title_en", "source", "aliases", "open",
       "clock", "start", "seats", "small_points", "big_points")  # fmt: skip
SECTIONS: Mapping[str, tuple[str, ...]] = {
    "clock": ("move_time_s", "penalty_tiles"),
    "start": ("first", "rotation"),
    "seats": ("fewest", "most"),
    "small_points": (
        "sign",
        "joker",
        "unopened",
        "could_have_opened",
        "exhausted",
        "penalties_when_exhausted",
    ),
}


class RulesError(KlikError, ValueError):
    """A rule set file cannot be used; ``str()`` names the file, the key and what is allowed.
    ``key`` is the key alone (``big_points.4``; ``TOML`` for a file that is not TOML), for a
    reader in another language (the hub's console)."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


def _show(value: Any) -> str:
    # On one line: a TOML array or string of numbers and words reads as JSON does.
    return json.dumps(value, ensure_ascii=False, default=str)


VOICE = Voice(
    lambda at, line: RulesError(line, at),
    wrong="{where}: {at} = {value}: allowed is {allowed}",
    unknown="{where}: {at} is unknown: {hint}allowed are {allowed}",
    missing="{where}: {at} is missing: allowed is {allowed}",
    near="{} ",
    shown=_show,
)


def parse(text: str, where: str) -> RuleSet:
    """The rule set in TOML ``text``; ``where`` names it in errors (a file's name)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{where}: not TOML: {error}", "TOML") from None
    return from_data(data, where)


def from_data(data: Mapping[str, Any], where: str) -> RuleSet:
    """The rule set in ``data`` (a file's TOML, or a lineup's ``rule_set`` object)."""
    voice = replace(VOICE, where=where)
    known(data, TOP, voice)
    name = take(data, "name", Text(1, MAX_NAME), voice, words="a name of 1 to 16 characters")
    if not NAME.fullmatch(name):
        raise voice.refuse(voice.wrong, "name", value=name,
                           allowed="a-z, 0-9 and -, from a letter")  # fmt: skip
    version = take(data, "version", Number(1, 1_000_000), voice)
    title_pl = take(data, "title_pl", Text(1, 80, blank=False), voice)
    title_en = take(data, "title_en", Text(1, 80, blank=False), voice)
    source = take(data, "source", Text(1, 400, blank=False), voice)
    aliases = take(data, "aliases", Each(Choice(ALIASES)), voice,
                   words=f"a list of the older names {', '.join(ALIASES)}")  # fmt: skip
    notes = take(data, "open", Each(Text(1, 400, blank=False)), voice,
                 words="a list of what the source leaves open, each a sentence")  # fmt: skip
    clock, start, seats, small = (_section(data, s, voice) for s in SECTIONS)
    penalty = GAME["penalty_tiles"]
    move_time_s = take(clock, "move_time_s", Number(5, 600), voice, "clock")
    penalty_tiles = take(clock, "penalty_tiles", Number(int(penalty.lo), int(penalty.hi)),
                         voice, "clock")  # fmt: skip
    first = take(start, "first", Choice(FIRST, show=repr), voice, "start")
    take(start, "rotation", Choice(ROTATIONS, show=repr), voice, "start")
    fewest = take(seats, "fewest", Number(2, 4), voice, "seats")
    most = take(seats, "most", Number(fewest, 4), voice, "seats")
    sign = take(small, "sign", Choice(SIGNS, show=repr), voice, "small_points")
    joker = take(small, "joker", Number(1, 100), voice, "small_points")
    unopened = _penalty(small, "unopened", voice)
    could_open = _penalty(small, "could_have_opened", voice)
    take(small, "exhausted", Choice(EXHAUSTED, show=repr), voice, "small_points")
    when_exhausted = take(small, "penalties_when_exhausted", TRUE_FALSE, voice, "small_points")
    big = _big_points(data, range(fewest, most + 1), voice)
    return RuleSet(
        name=name,
        winner_sign=SIGNS[sign],
        big_points=big,
        joker_value=joker,
        not_opened_penalty=unopened,
        could_open_penalty=could_open,
        penalties_when_exhausted=when_exhausted,
        version=version,
        move_time_s=move_time_s,
        penalty_tiles=penalty_tiles,
        first_starter=first,
        seats=(fewest, most),
        title_pl=title_pl,
        title_en=title_en,
        source=source,
        notes=tuple(notes),
        aliases=tuple(aliases),
    )


def _section(data: Mapping[str, Any], section: str, voice: Voice) -> Mapping[str, Any]:
    keys = SECTIONS[section]
    table: Mapping[str, Any] = take(
        data, section, _TABLE, voice, words=f"a table of {', '.join(keys)}"
    )
    known(table, keys, voice, section)
    return table


class _Table:
    def allows(self, value: object) -> bool:
        return isinstance(value, Mapping)


_TABLE = _Table()


def _penalty(small: Mapping[str, Any], key: str, voice: Voice) -> int | None:
    """What an unopened rack costs: points, or ``"rack"`` (it counts as any other rack)."""
    words = f'a whole number from 0 to {MAX_PENALTY}, or "rack" (the rack counts)'
    value = take(small, key, _Penalty(), voice, "small_points", words=words)
    return None if value == "rack" else int(value)


class _Penalty:
    def allows(self, value: object) -> bool:
        return value == "rack" or Number(0, MAX_PENALTY).allows(value)


def _big_points(data: Mapping[str, Any], sizes: range, voice: Voice) -> dict[int, tuple[int, ...]]:
    keys = ("ties", *map(str, sizes))
    table = take(data, "big_points", _TABLE, voice, words=f"a table of {', '.join(keys)}")
    known(table, keys, voice, "big_points")
    take(table, "ties", Choice(TIES, show=repr), voice, "big_points")
    found: dict[int, tuple[int, ...]] = {}
    for n in sizes:
        words = (
            f"a list of {n} whole numbers from 0 to {MAX_BIG}, place 1 first, none above the"
            " one before"
        )
        points = take(table, str(n), Each(Number(0, MAX_BIG)), voice, "big_points", words=words)
        if len(points) != n or any(b > a for a, b in itertools.pairwise(points)):
            raise voice.refuse(voice.wrong, f"big_points.{n}", value=points, allowed=words)
        found[n] = tuple(points)
    return found


def to_data(rules: RuleSet) -> dict[str, Any]:
    """The rule set as its file gives it, every key (``parse`` reads it back as it was)."""
    sign = next(word for word, s in SIGNS.items() if s == rules.winner_sign)
    big: dict[str, Any] = {"ties": TIES[0]}
    big.update({str(n): list(points) for n, points in sorted(rules.big_points.items())})
    return {
        "name": rules.name,
        "version": rules.version,
        "title_pl": rules.title_pl,
        "title_en": rules.title_en,
        "source": rules.source,
        "aliases": list(rules.aliases),
        "open": list(rules.notes),
        "clock": {"move_time_s": rules.move_time_s, "penalty_tiles": rules.penalty_tiles},
        "start": {"first": rules.first_starter, "rotation": ROTATIONS[0]},
        "seats": {"fewest": rules.seats[0], "most": rules.seats[1]},
        "small_points": {
            "sign": sign,
            "joker": rules.joker_value,
            "unopened": _rack_or(rules.not_opened_penalty),
            "could_have_opened": _rack_or(rules.could_open_penalty),
            "exhausted": EXHAUSTED[0],
            "penalties_when_exhausted": rules.penalties_when_exhausted,
        },
        "big_points": big,
    }


def _rack_or(points: int | None) -> int | str:
    return "rack" if points is None else points


#: What a lineup carries of a set: its rules, not its words (they would not fit a serial frame).
WORDS = ("title_pl", "title_en", "source", "aliases", "open")


def to_wire(rules: RuleSet) -> dict[str, Any]:
    """The set as a lineup carries it: every key but the words for a reader (``WORDS``)."""
    return {k: v for k, v in to_data(rules).items() if k not in WORDS}


def from_wire(data: object) -> RuleSet:
    """A lineup's set (``to_wire``); RulesError naming the key, under ``args.rule_set``."""
    if not isinstance(data, Mapping):
        raise RulesError("args.rule_set: must be an object, a rule set's keys")
    if words := [k for k in WORDS if k in data]:
        raise RulesError(f"args.rule_set: {words[0]} is not sent; a lineup carries the rules")
    filled = {"title_pl": "-", "title_en": "-", "source": "-", "aliases": [], "open": []}
    return from_data({**data, **filled}, "args.rule_set")


def to_toml(rules: RuleSet) -> str:
    """The rule set as TOML, every key: what ``klik rules show`` prints. Written by hand, as
    the file is laid out (a list on one line); ``parse`` reads it back as it was."""
    lines: list[str] = []
    for key, value in to_data(rules).items():
        if isinstance(value, dict):
            lines += ["", f"[{key}]", *(f"{k} = {_value(v)}" for k, v in value.items())]
        else:
            lines.append(f"{key} = {_value(value)}")
    return "\n".join(lines) + "\n"


def _value(value: Any) -> str:
    # A JSON string is a TOML basic string (the same escapes); numbers and true/false too.
    if isinstance(value, list):
        inline = "[" + ", ".join(map(_value, value)) + "]"
        if len(inline) <= 80:
            return inline
        return "[\n" + "".join(f"    {_value(v)},\n" for v in value) + "]"  # the open points
    return json.dumps(value, ensure_ascii=False)


#: The wire's names from before the sets were files.
ALIASES: Mapping[str, str] = {"tournament": "pl-turniej", "league": "pl-liga"}


@functools.cache
def shipped() -> Mapping[str, RuleSet]:
    """The sets Klik ships, by name: the ``*.toml`` files of this package."""
    found: dict[str, RuleSet] = {}
    # (Path, not importlib.resources: that pulls in threading, which `klik score` keeps out.)
    for entry in sorted(Path(__file__).parent.glob("*.toml")):
        rules = parse(entry.read_text(encoding="utf-8"), entry.name)
        if f"{rules.name}.toml" != entry.name:
            raise RulesError(f"{entry.name}: name = {rules.name!r}: must be the file's name")
        found[rules.name] = rules
    return found


_added: dict[str, RuleSet] = {}


def add(rules: RuleSet) -> None:
    """Know ``rules`` beside the shipped sets (the hub's, from the judge); a set of the same
    name and version as a known one must be the same set."""
    if rules.name in shipped():
        raise RulesError(f"name = {rules.name!r}: Klik ships a set of that name; choose another")
    if rules.aliases:
        raise RulesError("aliases: only Klik's own sets have older names; leave it []")
    _added[rules.name] = rules


def added() -> dict[str, RuleSet]:
    """The sets ``add``ed so far, by name (a copy): to ``restore`` them."""
    return dict(_added)


def restore(kept: Mapping[str, RuleSet]) -> None:
    """Know the ``added`` sets ``kept`` again, and no others (an import refused, a test)."""
    _added.clear()
    _added.update(kept)


def sets() -> Mapping[str, RuleSet]:
    """Every set this program knows by name: the shipped ones and those ``add``ed."""
    return {**shipped(), **_added}


class _Sets(Mapping[str, RuleSet]):
    """Every known set by name, as a mapping: ``in`` and ``[]`` take an alias too, and
    iterating gives each set's own name once (what a message lists)."""

    def __getitem__(self, name: str) -> RuleSet:
        found = sets().get(canonical(name))
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and canonical(name) in sets()

    def __iter__(self) -> Iterator[str]:
        return iter(sets())

    def __len__(self) -> int:
        return len(sets())


RULE_SETS: Mapping[str, RuleSet] = _Sets()


def names() -> tuple[str, ...]:
    """Every name a result, a lineup or a tournament may give: the sets' and the aliases."""
    return (*sets(), *ALIASES)


def canonical(name: str) -> str:
    """The set's own name for ``name`` (an alias's set); ``name`` itself if not an alias."""
    return ALIASES.get(name, name)


def named(name: str) -> RuleSet:
    """The set called ``name`` or its alias; RulesError if none is."""
    found = sets().get(canonical(name))
    if found is None:
        raise RulesError(f"rule set {name!r} is unknown: allowed are {', '.join(names())}")
    return found
