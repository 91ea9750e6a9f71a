"""The typed values of a seat's view: who paused the clock, and the screen's alerts."""

from __future__ import annotations

import copy
import pickle

import pytest

from klik.core import game as g
from klik.table.screens.view import Alert, AlertKind, PausedBy, pauser


@pytest.mark.parametrize(
    ("by", "typed"),
    [
        (None, None),  # the clock was not paused
        ("judge", PausedBy.JUDGE),  # the judge key or the virtual table
        ("hub", PausedBy.HUB),  # the judge's console
        (g.RECOVERY, PausedBy.RECOVERY),  # after a power cut
        ("C", "C"),  # seat C called the judge: its letter
    ],
)
def test_the_games_paused_by_is_typed_for_the_view(by: str | None, typed: object) -> None:
    assert pauser(by) == typed
    assert type(pauser(by)) is type(typed)


# The alerts as the log writes them: kind, and the seat it is about.
@pytest.mark.parametrize(
    ("alert", "code"),
    [
        (Alert(AlertKind.STUCK, "B"), "stuck:B"),  # B's button held
        (Alert(AlertKind.PANEL, "C"), "panel:C"),  # C's screen out
        (Alert(AlertKind.HUB), "hub"),  # the hub unreachable
    ],
)
def test_an_alert_is_its_kind_and_seat(alert: Alert, code: str) -> None:
    assert str(alert) == code
    for copied in (copy.deepcopy(alert), pickle.loads(pickle.dumps(alert))):
        assert copied == alert
        assert copied != code  # a typed value, not a string
