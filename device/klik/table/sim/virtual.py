"""``klik sim``: the virtual table. The real daemon with gpiozero's MockFactory pins and the
real luma drivers on a recording bus, served as a page anyone can play in a browser.

The page's buttons drive the seat buttons' mock pins (``drive_low`` on pointer-down,
``drive_high`` on pointer-up), so a press takes exactly the path a press on the Pi takes:
gpiozero callback → queue → engine → screens. API (JSON unless said otherwise):

- ``POST /api/seats/{A-D}/button`` ``{"pressed": true|false, "at"?: seconds}``; answered once
  the engine has the edge. With ``at``, when the edge happened on the sender's clock (the
  page sends its own), the edge keeps the sender's spacing however long the request took,
  and is answered as soon as it is dated (``klik.table.sim.hands``: it reaches the engine
  a moment later)
- ``POST /api/judge`` ``{"pressed": true|false, "at"?: seconds}`` (the judge key)
- ``POST /api/orders`` ``{"order": "round-over"|"end"|...}`` an order as the hub sends it
  (``start``, ``pause``, ``resume``, ``restart``, ``undo``, ``round-over``, ``end``); the page's
  "Koniec czasu rundy" and "Koniec gry" buttons, so an exhausted game can be played here
- ``GET /api/seats/{seat}/screen.png`` the seat's screen, pixel for pixel (128×64)
- ``GET /api/state`` the game record (as ``klik replay`` prints it) plus LEDs, buzzer, the
  round's time left (``round_left_s``, null without the hub's round clock) and the table's
  ``language`` (the page speaks it), and ``pairing``: ``{"state": "asking"|"paired"|"none",
  "digits": "DDDDDD"|null}`` (pairing at the table: the digits seat A shows while it asks)

The page is ``web/index.html`` with its script ``web/table.js``, after ``/words.js`` (the
catalogue, ``klik.words.script``): every word it shows is the catalogue's.

Several tables (``klik sim --config A.toml --config B.toml …``) are served side by side: table
``k`` at ``/t/k/`` (its page, its scripts and the same API under it; table 1 also at ``/``),
and ``/hall`` (``templates/hall.html``, in table 1's language) shows them all on one page. The
page asks with relative paths, so it works under either.

A press must be sent as ``Content-Type: application/json`` (else 415) and, from a browser,
from this server's own page (a foreign ``Origin`` gets 403); another method on a path gets
405 with ``Allow``. Every error is one line of JSON, ``{"error": "..."}``.

The routes are a Starlette app (``Api``) on uvicorn (``simserver``): the hub's web stack,
installed on a laptop with ``klik[sim]`` and never on a table, whose daemon needs neither.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import math
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from http import HTTPStatus
from importlib import resources
from typing import Any

from PIL import Image

from klik.core import game as g
from klik.errors import KlikError
from klik.link.courier import Command
from klik.table.config import Config, make_state_dir
from klik.table.hardware.panels import open_panels
from klik.table.service.daemon import Daemon
from klik.table.sim.hands import Hands
from klik.words import Language, script, spoken, templates

EXTRA = ("starlette", "uvicorn", "httptools", "anyio", "jinja2", "markupsafe", "babel")  # klik[sim]


class NotInstalledError(KlikError, ImportError):
    """The virtual table's web stack is missing: ``pip install 'klik[sim]'`` (one line)."""


try:
    import babel  # noqa: F401  (the pages' words: klik.words.script, asked for at the first page)
    import jinja2  # noqa: F401  (the hall's template: klik.words.templates)
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.convertors import Convertor, register_url_convertor
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute, Mount, Route, Router

    from klik.table.sim.server import METHODS, json_line
    from klik.table.sim.server import Server as HttpServer
except ModuleNotFoundError as missing:
    package = (missing.name or "").partition(".")[0]
    if package not in EXTRA:  # not the extra's: a bug to see whole
        raise
    raise NotInstalledError(
        f"the virtual table is not installed here ({package}): pip install 'klik[sim]'"
    ) from None

