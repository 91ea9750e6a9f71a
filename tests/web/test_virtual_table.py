"""The virtual table in real headless Chromium: a whole game played with the page's buttons.

Chromium is Debian's (``/usr/bin/chromium``; ``.ci/run`` installs it), driven by Playwright
with ``executable_path``: Playwright never downloads a browser of its own here. The server is
the real ``klik sim`` daemon (mock pins, real luma driver on a recording bus) on loopback.

Gestures are timed on the table's clock, the page's edges spaced as the page saw them (each
says when it happened: ``klik.table.sim.hands``), so these tests wait in real time (a hold
is a real second).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from klik.table import config as c
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from tests.helpers.browser import chromium_page

DOCS = Path(__file__).parents[2] / "docs"
JSON = {"Content-Type": "application/json"}


PLAYERS = '[players]\nA = "Ania"\nB = "Bożena"\nC = "Łukasz"\nD = "Źdźisław"\n'
ENGLISH = '[table]\nlanguage = "en"\n' + PLAYERS


@pytest.fixture
def table_text(request: pytest.FixtureRequest) -> str:
    """The table's config (``indirect`` parametrisation picks another, e.g. ENGLISH)."""
    return str(getattr(request, "param", PLAYERS))


@pytest.fixture
def table(tmp_path: Path, table_text: str) -> Iterator[Daemon]:
    config = c.from_text(table_text)
    table = sim.make_daemon(config, str(tmp_path))
    table.start()
    yield table
    table.stop()


@pytest.fixture
def httpd(table: Daemon) -> Iterator[sim.Server]:
    """The virtual table's server on an ephemeral loopback port, serving in a thread."""
    httpd = sim.Server(("127.0.0.1", 0), table)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def server(httpd: sim.Server) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture
def page(server: str) -> Iterator[Page]:
    with chromium_page(viewport={"width": 1366, "height": 768}) as page:  # a school laptop
        page.goto(server)
        yield page


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
            f"gave up waiting; state is {now['state']}, mover {now['mover']}, racks "
            f"{now.get('racks')}, last events {now.get('log', [])[-6:]}"
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
    # The release is dated before the pause is counted.
    page.wait_for_function("document.body.dataset.sending === '0'")
    page.wait_for_timeout(500)  # longer than a double tap's gap: a single tap


# A gesture whose timing decides what it means, played by the page itself: its edges go to
# the page's own press() together, each dated at its moment on the page's clock (ms from now),
# as the page dates a key's edge by its event; the table keeps their spacing (its jitter
# buffer takes edges up to half a second ahead). Driven key by key from Playwright instead,
# each edge waited for Chromium's answer to the one before, and on a loaded machine a double
# tap's 60 ms gap once grew past the 0.4 s window; sent by timers in the page, a stalled page
# sent two edges together, too late to keep them apart. The keys themselves are tested by tap
# and hold. ``later``: edges sent at their moment, not with the others (a hold's release,
# which may not be dated that far ahead).
GESTURE = """([seat, steps, later]) => new Promise(done => {
  const start = performance.now();
  for (const [down, at] of steps) press(seat, down, {timeStamp: start + at});
  for (const [down, at] of later) setTimeout(() => press(seat, down, {timeStamp: start + at}), at);
  setTimeout(done, Math.max(0, ...steps.concat(later).map(s => s[1])) + 1);
})"""
SEAT_OF = {"1": "A", "2": "B", "3": "C", "4": "D", "j": "J"}


def gesture(
    page: Page, key: str, steps: list[tuple[bool, int]], later: tuple[tuple[bool, int], ...] = ()
) -> None:
    """``steps``: (pressed, ms from the start) for the key's seat, sent at once; ``later``
    sent at their moments; then the page has sent them all, and the gesture's window has
    passed."""
    page.evaluate(GESTURE, [SEAT_OF[key], steps, list(later)])
    page.wait_for_function("document.body.dataset.sending === '0'")
    page.wait_for_timeout(500)  # past the double-tap window: the gesture is recognised


def double(page: Page, key: str) -> None:
    gesture(page, key, [(True, 0), (False, 60), (True, 120), (False, 180)])


