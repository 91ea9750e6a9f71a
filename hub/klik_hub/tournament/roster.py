"""Enrolment: players from a judge's list, checked before any is kept.

A list comes as JSON from the console or as a CSV file exported from a spreadsheet. Either
way every entry is checked first and one bad entry refuses the whole list, named by where it
is (``line 7`` of the file, ``players[6]`` of the JSON), so a judge fixes the file and sends
it again without ever having half a roster enrolled.

The CSV (UTF-8, with or without Excel's byte-order mark; fields separated by ``,``, ``;`` as
Polish spreadsheets save them, or a tab) has a name and optionally a club or school a line.
A first line naming the columns (``name``/``club``, or ``imię i nazwisko``, ``nazwisko``,
``gracz``, ``zawodnik`` / ``klub``, ``szkoła``, ``school``) says which is which; without one
the name comes first. Blank lines are skipped. A ``needs`` column (``potrzeby``) holds a
player's needs as words in one quoted cell: ``"vibration,large,quiet,table=3"``
(``needs.from_words``); JSON's entries carry them as ``"needs": {...}`` (``needs.from_json``).
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from klik.errors import KlikError
from klik.words import N_, Words, nwords, words
from klik_hub.tournament import text as tx
from klik_hub.tournament.needs import NONE, Needs, NeedsError
from klik_hub.tournament.needs import from_json as needs_of_json
from klik_hub.tournament.needs import from_words as needs_of_words

MAX_NAME = 100  # characters; a seat's screen shows the first dozen
# A tournament's players, enrolled at once or in turn: far above any hall (seed 001: 36), and
# what a draw and the standings are sized for (1,000 players: a draw in 0.2 s; 10,000 took
# 12 s and 868 MB).
MAX_PLAYERS = 1000
NAME_HEADERS = {"name", "imię i nazwisko", "imie i nazwisko", "nazwisko", "gracz", "zawodnik"}
CLUB_HEADERS = {"club", "klub", "szkoła", "szkola", "school", "team", "drużyna"}
ID_HEADERS = {"id", "licencja", "nr licencji", "numer licencji", "nr rankingu"}
NEEDS_HEADERS = {"needs", "potrzeby"}
PERSON_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9./-]{0,31}")  # a federation's number, as written
DELIMITERS = ";\t,"  # the first that the first line holds; none: a single column


class RosterError(KlikError, ValueError):
    """A list of players that cannot be enrolled; the message says where and why."""


class EnrolledAlreadyError(RosterError):
    """A list that would enrol players a second time (a file sent twice, say)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player to enrol: a name and a club or school (may be empty)."""

    name: str
    club: str = ""
    where: str | Words = field(default="", compare=False)  # ``line 7``, ``players[6]``
    # The person's federation or ranking number (a CSV's ``id`` column): the enrolment is
    # that person, known or new; "" for none, a new person of the hub's own.
    person: str = field(default="", compare=False)
    needs: Needs = field(default=NONE, compare=False)  # issue 40: the seat's, a fixed table


# What is wrong with a name or a club, by ``text.Fault``'s name (and ``long``): the rules are
# every free text's (``text.fault``), said here of the name or the club and where it is.
NAME_FAULTS = {
    "long": N_("{where}: the name is {n} characters; at most {most}"),
    "CONTROL": N_("{where}: the name holds a control character"),
    "INVISIBLE": N_("{where}: the name holds no visible letter or digit"),
    "MARKS": N_("{where}: a letter of the name carries more than {most} combining marks"),
}
CLUB_FAULTS = {
    "long": N_("{where}: the club is {n} characters; at most {most}"),
    "CONTROL": N_("{where}: the club holds a control character"),
    "INVISIBLE": N_("{where}: the club holds no visible letter or digit"),
    "MARKS": N_("{where}: a letter of the club carries more than {most} combining marks"),
}


def entrant(name: Any, club: Any, where: str | Words) -> Entrant:
    """One checked entry; ``where`` names it in the error (``line 7``, ``players[6]``).
    The name and the club keep every free text's rule (``text.fault``), as the judge's
    requests do (``api.deps.FreeText``): a CSV file is no way around it."""
    if not isinstance(name, str):
        raise RosterError(words("{where}: name must be text", where=where))
    if club is not None and not isinstance(club, str):
        raise RosterError(words("{where}: club must be text", where=where))
    name, club = _tidy(name), _tidy(club or "")
    if not name:
        raise RosterError(words("{where}: the name is empty", where=where))
    for said, text in ((NAME_FAULTS, name), (CLUB_FAULTS, club)):
        if len(text) > MAX_NAME:
            raise RosterError(words(said["long"], where=where, n=len(text), most=MAX_NAME))
        found = tx.fault(text) if text else None  # a club may be empty; a name is not here
        if found is not None:
            raise RosterError(words(said[found.name], where=where, most=tx.MAX_MARKS))
    return Entrant(name, club)


def from_json(entries: Any) -> list[Entrant]:
    """A JSON list of ``{"name": ..., "club": ...}`` (club optional) as entrants."""
    if not isinstance(entries, list):
        raise RosterError(words('players: send a list of {"name": ..., "club": ...}'))
    checked = []
    for k, entry in enumerate(entries):
        where = f"players[{k}]"  # a JSON path: the same in every language
        if not isinstance(entry, dict):
            raise RosterError(words('{where}: must be {{"name": ..., "club": ...}}', where=where))
        unknown = sorted(set(entry) - {"name", "club", "needs"})
        if unknown:
            raise RosterError(
                words(
                    "{where}: unknown field {field!r}; allowed: name, club, needs",
                    where=where,
                    field=unknown[0],
                )
            )
        one = entrant(entry.get("name"), entry.get("club"), where)
        if "needs" in entry:
            try:
                one = replace(one, needs=needs_of_json(entry["needs"], f"{where}.needs"))
            except NeedsError as error:
                raise RosterError(error.message) from None
        checked.append((where, one))
    return _whole(checked)


def from_csv(text: str) -> list[Entrant]:
    """The entrants of a CSV file's text (see the module's docstring)."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), "")
    delimiter = next((d for d in DELIMITERS if d in first), ",")
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    columns: Sequence[str] | None = None
    checked: list[tuple[str | Words, Entrant]] = []
    try:
        for row in reader:
            where = words("line {n}", n=reader.line_num)
            if not any(cell.strip() for cell in row):
                continue
            if columns is None:
                columns = _columns(row)
                if columns != ():
                    continue  # a header line
                columns = ("name", "club")
            if len(row) > len(columns) and any(cell.strip() for cell in row[len(columns) :]):
                allowed = (
                    N_("{where}: {n} fields; allowed are name and club")
                    if "club" in columns
                    else N_("{where}: {n} fields; allowed are name")
                )
                raise RosterError(words(allowed, where=where, n=len(row)))
            cells = dict(zip(columns, row, strict=False))
            one = entrant(cells.get("name", ""), cells.get("club", ""), where)
            person = cells.get("id", "").strip()
            if person and not PERSON_ID.fullmatch(person):
                said = N_("{where}: id {id!r}: allowed are 1 to 32 letters, digits, '.', '/', '-'")
                raise RosterError(words(said, where=where, id=person))
            try:
                needs = needs_of_words(cells.get("needs", ""), where)
            except NeedsError as error:
                raise RosterError(error.message) from None
            checked.append((where, replace(one, person=person, needs=needs)))
    except csv.Error as error:
        raise RosterError(words("line {n}: {error}", n=reader.line_num, error=str(error))) from None
    return _whole(checked)


