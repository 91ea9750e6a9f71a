"""The README's examples are commands the tests run: what it shows is what Klik does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from klik import script
from klik.table.record import replay

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.DOTALL)


def console_examples() -> list[tuple[str, str]]:
    """($ command, the output shown under it) for every `$ klik` line of a console block."""
    examples = []
    for lang, body in BLOCKS:
        if lang != "console":
            continue
        for chunk in re.split(r"^\$ ", body, flags=re.MULTILINE)[1:]:
            command, _, output = chunk.partition("\n")
            examples.append((command, output))
    return examples


def test_the_readme_has_examples() -> None:
    assert len(console_examples()) >= 3


@pytest.mark.parametrize(("command", "output"), console_examples(), ids=lambda v: v[:40])
def test_console_example(command: str, output: str) -> None:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        command,
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        check=False,
    )
    assert done.stdout + done.stderr == output
    assert done.returncode == (2 if "klik score:" in output else 0)


def test_the_script_example_runs_as_described() -> None:
    (text,) = [body for lang, body in BLOCKS if lang == "text" and body.startswith("set ")]
    record = replay.record(replay.run(script.parse(text)))
    assert record["opened"] == ["A", "C"]
    assert [m["ended_by"] for m in record["moves"]] == ["tap", "hold", "tap"]
    assert {"at": 32.0, "sound": "judge"} in record["log"]
    # A called the judge at 32.0 over C's move: C finished it at 40.0, then the clock stood
    # before A's move until the judge resumed it at 70.0: A has 40 - 20 = 20 s left at 90.0.
    assert (record["state"], record["mover"], record["time_left_s"]) == ("move", "A", 20.0)


def test_make_demo_replays_a_file_that_exists() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    sample = re.search(r"^SAMPLE := (\S+)$", makefile, flags=re.MULTILINE)
    assert sample is not None
    assert (ROOT / sample[1]).is_file()
    assert "make demo" in README
    assert "make test" in README


def test_the_demo_game_is_scenario_01() -> None:
    # The sample that `make demo` plays is checked move by move in tests/scenarios/.
    sample = script.parse((ROOT / "device/klik/samples/sample-game.klik").read_text("utf-8"))
    scenario = script.parse((ROOT / "tests/scenarios/01-sample-rummikub.klik").read_text("utf-8"))
    assert sample == scenario
