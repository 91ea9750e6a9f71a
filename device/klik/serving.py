"""uvicorn's connections held to a deadline: the serving the hub and the virtual table share.

uvicorn drops an idle kept-alive connection after a few seconds but waits for ever on a
client that sends half a request, or nothing at all. On a hall's Wi-Fi anyone can open a
thousand such connections and take every file a server may open, so the tables' results and
the console fail (the hub), or a page left open piles them up (the virtual table).
``Deadline`` closes a connection whose request has not fully arrived within ``request_s`` of
its first byte (or of the connection, for the first request): a table's envelope arrives in
milliseconds, the player list in well under a second.

A connection the server ends (late, idle, or at a stop) is aborted, not closed: closing a TLS
connection waits up to 30 s for the client's goodbye, so a stop would wait for every idle
browser and a slow client would keep its file open. A request uvicorn cannot parse is
answered as every other error of Klik's: one line of JSON, ``{"error": ...}``.

Imported only where uvicorn is installed (``klik[hub]``, ``klik[sim]``): never on a table.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

REQUEST_S = 10.0


class Deadline(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request is late
    (``http=Deadline`` in uvicorn's config; ``deadline(s)`` for another ``request_s``)."""

    request_s = REQUEST_S
    abort = True  # end a connection with a reset (TLS: no 30 s wait for a goodbye), or close

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """At a stop: an idle connection goes at once; a request under way is finished,
        but for a stream of server-sent events, which never finishes: it goes at once too,
        and its page connects again (to the hub started next)."""
        if self.cycle is None or self.cycle.response_complete or _streams(self.cycle.scope):
            self._end()
        else:
            self.cycle.keep_alive = False

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            self._end()

    def send_400_response(self, msg: str) -> None:
        """A request uvicorn cannot parse: 400 as one line of JSON, then the connection closes."""
        body = json.dumps({"error": msg}, ensure_ascii=False).encode()
        content = [STATUS_LINE[400]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"Content-Type: application/json\r\n",
                b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"Cache-Control: no-store\r\n",
                b"Connection: close\r\n",
                b"\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_s, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self._end()

    def _end(self) -> None:
        if self.abort:
            self.transport.abort()
        else:
            self.transport.close()


def deadline(seconds: float, *, abort: bool = True) -> type[Deadline]:
    """``Deadline`` with ``seconds`` for one server (uvicorn makes a protocol per connection);
    ``abort=False`` ends a connection with a close, where no TLS makes that wait."""

    class Late(Deadline):
        request_s = seconds

    Late.abort = abort
    return Late


def _streams(scope: Any) -> bool:
    """Whether the request asks for server-sent events (``Accept: text/event-stream``)."""
    return any(
        name == b"accept" and b"text/event-stream" in value for name, value in scope["headers"]
    )