log = logging.getLogger("klik.table.sim.virtual")

TEMPLATES = templates("klik.table.sim")  # the hall's, compiled once

MAX_BODY = 1024  # bytes; a longer body is not read (simserver.Gate)
EMPTY: Mapping[str, str] = {}


def sim_config(config: Config, state_dir: str) -> Config:
    """The config with the hardware swapped for the virtual table's (mock pins, recording bus)."""
    panels = config.panels
    common = replace(panels.common, interface="sim")
    seats = tuple((seat, replace(p, interface="sim")) for seat, p in panels.seats)
    return replace(
        config,
        hardware=replace(config.hardware, pin_factory="mock"),
        table=replace(config.table, state_dir=state_dir),
        panels=replace(panels, common=common, seats=seats),
    )


def make_daemon(
    config: Config,
    state_dir: str,
    on_frame: Callable[[str, Image.Image, float], None] | None = None,
) -> Daemon:
    """The virtual table's daemon, its journal in ``state_dir`` (``--state-dir``), not started;
    it publishes snapshots for the page (``on_frame``: each seat's new image, for a bench).

    Raises KlikError with one line if the folder cannot be made or the daemon cannot start.
    """
    config = sim_config(config, state_dir)
    make_state_dir(config, "--state-dir")  # before any pin is taken
    try:
        table = Daemon(config, screens=open_panels(config), publishing=True, on_frame=on_frame)
    except OSError as error:
        what = error.strerror or str(error)
        where = f": {error.filename}" if error.filename else ""
        raise KlikError(f"the virtual table cannot start ({what}{where})") from None
    return table


IDLE_TIMEOUT_S = 10.0  # a connection that sends nothing for this long is closed
ORDERS = "/api/orders"
ORDER_NAMES = tuple(action.value for action in g.Action)
HTML = "text/html; charset=utf-8"
JS = "text/javascript; charset=utf-8"


class Server(HttpServer):
    """The virtual tables' HTTP server: ``Api`` on uvicorn, bound to ``address`` at once.

    As socketserver's servers: ``serve_forever()`` in a thread, ``shutdown()`` from another,
    then ``server_close()``; ``server_address`` is the bound address (port 0 picks one). A
    connection that sends nothing for ``idle_timeout_s`` (a half-sent request, a browser's
    idle keep-alive) is closed; the listen queue takes a crowd of clients at once.
    """

    def __init__(
        self,
        address: tuple[str, int],
        tables: Daemon | Sequence[Daemon],
        *,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
    ) -> None:
        self.tables = [tables] if isinstance(tables, Daemon) else list(tables)
        self.table = self.tables[0]
        self.api = Api(self.tables)
        super().__init__(address, self.api.app(), max_body=MAX_BODY, idle_timeout_s=idle_timeout_s)

    def server_close(self) -> None:
        super().server_close()
        self.api.close()


class SeatLetter(Convertor[str]):
    """``{seat:klik_seat}``: one letter, either case, as the seat's capital."""

    regex = "[A-Za-z]"

    def convert(self, value: str) -> str:
        return value.upper()

    def to_string(self, value: str) -> str:
        return value


class TableNumber(Convertor[int]):
    """``{k:klik_table}``: one or two digits; ``/t/123/`` is no table path at all."""

    regex = "[0-9]{1,2}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


# Starlette keeps convertors for the whole process: "klik_" keeps them apart from others'.
register_url_convertor("klik_seat", SeatLetter())
register_url_convertor("klik_table", TableNumber())


class RefusedError(KlikError):
    """A request the API turns down: the status and the one line that says why."""

    def __init__(self, status: HTTPStatus, message: str, headers: Mapping[str, str] = EMPTY):
        super().__init__(message)
        self.status, self.headers = status, headers


