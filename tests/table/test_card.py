"""The card as the table's writes find it: full, read-only or refusing, said once in the log,
shown on every seat and in the heartbeat's health, and ``ok`` again once a write goes through."""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from klik.link import protocol as p
from klik.table.game import card as card_module
from klik.table.game import journal as j
from klik.table.game.card import RESERVE, Card, CardState
from klik.table.screens.view import Alert, AlertKind
from tests.table.test_engine import Table


@pytest.mark.parametrize(
    ("code", "state"),
    [
        (errno.ENOSPC, CardState.FULL),
        (errno.EDQUOT, CardState.FULL),
        (errno.EROFS, CardState.READ_ONLY),
        (errno.EACCES, CardState.NO_PERMISSION),
        (errno.EPERM, CardState.NO_PERMISSION),
    ],
)
def test_a_failed_write_names_the_cards_state_once_and_a_good_one_clears_it(
    code: int, state: CardState, caplog: pytest.LogCaptureFixture
) -> None:
    card = Card()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            card.failed(OSError(code, "refused"), "the game's moves")
    assert (card.state, card.errors) == (state, 3)
    assert len(caplog.records) == 1  # said once, not at every write of the game
    assert "the game goes on, but is not being kept" in caplog.text
    card.wrote()
    assert (card.state, card.errors) == (CardState.OK, 3)
    assert "zapis znów działa" in caplog.records[-1].getMessage()


def test_another_fault_is_counted_but_names_no_state() -> None:
    card = Card()
    card.failed(OSError(errno.EIO, "I/O error"), "game 3's number")
    assert (card.state, card.errors) == (CardState.OK, 1)


def test_a_full_card_is_on_every_seat_until_space_is_back(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    write = j.os.write

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    mocker.patch.object(j.os, "write", full)  # the card fills up
    table.press("D", 1.0).press("A", 3.0)
    assert table.game.mover == "B"  # the game goes on
    assert table.engine.info.card == "full"
    for view in table.engine.views.values():
        assert Alert(AlertKind.CARD_FULL) in view.alerts
    assert table.engine.card.errors >= 4
    mocker.patch.object(j.os, "write", write)  # the organiser freed space
    table.press("B", 5.0)
    assert table.engine.info.card == "ok"
    assert all(Alert(AlertKind.CARD_FULL) not in v.alerts for v in table.engine.views.values())


def test_a_journal_on_dev_full_says_the_card_is_full(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    journal.symlink_to("/dev/full")  # every write: no space left on the device
    table = Table(tmp_path, journal=j.Journal(journal))
    table.engine.start(0.0)
    assert table.engine.info.card == "full"


def test_the_cards_state_and_errors_travel_in_the_health() -> None:
    health = p.Health(card="read-only", card_errors=12)
    assert p.Health.decode(health.json()) == health
    assert p.Health.decode({}).card is None  # an older table says nothing of its card
    with pytest.raises(p.ProtocolError) as refused:
        p.Health.decode({"card": "broken"})
    assert str(refused.value) == (
        "body.health.card: must be one of ok, full, read-only, no-permission, or null"
    )
    with pytest.raises(p.ProtocolError):
        p.Health.decode({"card_errors": -1})


# --- the reserve: room for the games when the card fills up -------------------------------

KIB = 1024


def held_on_disk(path: Path) -> int:
    """The bytes the file has blocks for (a sparse file would hold none)."""
    return path.stat().st_blocks * 512


def full_once() -> Callable[[], str]:
    """A write that finds the card full the first time, and goes through after."""
    tries = []

    def write() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return "written"

    return write


def test_the_reserve_holds_a_quarter_of_the_free_space_at_most(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    mocker.patch.object(card_module, "free_bytes", return_value=4 * 2**20)
    (tmp_path / "small").mkdir()
    small = Card()
    small.hold(tmp_path / "small")
    assert small.held == 2**20 == held_on_disk(tmp_path / "small" / RESERVE)  # a quarter
    roomy = Card()
    roomy.hold(tmp_path, most=64 * KIB)
    assert roomy.held == 64 * KIB <= held_on_disk(tmp_path / RESERVE)  # real blocks
    assert (small.state, roomy.state) == (CardState.OK, CardState.OK)


def test_a_write_the_full_card_refuses_lets_the_reserve_go_and_is_made_again(
    tmp_path: Path, mocker: MockerFixture, caplog: pytest.LogCaptureFixture
) -> None:
    free = mocker.patch.object(card_module, "free_bytes", return_value=2**30)
    card = Card()
    card.hold(tmp_path, most=64 * KIB)
    free.return_value = 0  # the card fills up
    with caplog.at_level(logging.WARNING):
        assert card.attempt(full_once()) == "written"  # the game is kept all the same
    assert (card.state, card.errors, card.held) == (CardState.FULL, 1, 0)
    assert held_on_disk(tmp_path / RESERVE) < 64 * KIB  # the room is the game's now
    assert "zapas 64 KiB zwolniony" in caplog.text
    card.wrote()
    assert card.state is CardState.FULL  # on the reserve's room: the judge should come
    free.return_value = 127 * KIB  # not yet twice the reserve
    card.wrote()
    assert card.state is CardState.FULL
    free.return_value = 128 * KIB  # space freed: the reserve is held again
    card.wrote()
    assert (card.state, card.held) == (CardState.OK, 64 * KIB)
    assert held_on_disk(tmp_path / RESERVE) >= 64 * KIB


def test_without_a_reserve_a_full_card_refuses_the_write() -> None:
    card = Card()
    with pytest.raises(OSError, match="No space"):
        card.attempt(full_once())
    assert card.spare(OSError(errno.EROFS, "Read-only file system")) is False


def test_a_restart_after_the_reserve_was_let_go_knows_the_card_filled_up(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    free = mocker.patch.object(card_module, "free_bytes", return_value=2**30)
    card = Card()
    card.hold(tmp_path, most=64 * KIB)
    card.attempt(full_once())
    free.return_value = 100 * KIB  # what the reserve gave back, less the games since
    again = Card()
    again.hold(tmp_path, most=64 * KIB)  # not a quarter of 100 KiB held anew, and "ok"
    assert (again.state, again.held) == (CardState.FULL, 0)
    free.return_value = 2**30  # the organiser freed space while the table was off
    third = Card()
    third.hold(tmp_path, most=64 * KIB)
    assert (third.state, third.held) == (CardState.OK, 64 * KIB)


def test_a_card_nearly_full_at_start_lets_its_reserve_go_at_once(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    free = mocker.patch.object(card_module, "free_bytes", return_value=2**30)
    Card().hold(tmp_path, most=64 * KIB)
    free.return_value = 10 * KIB  # it filled up while the table was off (a log, a copy)
    card = Card()
    card.hold(tmp_path, most=64 * KIB)
    assert (card.state, card.held) == (CardState.FULL, 0)
    assert held_on_disk(tmp_path / RESERVE) < 64 * KIB
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    none = Card()
    none.hold(fresh, most=64 * KIB)  # no reserve and no room for one: full at once
    assert (none.state, none.held) == (CardState.FULL, 0)
    assert not (fresh / RESERVE).exists()


def test_no_reserve_is_held_when_the_config_wants_none(tmp_path: Path) -> None:
    Card().hold(tmp_path, most=64 * KIB)
    card = Card()
    card.hold(tmp_path, most=0)  # [table] reserve_mib = 0
    assert (card.state, card.held) == (CardState.OK, 0)
    assert not (tmp_path / RESERVE).exists()  # the one held before is given back
