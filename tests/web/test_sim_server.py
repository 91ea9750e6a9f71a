"""The virtual table's server below its routes (``klik.table.sim.server``): what http.server
did by itself and uvicorn does not, kept so that the API answers as it always has."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from klik.table import config as c
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from tests.web.test_virtual_table import PLAYERS, pin_down


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Daemon]:
    table = sim.make_daemon(c.from_text(PLAYERS), str(tmp_path))
    table.start()
    yield table
    table.stop()


@pytest.fixture
def port(table: Daemon) -> Iterator[int]:
    """A server that closes a silent connection after 0.3 s, on an ephemeral port."""
    httpd = sim.Server(("127.0.0.1", 0), table, idle_timeout_s=0.3)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)
    assert not thread.is_alive()


def exchange(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send raw bytes, read until the server closes: (status line, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(request)
        reply = b""
        while chunk := client.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines)}
    return status, headers, body


def post(path: str, body: bytes, *extra: str) -> bytes:
    head = [f"POST {path} HTTP/1.1", "Host: x", "Content-Type: application/json", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


@pytest.mark.parametrize(
    ("request_", "status", "error"),
    [
        (b"PROPFIND /api/state HTTP/1.1\r\nHost: x\r\n\r\n", "501 Not Implemented", "Unsupported method ('PROPFIND')"),  # no route knows it: 501, as http.server said
        (b"GET /api/state HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", "400 Bad Request", "Invalid HTTP request received."),  # unparsable: still one line of JSON
        (b"GET /api/state/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404 Not Found", "no such page: /api/state/"),  # no page, and no redirect to one
        (b"GET /t/123/api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404 Not Found", "no such page: /t/123/api/state"),  # tables are numbered 1 to 99
        (b"DELETE /t/7/api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404 Not Found", "no table 7 here (1 to 1)"),  # the missing table comes before the 405
    ],
)  # fmt: skip
def test_errors_below_the_routes_are_one_line_of_json(
    port: int, request_: bytes, status: str, error: str
) -> None:
    line, headers, body = exchange(port, request_)
    assert (line, headers["content-type"]) == (f"HTTP/1.1 {status}", "application/json")
    assert json.loads(body) == {"error": error}
    assert body.count(b"\n") == 0


@pytest.mark.parametrize(
    "framing",
    [
        "Content-Length: 1025",  # one byte more than a press may have
        "Transfer-Encoding: chunked",  # no length given before the body
    ],
)
def test_a_body_over_the_limit_is_not_read_and_the_connection_closes(
    port: int, table: Daemon, framing: str
) -> None:
    body = b'{"pressed": true}' + b" " * 1008
    if framing.startswith("Transfer"):
        body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    line, headers, answer = exchange(port, post("/api/seats/D/button", body, framing))
    assert (line, headers["connection"]) == ("HTTP/1.1 400 Bad Request", "close")
    assert json.loads(answer) == {"error": 'send {"pressed": true|false} (1 to 1024 bytes)'}
    table.wait_idle()
    assert not pin_down(table, "D")  # the press in it was never read


def test_a_body_at_the_limit_presses(port: int, table: Daemon) -> None:
    body = b'{"pressed": true}' + b" " * 1007  # 1024 bytes
    framing = ("Content-Length: 1024", "Connection: close")
    line, _, answer = exchange(port, post("/api/seats/D/button", body, *framing))
    assert (line, json.loads(answer)) == ("HTTP/1.1 200 OK", {"ok": True})
    assert pin_down(table, "D")


def test_half_a_body_is_closed_after_the_timeout(port: int, table: Daemon) -> None:
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(post("/api/seats/D/button", b'{"pressed":', "Content-Length: 17"))
        assert client.recv(100) == b""  # closed unanswered
    assert time.monotonic() - start < 3.0
    assert not pin_down(table, "D")


def test_a_kept_alive_connection_is_closed_after_the_timeout(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = client.recv(65536)
        assert reply.startswith(b"HTTP/1.1 200 OK\r\n")
        assert b"\r\ncontent-type: application/json\r\n" in reply.lower()
        assert b"\r\nconnection: close" not in reply.lower()  # kept alive...
        start = time.monotonic()
        while client.recv(65536):  # ...until the rest of the answer, then the close
            pass
    assert time.monotonic() - start < 3.0


def test_shutdown_waits_for_a_press_under_way(table: Daemon) -> None:
    httpd = sim.Server(("127.0.0.1", 0), table)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    with socket.create_connection(httpd.server_address, timeout=5) as client:
        client.sendall(post("/api/seats/D/button", b'{"pressed": true}', "Content-Length: 17"))
        assert client.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")
        httpd.shutdown()  # the idle kept-alive connection is closed, the server stops
        assert client.recv(100) == b""
    httpd.server_close()
    assert not thread.is_alive()
    assert pin_down(table, "D")
