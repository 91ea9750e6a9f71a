"""The virtual table's HTTP server: uvicorn on a socket bound at once, kept to the manners the
virtual table's API promises (README, "The virtual table"). ``klik.table.sim.virtual`` is its
only user.

Why not ``uvicorn.run``: ``klik sim`` must say that its port is busy before any table starts,
and both ``klik sim`` and the tests serve from a thread of their own and stop it. So the
socket is bound (and listening, with a long queue) in ``Server()``; ``serve_forever`` runs
uvicorn's event loop in the calling thread until ``shutdown``, and leaves the signals to the
caller (``klik sim`` turns SIGTERM into Ctrl-C so that the journals are closed).

What uvicorn does not do by itself, and ``Server`` adds:

- A request that has not arrived ``idle_timeout_s`` after its first byte (or after the
  connection, for the first) is closed unanswered: ``klik.serving.Deadline``, the hub's own,
  which also answers a request uvicorn cannot parse with one line of JSON.
- A body is read whole, at most ``max_body`` bytes, before any route or parser sees it, so a
  refused request leaves its connection in step for the next one. A longer body (or a
  chunked one) is not read at all: the app sees an empty body and the connection is closed
  after the answer (``Gate``).
- A method HTTP knows but no route does (``PROPFIND``) gets 501 as one line of JSON,
  ``{"error": ...}``, like every other error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import socket
import threading
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config

from klik.errors import KlikError
from klik.serving import deadline

log = logging.getLogger("klik.table.sim.virtual")

# The methods http.server's handler answered (404 or 405 where no route takes them).
METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE")
CLOSE = (b"connection", b"close")  # as uvicorn looks for it in a request
STOP_S = 5  # at a stop, requests under way get this long to finish (a press waits up to 2 s)


def json_line(value: Any) -> bytes:
    """``value`` as one line of JSON (UTF-8, ``ensure_ascii=False``): every answer's body."""
    return json.dumps(value, ensure_ascii=False).encode()


class Server:
    """An ASGI app served by uvicorn on ``address``, bound and listening from the start.

    ``serve_forever()`` blocks the calling thread until another calls ``shutdown()``;
    ``server_close()`` lets go of the socket. ``start()`` serves in a thread of its own.
    Raises OSError (e.g. EADDRINUSE) from the constructor if the address cannot be bound.
    """

    request_queue_size = 128  # a crowd of clients at once (socketserver's default was 5)

    def __init__(
        self, address: tuple[str, int], app: ASGIApp, *, max_body: int, idle_timeout_s: float
    ) -> None:
        self.idle_timeout_s = idle_timeout_s
        self.socket = _listen(address, self.request_queue_size)
        self.server_address: tuple[str, int] = self.socket.getsockname()[:2]
        config = uvicorn.Config(
            Gate(app, max_body),
            # A silent or half-sent request is closed (no TLS here: a close, not a reset).
            http=deadline(idle_timeout_s, abort=False),
            ws="none",
            lifespan="off",
            interface="asgi3",
            log_config=None,  # the process's logging, as set up by `klik`, stays as it is
            access_log=False,
            proxy_headers=False,  # no proxy stands in front: X-Forwarded-* are not believed
            backlog=self.request_queue_size,
            timeout_keep_alive=math.ceil(idle_timeout_s),
            timeout_graceful_shutdown=STOP_S,
        )
        self._uvicorn = _Uvicorn(config)
        self._stopped = threading.Event()
        self._stopped.set()

    def serve_forever(self) -> None:
        """Serve in this thread until ``shutdown()`` (the thread's own event loop)."""
        self._stopped.clear()
        try:
            if not self._uvicorn.should_exit:
                self._uvicorn.run(sockets=[self.socket])
        finally:
            self._stopped.set()

    def start(self) -> threading.Thread:
        """Serve in a new daemon thread; returns it once uvicorn takes connections.

        Raises KlikError if the server ends before it starts (uvicorn has logged why).
        """
        thread = threading.Thread(target=self.serve_forever, name="klik-sim-http", daemon=True)
        thread.start()
        while not self._uvicorn.ready.wait(0.1):
            if not thread.is_alive():
                host, port = self.server_address
                raise KlikError(f"cannot serve on {host}:{port} (the server stopped at its start)")
        return thread

    def shutdown(self) -> None:
        """Stop serving (requests under way get ``STOP_S`` to finish); returns once stopped."""
        self._uvicorn.should_exit = True
        self._stopped.wait()

    def server_close(self) -> None:
        """Let go of the socket (uvicorn has closed it already if it served)."""
        self.socket.close()


def _listen(address: tuple[str, int], backlog: int) -> socket.socket:
    """A TCP socket bound to ``address`` and listening, as socketserver's was (SO_REUSEADDR:
    a new ``klik sim`` may take the port of one just stopped). OSError says why not, with
    the system's own words (``socket.create_server`` would add to them)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(backlog)
    except BaseException:
        listener.close()
        raise
    return listener


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, telling when it takes connections and leaving the signals alone."""

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn would take SIGINT and SIGTERM in the main thread; the caller handles them.
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class Gate:
    """In front of the app, before any route: the method, the body's size, the answer's headers.

    The body (at most ``max_body`` bytes) is read whole and handed on to the app as it came;
    a longer or chunked one is not read, the app sees none and the connection is closed after
    the answer, as http.server did.
    """

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method not in METHODS:
            await _unsupported(method, send)
            return
        body = await self._take_body(Headers(scope=scope), receive)
        given = False

        async def replay() -> Message:
            nonlocal given
            if given:
                return await receive()  # http.disconnect, when it comes
            given = True
            return {"type": "http.request", "body": body or b"", "more_body": False}

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                # A client that asked to close gets uvicorn's own "connection: close".
                if body is None and CLOSE not in scope["headers"]:
                    headers.append((b"Connection", b"close"))
                message = {**message, "headers": headers}
                log.debug('%s "%s %s" %d', scope.get("client"), method, scope["path"],
                          message["status"])  # fmt: skip
            await send(message)

        await self.app(scope, replay, answer)

    async def _take_body(self, headers: Headers, receive: Receive) -> bytes | None:
        """The whole body, or None (not read) if it is longer than ``max_body`` or chunked."""
        try:
            length = int(headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= self.max_body or "transfer-encoding" in headers:
            return None
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: the answer goes nowhere
                return body
            body += bytes(message.get("body", b""))
            if not message.get("more_body", False):
                return body


async def _unsupported(method: str, send: Send) -> None:
    """501 for a method no route knows, as http.server said it; the connection then closes."""
    body = json_line({"error": f"Unsupported method ({method!r})"})
    headers = _headers(body, close=True)
    await send({"type": "http.response.start", "status": 501, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _headers(body: bytes, *, close: bool) -> list[tuple[bytes, bytes]]:
    """The headers of an error answered below the app (JSON, not cached)."""
    headers = [
        (b"Content-Type", b"application/json"),
        (b"Content-Length", str(len(body)).encode()),
        (b"Cache-Control", b"no-store"),
    ]
    return [*headers, (b"Connection", b"close")] if close else headers
