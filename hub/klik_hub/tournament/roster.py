"""Enrolment: players from a judge's list, checked before any is kept.

A list comes as JSON from the console or as a CSV file exported from a spreadsheet. Either
way every entry is checked first and one bad entry refuses the whole list, named by where it
is (``line 7`` of the file, ``players[6]`` of the JSON), so a judge fixes the file and sends
it again without ever having half a roster enrolled.

The CSV (UTF-8, with or without Excel's byte-order mark; fields separated by ``,``, ``;`` as
Polish spreadsheets save them, or a tab) has a name and optionally a club or school a line.
A first line naming the columns (``name``/``club``, or ``imię i nazwisko``, ``nazwisko``,
``gracz``, ``zawodnik`` / ``klub``, ``szkoła``, ``school``) says which is which; without one
the name comes first. Blank lines are skipped.
"""

from __future__ import annotations

import csv
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

MAX_NAME = 100  # characters; a seat's screen shows the first dozen
# A tournament's players, enrolled at once or in turn: far above any hall (seed 001: 36), and
# what a draw and the standings are sized for (1,000 players: a draw in 0.2 s; 10,000 took
# 12 s and 868 MB).
MAX_PLAYERS = 1000
NAME_HEADERS = {"name", "imię i nazwisko", "imie i nazwisko", "nazwisko", "gracz", "zawodnik"}
CLUB_HEADERS = {"club", "klub", "szkoła", "szkola", "school", "team", "drużyna"}
DELIMITERS = ";\t,"  # the first that the first line holds; none: a single column


class RosterError(ValueError):
    """A list of players that cannot be enrolled; the message says where and why."""


class EnrolledAlreadyError(RosterError):
    """A list that would enrol players a second time (a file sent twice, say)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player to enrol: a name and a club or school (may be empty)."""

    name: str
    club: str = ""
    where: str = field(default="", compare=False)  # ``line 7``, ``players[6]``


def entrant(name: Any, club: Any, where: str) -> Entrant:
    """One checked entry; ``where`` names it in the error (``line 7``, ``players[6]``)."""
    if not isinstance(name, str):
        raise RosterError(f"{where}: name must be text")
    if club is not None and not isinstance(club, str):
        raise RosterError(f"{where}: club must be text")
    name, club = _tidy(name), _tidy(club or "")
    if not name:
        raise RosterError(f"{where}: the name is empty")
    for what, text in (("name", name), ("club", club)):
        if len(text) > MAX_NAME:
            raise RosterError(f"{where}: the {what} is {len(text)} characters; at most {MAX_NAME}")
        if any(unicodedata.category(ch).startswith("C") for ch in text):
            raise RosterError(f"{where}: the {what} holds a control character")
    return Entrant(name, club)


def from_json(entries: Any) -> list[Entrant]:
    """A JSON list of ``{"name": ..., "club": ...}`` (club optional) as entrants."""
    if not isinstance(entries, list):
        raise RosterError('players: send a list of {"name": ..., "club": ...}')
    checked = []
    for k, entry in enumerate(entries):
        where = f"players[{k}]"
        if not isinstance(entry, dict):
            raise RosterError(f'{where}: must be {{"name": ..., "club": ...}}')
        unknown = sorted(set(entry) - {"name", "club"})
        if unknown:
            raise RosterError(f"{where}: unknown field {unknown[0]!r}; allowed: name, club")
        checked.append((where, entrant(entry.get("name"), entry.get("club"), where)))
    return _whole(checked)


def from_csv(text: str) -> list[Entrant]:
    """The entrants of a CSV file's text (see the module's docstring)."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), "")
    delimiter = next((d for d in DELIMITERS if d in first), ",")
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    columns: Sequence[str] | None = None
    checked: list[tuple[str, Entrant]] = []
    try:
        for row in reader:
            where = f"line {reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if columns is None:
                columns = _columns(row)
                if columns != ():
                    continue  # a header line
                columns = ("name", "club")
            if len(row) > len(columns) and any(cell.strip() for cell in row[len(columns) :]):
                allowed = " and ".join(c for c in columns if c)
                raise RosterError(f"{where}: {len(row)} fields; allowed are {allowed}")
            cells = dict(zip(columns, row, strict=False))
            checked.append((where, entrant(cells.get("name", ""), cells.get("club", ""), where)))
    except csv.Error as error:
        raise RosterError(f"line {reader.line_num}: {error}") from None
    return _whole(checked)


def _columns(row: Sequence[str]) -> tuple[str, ...]:
    """A header's columns as ``name``/``club``/"" (ignored), or () if ``row`` is no header."""
    heads = [cell.strip().casefold() for cell in row]
    if not any(head in NAME_HEADERS for head in heads):
        return ()
    return tuple(
        "name" if head in NAME_HEADERS else "club" if head in CLUB_HEADERS else "" for head in heads
    )


def _whole(checked: Iterable[tuple[str, Entrant]]) -> list[Entrant]:
    """The entrants, once the list as a whole is sound: not empty, no one listed twice."""
    seen: dict[tuple[str, str], str] = {}
    entrants = []
    for where, one in checked:
        key = (one.name.casefold(), one.club.casefold())
        if key in seen:
            club = f" ({one.club})" if one.club else ""
            raise RosterError(f"{where}: {one.name}{club} is listed twice (also {seen[key]})")
        seen[key] = where
        entrants.append(replace(one, where=where))
    if not entrants:
        raise RosterError("no players in the list")
    if len(entrants) > MAX_PLAYERS:
        raise RosterError(
            f"{len(entrants)} players in the list; a tournament takes at most {MAX_PLAYERS}"
        )
    return entrants


def _tidy(text: str) -> str:
    """Spaces trimmed and runs of them made one; NFC, so "ą" typed two ways is one letter."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def check_new(
    entrants: Sequence[Entrant], enrolled: Mapping[int, Entrant], *, allow_same_name: bool
) -> None:
    """EnrolledAlreadyError if ``entrants`` would enrol someone of ``enrolled`` (id -> player)
    again: a list that is all enrolled already (a double click, a file sent twice) always, and
    an entry with the name and club of an enrolled player unless ``allow_same_name`` (two
    players of one club may share a name)."""
    known = {(p.name.casefold(), p.club.casefold()): k for k, p in enrolled.items()}
    again = [(e, known[_key(e)]) for e in entrants if _key(e) in known]
    if again and len(again) == len(entrants):
        shown = ", ".join(f"{_shown(e)} (id {k})" for e, k in again[:5])
        more = f" and {len(again) - 5} more" if len(again) > 5 else ""
        raise EnrolledAlreadyError(
            f"every player of the list is enrolled already: {shown}{more}; was it sent twice?"
        )
    if again and not allow_same_name:
        first, k = again[0]
        raise EnrolledAlreadyError(
            f"{first.where}: {_shown(first)} is enrolled already (id {k}); if it is another "
            "player of the same name, send the list with allow_same_name=true"
        )


def _key(entrant: Entrant) -> tuple[str, str]:
    return entrant.name.casefold(), entrant.club.casefold()


def _shown(entrant: Entrant) -> str:
    return f"{entrant.name} ({entrant.club})" if entrant.club else entrant.name
