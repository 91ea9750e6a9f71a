"""A hub that moved: a table paired at the table with a hub it found by DNS-SD, whose
``paired.toml`` keeps an address where nobody answers any more, finds the hub again on the
network (real python-zeroconf on loopback, a service type of the test's own), tries it and
keeps the new address once the hub has answered with an ack signed with the table's key. A
hub that does not know the table (another tournament's) is tried and let go, never kept. The
real daemon (the virtual table's, mock pins) and real hubs on uvicorn."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from klik.link.courier import State, Tracking
from klik.table import config as c
from klik.table.config import paired
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.main import now_ms
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub, result_body
from tests.hub.test_advert import advertised, kind
from tests.hub.test_table_renumbering import kept, soon
from tests.hub.test_table_to_hub import PLAYERS

pytestmark = pytest.mark.slow  # real multicast DNS on loopback, real hubs, the real clock

Hub = tuple[str, Store]
CARD = PLAYERS + '[hub]\nlink = "http"\nheartbeat_s = 0.5\n'  # no url: it finds the hub


def _nobody() -> str:
    """An address on loopback where nobody listens: where the hub was."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _table(store: Store, folder: Path, service: str) -> tuple[Daemon, str]:
    """Table 7, paired at the table with the hub then at an address now dead; its watch
    quick (1 s silent) and looking on loopback for ``service``. Not started."""
    device, key = hall.devices.pair(store, 7)
    folder.mkdir(parents=True, exist_ok=True)
    card = c.from_text(CARD)
    paired.keep(sim.sim_config(card, str(folder)),
                {"url": _nobody(), "table": 7, "device_id": device, "key": key})  # fmt: skip
    table = sim.make_daemon(card, str(folder))
    watch = table.hubwatch
    assert watch is not None
    watch.service, watch.interfaces, watch.lost_s, watch.every_s = (
        service, ["127.0.0.1"], 1.0, 0.1)  # fmt: skip
    return table, device


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_table_finds_its_hub_again_at_its_new_address_and_keeps_it(
    hub: Hub, tmp_path: Path
) -> None:
    url, store = hub
    service = kind()
    table, device = _table(store, tmp_path, service)
    old = kept(tmp_path)["url"]
    with advertised(service, "laptop", _port(url)):
        table.start()
        try:
            soon(lambda: kept(tmp_path)["url"] == url, 20.0)
            assert kept(tmp_path)["device_id"] == device  # the same pairing, a new address
            # The daemon writes paired.toml, then takes the address itself: a moment apart.
            soon(lambda: table.config.hub.url == url)
            assert url != old
            soon(lambda: hall.devices.tables(store)[0]["seen_s_ago"] is not None)
        finally:
            table.stop()
    again = sim.make_daemon(c.from_text(CARD), str(tmp_path))  # a restart keeps it
    try:
        assert again.config.hub.url == url
    finally:
        again.stop()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_hub_that_does_not_know_the_table_is_tried_and_never_kept(
    hub: Hub, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, store = hub  # the table's own hub, away
    other = Store(open_engine(str(tmp_path / "other.sqlite")), now_ms)  # another tournament's
    service = kind()
    table, _ = _table(store, tmp_path / "table", service)
    old = kept(tmp_path / "table")["url"]
    caplog.set_level("INFO", logger="klik.table.service.hubwatch")
    assert table.outbox is not None
    assert table.courier is not None
    table.outbox.keep(result_body(table=7, game=1))  # a result waits for the hub
    said: list[State] = []
    tell = table.courier.on_tracking

    def tracked(news: Tracking) -> None:
        said.append(news.state)
        tell(news)

    table.courier.on_tracking = tracked
    with live_hub(other) as other_url, advertised(service, "other", _port(other_url)):
        table.start()
        try:
            let_go = f"hub: {other_url} did not answer this table; back to {old}"
            soon(lambda: let_go in [r.getMessage() for r in caplog.records], 20.0)
            assert kept(tmp_path / "table")["url"] == old
            assert table.config.hub.url == old
            # The other hub said it does not know the table: no cause to pair it again.
            assert State.UNREACHABLE in said
            assert State.UNPAIRED not in said
        finally:
            table.stop()
            other.engine.dispose()
