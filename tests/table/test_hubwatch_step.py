"""What a table's watch for a moved hub does (``klik.table.service.hubwatch.step``), times as numbers."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from klik.table.service.hubwatch import Do, Watched, step

NEVER = -math.inf  # no signed ack yet


def test_a_hub_silent_since_the_courier_started_is_looked_for_after_lost_s() -> None:
    assert step(Watched(100.0), NEVER, 159.9, lost_s=60.0) is Do.NOTHING
    assert step(Watched(100.0), NEVER, 160.0, lost_s=60.0) is Do.LOOK


def test_an_ack_puts_the_look_off() -> None:
    assert step(Watched(100.0), 150.0, 200.0, lost_s=60.0) is Do.NOTHING
    assert step(Watched(100.0), 150.0, 210.0, lost_s=60.0) is Do.LOOK


def test_an_address_on_trial_is_kept_only_once_it_answered() -> None:
    trying = Watched(100.0, "http://10.0.0.9:8000", 100.0)
    assert step(trying, 99.0, 130.0, lost_s=60.0) is Do.NOTHING  # an ack from before the trial
    assert step(trying, 101.0, 130.0, lost_s=60.0) is Do.KEEP


def test_an_address_on_trial_that_does_not_answer_is_let_go() -> None:
    trying = Watched(100.0, "http://10.0.0.9:8000", 100.0)
    assert step(trying, NEVER, 159.0, lost_s=60.0) is Do.NOTHING
    assert step(trying, NEVER, 160.0, lost_s=60.0) is Do.LET_GO


@given(
    quiet=st.floats(0, 1e6),
    answered=st.one_of(st.just(NEVER), st.floats(0, 1e6)),
    later=st.floats(0, 1e6),
    trying=st.booleans(),
)
def test_nothing_changes_sooner_than_lost_s_after_the_last_sign_of_the_hub(
    quiet: float, answered: float, later: float, trying: bool
) -> None:
    watched = Watched(quiet, "http://10.0.0.9:8000" if trying else None, quiet)
    last = max(quiet, answered)
    do = step(watched, answered, last + min(later, 59.0), lost_s=60.0)
    assert do in ({Do.NOTHING, Do.KEEP} if trying else {Do.NOTHING})
    assert (do is Do.KEEP) == (trying and answered > quiet)
