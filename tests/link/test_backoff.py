"""The link's back-off: never negative, never above the 15 s cap, longer on average with each try."""

from __future__ import annotations

import ast
import random
import statistics
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.link import backoff

attempts = st.integers(min_value=0, max_value=10**6)  # a table cut off for days
seeds = st.integers(min_value=0, max_value=2**64)


@given(attempt=attempts, seed=seeds)
def test_a_delay_is_never_negative_nor_above_the_cap(attempt: int, seed: int) -> None:
    wait = backoff.delay(attempt, random.Random(seed))
    assert 0.0 <= wait <= backoff.ceiling(attempt) <= backoff.CAP_S


@given(attempt=attempts)
def test_the_ceiling_never_shrinks(attempt: int) -> None:
    assert backoff.ceiling(attempt) <= backoff.ceiling(attempt + 1)


@given(attempt=st.integers(min_value=0, max_value=40), seed=seeds)
def test_delays_grow_on_average_until_the_cap(attempt: int, seed: int) -> None:
    rng = random.Random(seed)
    now = statistics.fmean(backoff.delay(attempt, rng) for _ in range(500))
    later = statistics.fmean(backoff.delay(attempt + 1, rng) for _ in range(500))
    # The mean is half the ceiling. Of 500 draws of a full jitter (uniform from 0 to the
    # ceiling) its standard deviation is 2.6 % of it; six of them, 15.5 %, hold for any seed
    # hypothesis tries (at 10 % it found a seed 4 deviations out).
    assert now == pytest.approx(backoff.ceiling(attempt) / 2, rel=0.155)
    if backoff.ceiling(attempt + 1) > backoff.ceiling(attempt):
        assert later > now
    else:
        assert later == pytest.approx(now, rel=0.2)  # at the cap: as long, on average


@pytest.mark.parametrize(
    ("attempt", "ceiling"),
    [
        (0, 0.5),  # the first retry comes within half a second
        (1, 1.0),
        (2, 2.0),
        (3, 4.0),
        (4, 8.0),
        (5, 15.0),  # 16 s, capped: a hub that comes back is reached within 15 s
        (6, 15.0),
        (10**9, 15.0),  # no float overflow, however long the hub has been away
    ],
)
def test_the_ceiling_doubles_up_to_15_s(attempt: int, ceiling: float) -> None:
    assert backoff.ceiling(attempt) == ceiling


def test_the_same_seed_gives_the_same_delays() -> None:
    def series(seed: int) -> list[float]:
        rng = random.Random(seed)
        return [backoff.delay(n, rng) for n in range(8)]

    assert series(7) == series(7)
    assert series(7) != series(8)
    assert len(set(series(7)[5:])) == 3  # at the cap too, the delays are jittered, not fixed


def test_the_global_random_state_is_left_alone() -> None:
    before = random.getstate()
    backoff.delay(3, random.Random(1))
    assert random.getstate() == before


def test_a_negative_attempt_is_refused() -> None:
    with pytest.raises(ValueError, match="attempt must be 0 or more, got -1"):
        backoff.delay(-1, random.Random(0))


def test_the_module_reads_no_clock() -> None:
    # Pure: the caller owns time and randomness (a seeded Random in tests).
    tree = ast.parse(Path(backoff.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported & {"time", "datetime", "os", "asyncio", "threading"} == set()
