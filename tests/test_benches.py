"""Every bench runs to its end (``KLIK_BENCH_QUICK=1``: tiny sizes, figures not judged), so a
change of behaviour that a bench relies on fails here, not unseen in ``make bench``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHES = sorted((Path(__file__).resolve().parent / "bench").glob("bench_*.py"))


def test_every_bench_is_here() -> None:
    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text(encoding="utf-8")
    assert {b.name for b in BENCHES} == {
        line.split("tests/bench/")[1].strip()
        for line in makefile.splitlines()
        if "tests/bench/bench_" in line
    }


@pytest.mark.timeout(300)
@pytest.mark.parametrize("bench", BENCHES, ids=lambda b: b.stem)
def test_the_bench_runs_to_its_end(bench: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(bench)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "KLIK_BENCH_QUICK": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "goal" in done.stdout or "needs" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