def tap_hold(page: Page, key: str, seconds: float) -> None:
    """A tap, then at once a hold: the count's "klik, trzymaj" (−10)."""
    hold_ms = int(seconds * 1000)
    gesture(page, key, [(True, 0), (False, 60), (True, 180)], ((False, 180 + hold_ms),))


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
    hold(page, "4", 2.4)  # D calls the judge: C's clock goes on until C's move ends
    until(server, lambda s: s["called_by"] == "D")
    assert state(server)["state"] == "move"
    tap(page, "4")  # and withdraws the call before it ends
    until(server, lambda s: s["called_by"] is None)
    tap(page, "3")
    until(server, lambda s: s["mover"] == "D")
    double(page, "4")  # D empties the rack: Rummikub
    until(server, lambda s: s["state"] == "scoring")
    for _ in range(3):
        tap(page, "1")  # A: 3
    double(page, "1")
    assert state(server)["racks"]["D"] == 0  # D went out: confirmed with 0, nobody waits
    hold(page, "2", 1.3)  # B never laid tiles: charged 100 whatever it holds, so not asked
    assert state(server)["racks"]["B"] == 0
    hold(page, "3", 1.7)  # C: +10 at 1 s, +10 at 1.5 s: 20, one ten too many
    assert state(server)["racks"]["C"] == 20
    tap_hold(page, "3", 1.2)  # C corrects the overshoot: −10 (the tap's +1 taken back)
    assert state(server)["racks"]["C"] == 10
    double(page, "3")  # C, the last to confirm
    done = until(server, lambda s: s["state"] == "done")
    result = done["result"]
    assert result["ending"] == "rummikub"
    assert result["rack"] == {"A": 3, "B": 0, "C": 10, "D": 0}
    assert result["small"]["D"] == 3 + 100 + 10  # B never laid tiles: not opened, 100 (§5)
    assert result["big"] == {"A": 0, "B": 0, "C": 0, "D": 1}
    page.wait_for_function(
        "document.querySelector('[data-testid=status]').textContent.includes('koniec gry')"
    )
    # The table's log: game time from the first move's start, moves, and sounds by name.
    log = (page.get_by_test_id("log").text_content() or "").splitlines()
    assert log, "the log is empty"
    assert all(re.match(r"\d+:\d\d  ", line) for line in log), log
    text = "\n".join(log)
    for said in ("B: dobrano kostkę", "♪ wezwanie sędziego", "D: Rummikub!", "♪ koniec gry"):
        assert said in text, (said, log)
    if os.environ.get("KLIK_WRITE_DOCS") == "1":
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / "virtual-table.png"))


def test_an_exhausted_game_and_an_undo_are_played_on_the_page(page: Page, server: str) -> None:
    click(page, "D")
    until(server, lambda s: s["mover"] == "A")
    tap(page, "1")  # A laid tiles and handed over to B...
    until(server, lambda s: s["mover"] == "B")
    hold(page, "j", 3.2)  # ...too early: the judge holds the key 3 s and the move is A's again
    until(server, lambda s: s["mover"] == "A" and s["state"] == "paused")
    tap(page, "j")  # the judge resumes A's clock
    until(server, lambda s: s["state"] == "move")
    tap(page, "1")
    until(server, lambda s: s["mover"] == "B")
    page.get_by_test_id("round-over").click()  # the hub: the round's time is over (000 o)
    until(server, lambda s: s["log"][-1].get("order") == "round-over")
    # B's move in progress ends, then each seat makes one more move, C first.
    for key, seat in (("2", "C"), ("3", "D"), ("4", "A"), ("1", "B")):
        tap(page, key)
        until(server, lambda s, seat=seat: s["mover"] == seat and s["final_round"])
    tap(page, "2")  # B's last move: the game is over, nobody went out
    until(server, lambda s: s["state"] == "scoring")
    for key, sum_ in (("1", 2), ("2", 1), ("3", 3), ("4", 2)):
        for _ in range(sum_):
            tap(page, key)
        double(page, key)
    result = until(server, lambda s: s["state"] == "done")["result"]
    assert result["ending"] == "exhausted"
    assert result["rack"] == {"A": 2, "B": 1, "C": 3, "D": 2}
    assert result["winners"] == ["B"]
    log = page.get_by_test_id("log").text_content() or ""
    for said in ("cofnięto: ruch wraca do A", "sędzia: wznowienie", "hub: koniec czasu rundy"):
        assert said in log, (said, log)


