"""``klik hub`` and ``klik pair``: the hub's commands, reached lazily from ``klik.cli``."""

from __future__ import annotations

import logging
import time

from klik.errors import InputError
from klik_hub.db import open_engine
from klik_hub.store import Store

log = logging.getLogger("klik_hub")

DEFAULT_URL = "http://127.0.0.1:8000"  # the hub's own default --host and --port
MAX_TABLE = 999  # as the table's [hub] table


def now_ms() -> int:
    """The hub's clock for ``received_at`` and last contact: wall time, ms since the epoch."""
    return time.time_ns() // 1_000_000


def pair(db: str, table: int, url: str | None) -> str:
    """Register table ``table`` with the hub's store; the TOML ``[hub]`` section for its config."""
    if not 1 <= table <= MAX_TABLE:
        raise InputError(f"--table {table}: allowed are 1 to {MAX_TABLE}")
    url = url or DEFAULT_URL
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--url {url}: must start with http:// or https://")
    store = Store(open_engine(db, pool_size=1), now_ms)
    device, key = store.pair(table)
    store.engine.dispose()
    return (
        f"# table {table}, paired with the hub at {url}; keep this key secret\n"
        "[hub]\n"
        'link = "http"\n'
        f'url = "{url}"\n'
        f"table = {table}\n"
        f'device_id = "{device}"\n'
        f'key = "{key}"\n'
    )


def serve(db: str, host: str, port: int, serial: list[str]) -> int:
    """Run the hub until SIGINT/SIGTERM (uvicorn handles both)."""
    import uvicorn

    from klik_hub.app import make_app

    if serial:
        raise InputError("--serial: the serial link is not built yet (step 3 continues)")
    store = Store(open_engine(db), now_ms)
    log.info("hub: database %s, http://%s:%d/", store.engine.url.render_as_string(), host, port)
    config = uvicorn.Config(make_app(store), host=host, port=port, access_log=False)
    uvicorn.Server(config).run()
    return 0
