"""What the hub's tests share: a valid result body, a store on either database, a live hub.

The hub runs for real: uvicorn on a loopback socket in a thread, over a real SQLite file or
a real PostgreSQL database (``pg_url``, from tests/hub/conftest.py's throwaway cluster).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import httpx
import uvicorn
from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import Connection, create_engine

from klik.core.scoring import Ending, SeatRack, score
from klik.link import protocol as p
from klik.rules import RULE_SETS
from klik_hub.app import make_app
from klik_hub.storage.db import url_of
from klik_hub.storage.store import Store

NOW_MS = 1_795_000_000_000  # 2026-11-18, the hub's clock in these tests


class Clock:
    """The hub's clock, moved by the tests."""

    def __init__(self) -> None:
        self.ms = NOW_MS

    def __call__(self) -> int:
        return self.ms


def result_body(
    table: int = 3, game: int = 1, racks: dict[str, int] | None = None, **over: Any
) -> dict[str, Any]:
    """A finished game's body as a table sends it, its points made by the rule set."""
    racks = racks or {"A": 0, "B": 12, "C": 30, "D": 7}
    winner = next(s for s, rack in racks.items() if rack == 0)
    result = score(
        RULE_SETS["tournament"],
        Ending.RUMMIKUB,
        {s: SeatRack(rack) for s, rack in racks.items()},
        winner,
    )
    body: dict[str, Any] = {
        "tournament": None,
        "round": None,
        "table": table,
        "game": game,
        "rules": "tournament",
        "ending": "rummikub",
        "winners": list(result.winners),
        "seats": {
            s: {
                "name": f"Gracz {s}",
                "player": None,
                "rack": result.rack[s],
                "opened": True,
                "small": result.small[s],
                "big": result.big[s],
            }
            for s in racks
        },
        "moves": 41,
        "timeouts": 2,
        "duration_ms": 1_234_000,
        "finished_at": None,
    }
    body.update(over)
    return body


def sealed(
    device: str, key_hex: str, seq: int, body: dict[str, Any], kind: str = "result"
) -> bytes:
    return p.seal(p.Envelope(kind, device, seq, body), p.key_bytes(key_hex))


class _Server(uvicorn.Server):
    """uvicorn's server, which says when its start-up is over, whether it started or not."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.tried = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.tried.set()


@contextmanager
def live_hub(store: Store, **app_options: Any) -> Iterator[str]:
    """The hub's app (``make_app(store, **app_options)``) served by uvicorn on a free loopback
    port; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = make_app(store, **app_options)
    # A page's stream of events never ends: a stop waits for it no more than a moment.
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    server.tried.wait(5)  # uvicorn says when it has started: wait for that, not a set time
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def post(url: str, path: str, data: bytes, **headers: str) -> httpx.Response:
    return httpx.post(
        url + path,
        content=data,
        headers={"Content-Type": "application/json", **headers},
        timeout=10,
    )


@contextmanager
def at_revision(db: str, revision: str) -> Iterator[Connection]:
    """A connection to ``db`` migrated only up to Alembic's ``revision``, in a transaction
    committed at the end: a database of an older hub, to fill before the migrations after it."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(resources.files("klik_hub") / "migrations"))
    engine = create_engine(url_of(db))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
            yield connection
    finally:
        engine.dispose()