FITTED = PLAYERS + '[game]\nmove_time_s = 5\nwarn_s = 2\n[hardware]\nvibration = ["A", "B"]\n'


@pytest.mark.parametrize("table_text", [FITTED], indirect=True)
def test_the_page_shows_each_seats_vibration_motor_as_it_runs(page: Page, server: str) -> None:
    motor = page.get_by_test_id("vibration-A")
    page.wait_for_function("document.querySelector('[data-testid=vibration-A]').textContent")
    assert motor.text_content() == "≋ wibracja"
    assert state(server)["vibration"] == dict.fromkeys("ABCD", False)
    click(page, "D")  # A's move: 5 s, warned at 2 s left, then one long pulse (0.8 s)
    now = until(server, lambda s: s["vibration"]["A"] and s["state"] == "timed_out", 8.0)
    assert now["vibration"] == {"A": True, "B": False, "C": False, "D": False}
    page.wait_for_function(  # the page shows it while it runs, as it shows the LEDs
        "document.querySelector('[data-testid=vibration-A]').classList.contains('on')"
    )
    until(server, lambda s: not s["vibration"]["A"])  # once, never again till A moves
    page.wait_for_function(
        "!document.querySelector('[data-testid=vibration-A]').classList.contains('on')"
    )


@pytest.mark.parametrize("table_text", [ENGLISH], indirect=True)
def test_an_english_table_has_an_english_page(page: Page, server: str) -> None:
    page.wait_for_function("document.documentElement.lang === 'en'")
    status = page.get_by_test_id("status")
    assert (status.text_content() or "").startswith("Table 1, game 1: ready to start")
    help_text = page.get_by_test_id("help").text_content() or ""
    assert "Double tap" in help_text
    assert "empty rack: Rummikub!" in help_text
    assert page.get_by_test_id("round-over").text_content() == "Round time over"
    click(page, "D")
    until(server, lambda s: s["mover"] == "A")
    hold(page, "1", 1.3)  # A drew a tile
    until(server, lambda s: s["mover"] == "B")
    hold(page, "3", 2.4)  # C calls the judge: B finishes its move, then the clock stops
    until(server, lambda s: s["called_by"] == "C")
    tap(page, "2")
    until(server, lambda s: s["state"] == "paused")
    page.wait_for_function(
        "document.querySelector('[data-testid=status]').textContent.includes('paused')"
    )
    log = page.get_by_test_id("log").text_content() or ""
    for said in ("A: drew a tile", "C calls the judge: the clock stops after the move",
                 "the clock stops: waiting for the judge", "♪ judge called"):  # fmt: skip
        assert said in log, (said, log)
    assert not re.search("[ąćęłńóśźż]", log + help_text), "Polish left on an English page"


# A quick game under the box rules: a move times out in 5 s, and the timed-out seat's hold
# draws the set's 3 tiles.
QUICK = '[game]\nmove_time_s = 5.0\nwarn_s = 0.0\nrules = "classic"\n' + PLAYERS


@dataclass(frozen=True)
class Said:
    """What the page says in one language: ``labels`` by a selector (``document.title`` the
    page's title) → its text, the status before the start, and A's timed-out move in the log."""

    lang: str
    labels: dict[str, str]
    ready: str
    penalty: str


POLISH_PAGE = Said(
    "pl",
    {
        "document.title": "Klik — wirtualny stół",
        "[data-testid=judge]": "Sędzia (J)",
        "[data-t=pile]": "Pula",
        "[data-seat=A] .key": "klawisz 1",
        "[data-testid=end]": "Koniec gry",
    },
    ready="Stół 1, gra 1: gotowy do startu",
    penalty="A: czas minął (kara: 3 kostki)",  # 1 kostka, 3 kostki, 5 kostek
)
ENGLISH_PAGE = Said(
    "en",
    {
        "document.title": "Klik — virtual table",
        "[data-testid=judge]": "Judge (J)",
        "[data-t=pile]": "Pile",
        "[data-seat=A] .key": "key 1",
        "[data-testid=end]": "End game",
    },
    ready="Table 1, game 1: ready to start",
    penalty="A: time ran out (penalty: 3 tiles)",
)


