"""Printable pages: a score sheet per table for a round, and the standings.

Plain HTML with print CSS (A4, one table's sheet a page, no buttons or colours that a
printer would waste ink on), so the judge prints from the browser. The paper is the
fallback if a table's device fails: the sheet has a line per game for every seat's rack,
small and big points, and the signatures.

The markup is in Jinja2 templates, ``templates/sheets.html`` and ``templates/standings.html``
(both extend ``base.html``, which inlines ``print.css``); their words are the catalogue's
(``klik.words``, context "print"), and this module shapes the data for them. Autoescaping
escapes every value a user typed (a tournament's, a player's, a club's name), so nothing here
escapes by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from klik.core.game import nth_starter
from klik.words import Language, spoken, templates
from klik_hub.tournament.formats import load_format
from klik_hub.tournament.standings import Row

TEMPLATES = templates("klik_hub")  # compiled once, for the process


@dataclass(frozen=True)
class Seat:
    """One line of a sheet's lineup: the seat's letter and the player sitting there."""

    seat: str
    player: int
    name: str
    club: str


@dataclass(frozen=True)
class Sheet:
    """One table's sheet. ``starters``: the seat that starts each game, game 1 first (seat A,
    then each next game the next seat round the table); not printed where the format draws
    who starts game 1."""

    table: int
    seats: tuple[Seat, ...]
    starters: tuple[str, ...]


def sheets(
    tournament: Mapping[str, Any],
    drawn: Mapping[str, Any],
    players: Mapping[int, Mapping[str, Any]],
    lang: str = "pl",
) -> str:
    """A sheet a table for round ``drawn`` (as ``GET .../rounds/{n}`` answers it)."""
    games = range(1, int(drawn["games"]) + 1)
    drawn_first = load_format(str(tournament["format"])).first_starter == "draw"
    pages = []
    for table in drawn["tables"]:
        seats = tuple(
            Seat(seat, player, players[player]["name"], players[player]["club"])
            for seat, player in table["seats"].items()
        )
        letters = [s.seat for s in seats]
        starters = tuple(nth_starter(letters, letters[0], g) for g in games)
        pages.append(Sheet(table["table"], seats, starters))
    return TEMPLATES.get_template("sheets.html").render(
        tournament=tournament,
        drawn=drawn,
        drawn_first=drawn_first,
        games=games,
        sheets=pages,
        **spoken(Language(lang)),
    )


def standings(
    tournament: Mapping[str, Any],
    rows: Sequence[Row],
    clubs: Mapping[int, str],
    corrected: set[int],
    lang: str = "pl",
) -> str:
    """The standings on paper, with a mark by a player whose counted games were corrected,
    and by a player the judge excluded."""
    return TEMPLATES.get_template("standings.html").render(
        tournament=tournament, rows=rows, clubs=clubs, corrected=corrected, **spoken(Language(lang))
    )
