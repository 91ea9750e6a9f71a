"""``klik hub`` and ``klik pair``: the hub's commands, reached lazily from ``klik.cli``."""

from __future__ import annotations

import ipaddress
import logging
import time

from klik.errors import InputError
from klik_hub import judge
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


def judge_password(store: Store, host: str, password_file: str | None) -> None:
    """Store the judge's password's hash from ``password_file``; refuse to serve a network
    without one (a hub on loopback, for one laptop, may go without)."""
    if password_file is not None:
        store.set_setting(judge.SETTING, judge.hash_password(judge.read_password(password_file)))
        log.info("hub: the judge's password is set from %s", password_file)
        return
    if store.setting(judge.SETTING) is not None:
        return
    if not _loopback(host):
        raise InputError(
            f"--host {host}: a hub on the network needs the judge's password: "
            "--judge-password-file FILE"
        )
    log.warning("hub: no judge's password: the judge's routes are open to this machine")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    db: str, host: str, port: int, serial: list[str], password_file: str | None = None
) -> int:
    """Run the hub until SIGINT/SIGTERM (uvicorn handles both).

    ``password_file``: the judge's password, stored as a hash (see ``judge_password``).

    Each ``--serial`` device gets a ``SerialHub`` on the same store, at 9600 baud (the HC-12's
    factory setting and the tables' default), started before the API and stopped after it.
    A device that is missing or vanishes is logged and opened again every few seconds; the
    API goes on meanwhile.
    """
    import uvicorn

    from klik_hub.app import make_app
    from klik_hub.serial import SerialHub

    store = Store(open_engine(db), now_ms)
    judge_password(store, host, password_file)
    log.info("hub: database %s, http://%s:%d/", store.engine.url.render_as_string(), host, port)
    serial_hubs = [SerialHub(store, device) for device in serial]
    for serial_hub in serial_hubs:
        serial_hub.start()
        channel = serial_hub.channel
        log.info("hub: serial link on %s at %d baud", channel.name, channel.baud)
    config = uvicorn.Config(make_app(store), host=host, port=port, access_log=False)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass  # Ctrl-C or SIGINT: uvicorn has finished the requests under way; a quiet stop
    finally:
        for serial_hub in serial_hubs:
            serial_hub.stop()
    return 0