@pytest.mark.parametrize(
    ("table_text", "said"),
    [
        (QUICK, POLISH_PAGE),  # Polish, the default
        ('[table]\nlanguage = "en"\n' + QUICK, ENGLISH_PAGE),
    ],
    indirect=["table_text"],
)
def test_the_page_s_words_are_the_catalogue_s_in_the_table_s_language(
    page: Page, server: str, said: Said
) -> None:
    page.wait_for_function(f"document.documentElement.lang === '{said.lang}'")
    shown = page.evaluate(
        """(selectors) => Object.fromEntries(selectors.map((s) => [s, s === "document.title"
            ? document.title : document.querySelector(s).textContent]))""",
        list(said.labels),
    )
    assert shown == said.labels
    page.wait_for_function(
        f"document.querySelector('[data-testid=status]').textContent.startsWith({said.ready!r})"
    )
    click(page, "D")
    until(server, lambda s: s["mover"] == "A")
    until(server, lambda s: s["state"] == "timed_out", timeout=8.0)  # A's 5 s ran out
    hold(page, "1", 1.3)  # A holds: the penalty draw, classic's 3 tiles
    until(server, lambda s: s["mover"] == "B" and s["moves"][-1]["drew"] == 3)
    page.wait_for_function(
        f"document.querySelector('[data-testid=log]').textContent.includes({said.penalty!r})"
    )


SEAT_BOXES = """[...document.querySelectorAll('.seat:not(.absent)')].map(el => {
    const r = el.getBoundingClientRect();
    return [el.dataset.seat, r.left, r.top, r.right, r.bottom];
})"""


def test_every_seat_fits_a_laptop_screen_without_scrolling(page: Page) -> None:
    page.get_by_test_id("screen-A").wait_for()
    boxes = page.evaluate(SEAT_BOXES)
    assert sorted(seat for seat, *_ in boxes) == ["A", "B", "C", "D"]
    for seat, left, top, right, bottom in boxes:
        assert 0 <= left <= right <= 1366, (seat, left, right)
        assert 0 <= top <= bottom <= 768, f"seat {seat} is below the fold ({bottom:.0f} px)"


def test_the_page_reflows_on_a_phone(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_test_id("screen-A").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
    for seat, left, _, right, _ in page.evaluate(SEAT_BOXES):
        assert 0 <= left <= right <= 390, (seat, left, right)


def test_bad_requests_get_one_clear_line(server: str) -> None:
    cases = [
        ("/api/seats/E/button", b'{"pressed": true}', 404, "no seat E at this table"),
        ("/api/seats/A/button", b'{"pressed": "yes"}', 400, 'send {"pressed": true|false}'),
        ("/api/seats/A/button", b"not json", 400, "body is not JSON"),
        ("/api/seats/A/button", b'{"pressed": true, "at": "now"}', 400, '"at" is seconds'),
        ("/api/seats/A/button", b'{"pressed": true, "at": true}', 400, '"at" is seconds'),
        ("/api/seats/A/button", b'{"pressed": true, "at": 1e999}', 400, '"at" is seconds'),
        ("/api/judge", b'{"pressed": true, "at": [1]}', 400, '"at" is seconds'),
        ("/api/nothing", b'{"pressed": true}', 404, "no such endpoint"),
        ("/api/orders", b'{"order": "explode"}', 400, 'send {"order": name}; names: start,'),
        ("/api/orders", b"[]", 400, 'send {"order": name}'),
        ("/api/orders", b"", 400, 'send {"order": name}'),
    ]
    for path, body, status, message in cases:
        request = urllib.request.Request(f"{server}{path}", data=body, method="POST", headers=JSON)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=5)
        assert caught.value.code == status
        assert message in json.load(caught.value)["error"]
    assert state(server)["state"] == "ready"  # and the table goes on


