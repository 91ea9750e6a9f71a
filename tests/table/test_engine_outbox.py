"""The engine and the outbox: a result committed before a screen says it is kept, once.

A power cut can fall between the journal's last line (the last confirmation) and the
outbox's commit: the restarted engine finds the finished game's result missing from the
outbox and keeps it then; when it is there, it is not kept twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from klik.link import courier as c
from klik.link.outbox import Outbox, OutboxCorruptError
from klik.link.results import check_result, points_check
from klik.table.screens.view import Delivery
from tests.table.test_engine import CONFIG, Table
from tests.table.test_recovery import BOOT, begun, finish, playing

HUB = replace(CONFIG, hub=replace(CONFIG.hub, table=7))


def linked(folder: Path, outbox: Outbox, on_kept: Callable[[], None] | None = None) -> Table:
    """A table on ``folder`` of the hub's table 7, its results kept in ``outbox``."""
    return Table(folder, config=HUB, outbox=outbox, on_kept=on_kept)


def test_a_finished_games_result_is_in_the_outbox_before_the_result_screen(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    woken = []
    table = begun(linked(tmp_path, outbox, on_kept=lambda: woken.append(outbox.waiting())))
    finish(table, 120.0)
    assert woken == [1]  # the courier is woken once the commit is done
    pending = outbox.oldest_waiting()
    assert pending is not None
    check_result(pending.body)
    assert (pending.body["table"], pending.body["game"]) == (7, 1)
    assert points_check(pending.body) == "ok"
    assert pending.body["moves"] == len(table.game.moves)
    assert {view.delivery for view in table.engine.views.values()} == {Delivery.KEPT}


def test_a_cut_before_the_outbox_commit_keeps_the_result_at_the_restart(tmp_path: Path) -> None:
    first = finish(playing(tmp_path), 120.0)  # no outbox: as if the cut came before its commit
    first.journal.close()
    outbox = Outbox(tmp_path / "outbox.sqlite")
    second = linked(tmp_path, outbox)
    second.engine.start(BOOT)
    pending = outbox.oldest_waiting()
    assert pending is not None
    assert pending.body["game"] == 1
    assert second.engine.result_seq == pending.seq
    assert second.engine.info.waiting == 1


def test_a_result_in_the_outbox_is_not_kept_again_at_the_restart(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    first = finish(begun(linked(tmp_path, outbox)), 120.0)
    first.journal.close()
    second = linked(tmp_path, outbox)
    second.engine.start(BOOT)
    assert (outbox.last_seq(), outbox.waiting(), second.engine.result_seq) == (1, 1, 1)


def test_the_hubs_receipt_reaches_every_seats_screen(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    table = finish(begun(linked(tmp_path, outbox)), 120.0)
    table.engine.delivered(c.Tracking(c.State.SENT, 1, "7KQ2M", 0), 130.0)
    assert {v.receipt for v in table.engine.views.values()} == {"R-7KQ2M"}
    assert {v.delivery for v in table.engine.views.values()} == {Delivery.SENT}
    # news of an older game's result does not change this game's screens
    table.engine.delivered(c.Tracking(c.State.UNREACHABLE, 0, None, 2), 131.0)
    assert {v.receipt for v in table.engine.views.values()} == {"R-7KQ2M"}
    assert {v.waiting for v in table.engine.views.values()} == {2}


HOLD_THE_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


def test_a_result_the_outbox_cannot_commit_is_never_shown_as_kept(tmp_path: Path) -> None:
    """Another program holds the outbox's write lock at the last confirmation: the screens
    say the result is not saved, and it is committed once the lock is let go."""
    outbox = Outbox(tmp_path / "outbox.sqlite", busy_s=0.05)
    woken: list[int] = []
    table = begun(linked(tmp_path, outbox, on_kept=lambda: woken.append(outbox.waiting())))
    other = subprocess.Popen(  # another program holds the outbox's write lock
        [sys.executable, "-c", HOLD_THE_LOCK, str(tmp_path / "outbox.sqlite")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert other.stdout is not None
    assert other.stdin is not None
    assert other.stdout.readline() == "held\n"
    finish(table, 120.0)
    assert {v.delivery for v in table.engine.views.values()} == {Delivery.UNSAVED}
    assert (outbox.waiting(), woken, table.engine.result_seq) == (0, [], None)
    table.to(125.0)  # still locked: tried again, still not saved
    assert {v.delivery for v in table.engine.views.values()} == {Delivery.UNSAVED}
    other.stdin.close()  # the other program ends, its lock with it
    assert other.wait(timeout=10) == 0
    table.to(128.0)
    assert {v.delivery for v in table.engine.views.values()} == {Delivery.KEPT}
    assert (outbox.waiting(), woken, table.engine.result_seq) == (1, [1], 1)
    kept = outbox.oldest_waiting()
    assert kept is not None
    file_body = json.loads((tmp_path / "result-1.json").read_bytes())["body"]
    assert kept.body == file_body  # the very body fixed at the game's end


@pytest.mark.parametrize("damage", ["lost", "truncated", "zeroed page"])
def test_every_finished_game_the_outbox_lacks_goes_back_with_its_own_body(
    tmp_path: Path, damage: str
) -> None:
    """The card lost the outbox, or damaged it (the daemon moves it aside and starts a new
    one): games 1 and 2 (not only the last) go back into it at the restart, with the bytes
    written when each game ended, so the hub sees duplicates of what it has, never
    conflicts."""
    outbox = Outbox(tmp_path / "outbox.sqlite")
    first = finish(begun(linked(tmp_path, outbox)), 120.0)
    assert first.engine.new_game(130.0)
    first.press("D", 131.0).press("A", 140.0)
    finish(first, 150.0)
    first.journal.close()
    sent = {p.seq: p.body for p in _all_waiting(outbox)}
    assert [body["game"] for body in sent.values()] == [1, 2]
    outbox.close()
    path = tmp_path / "outbox.sqlite"
    if damage == "lost":
        for name in ("outbox.sqlite", "outbox.sqlite-wal", "outbox.sqlite-shm"):
            (tmp_path / name).unlink(missing_ok=True)
    elif damage == "truncated":
        with path.open("r+b") as file:
            file.truncate(path.stat().st_size // 2)
    else:
        with path.open("r+b") as file:  # the page that holds the results, zeroed
            file.seek(4096)
            file.write(b"\0" * 4096)
    try:  # as the daemon opens it
        fresh = Outbox(path)
    except OutboxCorruptError:
        fresh = Outbox.start_anew(path)
    second = linked(tmp_path, fresh)
    second.engine.start(BOOT + 500.0)
    again = _all_waiting(fresh)
    assert [p.body for p in again] == list(sent.values())  # the same bodies, in order
    assert min(p.seq for p in again) > max(sent)  # and new seqs: outbox.seq remembered
    assert second.engine.result_seq == again[-1].seq


def _all_waiting(outbox: Outbox) -> list[Any]:
    found = []
    while (pending := outbox.oldest_waiting()) is not None:
        found.append(pending)
        outbox.acknowledged(pending.seq, f"R{pending.seq}")
    return found


def test_games_finished_while_the_table_asked_to_join_go_to_the_hub_once_it_is_paired(
    tmp_path: Path,
) -> None:
    """The judge had not paired the table yet when its players played two games: both wait
    in their files (no number, no outbox) and go to the outbox at the accept, oldest first,
    carrying the number the judge gave; the game on the result screen shows its way."""
    asking = begun(Table(tmp_path))  # the shipped default: table 0, no outbox
    finish(asking, 120.0)
    assert asking.engine.new_game(130.0)
    asking.press("D", 131.0).press("A", 140.0)
    finish(asking, 150.0)
    assert [json.loads(path.read_bytes())["body"]["table"] for path in
            sorted(tmp_path.glob("result-*.json"))] == [0, 0]  # fmt: skip
    outbox = Outbox(tmp_path / "outbox.sqlite")
    woken: list[int] = []
    asking.engine.keeper.on_kept = lambda: woken.append(outbox.waiting())
    asking.engine.pairing(None, HUB, 160.0, outbox=outbox)
    assert {view.waiting for view in asking.engine.views.values()} == {2}
    kept = [(p.seq, p.body) for p in _all_waiting(outbox)]
    assert [(seq, body["table"], body["game"]) for seq, body in kept] == [(1, 7, 1), (2, 7, 2)]
    for _, body in kept:
        check_result(body)  # table 0 would be refused for good: 1 to 999
    assert woken == [2]  # the courier is woken once they are in
    assert asking.engine.result_seq == 2
    assert {view.delivery for view in asking.engine.views.values()} == {Delivery.KEPT}
    # pairing again (a re-pair while paired) changes nothing in the outbox
    asking.engine.pairing(None, HUB, 170.0, outbox=outbox)
    assert outbox.last_seq() == 2


def test_a_game_kept_before_pairing_carries_the_same_number_at_every_restart(
    tmp_path: Path,
) -> None:
    """The outbox lost after the accept: the result file (table 0) goes back with the
    number again, the same bytes as the first time, so the hub sees a duplicate."""
    finish(begun(Table(tmp_path)), 120.0).journal.close()
    first = Outbox(tmp_path / "outbox.sqlite")
    paired = linked(tmp_path, first)
    paired.engine.start(BOOT)  # a restart of the paired table: restore, as at the accept
    (sent,) = _all_waiting(first)
    first.close()
    for name in ("outbox.sqlite", "outbox.sqlite-wal", "outbox.sqlite-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    fresh = Outbox(tmp_path / "outbox.sqlite")
    linked(tmp_path, fresh).engine.start(BOOT + 50.0)
    (again,) = _all_waiting(fresh)
    assert (sent.body["table"], again.body) == (7, sent.body)


def test_a_card_that_lost_its_counter_and_files_numbers_on_above_the_outbox(
    tmp_path: Path,
) -> None:
    """The outbox holds game 4's result (the counter, the journals and the result files are
    gone): the table's next game is 5, never a second game 4 for the hub."""
    outbox = Outbox(tmp_path / "outbox.sqlite")
    table = finish(begun(linked(tmp_path, outbox)), 120.0)  # game 1, kept
    outbox.keep({**outbox_body(outbox, 1), "game": 4})  # as if games 2 to 4 were played
    table.journal.close()
    for leftover in [*tmp_path.glob("journal*"), *tmp_path.glob("result-*"), tmp_path / "game-no"]:
        leftover.unlink()
    again = linked(tmp_path, outbox)
    again.engine.start(3.0)
    assert again.engine.info.game_no == 5


def outbox_body(outbox: Outbox, seq: int) -> dict[str, Any]:
    pending = outbox.oldest_waiting()
    assert pending is not None
    assert pending.seq == seq
    return dict(pending.body)
