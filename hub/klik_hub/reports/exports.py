"""Exports for the judge's spreadsheet: standings and results as CSV.

Written for a Polish spreadsheet by default: UTF-8 with a byte-order mark (so Excel reads the
Polish letters), fields separated by ``;`` (Excel's separator where the decimal mark is a
comma), CRLF line ends, a header line in Polish (``lang="en"``: English), its words the
catalogue's (``klik.words``, context "csv"). A corrected result carries ``tak`` / ``yes`` in
its ``poprawiony`` / ``corrected`` column; a late arrival's line of the standings the round
they were drawn from (``od rundy``), a seat a reserve played the reserve's id (``rezerwowy``).

No text becomes a formula: a spreadsheet runs a cell starting with ``=``, ``+``, ``-``, ``@``,
a tab or a CR as a formula (a player named ``=HYPERLINK(…)`` would open a link), so such a
text is written with a leading ``'``, OWASP's rule for CSV injection. Numbers stay numbers.
"""

from __future__ import annotations

import csv
import gettext
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from klik.words import Language, catalogue
from klik_hub.office.standings import status as judged
from klik_hub.tournament.standings import Row, Status


def _standings_header(said: gettext.NullTranslations) -> tuple[str, ...]:
    return (
        said.pgettext("csv", "place"), said.pgettext("csv", "id"), said.pgettext("csv", "player"),
        said.pgettext("csv", "club"), said.pgettext("csv", "big"), said.pgettext("csv", "small"),
        said.pgettext("csv", "games"), said.pgettext("csv standings", "corrected"),
        said.pgettext("csv", "excluded"), said.pgettext("csv", "from round"),
        said.pgettext("csv", "stage"), said.pgettext("csv", "status"),
        said.pgettext("csv", "deducted"),
    )  # fmt: skip


def _status_words(said: gettext.NullTranslations) -> dict[Status, str]:
    return {
        Status.CLASSIFIED: said.pgettext("csv status", "classified"),
        Status.UNPLACED: said.pgettext("csv status", "unplaced"),
        Status.WITHDRAWN: said.pgettext("csv status", "withdrawn"),
        Status.EXCLUDED: said.pgettext("csv status", "excluded"),
    }


def _results_header(said: gettext.NullTranslations) -> tuple[str, ...]:
    return (
        said.pgettext("csv", "result"), said.pgettext("csv", "round"),
        said.pgettext("csv", "table"), said.pgettext("csv", "game"),
        said.pgettext("csv", "receipt"), said.pgettext("csv", "seat"),
        said.pgettext("csv", "id"), said.pgettext("csv", "player"), said.pgettext("csv", "rack"),
        said.pgettext("csv", "small"), said.pgettext("csv", "big"),
        said.pgettext("csv", "counts"), said.pgettext("csv", "held"),
        said.pgettext("csv", "corrected"), said.pgettext("csv", "reserve"),
    )  # fmt: skip


def _yes_no(said: gettext.NullTranslations) -> tuple[str, str]:
    return said.pgettext("csv", "yes"), said.pgettext("csv", "no")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _Lines:
    """A file-like sink for ``csv.writer`` that keeps the lines (no ``io`` needed)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)


def _csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    sink = _Lines()
    writer = csv.writer(sink, delimiter=";", lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([_inert(cell) for cell in row] for row in rows)
    return ("\ufeff" + "".join(sink.parts)).encode("utf-8")


def _inert(cell: Any) -> Any:
    """``cell`` as a spreadsheet will not run it: text that would start a formula gets ``'``."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def standings_csv(
    rows: Sequence[Row],
    clubs: Mapping[int, str],
    corrected: set[int],
    lang: str = "pl",
    stage_name: Callable[[str | None], str | None] = lambda name: name,
) -> bytes:
    """The standings, a player a line; ``corrected``: players with a corrected counted game;
    a late arrival's first round (empty for round 1); the stage whose standings placed the
    player, their status (``Status``, in words) and the big points the judge took, each with
    the stage it was given in (``stage_name``: a stage's name in ``lang``, ``printing.
    stage_namer``). A player without a place has an empty place."""
    said = catalogue(Language(lang))
    yes, no = _yes_no(said)
    status = _status_words(said)
    return _csv(
        _standings_header(said),
        (
            (r.place if r.placed else "", r.player, r.name, clubs.get(r.player, ""), r.big,
             r.small, r.games, yes if r.player in corrected else no, yes if r.excluded else no,
             r.from_round or "", stage_name(r.stage), status[judged(r)],
             ", ".join(f"{d.big} ({stage_name(d.stage)})" if d.stage else str(d.big)
                       for d in r.deductions))
            for r in rows
        ),
    )  # fmt: skip


def results_csv(results: Sequence[Mapping[str, Any]], lang: str = "pl") -> bytes:
    """The tournament's results (as ``GET .../results`` lists them), a seat a line; a seat a
    reserve played names the reserve (the seat's player stays the drawn one)."""
    said = catalogue(Language(lang))
    yes, no = _yes_no(said)
    lines = []
    for x in results:
        for seat, e in x["seats"].items():
            lines.append((
                x["id"], x["round"], x["table"], x["game"], f"R-{x['receipt']}", seat,
                e["player"] if e["player"] is not None else "", e["name"], e["rack"],
                e["small"], e["big"], yes if x["counts"] else no, x["held"] or "",
                yes if x["corrected"] else no, e["reserve"]["reserve"] if e["reserve"] else "",
            ))  # fmt: skip
    return _csv(_results_header(said), lines)


def ratings_csv(listed: Sequence[Mapping[str, Any]], lang: str = "pl") -> bytes:
    """The rating list (as ``GET /api/v1/ratings`` gives it), a person a line, best first."""
    said = catalogue(Language(lang))
    yes, no = _yes_no(said)
    header = (
        said.pgettext("csv", "place"), said.pgettext("csv", "person"),
        said.pgettext("csv", "player"), said.pgettext("csv", "rating"), "mu", "sigma",
        said.pgettext("csv", "games"), said.pgettext("csv", "provisional"),
    )  # fmt: skip
    lines = [
        (k, x["person"], x["name"], x["rating"], x["mu"], x["sigma"], x["games"],
         yes if x["provisional"] else no)  # numbers as numbers: "-3.15" is no formula
        for k, x in enumerate(listed, start=1)
    ]  # fmt: skip
    return _csv(header, lines)


def exchange_csv(exported: Mapping[str, Any]) -> bytes:
    """The classification of a results file (``league.exchange.export``) as CSV, a person a
    line, for a national ranking: the tournament, its date, place, the person's federation
    number, name, club, big and small points, games, status. English headers: a program
    reads them."""
    people = {p["id"]: p for p in exported["people"]}
    players = {p["player"]: p for p in exported["players"]}
    t = exported["tournament"]
    lines = []
    for x in exported["classification"]:
        player = players[x["player"]]
        person = people.get(player["person"], {})
        lines.append((
            t["name"], t["created_at"][:10], "" if x["place"] is None else x["place"],
            person.get("federation_id") or "", player["name"], player["club"], x["big"],
            x["small"], x["games"], x["status"],
        ))  # fmt: skip
    header = ("tournament", "date", "place", "federation_id", "name", "club", "big", "small",
              "games", "status")  # fmt: skip
    return _csv(header, lines)
