"""``make bench``: how long the table takes to come back from a power cut late in a long game.

A journal of a 300-move game as the daemon writes it (every edge, a checkpoint a second while
the clock runs) is read back, checked line by line, replayed through the core and recovered
by the real engine (``Engine.start``, with the journal's recovery line fsynced). Not a timed
test: it prints the median of a few runs next to its goal.
"""

from __future__ import annotations

import json
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from klik.core.tabletop import Edge
from klik.table import config as c
from klik.table.game import journal as j
from klik.table.game.engine import Engine
from tests.bench.quick import size

MOVES = size(300, 10)
MOVE_S = 20.0  # each move a third of its 60 s: a checkpoint a second adds 20 lines a move
RUNS = size(7, 1)
GOAL_MS = 200.0


def long_journal(path: Path) -> int:
    """Write the journal of a game ``MOVES`` moves long; returns its number of lines."""
    entries: list[j.Entry] = [Edge("D", True, 1.0), Edge("D", False, 1.1)]
    at = 1.0
    seats = "ABCD"
    for move in range(MOVES):
        for second in range(1, int(MOVE_S)):
            entries.append(j.Checkpoint(at + second + 0.13))
        at += MOVE_S
        entries += [Edge(seats[move % 4], True, at), Edge(seats[move % 4], False, at + 0.1)]
        entries.append(j.Checkpoint(at + 0.13))
    header = {"journal": j.VERSION, "table": "1", "game_no": 1, "seats": list(seats), "at": 0.0}
    lines = [json.dumps(header), *(json.dumps(j.encode(e)) for e in entries)]
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def recover_once(folder: Path, journal: Path) -> tuple[float, Engine]:
    copy = folder / "journal.jsonl"
    shutil.copy(journal, copy)
    engine = Engine(c.load(None), j.Journal(copy), None)
    began = time.perf_counter()
    engine.start(3.0)
    took = time.perf_counter() - began
    assert engine.journal is not None
    engine.journal.close()
    return took, engine


def main() -> None:
    logging.disable(logging.WARNING)  # each run logs its recovery; the figure is what counts
    with tempfile.TemporaryDirectory(prefix="klik-bench-") as name:
        folder = Path(name)
        source = folder / "source.jsonl"
        lines = long_journal(source)
        times = []
        for _ in range(RUNS):
            took, engine = recover_once(folder, source)
            times.append(took)
        game = engine.game
        assert len(game.moves) == MOVES, len(game.moves)
        assert game.paused_by == "recovery"
    median_ms = statistics.median(times) * 1000
    verdict = "✓" if median_ms < GOAL_MS else "✗"
    print(
        f"recovery of a {MOVES}-move journal ({lines} lines): median {median_ms:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}; {RUNS} runs)  "
        f"goal < {GOAL_MS:.0f} ms {verdict}"
    )


if __name__ == "__main__":
    main()
