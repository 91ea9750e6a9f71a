"""The printed pages are Jinja2 templates with autoescaping: what a user typed (a tournament's,
a player's, a club's name) is printed as text, never run as markup, on a real hub (SQLite and
PostgreSQL). The data goes in through the HTTP API, as the judge's console sends it."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest

from klik_hub.store import Store

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