class Api:
    """The routes of one or more virtual tables; every error is one line of JSON.

    Table 1's page and API are at ``/``, table ``k``'s also under ``/t/k/``. The GET routes
    answer HEAD too. Starlette runs the plain functions, which read the engine or encode a
    PNG, in its worker threads; a press or an order reads its body on the event loop and
    then waits for the engine in a worker thread, so no wait holds up another request.
    """

    def __init__(self, tables: Sequence[Daemon]) -> None:
        self.tables = list(tables)
        self.hands = [Hands(t.clock, f"klik-hands-{k}") for k, t in enumerate(tables, 1)]

    def close(self) -> None:
        for hands in self.hands:
            hands.close()

    def app(self) -> Starlette:
        """The Starlette app (for ``simserver.Server``)."""
        table: list[BaseRoute] = [
            Route("/", self.page, methods=["GET"]),
            Route("/index.html", self.page, methods=["GET"]),
            Route("/hall", self.hall_page, methods=["GET"]),
            # The page's scripts: it names them relatively, so they are under /t/k/ too.
            Route("/words.js", self.words_js, methods=["GET"]),
            Route("/table.js", self.table_js, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET"]),
            Route("/api/state", self.api_state, methods=["GET"]),
            Route("/api/seats/{seat:klik_seat}/screen.png", self.screen, methods=["GET"]),
            Route("/api/seats/{seat:klik_seat}/button", self.button, methods=["POST"]),
            Route("/api/judge", self.judge, methods=["POST"]),
            Route(ORDERS, self.order, methods=["POST"]),
        ]
        routes: list[BaseRoute] = [
            # The page's relative paths need the folder's slash: /t/2 goes to /t/2/.
            Route("/t/{k:klik_table}", self.folder, methods=list(METHODS)),
            Mount("/t/{k:klik_table}", app=Router(table, redirect_slashes=False)),
            *table,
        ]
        app = Starlette(
            routes=routes,
            exception_handlers={
                RefusedError: self._refused,
                HTTPException: self._unrouted,
                Exception: self._failed,
            },
        )
        app.router.redirect_slashes = False  # /api/state/ is no page, not a redirect
        return app

    # --- GET and HEAD: a worker thread each -----------------------------------------------

    def page(self, request: Request) -> Response:
        self._table(request)
        page = resources.files("klik.table.sim").joinpath("web/index.html").read_bytes()
        return _send(HTTPStatus.OK, page, HTML)

    def hall_page(self, request: Request) -> Response:
        self._table(request)
        language = Language(self.tables[0].config.table.language)
        return _send(HTTPStatus.OK, hall(len(self.tables), language), HTML)

    def words_js(self, request: Request) -> Response:
        self._table(request)
        return _send(HTTPStatus.OK, script().encode(), JS)

    def table_js(self, request: Request) -> Response:
        self._table(request)
        page = resources.files("klik.table.sim").joinpath("web/table.js").read_bytes()
        return _send(HTTPStatus.OK, page, JS)

    def favicon(self, request: Request) -> Response:
        self._table(request)
        return _send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")

    def api_state(self, request: Request) -> Response:
        return _json(HTTPStatus.OK, state(self._table(request)))

    def screen(self, request: Request) -> Response:
        table, seat = self._table(request), request.path_params["seat"]
        image = table.engine.snapshot().images.get(seat)
        if image is None:
            raise RefusedError(HTTPStatus.NOT_FOUND, f"no seat {seat} at this table")
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return _send(HTTPStatus.OK, buffer.getvalue(), "image/png")

    def folder(self, request: Request) -> Response:
        self._table(request)
        where = {"Location": f"/t/{request.path_params['k']}/"}
        return _send(HTTPStatus.MOVED_PERMANENTLY, b"", "text/plain", where)

    # --- POST: the body on the event loop, the wait for the engine in a worker thread -------

    async def button(self, request: Request) -> Response:
        table = self._table(request)
        pressed, at = _pressed(await _posted(request))
        seat = request.path_params["seat"]
        if seat not in table.config.seat_letters:
            seats = ", ".join(table.config.seat_letters)
            raise RefusedError(
                HTTPStatus.NOT_FOUND, f"no seat {seat} at this table (seats: {seats})"
            )
        return await self._edge(request, table.gpio.button_pin(seat), pressed, at)

    async def judge(self, request: Request) -> Response:
        table = self._table(request)
        pressed, at = _pressed(await _posted(request))
        pin = table.gpio.judge_pin()
        if pin is None:
            raise RefusedError(HTTPStatus.NOT_FOUND, "this table has no judge key")
        return await self._edge(request, pin, pressed, at)

    async def _edge(self, request: Request, pin: Any, pressed: bool, at: float | None) -> Response:
        table = self._table(request)
        if at is None:
            return await run_in_threadpool(_press, table, pin, pressed)
        hands = self.hands[self.tables.index(table)]
        key = str(request.path_params.get("seat", "J"))
        hands.press(at, lambda dated: _drive(table, pin, pressed, dated), key=key, pressed=pressed)
        return _json(HTTPStatus.OK, {"ok": True})

    async def order(self, request: Request) -> Response:
        """Carry out ``{"order": ...}`` the way the hub's command is carried out (by "hub")."""
        table = self._table(request)
        try:
            sent = json.loads(await _posted(request) or b"")
        except (ValueError, UnicodeDecodeError):
            sent = None
        order = sent.get("order") if isinstance(sent, dict) else None
        if order not in ORDER_NAMES:
            allowed = ", ".join(ORDER_NAMES)
            raise RefusedError(HTTPStatus.BAD_REQUEST, f'send {{"order": name}}; names: {allowed}')
        command = Command(id="sim", kind=str(order), args={})
        return await run_in_threadpool(_carry_out, table, command)

    # --- which table, and the errors -------------------------------------------------------

    def _table(self, request: Request) -> Daemon:
        """The table the request is about (``/t/k/…``, else table 1); 404 if there is none."""
        k: int = request.path_params.get("k", 1)
        if not 1 <= k <= len(self.tables):
            raise RefusedError(HTTPStatus.NOT_FOUND, f"no table {k} here (1 to {len(self.tables)})")
        return self.tables[k - 1]

    def _refused(self, _request: Request, error: Exception) -> Response:
        assert isinstance(error, RefusedError)
        return _error(error.status, str(error), error.headers)

    def _unrouted(self, request: Request, error: Exception) -> Response:
        """Starlette's 404 (no such path) and 405 (another method), worded as the API's.

        A table that is not there comes first: ``/t/9/api/nothing`` is "no table 9".
        """
        assert isinstance(error, HTTPException)
        try:
            self._table(request)
        except RefusedError as refused:
            return self._refused(request, refused)
        method = request.method
        path = request.scope["path"].removeprefix(request.scope.get("root_path", ""))
        if error.status_code == HTTPStatus.METHOD_NOT_ALLOWED:
            allow = ", ".join(sorted((error.headers or {}).get("Allow", "").split(", ")))
            message = f"{method} is not allowed on {path}; allowed: {allow}"
            return _error(HTTPStatus.METHOD_NOT_ALLOWED, message, {"Allow": allow})
        if error.status_code == HTTPStatus.NOT_FOUND:
            if method in ("GET", "HEAD"):
                return _error(HTTPStatus.NOT_FOUND, f"no such page: {path}")
            return _error(HTTPStatus.NOT_FOUND, f"no such endpoint: {method} {path}")
        return _error(HTTPStatus(error.status_code), error.detail)

    def _failed(self, _request: Request, _failure: Exception) -> Response:
        # A bug: uvicorn logs the traceback; the client gets the one line all errors are.
        status = HTTPStatus.INTERNAL_SERVER_ERROR
        return _error(status, status.phrase)


async def _posted(request: Request) -> bytes:
    """The body of a press or an order, once the request passed what a browser's must.

    It must be ``Content-Type: application/json`` (415), and if it names an ``Origin`` (a
    browser always does) come from this server's own page (403): any other page open in
    the same browser could otherwise press the buttons. Scripts send no Origin.
    """
    origin = request.headers.get("origin")
    if origin is not None and origin != f"http://{request.headers.get('host')}":
        raise RefusedError(HTTPStatus.FORBIDDEN, f"{origin[:100]} may not press buttons here")
    kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if kind != "application/json":  # none is "text/plain", as http.server read it
        raise RefusedError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send Content-Type: application/json")
    return await request.body()


def _pressed(body: bytes) -> tuple[bool, float | None]:
    """The body's ``pressed`` flag and its ``at`` (None if not sent); RefusedError (400) with
    why if there is no flag or ``at`` is not a finite number of seconds."""
    if not body:  # none, or one longer than MAX_BODY (not read)
        raise RefusedError(
            HTTPStatus.BAD_REQUEST, f'send {{"pressed": true|false}} (1 to {MAX_BODY} bytes)'
        )
    try:
        sent = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RefusedError(
            HTTPStatus.BAD_REQUEST, 'body is not JSON; send {"pressed": true|false}'
        ) from None
    if not isinstance(sent, dict) or not isinstance(sent.get("pressed"), bool):
        raise RefusedError(HTTPStatus.BAD_REQUEST, 'send {"pressed": true|false}')
    at = sent.get("at")
    if at is not None and (
        isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at)
    ):
        raise RefusedError(
            HTTPStatus.BAD_REQUEST, '"at" is seconds on your clock (a number), or left out'
        )
    return bool(sent["pressed"]), None if at is None else float(at)


