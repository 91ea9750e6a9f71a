"""The tiers of the tests (tests/conftest.py): what `make check` leaves out, and sleeping."""

from __future__ import annotations

import ast
import re
import threading
import time
import tomllib
from pathlib import Path

import pytest

from tests.conftest import QUIET, SLOW, SOLO, TESTS

ROOT = TESTS.parent


def sleeps(tree: ast.AST) -> list[ast.Call]:
    """Every call of ``sleep`` from ``time`` and of an ``Event``'s ``wait``: the two ways a
    test could sleep."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("sleep", "wait")
    ]
    return [
        call
        for call in calls
        if ast.unparse(call.func) in ("time.sleep", "threading.Event().wait", "Event().wait")
    ]


def test_every_sleep_in_the_tests_says_why() -> None:
    unsaid = []
    for path in sorted(TESTS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "sleep(" not in text and "wait(" not in text:
            continue  # parsing only the files that may sleep keeps this test fast
        lines = text.splitlines()
        for call in sleeps(ast.parse(text)):
            said = lines[call.lineno - 1 : (call.end_lineno or call.lineno)]
            if not any("# sleep-ok:" in line for line in said):
                unsaid.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert unsaid == [], "a sleep without '# sleep-ok: why' on its line"


def test_a_fast_test_that_sleeps_fails_saying_where() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"must not sleep \(time.sleep\(0.001\) at "):
        time.sleep(0.001)  # sleep-ok: to be refused, since this test is fast
    with pytest.raises(pytest.fail.Exception, match=r"an Event's wait\(0.001\) that timed out"):
        threading.Event().wait(0.001)  # sleep-ok: to be refused, since this test is fast


def test_a_fast_test_may_wait_for_what_another_thread_does() -> None:
    done = threading.Event()
    worker = threading.Thread(target=done.set)
    worker.start()
    assert done.wait(5)
    worker.join()


@pytest.mark.slow
def test_a_slow_test_may_sleep() -> None:
    time.sleep(0.001)  # sleep-ok: this is what slow tests may do


def test_every_folder_and_file_said_to_be_slow_is_there() -> None:
    assert [path for path in SLOW if not (TESTS / path).exists()] == []


def test_every_file_said_to_be_solo_or_quiet_is_there() -> None:
    assert [path for path in (*SOLO, *QUIET) if not (TESTS / path).exists()] == []


def test_the_simulated_radio_s_tests_are_quiet() -> None:
    """Every test file that starts the simulated radio is quiet, or marks its tests that do."""
    loud = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("test_*.py"))
        if path != Path(__file__)
        and "Radio(" in (text := path.read_text(encoding="utf-8"))
        and not any(str(path.relative_to(TESTS)).startswith(q) for q in QUIET)
        and text.count("Radio(") > text.count("@pytest.mark.quiet")
    ]
    assert loud == []


def test_make_check_leaves_out_every_tier_and_make_test_none() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = options["tool"]["pytest"]["ini_options"]["markers"]
    tiers = {marker.split(":")[0] for marker in markers}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    check = re.search(r"^check:.*\n(?:\t.*\n)*?\t\$\(BIN\)/pytest (.*)$", makefile, re.MULTILINE)
    assert check is not None
    assert set(re.findall(r"not (\w+)", check[1])) == tiers
    unit = re.search(r"^unit:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert unit is not None
    runs = re.findall(r"\$\(BIN\)/pytest ([^;&>]*)", unit[1])
    # make test runs every test: the solo ones in one run, all the others in the other
    assert [run.strip() for run in runs] == [
        "-m solo",
        '-n $(JOBS) --dist worksteal -m "not solo and not quiet"',
        "-m quiet",
    ], runs
