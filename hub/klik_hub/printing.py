"""Printable pages: a score sheet per table for a round, and the standings.

Plain HTML with print CSS (A4, one table's sheet a page, no buttons or colours that a
printer would waste ink on), so the judge prints from the browser. The paper is the
fallback if a table's device fails: the sheet has a line per game for every seat's rack,
small and big points, and the signatures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from klik_hub.tournament.formats import load_format
from klik_hub.tournament.standings import Row

PRINT_CSS = """
  @page { size: A4; margin: 14mm; }
  body { font: 11pt/1.35 system-ui, sans-serif; color: #000; }
  h1 { font-size: 16pt; margin: 0 0 4mm; } h2 { font-size: 13pt; margin: 0 0 3mm; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 6mm; }
  th, td { border: 0.3mm solid #000; padding: 1.6mm 2mm; text-align: left; }
  th { background: #eee; } td.num { text-align: right; }
  .sheet { break-after: page; } .sheet:last-child { break-after: auto; }
  .sign td { height: 12mm; }
  .mark { font-weight: 700; }
  @media screen {
    body { max-width: 190mm; margin: 10mm auto; }
    .sheet { border-bottom: 1px dashed #999; padding-bottom: 8mm; margin-bottom: 8mm; }
  }
"""

TEXT = {
    "pl": {
        "sheets": "Karty stołów", "standings": "Klasyfikacja", "round": "Runda", "table": "Stół",
        "seat": "Miejsce", "no": "Nr", "player": "Gracz", "club": "Klub", "game": "Gra",
        "rack": "tabliczka", "small": "małe", "big": "duże", "place": "Miejsce",
        "games": "Gier", "signatures": "Podpisy graczy", "judge": "Sędzia",
        "starts": "zaczyna", "corrected": "✎ poprawiony wynik w grach tego gracza",
        "drawn_starts": "Gra 1: zaczyna, kto wylosuje najwyższą kostkę (trzyma przycisk); "
        "każda następna gra: kolejne miejsce",
        "excluded": "wykluczony",
    },
    "en": {
        "sheets": "Table sheets", "standings": "Standings", "round": "Round", "table": "Table",
        "seat": "Seat", "no": "No.", "player": "Player", "club": "Club", "game": "Game",
        "rack": "rack", "small": "small", "big": "big", "place": "Place",
        "games": "Games", "signatures": "Players' signatures", "judge": "Judge",
        "starts": "starts", "corrected": "✎ a corrected result among this player's games",
        "drawn_starts": "Game 1: whoever draws the highest tile starts (holds their button); "
        "each next game: the next seat",
        "excluded": "excluded",
    },
}  # fmt: skip


def _page(title: str, body: str, lang: str) -> str:
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{PRINT_CSS}</style></head>"
        f"<body>{body}</body></html>"
    )


def sheets(
    tournament: Mapping[str, Any],
    drawn: Mapping[str, Any],
    players: Mapping[int, Mapping[str, Any]],
    lang: str = "pl",
) -> str:
    """A sheet a table for round ``drawn`` (as ``GET .../rounds/{n}`` answers it)."""
    t = TEXT[lang]
    name = escape(tournament["name"])
    games = range(1, int(drawn["games"]) + 1)
    drawn_first = load_format(str(tournament["format"])).first_starter == "draw"
    parts = []
    for table in drawn["tables"]:
        seats = list(table["seats"].items())
        rows = "".join(
            f"<tr><td>{seat}</td><td>{player}</td><td>{escape(players[player]['name'])}</td>"
            f"<td>{escape(players[player]['club'])}</td></tr>"
            for seat, player in seats
        )
        heads = "".join(f'<th colspan="3">{t["game"]} {g}</th>' for g in games)
        sub = "".join(
            f"<th>{t['rack']}</th><th>{t['small']}</th><th>{t['big']}</th>" for _ in games
        )
        blank = "<td></td><td></td><td></td>" * len(games)
        lines = "".join(f"<tr><td>{seat}</td>{blank}</tr>" for seat, _ in seats)
        if drawn_first:
            starters = t["drawn_starts"]
        else:
            starters = ", ".join(
                f"{t['game']} {g}: {seats[(g - 1) % len(seats)][0]} {t['starts']}" for g in games
            )
        signs = "".join(f"<td>{seat}</td>" for seat, _ in seats) + f"<td>{t['judge']}</td>"
        parts.append(
            f'<section class="sheet"><h1>{name}</h1>'
            f"<h2>{t['round']} {drawn['round']} ({escape(drawn['stage'])}) · "
            f"{t['table']} {table['table']}</h2>"
            f"<table><tr><th>{t['seat']}</th><th>{t['no']}</th><th>{t['player']}</th>"
            f"<th>{t['club']}</th></tr>{rows}</table>"
            f"<p>{starters}</p>"
            f"<table><tr><th></th>{heads}</tr><tr><th>{t['seat']}</th>{sub}</tr>{lines}</table>"
            f'<p>{t["signatures"]}:</p><table class="sign"><tr>{signs}</tr><tr>'
            + "<td></td>" * (len(seats) + 1)
            + "</tr></table></section>"
        )
    return _page(f"{tournament['name']} — {t['sheets']}", "".join(parts), lang)


def standings(
    tournament: Mapping[str, Any],
    rows: Sequence[Row],
    clubs: Mapping[str, str],
    corrected: set[str],
    lang: str = "pl",
) -> str:
    """The standings on paper, with a mark by a player whose counted games were corrected,
    and by a player the judge excluded."""
    t = TEXT[lang]
    out = f" <b>({t['excluded']})</b>"
    lines = "".join(
        f"<tr><td class=num>{r.place}.</td><td class=num>{r.player}</td>"
        f"<td>{escape(r.name)}{' <span class=mark>✎</span>' if r.player in corrected else ''}"
        f"{out if r.excluded else ''}</td>"
        f"<td>{escape(clubs.get(r.player, ''))}</td><td class=num>{r.big}</td>"
        f"<td class=num>{r.small}</td><td class=num>{r.games}</td></tr>"
        for r in rows
    )
    note = f"<p>✎ {t['corrected'][2:]}</p>" if corrected else ""
    body = (
        f"<h1>{escape(tournament['name'])} — {t['standings']}</h1>"
        f"<table><tr><th>{t['place']}</th><th>{t['no']}</th><th>{t['player']}</th>"
        f"<th>{t['club']}</th><th>{t['big']}</th><th>{t['small']}</th><th>{t['games']}</th></tr>"
        f"{lines}</table>{note}"
    )
    return _page(f"{tournament['name']} — {t['standings']}", body, lang)