def _press(table: Daemon, pin: Any, pressed: bool) -> Response:
    """Drive a button's mock pin as a finger would; answer once the engine has the edge.

    Runs in a worker thread: it waits for the engine (up to 2 s).
    """
    _drive(table, pin, pressed, None)
    table.wait_idle(2.0)
    return _json(HTTPStatus.OK, {"ok": True})


def _drive(table: Daemon, pin: Any, pressed: bool, dated: float | None) -> None:
    """Drive the pin low (pressed) or high; the edge dated ``dated`` (table clock) or now."""
    when = contextlib.nullcontext() if dated is None else table.gpio.dated(dated)
    with _pins, when:  # one pin change at a time, as on real hardware
        if pressed:
            pin.drive_low()
        else:
            pin.drive_high()


def _carry_out(table: Daemon, command: Command) -> Response:
    """Hand the engine an order; answer once it is carried out (a worker thread: it waits)."""
    table.call(lambda engine, now: engine.command(command, now))
    table.wait_idle(2.0)
    return _json(HTTPStatus.OK, {"ok": True})


def _json(status: HTTPStatus, body: Any, headers: Mapping[str, str] = EMPTY) -> Response:
    return _send(status, json_line(body), "application/json", headers)


def _error(status: HTTPStatus, message: str, headers: Mapping[str, str] = EMPTY) -> Response:
    return _json(status, {"error": message}, headers)


