"""The tiers of the tests, and the rule that a fast test never sleeps.

Every test is fast unless it is marked (the marks are registered in pyproject.toml):

- ``browser``: it drives Debian's Chromium (a ``page`` or ``chromium_page`` fixture, or
  Playwright in the test itself);
- ``postgres``: it needs the throwaway PostgreSQL cluster (the ``postgres`` or ``pg_url``
  fixture, or a case parametrised on ``"postgresql"``);
- ``slow``: real processes, real threads on the real clock, or just slow (over half a second).
  Whole folders and files are marked in ``SLOW`` below, the users of a live hub by
  ``SLOW_FIXTURES``; a slow test among fast ones carries its own ``@pytest.mark.slow``;
- ``solo``: slow tests that time real events closely (the files in ``SOLO`` below);
- ``quiet``: slow tests on the simulated radio, which need a quiet machine (``QUIET``).

``make check`` runs the fast tests (``-m "not slow and not browser and not postgres and not
solo and not quiet"``) in well under a minute. ``make test`` runs them all: the ``solo`` ones
one at a time, and meanwhile all the others but the ``quiet`` ones in parallel
(pytest-xdist, ``-n``) at the lowest priority; then the ``quiet`` ones, one at a time.

Hypothesis runs without its per-example deadline (the ``klik`` profile): a deadline is a
speed check, and on a machine running the suite in parallel an example that takes 6 ms
alone took 426 ms once, which Hypothesis reports as a flaky failure. Tests that must be
fast say so in their own ``settings``.

A fast test passes time as numbers (STYLE.md: time is data). So in a fast test the test's own
code (anything under tests/, on the test's thread) may neither ``time.sleep`` nor wait out the
timeout of a ``threading.Event``: it fails at once, saying where. A test that must wait on the
real clock is marked ``slow`` (or is a browser or PostgreSQL test), and each of its sleeps
says why on its line with a ``# sleep-ok:`` comment (``tests/test_tiers.py`` checks that).
The code under test may wait in any test: a courier's back-off or a daemon's loop on its own
thread is what some tests drive for real.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

from klik import rules

TESTS = Path(__file__).resolve().parent

settings.register_profile("klik", deadline=None)
settings.load_profile("klik")

# httpx gives up on an answer after 5 s by default. In `make test` the parallel tier runs at the
# lowest priority beside the solo tier's browsers and daemons, which can starve it (and the
# hubs and PostgreSQL it started) for seconds: a CI run failed one plain GET that way. Tests
# that time an answer say so with their own timeout; every other request may wait a minute.
# httpx has no public setting for its default, which every ``httpx.get``/``Client`` copies.
for _part in ("connect", "read", "write", "pool"):
    setattr(httpx._config.DEFAULT_TIMEOUT_CONFIG, _part, 60.0)

BROWSER_FIXTURES = {"page", "chromium_page", "phone"}
POSTGRES_FIXTURES = {"postgres", "pg_url"}

#: Folders and files whose every test is slow, relative to tests/, and why.
SLOW = {
    "crash/": "the real daemon and hub, killed with SIGKILL on the real clock",
    "web/": "the virtual table's real daemon and HTTP server",
    "link/test_serial_link.py": "ptys and real threads on the real clock",
    "table/test_daemon.py": "the real daemon's threads, systemd's notify socket",
    "hub/test_demo.py": "`make demo`'s real processes",
    "hub/test_hub_failures.py": "a live hub or `klik hub` on a full disk, a lost database, SIGTERM",
    "hub/test_hub_fuzz.py": "schemathesis: hundreds of requests to a live hub",
    "hub/test_hub_security.py": "real `klik hub` processes, TLS, slow clients and guessers",
    "hub/test_serial_hub.py": "tables on a simulated radio channel, real threads",
    "hub/test_table_to_hub.py": "the real daemon with the hub, real presses",
    "hub/test_tournament_properties.py": "whole tournaments on live hubs, many examples",
    "hub/test_tournament_tables.py": "real daemons playing a round with the hub",
}

#: Folders and files whose tests time real events to tens of milliseconds, and why. `make test` runs the
#: other tests in parallel (pytest-xdist), more workers than cores, at the lowest priority,
#: and these meanwhile in a run of their own, one at a time at the normal priority, so that
#: no other test's load stretches the gaps they time (a radio's frames missed under load
#: looked like a fault). They are slow too.
SOLO = {
    "web/test_virtual_table.py": "a browser's taps, double taps and holds, timed by the table",
    "crash/": "a real daemon's taps and double taps, 0.1 s apart, between the kills",
    "hub/test_table_to_hub.py": "a real daemon's double taps, timed by its debounce",
    "hub/test_tournament_tables.py": "real daemons' presses, timed by their debounce",
    # A clean run failed its round in the parallel tier: a starved worker stretched a double tap.
    "hub/test_console.py": "a round played by real daemons' double taps, from the console",
    "hub/test_demo.py": "`make demo`'s tables played by double taps 0.06 s apart",
    # A clean run failed its polled game in the parallel tier: a double tap read as two taps.
    "hub/test_pairing_over_serial.py": "a virtual table's double taps, over a serial link",
    # A clean run failed its re-pair in the parallel tier: a double tap read as two taps.
    "hub/test_table_renumbering.py": "a real daemon's games, double taps and judge-key holds",
    "hub/test_console_rule_sets.py": "a round under the judge's rule set, by a daemon's double taps",
}

#: Files whose tests need a quiet machine, and why: the simulated radio (``helpers/radio.py``)
#: carries bytes at the baud's pace on the real clock, and a broker thread or a hub held up
#: for tens of milliseconds makes a collision no real channel would have. `make test` runs
#: them last, one at a time, with nothing else running; a test elsewhere that uses the radio
#: carries its own ``@pytest.mark.quiet``. They are slow too.
QUIET = {
    "hub/test_serial_hub.py": "tables and the hub on the simulated radio, frame gaps timed",
    "hub/test_repair_over_serial.py": "a daemon on the simulated radio, re-paired by the key",
    "hub/test_polled_hub.py": "the polled channel's turns on the simulated radio",
    "link/test_serial_link.py": "the table's serial link on the simulated radio",
    "link/test_polled_link.py": "the table's polled link on the simulated radio",
}

#: Fixtures that make every test using them slow, and why.
SLOW_FIXTURES = {
    "hub": "a live hub: uvicorn on a loopback socket, a third of a second to start and stop",
}

#: The tiers whose tests may wait on the real clock.
REAL_CLOCK = ("slow", "browser", "postgres")


def _tier_marks(item: pytest.Item) -> list[pytest.MarkDecorator]:
    """The marks a test earns by its fixtures (all it uses, however indirectly), its
    parameters and its file."""
    marks = []
    names = set(getattr(item, "fixturenames", ()))
    code = getattr(getattr(item, "function", None), "__code__", None)
    # A test that starts Chromium by itself (tests.helpers.browser, or Playwright directly)
    starts_chromium = code is not None and bool(
        {"chromium_page", "sync_playwright"} & set(code.co_names)
    )
    if names & BROWSER_FIXTURES or starts_chromium:
        marks.append(pytest.mark.browser)
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    if names & POSTGRES_FIXTURES or any(isinstance(p, str) and p == "postgresql" for p in params):
        marks.append(pytest.mark.postgres)
    where = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
    quiet = any(where.startswith(path) for path in QUIET) or item.get_closest_marker("quiet")
    solo = not quiet and any(where.startswith(path) for path in SOLO)  # quiet wins: one run
    alone = solo or quiet
    if alone or names & SLOW_FIXTURES.keys() or any(where.startswith(path) for path in SLOW):
        marks.append(pytest.mark.slow)
    if solo:
        marks.append(pytest.mark.solo)
    if quiet:
        marks.append(pytest.mark.quiet)
    return marks


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for mark in _tier_marks(item):
            item.add_marker(mark)


#: The tests that take longest in `make test`'s parallel run, and about how long each case
#: takes there (seconds, from ``pytest --durations`` on the 2-core machine; a test id before
#: its parameters, or a file). Only an ordering hint: a wrong figure costs balance, never a
#: result.
LONG = {
    "hub/test_hub_fuzz.py": 55,
    "hub/test_tournament_properties.py": 45,
    "hub/test_feed.py::test_the_public_pages_agree_with_the_standings_after_every_result": 25,
    "link/test_polled_channel.py": 25,
    "test_benches.py::test_the_bench_runs_to_its_end": 18,
    "hub/test_hub_store.py::test_two_hub_processes_on_one_postgresql_serve_the_same_tables": 23,
    "test_bundle.py": 20,
    "hub/test_console_day.py": 17,
    "hub/test_release_together.py": 13,
    "hub/test_archive.py::test_the_archive_of_a_whole_tournament_opens_from_file_in_chromium": 16,
    "hub/test_hub_limits.py::test_draws_sent_at_once_are_drawn_one_after_another": 17,
    "hub/test_console_hall.py": 15,
    "link/test_messages.py::test_what_the_table_sends_the_hub_decodes_as_it_was": 14,
    "hub/test_lost_results.py": 12,
    "hub/test_pages_fit.py": 12,
    "hub/test_pairing_at_the_table.py": 10,
}


def _long_s(item: pytest.Item) -> float:
    where = f"{item.path.relative_to(TESTS).as_posix()}::{item.name.split('[')[0]}"
    return max((s for key, s in LONG.items() if where.startswith(key)), default=0.0)


class _Spread:
    """Under pytest-xdist's ``worksteal``, each worker first takes one contiguous part of the
    tests in order (the rest is stolen later, from the parts' ends): this puts the longest
    tests at the heads of those parts, spread so that every worker starts on about as many
    seconds of them. In collection order one worker once met both 140 s tournaments last and
    held the whole run up by two minutes. (A plugin of its own: the conftest's hook of the
    same name marks the tiers, before ``-m`` deselects; this one runs after.)"""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
        if workers < 2 or len(items) < 4 * workers:
            return
        long = sorted((i for i in items if _long_s(i)), key=_long_s, reverse=True)
        heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
        load = [0.0] * workers
        for item in long:  # each to the part with the fewest seconds so far (LPT)
            part = load.index(min(load))
            heads[part].append(item)
            load[part] += _long_s(item)
        taken = set(map(id, long))
        rest = iter([i for i in items if id(i) not in taken])
        ordered: list[pytest.Item] = []
        for part in range(workers):  # the parts as worksteal cuts them: len(pending) // left
            size = (len(items) - len(ordered)) // (workers - part)
            ordered += heads[part]
            ordered += itertools.islice(rest, max(0, size - len(heads[part])))
        ordered += list(rest)
        items[:] = ordered


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Spread(), "klik-spread")


@pytest.fixture(autouse=True)
def _judges_rule_sets_stay_in_their_test() -> Iterator[None]:
    """The rule sets a test's hub added (``klik.rules.add``) are the process's, as a hub's
    are: forgotten after the test, so the next test's messages list Klik's own sets only."""
    kept = rules.added()
    yield
    rules.restore(kept)


@pytest.fixture(autouse=True)
def _fast_tests_never_sleep(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a fast test, a sleep (``sleep(s)`` from ``time``) and an ``Event.wait(s)`` that
    times out fail the test when the test's own code calls them on the test's thread (see the
    module's docstring)."""
    if any(request.node.get_closest_marker(tier) for tier in REAL_CLOCK):
        return
    test_thread = threading.get_ident()
    tests = f"{TESTS}/"
    sleep, wait = time.sleep, threading.Event.wait

    def refuse(what: str) -> None:
        caller = sys._getframe(2)
        where = Path(caller.f_code.co_filename).relative_to(TESTS.parent)
        pytest.fail(
            f"a fast test must not sleep ({what} at {where}:{caller.f_lineno}): pass time as "
            "numbers, or mark the test slow and say why on the line with # sleep-ok:",
            pytrace=False,
        )

    def by_the_test() -> bool:
        caller = sys._getframe(2).f_code.co_filename
        return threading.get_ident() == test_thread and caller.startswith(tests)

    def checked_sleep(seconds: float) -> None:
        if seconds > 0 and by_the_test():
            refuse(f"time.sleep({seconds})")  # sleep-ok: names the sleep it refuses
        sleep(seconds)

    def checked_wait(self: threading.Event, timeout: float | None = None) -> bool:
        done = wait(self, timeout)
        if not done and timeout is not None and timeout > 0 and by_the_test():
            refuse(f"an Event's wait({timeout}) that timed out")
        return done

    monkeypatch.setattr(time, "sleep", checked_sleep)
    monkeypatch.setattr(threading.Event, "wait", checked_wait)
