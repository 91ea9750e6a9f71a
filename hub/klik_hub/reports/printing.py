"""Printable pages: a score sheet per table for a round, the standings, the players' badges
and the enrolment list.

Plain HTML with print CSS (A4, one table's sheet a page, no buttons or colours that a
printer would waste ink on), so the judge prints from the browser. The paper is the
fallback if a table's device fails: the sheet has a line per game for every seat's rack,
small and big points, and the signatures.

The markup is in Jinja2 templates, ``templates/sheets.html`` and ``templates/standings.html``
(both extend ``base.html``, which inlines ``print.css``); their words are the catalogue's
(``klik.words``, context "print"), and this module shapes the data for them. Autoescaping
escapes every value a user typed (a tournament's, a player's, a club's name), so nothing here
escapes by hand.

A player's code opens their page (``/p/CODE``): the badges (``badges.html``, A4, 8 to a page,
to cut out), the enrolment list for the judge's desk (``players.html``) and the table sheets
carry it in large type and as a QR code of the page's address. The QR codes are inline SVG made
here by segno, so a page prints with no request beyond itself. Those three pages are the
judge's alone (``guard.needs_judge``): a code is as good as the player's page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import segno
from markupsafe import Markup

from klik.core.game import nth_starter
from klik.words import Language, pwords, spoken, templates
from klik_hub.office.standings import separated, shown
from klik_hub.tournament.formats import load_format
from klik_hub.tournament.standings import Row

TEMPLATES = templates("klik_hub")  # compiled once, for the process
BADGES_A_PAGE = 8  # 2 × 4 on A4 (print.css sizes them)
# Always a full QR code (a phone's camera reads no Micro QR), level M: a badge worn a day may
# lose a corner. A border of 2 modules: the paper around it is white as well.
QR_ERROR = "m"
QR_SVG: dict[str, Any] = {"border": 2, "omitsize": True, "svgclass": "qr", "lineclass": None}


def player_url(base: str, code: str) -> str:
    """The player's page: ``base`` is the hub's address as the printing request reached it
    (``http://192.168.1.10:8000/``), so a phone on the same network opens it."""
    return f"{base.rstrip('/')}/p/{code}"


def qr_svg(url: str) -> Markup:
    """``url`` as a QR code, inline SVG (sized by print.css). Markup, not text to escape: the
    SVG is segno's own paths, and the URL is in it only as black and white modules."""
    return Markup(segno.make_qr(url, error=QR_ERROR).svg_inline(**QR_SVG))


@dataclass(frozen=True)
class Coded:
    """A player with their code, its page's address and that address as a QR code."""

    player: int
    name: str
    club: str
    code: str
    url: str
    qr: Markup
    active: bool = True
    needs: str = ""  # in words of the page's language (``needs_said``), empty for none


#: A player's needs on paper (issue 40), in this order: where they sit, then the seat's setup.
NEED_WORDS = {
    "large": pwords("print", "large screen"),
    "vibration": pwords("print", "vibration"),
    "quiet": pwords("print", "quiet (no buzzer)"),
}


def needs_said(needs: Mapping[str, Any] | None, lang: str) -> str:
    """A player's needs (``office.players.listed``'s ``needs``) as the sheets print them:
    ``stół stały 3, duży ekran, wibracja, cisza (bez brzęczyka)``; empty for none."""
    if not needs:
        return ""
    language = Language(lang)
    said = []
    if needs.get("fixed_table") is not None:
        table = pwords("print", "fixed table {table}", table=needs["fixed_table"])
        said.append(table.into(language))
    said += [w.into(language) for key, w in NEED_WORDS.items() if needs.get(key)]
    return ", ".join(said)


def coded(player: Mapping[str, Any], base: str, lang: str = "pl") -> Coded:
    """``player`` as ``office.players.listed`` gives one, with their page's QR code and their
    needs in ``lang``'s words."""
    url = player_url(base, str(player["code"]))
    return Coded(
        player["id"],
        player["name"],
        player["club"],
        player["code"],
        url,
        qr_svg(url),
        bool(player["active"]),
        needs_said(player.get("needs"), lang),
    )


@dataclass(frozen=True)
class Seat:
    """One line of a sheet's lineup: the seat's letter and the player sitting there, with
    their code (``Coded``)."""

    seat: str
    player: Coded


@dataclass(frozen=True)
class Sheet:
    """One table's sheet. ``starters``: the seat that starts each game, game 1 first (seat A,
    then each next game the next seat round the table); not printed where the format draws
    who starts game 1."""

    table: int
    seats: tuple[Seat, ...]
    starters: tuple[str, ...]


def stage_namer(format_name: str, lang: str) -> Callable[[str | None], str | None]:
    """The templates' ``stage_name(name)``: a stage's name in the page's language (its
    ``title_en`` on an English page, ``formats.Stage.title``)."""
    fmt = load_format(format_name)
    return lambda name: fmt.stage_title(name, english=lang == "en")


def sheets(
    tournament: Mapping[str, Any],
    drawn: Mapping[str, Any],
    players: Mapping[int, Mapping[str, Any]],
    base: str,
    lang: str = "pl",
) -> str:
    """A sheet a table for round ``drawn`` (as ``GET .../rounds/{n}`` answers it); each
    seat's player with their code and its QR code (``base``: as ``player_url``)."""
    games = range(1, int(drawn["games"]) + 1)
    played = load_format(str(tournament["format"]))
    drawn_first = played.starter(str(tournament["rules"])) == "draw"
    pages = []
    for table in drawn["tables"]:
        seats = tuple(
            Seat(seat, coded(players[player], base, lang))
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
        stage_name=stage_namer(str(tournament["format"]), lang),
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
    and by a player the judge withdrew or excluded; the stage that placed each group, and
    the big points the judge took, with their stages."""
    return TEMPLATES.get_template("standings.html").render(
        tournament=tournament,
        rows=separated([shown(r, clubs.get(r.player, "")) for r in rows]),
        corrected=corrected,
        stage_name=stage_namer(str(tournament["format"]), lang),
        **spoken(Language(lang)),
    )


def badges(
    tournament: Mapping[str, Any],
    players: Sequence[Mapping[str, Any]],
    base: str,
    lang: str = "pl",
) -> str:
    """A badge for every active player of ``players`` (``office.players.listed``: by start
    number), ``BADGES_A_PAGE`` to an A4 page; ``base``: as ``player_url``."""
    worn = [coded(p, base) for p in players if p["active"]]
    pages = [worn[k : k + BADGES_A_PAGE] for k in range(0, len(worn), BADGES_A_PAGE)]
    return TEMPLATES.get_template("badges.html").render(
        tournament=tournament, pages=pages, **spoken(Language(lang))
    )


def enrolment(
    tournament: Mapping[str, Any],
    players: Sequence[Mapping[str, Any]],
    base: str,
    lang: str = "pl",
) -> str:
    """The enrolment list for the judge's desk: every player by start number (a withdrawn
    one marked), with their code and its QR code; ``base``: as ``player_url``."""
    return TEMPLATES.get_template("players.html").render(
        tournament=tournament,
        players=[coded(p, base, lang) for p in players],
        **spoken(Language(lang)),
    )


def install_card(install: Mapping[str, str], lang: str = "pl") -> str:
    """The install card: the line a table is installed by (``api.install.described``), with
    both hashes, for the organiser to type or copy at each table."""
    return TEMPLATES.get_template("install.html").render(install=install, **spoken(Language(lang)))
