"""``klik sim``: the virtual table. The real daemon with gpiozero's MockFactory pins and the
real luma drivers on a recording bus, served as a page anyone can play in a browser.

The page's buttons drive the seat buttons' mock pins (``drive_low`` on pointer-down,
``drive_high`` on pointer-up), so a press takes exactly the path a press on the Pi takes:
gpiozero callback → queue → engine → screens. API (JSON unless said otherwise):

- ``POST /api/seats/{A-D}/button`` ``{"pressed": true|false}``
- ``POST /api/judge`` ``{"pressed": true|false}`` (the judge key)
- ``POST /api/orders`` ``{"order": "round-over"|"end"|...}`` an order as the hub sends it
  (``start``, ``pause``, ``resume``, ``restart``, ``undo``, ``round-over``, ``end``); the page's
  "Koniec czasu rundy" and "Koniec gry" buttons, so an exhausted game can be played here
- ``GET /api/seats/{seat}/screen.png`` the seat's screen, pixel for pixel (128×64)
- ``GET /api/state`` the game record (as ``klik replay`` prints it) plus LEDs, buzzer and
  the table's ``language`` (the page speaks it)

Several tables (``klik sim --config A.toml --config B.toml …``) are served side by side: table
``k`` at ``/t/k/`` (its page and the same API under it; table 1 also at ``/``), and ``/hall``
shows them all on one page. The page asks with relative paths, so it works under either.

A press must be sent as ``Content-Type: application/json`` (else 415) and, from a browser,
from this server's own page (a foreign ``Origin`` gets 403); another method on a path gets
405 with ``Allow``. Every error is one line of JSON, ``{"error": "..."}``.
"""

from __future__ import annotations

import errno
import io
import json
import logging
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from klik.core import game as g
from klik.errors import KlikError
from klik.link.courier import Command
from klik.table.config import Config, make_state_dir
from klik.table.daemon import Daemon
from klik.table.panels import open_panels

log = logging.getLogger("klik.table.sim")

TABLE_PATH = re.compile(r"^/t/(\d{1,2})(/.*)?$")  # /t/2/api/state: table 2's API
SEAT_BUTTON = re.compile(r"^/api/seats/([A-Za-z])/button$")
SEAT_SCREEN = re.compile(r"^/api/seats/([A-Za-z])/screen\.png$")
MAX_BODY = 1024
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


def make_daemon(config: Config, state_dir: str) -> Daemon:
    """The virtual table's daemon, its journal in ``state_dir`` (``--state-dir``), not started.

    Raises KlikError with one line if the folder cannot be made or the daemon cannot start.
    """
    config = sim_config(config, state_dir)
    make_state_dir(config, "--state-dir")  # before any pin is taken
    try:
        table = Daemon(config, screens=open_panels(config))
    except OSError as error:
        what = error.strerror or str(error)
        where = f": {error.filename}" if error.filename else ""
        raise KlikError(f"the virtual table cannot start ({what}{where})") from None
    table.engine.publishing = True
    return table


IDLE_TIMEOUT_S = 10.0  # a connection that sends nothing for this long is closed
PAGES = ("/", "/index.html", "/api/state", "/favicon.ico", "/hall")
ORDERS = "/api/orders"
ORDER_NAMES = tuple(action.value for action in g.Action)


class Server(ThreadingHTTPServer):
    """The virtual table's HTTP server: one thread per connection.

    A connection that sends nothing for ``idle_timeout_s`` (a half-sent request, a browser's
    idle keep-alive) is closed, so silent clients cannot hold threads for ever; the listen
    queue takes a crowd of clients at once (socketserver's default is 5).
    """

    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        tables: Daemon | Sequence[Daemon],
        *,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
    ) -> None:
        self.tables = [tables] if isinstance(tables, Daemon) else list(tables)
        self.table = self.tables[0]
        self.idle_timeout_s = idle_timeout_s
        super().__init__(address, Handler)


def allowed_methods(path: str) -> tuple[str, ...] | None:
    """The methods ``path`` answers (for the ``Allow`` header), or None if there is no such path."""
    if path in PAGES or SEAT_SCREEN.match(path):
        return ("GET", "HEAD")
    if path in ("/api/judge", ORDERS) or SEAT_BUTTON.match(path):
        return ("POST",)
    return None


