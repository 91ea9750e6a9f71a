"""The daemon of a fresh card (``[hub] link = "http"``, no url, nothing from pairing): it
looks for the hub (``klik.link.discovery``) rather than asking one, asks the hub it found,
and keeps that hub's url with the pairing. Not started: no network, no engine thread; the
real browsing is ``tests/hub/test_advert.py``'s."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from klik.link.discovery import Found
from klik.link.joining import Joined
from klik.table import config as c
from klik.table.config import paired
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim

KEY = "ab" * 32


def fresh_card(tmp_path: Path, text: str = '[hub]\nlink = "http"\n') -> Daemon:
    config = sim.sim_config(c.from_text(text), str(tmp_path))
    return Daemon(config, screens=sim.open_panels(config))


def test_a_fresh_card_looks_for_the_hub_and_asks_none_yet(tmp_path: Path) -> None:
    table = fresh_card(tmp_path, '[hub]\nlink = "http"\nname = "laptop"\n')
    try:
        assert table.discovery is not None
        assert table.discovery.wanted == "laptop"
        assert (table.joiner, table.courier, table.hub_url) == (None, None, "")
        assert table.pairing == ("asking", None)
        assert table.engine.session.keeper.outbox is None  # results stay in their files
        _run_calls(table)
        assert table.engine.session.info().seeking_hub  # seat A: "Szukam huba…"
    finally:
        table.stop()


def _run_calls(table: Daemon) -> None:
    """Run the calls queued for the engine thread (not started here) on this one."""
    while not table.events.empty():
        item = table.events.get_nowait()
        if callable(item):
            item(table.engine, 0.0)


def test_a_card_with_the_hubs_url_asks_it_and_looks_for_none(tmp_path: Path) -> None:
    table = fresh_card(tmp_path, '[hub]\nlink = "http"\nurl = "http://10.0.0.5:8000"\n')
    try:
        assert table.discovery is None
        assert table.joiner is not None
        assert table.hub_url == "http://10.0.0.5:8000"
    finally:
        table.stop()


def test_the_hub_found_is_asked_and_its_url_kept_with_the_pairing(tmp_path: Path) -> None:
    table = fresh_card(tmp_path)
    found = Found("laptop", "http://127.0.0.1:9")  # the discard port: nobody answers
    try:
        table._found(found)
        assert table.joiner is not None
        assert table.hub_url == found.url
        table.joiner.stop()  # the judge's accept stands in for the exchange
        table._joined(Joined(7, "t7-x", KEY))
        assert table.pairing[0] == "asking"  # until the engine has the table's number
        _run_calls(table)
        assert table.pairing == ("paired", None)
        assert table.engine.session.info().table == "7"
        assert not table.engine.session.info().seeking_hub
        assert table.config.hub.url == found.url
        assert table.courier is not None
    finally:
        table.stop()
    again = paired.applied(
        replace(table.config, hub=replace(table.config.hub, url="", table=0, device_id="", key=""))
    )
    assert (again.hub.url, again.hub.table, again.hub.device_id) == (found.url, 7, "t7-x")


def test_a_hub_found_while_the_table_stops_is_not_asked(tmp_path: Path) -> None:
    table = fresh_card(tmp_path)
    table.stop()
    table._found(Found("laptop", "http://127.0.0.1:9"))
    assert table.joiner is None