def _send(
    status: HTTPStatus, body: bytes, kind: str, headers: Mapping[str, str] = EMPTY
) -> Response:
    """An answer with exactly this Content-Type, never cached (the page polls the state)."""
    sent = {"Content-Type": kind, "Cache-Control": "no-store", **headers}
    return Response(body, status_code=status, headers=sent)


_pins = threading.Lock()


def state(table: Daemon) -> dict[str, Any]:
    """The game record, the seats' LEDs, the buzzer and a version per screen for the page."""
    snapshot = table.engine.snapshot()
    seats = table.config.seat_letters
    gpio = table.gpio
    now = table.clock()
    left = snapshot.time_left(now)
    ends = table.engine.info.round_ends  # the hub's round clock, for this game's round
    return {
        **snapshot.record,
        # The record is as of the last redraw; the clock is read as the request comes.
        "time_left_s": None if left is None else round(left, 3),
        "now": round(now, 3),
        "round_left_s": None if ends is None else round(max(0.0, ends - now), 3),
        "seats": list(seats),
        "names": dict(table.engine.info.names),  # the config's, or the round's from the hub
        "leds": {seat: bool(led.value) for seat, led in zip(seats, gpio.leds, strict=True)},
        "buzzer": bool(gpio.buzzer.value),
        # each seat's vibration motor, as the LEDs (False at a seat not fitted with one)
        "vibration": gpio.vibrating(),
        "screens": snapshot.frames,
        "panels_out": sorted(table.engine.info.panels_out),
        "delivery": delivery(table),
        "card": table.engine.card.state.value,  # whether the card keeps the game
        "hub_url": table.config.hub.url if table.config.hub.link == "http" else None,
        "language": table.config.table.language,
        "pairing": {"state": table.pairing[0], "digits": table.pairing[1]},
    }


