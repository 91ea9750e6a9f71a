"""The printed pages are Jinja2 templates with autoescaping: what a user typed (a tournament's,
a player's, a club's name) is printed as text, never run as markup, on a real hub (SQLite and
PostgreSQL). The data goes in through the HTTP API, as the judge's console sends it.

The badges (8 to an A4 page), the enrolment list and the table sheets carry each player's code
and a QR code of their page; Chromium prints the badges to check they fit their pages.
``KLIK_WRITE_DOCS=1`` retakes the README's picture of a badge page (docs/badges.png).
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
import segno

from klik_hub.reports import printing
from klik_hub.storage.store import Store
from tests.hub.test_console import pdf_pages
from tests.hub.test_hub_page import DOCS

Hub = tuple[str, Store]
API = "/api/v1/tournaments"
SCRIPT = "<script>alert(1)</script>"
TOURNAMENT = 'Liga & "Turniej"'
CLUB = "<i>Klub</i> & Co"


class Parsed(HTMLParser):
    """A page's tags and its text as a browser reads it (the entities decoded)."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def tournament_with_a_script(url: str) -> int:
    """A tournament named with ``&`` and quotes, a drawn round; one player is a script."""
    sent = {"name": TOURNAMENT, "format": "open", "move_time_s": 60}
    created = httpx.post(url + API, json=sent)
    assert created.status_code == 201, created.text
    tid = int(created.json()["id"])
    players = [{"name": SCRIPT, "club": CLUB}] + [
        {"name": f"Gracz {k}", "club": "SP 1"} for k in range(2, 5)
    ]
    enrolled = httpx.post(f"{url}{API}/{tid}/players", json=players)
    assert enrolled.status_code == 201, enrolled.text
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1})
    assert drawn.status_code == 201, drawn.text
    return tid


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/print/sheets", {"round": 1}),  # the score sheets: name, club and title
        ("/print/standings", {}),  # the standings: the same, in the table of places
        ("/print/sheets", {"round": 1, "lang": "en"}),  # English words, the same escaping
        ("/print/standings", {"lang": "en"}),
        ("/print/badges", {}),  # the badges: a name, a club and the title on each
        ("/print/players", {"lang": "en"}),  # the enrolment list
    ],
)
def test_what_a_user_typed_is_printed_as_text(
    hub: Hub, path: str, params: dict[str, object]
) -> None:
    url, _ = hub
    tid = tournament_with_a_script(url)
    answer = httpx.get(f"{url}{path}", params={"t": tid, **params})
    assert answer.status_code == 200, answer.text
    page = answer.text
    # Escaped by the template, once: no tag of the user's, no entity escaped twice.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Liga &amp; &#34;Turniej&#34;" in page
    assert "&lt;i&gt;Klub&lt;/i&gt; &amp; Co" in page
    assert "<script" not in page
    assert "&amp;amp;" not in page
    assert "&amp;lt;" not in page
    parsed = Parsed(page)
    assert "script" not in parsed.tags
    assert "i" not in parsed.tags
    # ... and a browser shows exactly what was typed.
    text = parsed.text
    assert SCRIPT in text
    assert CLUB in text
    assert any(TOURNAMENT in line for line in text)  # the heading and the title
    assert sum(line.startswith(TOURNAMENT) for line in text) >= 2


# Eleven players (a twelfth withdrawn): two pages of badges, the second with three.
NAMES = [
    "Łucja Żak", "Źdźisław Ćwik", "Ola Ęk", "Bożena Kęs", "Jan Óssowski", "Ewa Śliwa",
    "Olek Wąs", "Grześ Ńowak", "Zuzanna Żółć", "Maksymilian Wierzbicki-Dąbrowski",
    SCRIPT, "Wycofany Gracz",
]  # fmt: skip


def eleven_players(url: str) -> tuple[int, list[dict[str, Any]]]:
    """A tournament of 12 enrolled players, the last withdrawn: its id and the judge's list
    of them (with their codes)."""
    sent = {"name": "Liga szkolna — Szczecin", "format": "open", "move_time_s": 60}
    tid = int(httpx.post(url + API, json=sent).json()["id"])
    players = [{"name": n, "club": f"SP {k % 4 + 1}"} for k, n in enumerate(NAMES)]
    assert httpx.post(f"{url}{API}/{tid}/players", json=players).status_code == 201
    withdrawn = {"active": False, "reason": "chory"}
    assert httpx.patch(f"{url}{API}/{tid}/players/12", json=withdrawn).status_code == 200
    listed = httpx.get(f"{url}{API}/{tid}/players").json()
    return tid, listed


def qr_of(url: str) -> str:
    """The QR code segno makes of ``url`` with the printed pages' options."""
    return str(segno.make_qr(url, error=printing.QR_ERROR).svg_inline(**printing.QR_SVG))


