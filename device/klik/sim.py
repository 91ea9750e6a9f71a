"""``klik sim``: the virtual table. The real daemon with gpiozero's MockFactory pins and the
real luma drivers on a recording bus, served as a page anyone can play in a browser.

The page's buttons drive the seat buttons' mock pins (``drive_low`` on pointer-down,
``drive_high`` on pointer-up), so a press takes exactly the path a press on the Pi takes:
gpiozero callback → queue → engine → screens. API (JSON unless said otherwise):

- ``POST /api/seats/{A-D}/button`` ``{"pressed": true|false}``
- ``POST /api/judge`` ``{"pressed": true|false}`` (the judge key)
- ``GET /api/seats/{seat}/screen.png`` the seat's screen, pixel for pixel (128×64)
- ``GET /api/state`` the game record (as ``klik replay`` prints it) plus LEDs and buzzer
"""

from __future__ import annotations

import io
import json
import logging
import re
import tempfile
import threading
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from klik.config import Config
from klik.daemon import Daemon
from klik.errors import KlikError
from klik.panels import open_panels

log = logging.getLogger("klik.sim")

SEAT_BUTTON = re.compile(r"^/api/seats/([A-Za-z])/button$")
SEAT_SCREEN = re.compile(r"^/api/seats/([A-Za-z])/screen\.png$")
MAX_BODY = 1024


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
    config = sim_config(config, state_dir)
    table = Daemon(config, screens=open_panels(config))
    table.engine.publishing = True
    return table


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], table: Daemon) -> None:
        self.table = table
        super().__init__(address, Handler)


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    # --- GET -------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            page = resources.files("klik").joinpath("web/index.html").read_bytes()
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(HTTPStatus.OK, state(self.server.table))
        elif match := SEAT_SCREEN.match(path):
            seat = match.group(1).upper()
            image = self.server.table.engine.snapshot().images.get(seat)
            if image is None:
                self._error(HTTPStatus.NOT_FOUND, f"no seat {seat} at this table")
                return
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            self._send(HTTPStatus.OK, buffer.getvalue(), "image/png")
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    # --- POST ------------------------------------------------------------------------------

    def do_POST(self) -> None:
        table = self.server.table
        path = self.path.split("?", 1)[0]
        pressed = self._pressed()
        if pressed is None:
            return
        if match := SEAT_BUTTON.match(path):
            seat = match.group(1).upper()
            if seat not in table.config.seat_letters:
                seats = ", ".join(table.config.seat_letters)
                self._error(HTTPStatus.NOT_FOUND, f"no seat {seat} at this table (seats: {seats})")
                return
            pin = table.gpio.button_pin(seat)
        elif path == "/api/judge":
            pin = table.gpio.judge_pin()
            if pin is None:
                self._error(HTTPStatus.NOT_FOUND, "this table has no judge key")
                return
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: POST {path}")
            return
        with _pins:  # one pin change at a time, as on real hardware
            if pressed:
                pin.drive_low()
            else:
                pin.drive_high()
        table.wait_idle(2.0)
        self._json(HTTPStatus.OK, {"ok": True})

    def _pressed(self) -> bool | None:
        """The request's ``pressed`` flag, or None after answering 400 with why."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            self._error(
                HTTPStatus.BAD_REQUEST, f'send {{"pressed": true|false}} (1 to {MAX_BODY} bytes)'
            )
            return None
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            self._error(HTTPStatus.BAD_REQUEST, 'body is not JSON; send {"pressed": true|false}')
            return None
        if not isinstance(body, dict) or not isinstance(body.get("pressed"), bool):
            self._error(HTTPStatus.BAD_REQUEST, 'send {"pressed": true|false}')
            return None
        return bool(body["pressed"])

    # --- replies ---------------------------------------------------------------------------

    def _json(self, status: HTTPStatus, body: Any) -> None:
        self._send(status, json.dumps(body, ensure_ascii=False).encode(), "application/json")

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json(status, {"error": message})

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
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
        "names": dict(table.config.players),
        "leds": {seat: bool(led.value) for seat, led in zip(seats, gpio.leds, strict=True)},
        "buzzer": bool(gpio.buzzer.value),
        "screens": snapshot.frames,
        "panels_out": sorted(table.engine.info.panels_out),
    }


def main(config: Config, port: int | None, state_dir: str | None) -> int:
    """Serve the virtual table until Ctrl-C."""
    folder = state_dir or tempfile.mkdtemp(prefix="klik-sim-")
    table = make_daemon(config, folder)
    table.start()
    host, port = config.sim.host, port or config.sim.port
    try:
        server = Server((host, port), table)
    except OSError as error:
        table.stop()
        raise KlikError(f"cannot serve on {host}:{port} ({error.strerror})") from None
    print(
        f"Wirtualny stół Klik: http://{host}:{port}  (journal: {folder}; Ctrl-C ends)", flush=True
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        table.stop()
    return 0