def delivery(table: Daemon) -> dict[str, Any]:
    """Where this game's result is: ``kept``, ``sending``, ``sent`` (with the hub's receipt,
    without the screens' ``R-``) or ``unreachable``, and how many results wait for the hub."""
    info = table.engine.info
    receipt = None if info.receipt is None else info.receipt.removeprefix("R-")
    return {"state": info.delivery.value, "receipt": receipt, "waiting": info.waiting}


def main(configs: Config | Sequence[Config], port: int | None, state_dir: str | None) -> int:
    """Serve the virtual table (or several: one for each config) until Ctrl-C."""
    configs = [configs] if isinstance(configs, Config) else list(configs)
    folder = state_dir or tempfile.mkdtemp(prefix="klik-sim-")
    try:
        return _serve(configs, port, folder)
    finally:
        if state_dir is None:  # a temporary journal is the virtual table's own: tidy it away
            shutil.rmtree(folder, ignore_errors=True)


def _serve(configs: list[Config], port: int | None, folder: str) -> int:
    # One table keeps its journal in the folder itself; several, each in a folder t1, t2, ….
    folders = (
        [folder] if len(configs) == 1 else [f"{folder}/t{k}" for k in range(1, len(configs) + 1)]
    )
    tables: list[Daemon] = []
    try:
        for config, where in zip(configs, folders, strict=True):
            tables.append(make_daemon(config, where))
        first = configs[0].sim
        host, port = first.host, first.port if port is None else port
        try:
            server = Server((host, port), tables)  # the port first: a busy one starts no game
        except OSError as error:
            hint = "; another port: klik sim --port N" if error.errno == errno.EADDRINUSE else ""
            raise KlikError(f"cannot serve on {host}:{port} ({error.strerror}){hint}") from None
    except BaseException:
        for table in tables:
            table.stop()
        raise
    # systemd's stop (SIGTERM) ends the virtual table as Ctrl-C does: journals closed, a
    # temporary folder removed.
    signal.signal(signal.SIGTERM, _interrupt)
    # uvicorn's own start and stop lines would say nothing the line below does not.
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    try:
        for table in tables:
            table.start()
        serving = server.start()  # uvicorn's loop in a thread: signals reach this one
        where = f"http://{host}:{port}" + ("/hall" if len(tables) > 1 else "")
        print(f"Wirtualny stół Klik: {where}  (journal: {folder}; Ctrl-C ends)", flush=True)
        serving.join()  # until Ctrl-C or SIGTERM (KeyboardInterrupt)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
        for table in tables:
            table.stop()
    return 0


def _interrupt(_signal: int, _frame: object) -> None:
    raise KeyboardInterrupt


def hall(count: int, language: Language) -> bytes:
    """The page that shows every table of the hall at half size, two to a row."""
    page = TEMPLATES.get_template("hall.html").render(
        tables=range(1, count + 1), **spoken(language)
    )
    return page.encode()
