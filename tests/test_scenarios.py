"""Whole games as scripts (tests/scenarios/*.klik), run through the real table.

Each script states what the rules expect in ``#> PATH = JSON`` lines, written by hand from
RULES.md and the seeds; PATH is a dotted path into the game record (list indexes may be
negative) or ``len(PATH)``. Each script's full record is also kept next to it as
``NAME.json`` so that any change in behaviour shows up; after a deliberate change, rewrite
them with ``KLIK_WRITE_RECORDS=1 pytest tests/test_scenarios.py`` and read the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from klik import script
from klik.table.record import replay

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.klik"))
EXPECT = re.compile(r"^#>\s*(?P<path>\S+)\s*=\s*(?P<value>.+?)\s*$")


def expectations(text: str) -> list[tuple[str, Any]]:
    found = []
    for line in text.splitlines():
        match = EXPECT.match(line.strip())
        if match:
            found.append((match["path"], json.loads(match["value"])))
    return found


def lookup(record: Any, path: str) -> Any:
    length = path.startswith("len(") and path.endswith(")")
    value = record
    for part in (path[4:-1] if length else path).split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return len(value) if length else value


def test_there_are_at_least_ten_whole_games() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    record = replay.record(replay.run(script.parse(text)))
    expected = expectations(text)
    assert expected, f"{path.name} states no expectations (#> lines)"
    for key, value in expected:
        assert lookup(record, key) == value, f"{path.name}: {key}"
    golden = path.with_suffix(".json")
    if os.environ.get("KLIK_WRITE_RECORDS") == "1":
        golden.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
    assert golden.exists(), f"no recorded {golden.name}: run with KLIK_WRITE_RECORDS=1"
    assert record == json.loads(golden.read_text(encoding="utf-8"))