def _columns(row: Sequence[str]) -> tuple[str, ...]:
    """A header's columns as ``name``/``club``/"" (ignored), or () if ``row`` is no header."""
    heads = [cell.strip().casefold() for cell in row]
    if not any(head in NAME_HEADERS for head in heads):
        return ()
    return tuple(
        "name" if head in NAME_HEADERS
        else "club" if head in CLUB_HEADERS
        else "id" if head in ID_HEADERS
        else "needs" if head in NEEDS_HEADERS
        else ""
        for head in heads
    )  # fmt: skip


def _whole(checked: Iterable[tuple[str | Words, Entrant]]) -> list[Entrant]:
    """The entrants, once the list as a whole is sound: not empty, no one listed twice."""
    seen: dict[tuple[str, str], str | Words] = {}
    ids: dict[str, str | Words] = {}
    entrants = []
    for where, one in checked:
        if one.person and one.person in ids:
            said = words("{where}: id {id} is listed twice (also {other})",
                         where=where, id=one.person, other=ids[one.person])  # fmt: skip
            raise RosterError(said)
        if one.person:
            ids[one.person] = where
        key = (one.name.casefold(), one.club.casefold())
        if key in seen:
            twice = words(
                "{where}: {player} is listed twice (also {other})",
                where=where,
                player=_shown(one),
                other=seen[key],
            )
            raise RosterError(twice)
        seen[key] = where
        entrants.append(replace(one, where=where))
    if not entrants:
        raise RosterError(words("no players in the list"))
    if len(entrants) > MAX_PLAYERS:
        raise RosterError(
            words(
                "{n} players in the list; a tournament takes at most {most}",
                n=len(entrants),
                most=MAX_PLAYERS,
            )
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
        if len(again) > 5:
            said = nwords(
                "every player of the list is enrolled already: {players} and {n} more; "
                "was it sent twice?",
                "every player of the list is enrolled already: {players} and {n} more; "
                "was it sent twice?",
                len(again) - 5,
                players=shown,
            )
        else:
            said = words(
                "every player of the list is enrolled already: {players}; was it sent twice?",
                players=shown,
            )
        raise EnrolledAlreadyError(said)
    if again and not allow_same_name:
        first, k = again[0]
        raise EnrolledAlreadyError(
            words(
                "{where}: {player} is enrolled already (id {id}); if it is another player of "
                "the same name, send the list with allow_same_name=true",
                where=first.where,
                player=_shown(first),
                id=k,
            )
        )


def _key(entrant: Entrant) -> tuple[str, str]:
    return entrant.name.casefold(), entrant.club.casefold()


def _shown(entrant: Entrant) -> str:
    return f"{entrant.name} ({entrant.club})" if entrant.club else entrant.name
