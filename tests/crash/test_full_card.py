"""The card that never costs a game: real tables (``klik sim``) whose state folder is a real
tmpfs in a user and mount namespace of their own, filled up or made read-only, sending to a
real ``klik hub``.

A table holds a reserve on its card (``klik.table.game.card``): a card that fills up lets it
go and goes on keeping the game, the next games, their numbers and their results, across
cuts, while the seats say the card is full. A card full or read-only at start still gives the
players their clock, and says so.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from klik.table.game.card import RESERVE
from tests.crash.test_crash_campaign import VirtualTable, fill, free_port, small_tmpfs
from tests.crash.test_delivery_faults import Hub, paired, play, until

MIB = 2**20


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    hub = Hub(tmp_path / "hub.sqlite", free_port()).start()
    yield hub
    hub.kill()


@contextlib.contextmanager
def table_on_card(
    tmp_path: Path, hub: Hub, size: str, *, full: bool = False
) -> Iterator[tuple[VirtualTable, Path, list[str]]]:
    """Table 5, paired with ``hub``, started with its state on a card of ``size`` (``full``:
    filled up before the table ever started): the table, the card's folder as this test
    reads it, and the namespace's nsenter prefix."""
    with small_tmpfs(tmp_path / "card", size) as (inside, prefix):
        if full:
            fill(inside)
        config = paired(hub, hub.url, tmp_path, slow_hands=True)
        table = VirtualTable(tmp_path / "card", prefix=prefix, config=config, dated=True)
        table.folder = inside
        table.start()
        try:
            yield table, inside, prefix
        finally:
            table.stop()


def games_at_the_hub(hub: Hub) -> list[tuple[int, bool]]:
    return sorted((r["game"], bool(r["conflict"])) for r in hub.results())


def test_a_card_that_fills_up_keeps_the_game_the_next_ones_and_their_results(
    tmp_path: Path, hub: Hub
) -> None:
    with table_on_card(tmp_path, hub, "8m") as (table, inside, _):
        held = (inside / RESERVE).stat().st_size
        assert 1 * MIB < held <= 2 * MIB  # a quarter of the free space, on a small card
        play(table)
        until(lambda: table.state()["delivery"]["state"] == "sent")
        filler = fill(inside)  # the card fills up (a log, a copy) before game 2
        play(table)  # the judge's tap, game 2's number, journal, result: on the reserve
        assert table.state()["card"] == "full"  # the seats say so; the judge should come
        until(lambda: table.state()["delivery"]["state"] == "sent")
        table.kill()  # a cut, the card still full
        back = table.start().state()
        assert (back["game_no"], back["state"], back["card"]) == (2, "done", "full")
        play(table)  # game 3, on what the reserve gave back
        until(lambda: table.state()["delivery"]["state"] == "sent")
        assert games_at_the_hub(hub) == [(1, False), (2, False), (3, False)]
        assert (inside / "game-no").read_text() == "3\n"
        assert {p.name for p in inside.glob("result-*.json")} == {
            "result-1.json", "result-2.json", "result-3.json"
        }  # fmt: skip
        log = table.log.read_text()
        assert "zwolniony, gra i następne są zapisywane" in log  # the reserve let go
        assert "not being kept" not in log  # no write was lost
        filler.unlink()  # the organiser frees space
        table.tap("A")  # the next write sees the room: the reserve is held again
        until(lambda: table.state()["card"] == "ok")
        assert (inside / RESERVE).stat().st_size == held


def test_a_card_full_at_start_still_gives_the_players_their_clock(tmp_path: Path, hub: Hub) -> None:
    # A card full before the table ever started: no reserve on it.
    with table_on_card(tmp_path, hub, "4m", full=True) as (table, _, _):
        assert table.state()["card"] == "full"
        play(table)  # the judge's tap starts the game; the clock runs; the count ends it
        done = table.state()
        assert (done["state"], done["card"]) == ("done", "full")
        assert "not kept nor sent to the hub until the card is changed" in table.log.read_text()


def test_a_read_only_card_at_start_still_gives_the_players_their_clock(
    tmp_path: Path, hub: Hub
) -> None:
    with table_on_card(tmp_path, hub, "8m") as (table, inside, prefix):
        play(table)
        until(lambda: table.state()["delivery"]["state"] == "sent")
        table.kill()
        # The kernel remounts a failing card read-only; here the namespace's root does.
        remount = [*prefix, "mount", "-o", "remount,ro", str(tmp_path / "card")]
        subprocess.run(remount, check=True)
        back = table.start().state()
        assert back["card"] == "read-only"
        play(table)  # game 2 is played, though nothing of it can be kept
        assert table.state()["state"] == "done"
        assert table.state()["card"] == "read-only"
        assert "the file or its folder is read-only" in table.log.read_text()
        journal = (inside / "journal.jsonl").read_bytes()  # game 1's, untouched
        assert all(json.loads(line) for line in journal.splitlines())
