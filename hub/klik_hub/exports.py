"""Exports for the judge's spreadsheet: standings and results as CSV.

Written for a Polish spreadsheet by default: UTF-8 with a byte-order mark (so Excel reads the
Polish letters), fields separated by ``;`` (Excel's separator where the decimal mark is a
comma), CRLF line ends, a header line in Polish (``lang="en"``: English). A corrected result
carries ``tak`` / ``yes`` in its ``poprawiony`` / ``corrected`` column.

No text becomes a formula: a spreadsheet runs a cell starting with ``=``, ``+``, ``-``, ``@``,
a tab or a CR as a formula (a player named ``=HYPERLINK(…)`` would open a link), so such a
text is written with a leading ``'``, OWASP's rule for CSV injection. Numbers stay numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from klik_hub.tournament.standings import Row

HEADERS: dict[str, dict[str, tuple[str, ...]]] = {
    "standings": {
        "pl": ("miejsce", "nr", "gracz", "klub", "duże", "małe", "gry", "poprawione",
               "wykluczony"),
        "en": ("place", "id", "player", "club", "big", "small", "games", "corrected",
               "excluded"),
    },
    "results": {
        "pl": ("wynik", "runda", "stół", "gra", "pokwitowanie", "miejsce przy stole", "nr",
               "gracz", "tabliczka", "małe", "duże", "liczy się", "wstrzymany", "poprawiony"),
        "en": ("result", "round", "table", "game", "receipt", "seat", "id", "player", "rack",
               "small", "big", "counts", "held", "corrected"),
    },
}  # fmt: skip
YES = {"pl": ("tak", "nie"), "en": ("yes", "no")}
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
    rows: Sequence[Row], clubs: Mapping[str, str], corrected: set[str], lang: str = "pl"
) -> bytes:
    """The standings, a player a line; ``corrected``: players with a corrected counted game."""
    yes, no = YES[lang]
    return _csv(
        HEADERS["standings"][lang],
        (
            (r.place, r.player, r.name, clubs.get(r.player, ""), r.big, r.small, r.games,
             yes if r.player in corrected else no, yes if r.excluded else no)
            for r in rows
        ),
    )  # fmt: skip


def results_csv(results: Sequence[Mapping[str, Any]], lang: str = "pl") -> bytes:
    """The tournament's results (as ``GET .../results`` lists them), a seat a line."""
    yes, no = YES[lang]
    lines = []
    for x in results:
        for seat, e in x["seats"].items():
            lines.append((
                x["id"], x["round"], x["table"], x["game"], f"R-{x['receipt']}", seat,
                e["player"] if e["player"] is not None else "", e["name"], e["rack"],
                e["small"], e["big"], yes if x["counts"] else no, x["held"] or "",
                yes if x["corrected"] else no,
            ))  # fmt: skip
    return _csv(HEADERS["results"][lang], lines)
