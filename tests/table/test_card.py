"""The card as the table's writes find it: full, read-only or refusing, said once in the log,
shown on every seat and in the heartbeat's health, and ``ok`` again once a write goes through."""

from __future__ import annotations

import errno
import logging
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from klik.link import protocol as p
from klik.table.game import journal as j
from klik.table.game.card import Card, CardState
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