def burst(server: str, seat: str, edges: list[tuple[bool, float]], dated: bool) -> None:
    """Post every edge at once, as a slow line hands on what waited behind a slow request;
    ``dated``: each says when it happened (``at``), as the page's edges do."""
    for pressed, at in edges:
        body: dict[str, Any] = {"pressed": pressed} | ({"at": at} if dated else {})
        request = urllib.request.Request(
            f"{server}/api/seats/{seat}/button", json.dumps(body).encode(), JSON
        )
        with urllib.request.urlopen(request, timeout=5) as reply:
            assert json.load(reply) == {"ok": True}


def double_tap(start: float) -> list[tuple[bool, float]]:
    return [(k % 2 == 0, start + 0.06 * k) for k in range(4)]  # 60 ms each, as a finger


@pytest.mark.parametrize("dated", [True, False])
def test_a_double_tap_that_arrives_in_one_burst_is_a_double_tap_when_dated(
    server: str, dated: bool
) -> None:
    """Dated on arrival, a burst's presses last a millisecond: under the debounce, nothing.
    Dated by the sender, the table reads the Rummikub the player made."""
    sent = time.time()
    burst(server, "D", [(True, sent), (False, sent + 0.1)], dated=True)  # D hands A the clock
    until(server, lambda s: s["mover"] == "A")
    burst(server, "A", double_tap(time.time()), dated)
    time.sleep(1.0)  # sleep-ok: past the double tap's window, on the table's real clock
    assert state(server)["state"] == ("scoring" if dated else "move")


# --- the server keeps to its API: methods, content type, origin, slow and many clients -----