class Handler(BaseHTTPRequestHandler):
    """Answers one connection's requests; every error is one line of JSON, ``{"error": ...}``.

    A button press must be ``Content-Type: application/json`` and, if it names an
    ``Origin`` (a browser always does), come from this server's own page: any other page
    open in the same browser could otherwise press the buttons. Scripts send no Origin.
    """

    server: Server
    protocol_version = "HTTP/1.1"
    table: Daemon  # the table this request is about (``/t/k/…``, else table 1)

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout_s)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    # --- GET and HEAD ----------------------------------------------------------------------

    def do_GET(self) -> None:
        self._take_body()
        path = self._route()
        if path is None:
            return
        if path in ("/", "/index.html"):
            page = resources.files("klik.table").joinpath("web/index.html").read_bytes()
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
        elif path == "/hall":
            self._send(HTTPStatus.OK, hall(len(self.server.tables)), "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(HTTPStatus.OK, state(self.table))
        elif match := SEAT_SCREEN.match(path):
            seat = match.group(1).upper()
            image = self.table.engine.snapshot().images.get(seat)
            if image is None:
                self._error(HTTPStatus.NOT_FOUND, f"no seat {seat} at this table")
                return
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            self._send(HTTPStatus.OK, buffer.getvalue(), "image/png")
        else:
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")  # /favicon.ico

    def do_HEAD(self) -> None:
        self.do_GET()  # _send leaves the body out

    # --- POST ------------------------------------------------------------------------------

    def do_POST(self) -> None:
        body = self._take_body()
        path = self._route()
        if path is None or not self._from_own_page():
            return
        table = self.table
        if self.headers.get_content_type() != "application/json":  # none: "text/plain"
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send Content-Type: application/json")
            return
        if path == ORDERS:
            self._order(body)
            return
        pressed = self._pressed(body)
        if pressed is None:
            return
        if match := SEAT_BUTTON.match(path):
            seat = match.group(1).upper()
            if seat not in table.config.seat_letters:
                seats = ", ".join(table.config.seat_letters)
                self._error(HTTPStatus.NOT_FOUND, f"no seat {seat} at this table (seats: {seats})")
                return
            pin = table.gpio.button_pin(seat)
        else:
            pin = table.gpio.judge_pin()  # /api/judge
            if pin is None:
                self._error(HTTPStatus.NOT_FOUND, "this table has no judge key")
                return
        with _pins:  # one pin change at a time, as on real hardware
            if pressed:
                pin.drive_low()
            else:
                pin.drive_high()
        table.wait_idle(2.0)
        self._json(HTTPStatus.OK, {"ok": True})

    # --- anything else: 405 on a path we have, 404 on one we have not ----------------------

    def do_PUT(self) -> None:
        self._refuse()

    def do_DELETE(self) -> None:
        self._refuse()

    def do_PATCH(self) -> None:
        self._refuse()

    def do_OPTIONS(self) -> None:
        self._refuse()  # so no CORS preflight passes either

    def do_TRACE(self) -> None:
        self._refuse()

    def _refuse(self) -> None:
        self._take_body()
        self._route()

    # --- checks ----------------------------------------------------------------------------

    def _take_body(self) -> bytes | None:
        """The request's body, read before any answer so the next request starts in step;
        None if it is too long to read (the connection is then closed after the answer)."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY or "Transfer-Encoding" in self.headers:
            self.close_connection = True
            return None
        return self.rfile.read(length) if length else b""

    def _route(self) -> str | None:
        """The request's path within its table (``self.table``), or None after answering 404
        (no such path or table), 405 (with Allow) or a redirect (``/t/2`` to ``/t/2/``)."""
        path = self.path.split("?", 1)[0]
        self.table = self.server.table
        if match := TABLE_PATH.match(path):
            k, rest = int(match.group(1)), match.group(2)
            if not 1 <= k <= len(self.server.tables):
                self._error(
                    HTTPStatus.NOT_FOUND, f"no table {k} here (1 to {len(self.server.tables)})"
                )
                return None
            if rest is None:  # the page's relative paths need the folder's slash
                self._send(
                    HTTPStatus.MOVED_PERMANENTLY, b"", "text/plain", {"Location": f"/t/{k}/"}
                )
                return None
            self.table, path = self.server.tables[k - 1], rest
        methods = allowed_methods(path)
        if methods is None:
            if self.command in ("GET", "HEAD"):
                self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")
            else:
                self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: {self.command} {path}")
            return None
        if self.command not in methods:
            allow = ", ".join(methods)
            self._error(
                HTTPStatus.METHOD_NOT_ALLOWED,
                f"{self.command} is not allowed on {path}; allowed: {allow}",
                {"Allow": allow},
            )
            return None
        return path

    def _from_own_page(self) -> bool:
        """No Origin (a script) or this server's own (its page); else False after a 403."""
        origin = self.headers.get("Origin")
        if origin is None or origin == f"http://{self.headers.get('Host')}":
            return True
        self._error(HTTPStatus.FORBIDDEN, f"{origin[:100]} may not press buttons here")
        return False

    def _order(self, body: bytes | None) -> None:
        """Carry out ``{"order": ...}`` the way the hub's command is carried out (by "hub")."""
        table = self.table
        allowed = ", ".join(ORDER_NAMES)
        try:
            sent = json.loads(body or b"")
        except (ValueError, UnicodeDecodeError):
            sent = None
        order = sent.get("order") if isinstance(sent, dict) else None
        if order not in ORDER_NAMES:
            self._error(HTTPStatus.BAD_REQUEST, f'send {{"order": name}}; names: {allowed}')
            return
        command = Command(id="sim", kind=str(order), args={})
        table.call(lambda engine, now: engine.command(command, now))
        table.wait_idle(2.0)
        self._json(HTTPStatus.OK, {"ok": True})

    def _pressed(self, body: bytes | None) -> bool | None:
        """The body's ``pressed`` flag, or None after answering 400 with why."""
        if not body:
            self._error(
                HTTPStatus.BAD_REQUEST, f'send {{"pressed": true|false}} (1 to {MAX_BODY} bytes)'
            )
            return None
        try:
            sent = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            self._error(HTTPStatus.BAD_REQUEST, 'body is not JSON; send {"pressed": true|false}')
            return None
        if not isinstance(sent, dict) or not isinstance(sent.get("pressed"), bool):
            self._error(HTTPStatus.BAD_REQUEST, 'send {"pressed": true|false}')
            return None
        return bool(sent["pressed"])

    # --- replies ---------------------------------------------------------------------------

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a bad request line, an unknown method) as one JSON line.

        The request may not have been read to its end, so the connection is closed after.
        """
        self.close_connection = True
        status = HTTPStatus(code)
        self._error(status, message or status.phrase)

    def _json(self, status: HTTPStatus, body: Any, headers: Mapping[str, str] = EMPTY) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self._send(status, data, "application/json", headers)

    def _error(self, status: HTTPStatus, message: str, headers: Mapping[str, str] = EMPTY) -> None:
        self._json(status, {"error": message}, headers)

    def _send(
        self, status: HTTPStatus, body: bytes, kind: str, headers: Mapping[str, str] = EMPTY
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


_pins = threading.Lock()


def state(table: Daemon) -> dict[str, Any]:
    """The game record, the seats' LEDs, the buzzer and a version per screen for the page."""
    snapshot = table.engine.snapshot()
    seats = table.config.seat_letters
    gpio = table.gpio
    now = table.clock()
    left = snapshot.time_left(now)
    return {
        **snapshot.record,
        # The record is as of the last redraw; the clock is read as the request comes.
        "time_left_s": None if left is None else round(left, 3),
        "now": round(now, 3),
        "seats": list(seats),
        "names": dict(table.engine.info.names),  # the config's, or the round's from the hub
        "leds": {seat: bool(led.value) for seat, led in zip(seats, gpio.leds, strict=True)},
        "buzzer": bool(gpio.buzzer.value),
        "screens": snapshot.frames,
        "panels_out": sorted(table.engine.info.panels_out),
        "delivery": delivery(table),
        "hub_url": table.config.hub.url if table.config.hub.link == "http" else None,
        "language": table.config.table.language,
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
    try:
        for table in tables:
            table.start()
        where = f"http://{host}:{port}" + ("/hall" if len(tables) > 1 else "")
        print(f"Wirtualny stół Klik: {where}  (journal: {folder}; Ctrl-C ends)", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        for table in tables:
            table.stop()
    return 0


def _interrupt(_signal: int, _frame: object) -> None:
    raise KeyboardInterrupt


def hall(count: int) -> bytes:
    """The page that shows every table of the hall at half size, two to a row."""
    frames = "".join(
        f'<div class="t"><iframe src="/t/{k}/" title="Stół {k}" data-testid="table-{k}">'
        "</iframe></div>"
        for k in range(1, count + 1)
    )
    return (
        '<!doctype html><html lang="pl"><head><meta charset="utf-8">'
        "<title>Klik — sala wirtualnych stołów</title><style>"
        "body{margin:0;background:#14241b;display:flex;flex-wrap:wrap}"
        ".t{width:683px;height:384px;overflow:hidden}"
        "iframe{width:1366px;height:768px;border:0;transform:scale(.5);transform-origin:0 0}"
        f"</style></head><body>{frames}</body></html>"
    ).encode()
