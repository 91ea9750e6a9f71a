"""The polled serial channel in the radio simulator: real tables (outbox, courier,
``PolledLink``) and the real hub (``PolledHub`` on SQLite) on one shared 9600-baud channel
where every receiver misses whole frames; every result is stored exactly once, with the
receipt its table holds (``polled_round`` asserts it), and a judge's pause arrives."""

from __future__ import annotations

import logging

import pytest

from tests.bench.bench_serial import polled_round

#: ptys, real threads on the real clock: a round of results takes seconds of simulated air.
pytestmark = pytest.mark.slow


@pytest.mark.timeout(400)
@pytest.mark.parametrize(
    ("tables", "loss"),
    [
        (1, 0.0),  # one table, a clean channel
        (1, 0.3),  # one table, three frames in ten unheard
        (9, 0.1),  # a small hall
        (9, 0.3),
        (30, 0.3),  # the worst: 30 tables, three frames in ten unheard (make bench runs the
        # bench's hall, 30 tables at 0.2, at full length)
    ],
)
def test_every_result_is_stored_exactly_once(
    tables: int, loss: float, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    run = polled_round(tables, loss, seed=tables, pauses=1)
    assert run.took_s > 0
    assert len(run.pauses_s) == 1
    assert run.polls["frames"] >= tables  # every result came in some table's turn