def ask(
    httpd: sim.Server, method: str, path: str, body: bytes | None = None, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection: (status, headers, body). ``Content_Type=`` sends
    ``Content-Type:``."""
    conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=5)
    try:
        sent = {name.replace("_", "-"): value for name, value in headers.items()}
        conn.request(method, path, body=body, headers=sent)
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def one_line_error(body: bytes) -> str:
    assert body.count(b"\n") == 0
    return str(json.loads(body)["error"])


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/seats/A/button", "POST"),  # a button is pressed with POST only
        ("DELETE", "/api/seats/A/button", "POST"),
        ("PATCH", "/api/judge", "POST"),
        ("OPTIONS", "/api/judge", "POST"),  # no CORS preflight passes: other sites cannot press
        ("GET", "/api/judge", "POST"),  # a link cannot press the judge key
        ("DELETE", "/api/state", "GET, HEAD"),
        ("PUT", "/", "GET, HEAD"),
        ("POST", "/api/state", "GET, HEAD"),  # the state is read, not written
    ],
)
def test_another_method_gets_405_with_allow(
    httpd: sim.Server, method: str, path: str, allow: str
) -> None:
    status, headers, body = ask(
        httpd, method, path, b'{"pressed": true}', Content_Type="application/json"
    )
    assert (status, headers["allow"]) == (405, allow)
    assert one_line_error(body) == f"{method} is not allowed on {path}; allowed: {allow}"
    assert headers["content-type"] == "application/json"


def test_a_refused_request_leaves_its_connection_in_step(httpd: sim.Server) -> None:
    # The refused request's body is read, so the next request on the connection is whole.
    conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=5)
    try:
        conn.request("PUT", "/api/judge", body=b'{"pressed": true}')
        reply = conn.getresponse()
        assert (reply.status, reply.getheader("Connection")) == (405, None)  # kept alive
        reply.read()
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 200
    finally:
        conn.close()


def test_head_answers_a_get_path_without_a_body(httpd: sim.Server) -> None:
    status, headers, body = ask(httpd, "HEAD", "/api/state")
    assert (status, headers["content-type"], body) == (200, "application/json", b"")
    assert int(headers["content-length"]) > 0


def pin_down(table: Daemon, seat: str) -> bool:
    return not table.gpio.button_pin(seat).state  # the button pulls its pin low


@pytest.mark.parametrize(
    "kind",
    [
        "text/plain",  # what a page may send another site without asking first
        "application/x-www-form-urlencoded",  # an HTML form
        "multipart/form-data; boundary=x",  # an HTML form with a file
        None,  # none at all
    ],
)
def test_a_post_that_is_not_json_presses_nothing(
    httpd: sim.Server, table: Daemon, kind: str | None
) -> None:
    headers = {} if kind is None else {"Content_Type": kind}
    status, _, body = ask(httpd, "POST", "/api/seats/D/button", b'{"pressed": true}', **headers)
    assert (status, one_line_error(body)) == (415, "send Content-Type: application/json")
    table.wait_idle()
    assert not pin_down(table, "D")
    assert table.engine.snapshot().record["state"] == "ready"


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",  # another site open in the same browser
        "null",  # a sandboxed frame or a file:// page
        "http://127.0.0.1:1",  # another port on this machine is another origin
        "https://127.0.0.1:{port}",  # so is another scheme
    ],
)
def test_a_post_from_another_origin_presses_nothing(
    httpd: sim.Server, table: Daemon, origin: str
) -> None:
    origin = origin.format(port=httpd.server_address[1])
    status, _, body = ask(
        httpd, "POST", "/api/seats/D/button", b'{"pressed": true}',
        Content_Type="application/json", Origin=origin,
    )  # fmt: skip
    assert (status, one_line_error(body)) == (403, f"{origin} may not press buttons here")
    table.wait_idle()
    assert not pin_down(table, "D")
    assert table.engine.snapshot().record["state"] == "ready"


def test_the_page_itself_and_a_script_press(httpd: sim.Server, table: Daemon) -> None:
    own = f"http://127.0.0.1:{httpd.server_address[1]}"
    press, release = b'{"pressed": true}', b'{"pressed": false}'
    json_type = "application/json"
    assert (
        ask(httpd, "POST", "/api/seats/D/button", press, Content_Type=json_type, Origin=own)[0]
        == 200
    )
    assert pin_down(table, "D")
    json_type += "; charset=utf-8"  # a script sends no Origin; a charset is fine
    assert ask(httpd, "POST", "/api/seats/D/button", release, Content_Type=json_type)[0] == 200
    assert not pin_down(table, "D")


@pytest.fixture
def quick(table: Daemon) -> Iterator[sim.Server]:
    """A server that closes a silent connection after 0.3 s (the default is 10 s)."""
    httpd = sim.Server(("127.0.0.1", 0), table, idle_timeout_s=0.3)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_the_server_defaults_are_ten_seconds_and_a_long_queue(table: Daemon) -> None:
    httpd = sim.Server(("127.0.0.1", 0), table)
    try:
        assert (httpd.idle_timeout_s, httpd.request_queue_size) == (10.0, 128)
    finally:
        httpd.server_close()


def test_half_open_connections_are_closed_after_the_timeout(quick: sim.Server) -> None:
    # 25 clients that sent half a request and went quiet held 25 threads for ever.
    port = quick.server_address[1]
    start = time.monotonic()
    clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(25)]
    for client in clients[:10]:
        client.sendall(b"POST /api/seats/A/but")  # half a request line
    for client in clients[10:20]:
        client.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # the headers never end
    for client in clients:  # and the last five send nothing at all
        assert client.recv(100) == b""  # closed by the server, unanswered
        client.close()
    assert time.monotonic() - start < 3.0
    assert ask(quick, "GET", "/api/state")[0] == 200  # and the table still serves


def test_fifty_clients_at_once_all_get_answers(table: Daemon) -> None:
    # With a listen backlog of 5, the clients beyond the sixth waited for a SYN retry (or
    # were reset) while the server was busy; this server is busy until all have connected.
    httpd = sim.Server(("127.0.0.1", 0), table)
    clients: list[socket.socket] = []
    try:
        for _ in range(50):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(httpd.server_address)
            clients.append(client)
        waiting, deadline = list(clients), time.monotonic() + 1.0
        while waiting and time.monotonic() < deadline:
            _, ready, _ = select.select([], waiting, [], 0.05)
            waiting = [c for c in waiting if c not in ready]
        assert not waiting, f"{len(waiting)} of 50 clients could not connect in 1 s"
        for client in clients:
            client.settimeout(10)
            client.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        for client in clients:
            reply = b""
            while chunk := client.recv(65536):
                reply += chunk
            assert reply.startswith(b"HTTP/1.1 200 ")
    finally:
        for client in clients:
            client.close()
        httpd.shutdown()
        httpd.server_close()