def badges_of(page: str) -> list[str]:
    """Each badge's markup, in the page's order."""
    return page.split('<div class="badge" ')[1:]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_badge_an_active_player_by_start_number_eight_to_a_page(hub: Hub) -> None:
    url, _ = hub
    tid, listed = eleven_players(url)
    answer = httpx.get(f"{url}/print/badges", params={"t": tid})
    assert answer.status_code == 200, answer.text
    page = answer.text
    assert page.count('<section class="badges">') == 2
    assert [len(badges_of(section)) for section in page.split("<section")[1:]] == [8, 3]
    badges = badges_of(page)
    assert len(badges) == 11
    for badge, player in zip(badges, listed[:11], strict=True):
        assert badge.startswith(f'data-player="{player["id"]}"')  # by start number
        code = player["code"]
        assert f'<p class="big-code">{code}</p>' in badge
        # the hub's address as this request reached it, in small type under the QR code
        address = f"{url}/p/{code}"
        assert f'<p class="url">{address}</p>' in badge
        assert qr_of(address) in badge  # the same symbol segno makes of that address
        assert "Zeskanuj: gdzie siedzisz, twoje gry, twoje miejsce" in badge
    assert "Maksymilian Wierzbicki-Dąbrowski" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in badges[10]
    assert listed[11]["code"] not in page  # withdrawn: no badge
    assert "<title>Liga szkolna — Szczecin — Identyfikatory</title>" in page
    english = httpx.get(f"{url}/print/badges", params={"t": tid, "lang": "en"}).text
    assert "<title>Liga szkolna — Szczecin — Badges</title>" in english
    assert english.count("Scan: where you sit, your games, your place") == 11
    assert '<html lang="en">' in english


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_enrolment_list_and_the_sheets_carry_each_players_code(hub: Hub) -> None:
    url, _ = hub
    tid, listed = eleven_players(url)
    enrolment = httpx.get(f"{url}/print/players", params={"t": tid}).text
    assert "<h1>Liga szkolna — Szczecin — Lista zapisanych graczy</h1>" in enrolment
    rows = enrolment.split("<tr>")[2:]
    assert len(rows) == 12  # every player, the withdrawn one marked
    for row, player in zip(rows, listed, strict=True):
        assert row.startswith(f'<td class="num">{player["id"]}</td>')
        assert f'<td class="code">{player["code"]}</td>' in row
        assert qr_of(f"{url}/p/{player['code']}") in row
    assert "<b>(wycofany)</b>" in rows[11]
    english = httpx.get(f"{url}/print/players", params={"t": tid, "lang": "en"}).text
    assert "Enrolment list" in english
    assert "<b>(withdrawn)</b>" in english

    assert httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).status_code == 201
    sheets = httpx.get(f"{url}/print/sheets", params={"t": tid, "round": 1}).text
    seated = re.findall(r'<td class="code">([2-9A-Z]+)</td>', sheets)
    assert sorted(seated) == sorted(p["code"] for p in listed[:11])  # each seated player's
    assert sheets.count('<svg viewBox="') == 11
    for code in seated:
        assert qr_of(f"{url}/p/{code}") in sheets
    assert sheets.count("Strona gracza") == sheets.count('<section class="sheet">')


MM = 96 / 25.4  # CSS pixels a millimetre
A4_INSIDE_MM = (210 - 2 * 14, 297 - 2 * 14)  # the page within print.css's margins


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_eight_badges_fit_an_a4_page_none_split(hub: Hub, chromium_page: Any) -> None:
    url, _ = hub
    tid, _listed = eleven_players(url)
    page = chromium_page
    page.goto(f"{url}/print/badges?t={tid}")
    assert pdf_pages(page.pdf(format="A4")) == 2
    # ... and laid out as printed: the page's inside as wide as the viewport, print CSS
    width, height = (mm * MM for mm in A4_INSIDE_MM)
    page.set_viewport_size({"width": int(width), "height": int(height)})
    page.emulate_media(media="print")
    boxes = page.evaluate(
        """[...document.querySelectorAll('.badges')].map(s => {
             const box = e => { const r = e.getBoundingClientRect();
               return [r.left, r.top, r.right, r.bottom]; };
             return {page: box(s), badges: [...s.querySelectorAll('.badge')].map(box),
               clipped: [...s.querySelectorAll('.badge .big-code, .badge .name')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)};
           })"""
    )
    assert [len(p["badges"]) for p in boxes] == [8, 3]
    for section in boxes:
        left, top, right, bottom = section["page"]
        assert right - left <= width + 0.5
        assert bottom - top <= height + 0.5  # a page's badges fit one A4 page's inside
        for x0, y0, x1, y1 in section["badges"]:
            assert left - 0.5 <= x0 < x1 <= right + 0.5
            assert top - 0.5 <= y0 < y1 <= bottom + 0.5  # each badge within its page
            assert (x1 - x0, y1 - y0) == pytest.approx((90 * MM, 66 * MM), abs=1)
        assert section["clipped"] == []  # every code, and every name, shown whole
    qr = page.locator(".badge svg.qr").first.bounding_box()
    assert qr is not None
    assert qr["width"] == pytest.approx(30 * MM, abs=1)  # a phone reads it at arm's length
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        page.locator(".badges").first.screenshot(path=str(DOCS / "badges.png"))
