"""Several virtual tables in one ``klik sim``: each under /t/k/, and all of them on /hall."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from playwright.sync_api import expect

from klik.table import config as c
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik.words import Language
from tests.helpers.browser import chromium_page
from tests.web.test_virtual_table import JSON, PLAYERS, pin_down

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[str, list[Daemon]]]:
    tables = [
        sim.make_daemon(c.from_text(f'[table]\nname = "{k}"\n' + PLAYERS), str(tmp_path / f"t{k}"))
        for k in (1, 2)
    ]
    for table in tables:
        table.start()
    httpd = sim.Server(("127.0.0.1", 0), tables)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", tables
    httpd.shutdown()
    httpd.server_close()
    for table in tables:
        table.stop()


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_each_table_has_its_own_api_under_its_number(two: tuple[str, list[Daemon]]) -> None:
    base, tables = two
    assert json.loads(get(f"{base}/t/2/api/state")[1])["table"] == "2"
    assert json.loads(get(f"{base}/api/state")[1])["table"] == "1"  # table 1 also at /
    assert get(f"{base}/t/3/api/state") == (404, b'{"error": "no table 3 here (1 to 2)"}')
    press = urllib.request.Request(
        f"{base}/t/2/api/seats/D/button", data=b'{"pressed": true}', method="POST", headers=JSON
    )
    urllib.request.urlopen(press, timeout=5).close()
    assert (pin_down(tables[1], "D"), pin_down(tables[0], "D")) == (True, False)


def test_a_table_folder_without_its_slash_is_sent_to_it(two: tuple[str, list[Daemon]]) -> None:
    base, _ = two
    with urllib.request.urlopen(f"{base}/t/2", timeout=5) as reply:  # follows the redirect
        assert reply.url == f"{base}/t/2/"
        assert b'<script src="table.js">' in reply.read()  # the table's page
    # Its scripts are named relatively, so each table's folder serves them too.
    for script in ("words.js", "table.js"):
        status, body = get(f"{base}/t/2/{script}")
        assert (status, body[:13]) == (200, b'"use strict";')


def test_the_table_s_page_and_the_hall_carry_the_hub_s_icon_in_the_page(
    two: tuple[str, list[Daemon]],
) -> None:
    # The icon is in the page itself (a data: address): the table serves no file for it, and
    # it is the hub's drawing. /favicon.ico, asked for unprompted, is still answered empty.
    base, _ = two
    icon = (ROOT / "hub/klik_hub/web/favicon.svg").read_text(encoding="utf-8").strip()
    for page in ("/", "/t/2/", "/hall"):
        status, body = get(base + page)
        head = body.decode().split("</head>")[0]
        (link,) = re.findall(r"<link rel=\"icon\" href='data:image/svg\+xml,([^']*)'>", head)
        assert (status, unquote(link)) == (200, icon), page
    assert get(f"{base}/favicon.ico") == (204, b"")


def test_the_hall_shows_every_table_and_each_plays_on_its_own(
    two: tuple[str, list[Daemon]],
) -> None:
    base, tables = two
    with chromium_page(viewport={"width": 1366, "height": 768}) as page:
        page.goto(f"{base}/hall")
        expect(page.locator("iframe")).to_have_count(2)
        expect(page).to_have_title("Klik — sala wirtualnych stołów")  # table 1's language
        expect(page.get_by_test_id("table-2")).to_have_attribute("title", "Stół 2")
        second = page.frame_locator("[data-testid=table-2]")
        expect(second.get_by_test_id("status")).to_contain_text("Stół 2, gra 1")
        button = second.get_by_test_id("button-D")
        button.hover()
        page.mouse.down()
        page.wait_for_timeout(100)
        page.mouse.up()
        expect(second.get_by_test_id("status")).to_contain_text("ruch — A")
    assert tables[1].engine.game.mover == "A"
    assert tables[0].engine.game.mover is None  # table 1 is still waiting for its start


def test_the_hall_is_in_the_language_it_is_given() -> None:
    english = sim.hall(3, Language.EN).decode()
    assert '<html lang="en">' in english
    assert "<title>Klik — hall of virtual tables</title>" in english
    assert english.count("<iframe") == 3
    assert '<iframe src="/t/3/" title="Table 3" data-testid="table-3">' in english
    assert 'title="Stół 1"' in sim.hall(1, Language.PL).decode()
