"""A player's needs (issue 40): what their seat is set up with, and the table they must sit at.

``vibration`` (the seat's vibration motor), ``large`` (the large screens) and ``quiet`` (no
buzzer at the table) go to the table with the round's lineup (``p.RoundLineup.needs``);
``fixed_table`` (a table the player can reach, say) stays on the hub: the draw seats the
player there in every round (``draw.draw_round``'s ``fixed``, ``fixed_tables`` for a seeded
stage).

Three spellings, one meaning: the JSON object ``{"vibration": bool, "large": bool, "quiet":
bool, "fixed_table": N | null}`` (enrolment, the players' listing, a judge's change), and a
CSV cell's words ``vibration,large,quiet,table=3`` (any order, each once, empty for none).
A bad one is a NeedsError of one line: what, where, what is allowed.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from klik.errors import KlikError
from klik.link import protocol as p
from klik.words import Words, words
from klik_hub.tournament.draw import FixedTablesError

FLAGS = ("vibration", "large", "quiet")  # the JSON's order; the wire's is ``p.NEEDS``
KEYS = (*FLAGS, "fixed_table")
MAX_TABLE = 999  # a hall's table numbers, as a table's [hub] table allows
TABLE_WORD = "table="  # a CSV cell's fixed table: table=3

P = TypeVar("P", bound=Hashable)


class NeedsError(KlikError, ValueError):
    """Needs that cannot be kept; the message says what, where and what is allowed."""


@dataclass(frozen=True, slots=True)
class Needs:
    """One player's needs; all false and no fixed table: none."""

    vibration: bool = False
    large: bool = False
    quiet: bool = False
    fixed_table: int | None = None

    def json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in KEYS}

    def words(self) -> str:
        """As a CSV cell: ``vibration,large,quiet,table=3``, the words it has in that order."""
        said = [k for k in FLAGS if getattr(self, k)]
        if self.fixed_table is not None:
            said.append(f"{TABLE_WORD}{self.fixed_table}")
        return ",".join(said)

    def seat(self) -> tuple[str, ...]:
        """What the table sets the seat up with: words of ``p.NEEDS``, in its order."""
        return tuple(k for k in p.NEEDS if getattr(self, k))


NONE = Needs()


def from_json(value: Any, where: str, base: Needs = NONE) -> Needs:
    """``base`` changed by the JSON object ``value``: any of ``KEYS`` (a key not given stays
    as ``base`` has it; ``"fixed_table": null`` clears it). ``where`` names it in errors
    (``players[3].needs``)."""
    if not isinstance(value, dict):
        said = words("{where}: allowed is an object of {keys}", where=where, keys=", ".join(KEYS))
        raise NeedsError(said)
    if unknown := sorted(set(value) - set(KEYS)):
        said = words(
            "{where}: unknown field {field!r}; allowed: {keys}",
            where=where,
            field=unknown[0],
            keys=", ".join(KEYS),
        )
        raise NeedsError(said)
    for key in FLAGS:
        if key in value and not isinstance(value[key], bool):
            raise NeedsError(words("{where}.{key}: allowed are true, false", where=where, key=key))
    table = value.get("fixed_table", base.fixed_table)
    if table is not None and (
        isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= MAX_TABLE
    ):
        said = words(
            "{where}.fixed_table: allowed are a table 1 to {most}, or null",
            where=where,
            most=MAX_TABLE,
        )
        raise NeedsError(said)
    return replace(base, **{k: v for k, v in value.items() if k in FLAGS}, fixed_table=table)


def from_words(cell: str, where: str | Words) -> Needs:
    """A CSV cell's needs: words ``vibration``, ``large``, ``quiet``, ``table=N``, separated
    by commas (spaces around them ignored), each once; empty for none."""
    found: dict[str, Any] = {}
    for raw in cell.split(","):
        word = raw.strip().casefold()
        if not word:
            continue
        key = word  # a flag's word is its key; a fixed table's, its number
        value: bool | int = True
        if word.startswith(TABLE_WORD):
            number = word.removeprefix(TABLE_WORD)
            # At most three digits: int() of a cell's thousand digits is refused, not slow.
            fits = number.isascii() and number.isdecimal() and len(number) <= len(str(MAX_TABLE))
            key, value = ("fixed_table", int(number)) if fits and int(number) >= 1 else ("", 0)
        if key not in KEYS or key in found:
            said = words(
                "{where}: needs {word!r}: allowed are vibration, large, quiet, table=1 to "
                "{most}, each once",
                where=where,
                word=raw.strip(),
                most=MAX_TABLE,
            )
            raise NeedsError(said)
        found[key] = value
    return Needs(**found)


def fixed_tables(
    tables: Sequence[Sequence[P]], fixed: Mapping[P, int]
) -> tuple[tuple[P, ...], ...]:
    """``tables`` (a seeded stage's, say, table 1 first) numbered so that every player of
    ``fixed`` (player -> table) seated in them sits at their table: tables holding fixed
    players move to those numbers, the others keep their order in the numbers left. Who
    sits with whom, and where at a table, never change. FixedTablesError, naming the players,
    where it cannot be: a table number the round has not, two fixed players at one table
    with different numbers, or two tables that need one number."""
    at = {q: k for k, table in enumerate(tables) for q in table}
    want: dict[int, int] = {}  # table index -> its number (from 0)
    by_number: dict[int, int] = {}  # number -> the table index that holds it
    bad: list[tuple[P, int]] = []
    for q, number in sorted(((q, n) for q, n in fixed.items() if q in at), key=lambda x: x[1]):
        k, n = at[q], number - 1
        if n >= len(tables) or want.get(k, n) != n or by_number.get(n, k) != k:
            bad.append((q, number))
            continue
        want[k], by_number[n] = n, k
    if bad:
        # Name every fixed player the clash involves: the judge changes one of them.
        clashing = {k for q, _ in bad for k in [at[q]] if k in want} | {
            by_number[n - 1] for _, n in bad if n - 1 in by_number
        }
        bad += [(q, n) for q, n in fixed.items() if q in at and at[q] in clashing]
        named = sorted(set(bad), key=lambda x: (x[1], str(x[0])))
        raise FixedTablesError(
            words("fixed tables: {n} cannot all be honoured", n=len(named)), named, len(tables)
        )
    rest = iter(k for k in range(len(tables)) if k not in want)
    order = [by_number[n] if n in by_number else next(rest) for n in range(len(tables))]
    return tuple(tuple(tables[k]) for k in order)


__all__ = ["FLAGS", "KEYS", "FixedTablesError", "Needs", "NeedsError", "fixed_tables"]
