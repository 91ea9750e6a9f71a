"""The tournament's public board (``/t/ID``, the projector's QR code) in Chromium on a phone:
the round's tables and the standings, a player found by name, and results arriving while the
page is open.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the board (docs/board.png).
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, lowest_goes_out

Hub = tuple[str, Store]
DOCS = Path(__file__).resolve().parents[2] / "docs"
NAMES = ["Łucja Żak", "Źdźisław Ćwik", "Ania Nowak", "Bożena Kęs", "Jan Óssowski", "Ewa Śliwa",
         "Olek Wąs", "Iga Ńuk", "Kuba Lis", "Zosia Bąk", "Marek Gil"]  # fmt: skip


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_board_on_a_phone_finds_a_player_and_follows_the_round(phone: Page, hub: Hub) -> None:
    url, store = hub
    tid = create(url, name="Mistrzostwa Szczecina")
    sent = [{"name": n, "club": f"SP {k % 4 + 1}"} for k, n in enumerate(NAMES)]
    assert httpx.post(f"{url}{API}/{tid}/players", json=sent).status_code == 201
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 3}).json()
    tables = Hall(url, store, len(drawn["tables"]))

    phone.goto(f"{url}/t/{tid}")
    expect(phone.get_by_test_id("name")).to_have_text("Mistrzostwa Szczecina")
    expect(phone.get_by_test_id("round")).to_have_text("Runda 1 (rozgrywki) — czekamy na 3 gry")
    expect(phone.locator("#tables .table")).to_have_count(3)
    expect(phone.locator("#standings tr")).to_have_count(len(NAMES))
    assert phone.evaluate("document.scrollingElement.scrollWidth <= innerWidth")

    # "lucja" finds "Łucja Żak" (no case, no Polish tails): her table alone, her line marked
    phone.get_by_test_id("search").fill("lucja")
    expect(phone.locator("#tables .table:not(.hidden)")).to_have_count(1)
    her = next(t for t in drawn["tables"] if 1 in t["seats"].values())
    seat = next(s for s, p in her["seats"].items() if p == 1)
    expect(phone.locator("#tables .table:not(.hidden) h3 span")).to_have_text(
        f"Stół {her['table']}"
    )
    expect(phone.locator("#tables .found")).to_have_text(f"{seat}Łucja Żak")
    expect(phone.locator("#standings tr.found")).to_have_count(1)

    # her table reports while the page is open: told by the tournament's events at once
    racks = lowest_goes_out(1, her["table"], 1, her["seats"])
    seats = {s: str(p) for s, p in her["seats"].items()}
    tables.report(tid, 1, her["table"], seats, racks, rules="tournament", round_game=1)
    in_time = 3_000  # the page would ask by itself only once a minute
    expect(phone.get_by_test_id("round")).to_have_text(
        "Runda 1 (rozgrywki) — czekamy na 2 gry", timeout=in_time
    )
    expect(phone.locator("#tables .table:not(.hidden) small")).to_have_text("zakończony")
    expect(phone.locator("#standings tr.found td").first).to_have_text("1.")  # she went out
    expect(phone.get_by_test_id("search")).to_have_value("lucja")  # the search survives

    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        phone.get_by_test_id("search").fill("")
        phone.screenshot(path=str(DOCS / "board.png"), full_page=True)

    phone.goto(f"{url}/t/{tid}?lang=en")
    expect(phone.get_by_test_id("round")).to_have_text("Round 1 (open play) — 2 games to come")
    missing = phone.goto(f"{url}/t/999")
    assert missing is not None
    assert missing.status == 404
    expect(phone.get_by_test_id("missing")).to_contain_text("Nie ma takiego turnieju")
