"""A tournament round on real table daemons: the hub draws it, sends every table its players,
starts it on both tables at once, and the tables' results come back with the players' ids.

Two virtual tables (the real daemon with mock pins) talk to a real hub over HTTP, on SQLite
and on PostgreSQL; the test presses pins and waits on conditions with timeouts.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from klik.core import game as g
from klik.link.http import HttpLink
from klik.table.screens.view import Screen
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub.sql.schema import commands
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock
from tests.hub.test_table_to_hub import double, paired_table, until

API = "/api/v1/tournaments"
SEVEN = [{"name": n, "club": "SP 5"} for n in ("Ala", "Bożena", "Cyprian", "Dorota", "Ewa", "Feliks", "Łucja")]  # fmt: skip


def test_a_round_is_sent_started_and_reported_with_the_players_ids(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    url, store = hub
    tables: list[Daemon] = [
        paired_table(store, url, tmp_path / f"t{k}", table_no=k) for k in (1, 2)
    ]
    try:
        tid = httpx.post(url + API, json={"name": "Turniej", "rules": "tournament",
                                          "format": "open", "move_time_s": 30}).json()["id"]  # fmt: skip
        httpx.post(f"{url}{API}/{tid}/players", json=SEVEN).raise_for_status()
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 11}).json()
        seats = [t["seats"] for t in drawn["tables"]]
        assert [len(s) for s in seats] == [4, 3]  # 7 players: a table of 4 and one of 3

        sent = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "game"})
        assert sent.status_code == 201, sent.text
        names = {p["id"]: p["name"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
        for table, lineup in zip(tables, seats, strict=True):
            expected = {s: names[p] for s, p in lineup.items()} | (
                {"D": ""} if len(lineup) == 3 else {}
            )
            # The engine takes the lineup, then redraws: wait for the screens, not the lineup.
            until(table, lambda t=table, e=expected: shown(t) == e)
            assert table.engine.game_lineup is not None
        assert tables[1].engine.views["D"].screen is Screen.FREE  # nobody sits at D

        httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"})
        for table in tables:  # both clocks run at once, seat A first
            until(table, lambda t=table: t.engine.game.phase is g.Phase.MOVE)
            assert table.engine.game.mover == "A"
        threading.Event().wait(0.3)  # sleep-ok: a reaction: a press at once is the last move's
        for table in tables:
            double(table, "A")  # A goes out at once: Rummikub
            until(table, lambda t=table: t.engine.game.phase is g.Phase.SCORING)
            # Nobody else had opened: charged the penalty, not asked (000 n); their double
            # taps change nothing, and the winner confirms its 0.
            for seat in table.engine.game.settings.seats[1:]:
                double(table, seat)
            double(table, "A")
            until(table, lambda t=table: t.engine.game.phase is g.Phase.DONE)
        until(  # both results reach the hub: the missing-results board empties
            tables[0],
            lambda: all(
                t["missing"] == 0 for t in httpx.get(f"{url}{API}/{tid}/rounds/1").json()["tables"]
            ),
            timeout_s=15,
        )
        rows = httpx.get(f"{url}{API}/{tid}/standings").json()
        winners = {s["A"] for s in seats}
        assert {r["player"] for r in rows if r["big"] == 1} == winners
        assert all(r["games"] == 1 for r in rows)
        assert sum(r["games"] for r in rows) == 7
    finally:
        for table in tables:
            table.stop()


def shown(table: Daemon) -> dict[str, str]:
    """The name on each seat's screen."""
    return {s: v.name for s, v in table.engine.views.items()}


def test_the_rounds_clock_ends_the_round_at_both_tables_one_of_them_cut_off(
    hub: tuple[str, Store], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 20, point 5: the hub counts the round's time from the Start; each heartbeat's
    answer tells a table its time left; at zero the hub sends round-over, and a table that lost
    contact ends the round by itself at its own zero."""
    url, store = hub
    assert isinstance(store.now_ms, Clock)
    caplog.set_level(logging.INFO, logger="klik.table.game.engine")
    tables = [paired_table(store, url, tmp_path / f"t{k}", table_no=k) for k in (1, 2)]
    try:
        tid = httpx.post(url + API, json={"name": "Turniej", "format": "open", "move_time_s": 60,
                                          "round_time_s": 300}).json()["id"]  # fmt: skip
        httpx.post(f"{url}{API}/{tid}/players", json=SEVEN).raise_for_status()
        httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 11}).raise_for_status()
        started = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"})
        assert started.status_code == 201, started.text
        for table in tables:
            until(table, lambda t=table: t.engine.game.phase is g.Phase.MOVE)
            until(table, lambda t=table: (sim.state(t)["round_left_s"] or 0) > 290)

        # Most of the round is played: 3 s are left as the hub next answers each table.
        store.now_ms.ms += 297_000
        for table in tables:
            until(table, lambda t=table: 0 < (sim.state(t)["round_left_s"] or 99) <= 3)
        cut = tables[1]
        assert cut.courier is not None
        cut.courier.link = HttpLink("http://127.0.0.1:1")  # its Wi-Fi is gone: nobody answers
        store.now_ms.ms += 3_000  # the hub's zero: it sends round-over to both tables

        def over(t: Daemon) -> bool:
            return t.engine.game.round_over or t.engine.game.final_round

        for table in tables:
            until(table, lambda t=table: over(t), timeout_s=15)
        kept = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
        assert [t["clock"]["over_at"] is not None for t in kept["tables"]] == [True, True]
        # the table that still hears the hub carried its round-over out (acknowledged it);
        # the one cut off ended the round on its own clock, the hub's order still waiting
        waiting = {x["table_no"]: x for x in sql_commands(store) if x["kind"] == "round-over"}
        assert waiting[1]["acked_ms"] is not None
        assert waiting[2]["acked_ms"] is None
        # (both virtual tables are named "1" in their config: the line is the cut-off one's,
        # and maybe the other's, which may count to its zero before the hub's order comes)
        assert "czas rundy minął (własny zegar)" in caplog.text
    finally:
        for table in tables:
            table.stop()


def sql_commands(store: Store) -> list[dict[str, Any]]:
    with store.engine.connect() as db:
        return [dict(x._mapping) for x in db.execute(select(commands).order_by(commands.c.rank))]
