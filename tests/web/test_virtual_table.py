"""The virtual table in real headless Chromium: a whole game played with the page's buttons.

Chromium is Debian's (``/usr/bin/chromium``; ``.ci/run`` installs it), driven by Playwright
with ``executable_path``: Playwright never downloads a browser of its own here. The server is
the real ``klik sim`` daemon (mock pins, real luma driver on a recording bus) on loopback.

Gestures are timed by the server's clock as the presses arrive, so these tests wait in real
time (a hold is a real second); they are the only tests that do.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, sync_playwright

from klik import config as c
from klik import sim

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DOCS = Path(__file__).parents[2] / "docs"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    config = c.from_text('[players]\nA = "Ania"\nB = "Bożena"\nC = "Łukasz"\nD = "Źdźisław"\n')
    table = sim.make_daemon(config, str(tmp_path))
    table.start()
    httpd = sim.Server(("127.0.0.1", 0), table)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    table.stop()


@pytest.fixture
def page(server: str) -> Iterator[Page]:
    assert Path(CHROMIUM).exists(), "Chromium is missing: apt-get install chromium (.ci/run does)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1060})
        page.goto(server)
        yield page
        browser.close()


def state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/state", timeout=5) as reply:
        return dict(json.load(reply))


def until(
    base: str, test: Callable[[dict[str, Any]], bool], timeout: float = 5.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        now = state(base)
        if test(now):
            return now
        assert time.monotonic() < deadline, (
            f"gave up waiting; state is {now['state']}, mover {now['mover']}"
        )
        time.sleep(0.05)  # sleep-ok: polling a real server on the real clock


def click(page: Page, seat: str) -> None:
    page.get_by_test_id(f"button-{seat}").hover()
    page.mouse.down()
    page.wait_for_timeout(100)  # a real press: Playwright's click() is shorter than the debounce
    page.mouse.up()
    page.wait_for_timeout(500)


def tap(page: Page, key: str) -> None:
    page.keyboard.down(key)
    page.wait_for_timeout(80)
    page.keyboard.up(key)
    page.wait_for_timeout(500)  # longer than a double tap's gap: a single tap


def double(page: Page, key: str) -> None:
    for _ in range(2):
        page.keyboard.down(key)
        page.wait_for_timeout(60)
        page.keyboard.up(key)
        page.wait_for_timeout(60)
    page.wait_for_timeout(500)


def hold(page: Page, key: str, seconds: float) -> None:
    page.keyboard.down(key)
    page.wait_for_timeout(int(seconds * 1000))
    page.keyboard.up(key)
    page.wait_for_timeout(300)


def test_the_page_shows_four_live_screens(page: Page, server: str) -> None:
    for seat in "ABCD":
        screen = page.get_by_test_id(f"screen-{seat}")
        screen.wait_for()
        page.wait_for_function(
            f"document.querySelector('[data-testid=screen-{seat}]').naturalWidth === 128"
        )
    click(page, "D")  # pointer-down presses, pointer-up releases
    now = until(server, lambda s: s["state"] == "move")
    assert now["mover"] == "A"
    page.wait_for_function(
        "document.querySelector('[data-testid=status]').textContent.includes('ruch — A')"
    )


def test_a_whole_game_is_played_on_the_page(page: Page, server: str) -> None:
    click(page, "D")  # D hands A the clock, with the pointer
    until(server, lambda s: s["mover"] == "A")
    tap(page, "1")  # A laid tiles
    until(server, lambda s: s["mover"] == "B")
    hold(page, "2", 1.3)  # B drew a tile
    now = until(server, lambda s: s["mover"] == "C")
    assert now["moves"][-1]["drew"] == 1
    hold(page, "4", 2.4)  # D calls the judge
    until(server, lambda s: s["state"] == "paused")
    tap(page, "4")  # and withdraws the call
    until(server, lambda s: s["state"] == "move")
    tap(page, "3")
    until(server, lambda s: s["mover"] == "D")
    double(page, "4")  # D empties the rack: Rummikub
    until(server, lambda s: s["state"] == "scoring")
    for _ in range(3):
        tap(page, "1")  # A: 3
    double(page, "1")
    hold(page, "2", 1.2)  # B: +10 (released before the first repeat)
    double(page, "2")
    tap(page, "3")  # C: 1
    double(page, "3")
    double(page, "4")  # D: 0, the winner
    done = until(server, lambda s: s["state"] == "done")
    result = done["result"]
    assert result["ending"] == "rummikub"
    assert result["rack"] == {"A": 3, "B": 10, "C": 1, "D": 0}
    assert result["small"]["D"] == 3 + 100 + 1  # B never laid tiles: not opened, 100 (§5)
    assert result["big"] == {"A": 0, "B": 0, "C": 0, "D": 1}
    page.wait_for_function(
        "document.querySelector('[data-testid=status]').textContent.includes('koniec gry')"
    )
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / "virtual-table.png"))


def test_bad_requests_get_one_clear_line(server: str) -> None:
    cases = [
        ("/api/seats/E/button", b'{"pressed": true}', 404, "no seat E at this table"),
        ("/api/seats/A/button", b'{"pressed": "yes"}', 400, 'send {"pressed": true|false}'),
        ("/api/seats/A/button", b"not json", 400, "body is not JSON"),
        ("/api/nothing", b'{"pressed": true}', 404, "no such endpoint"),
    ]
    for path, body, status, message in cases:
        request = urllib.request.Request(f"{server}{path}", data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=5)
        assert caught.value.code == status
        assert message in json.load(caught.value)["error"]
    assert state(server)["state"] == "ready"  # and the table goes on
