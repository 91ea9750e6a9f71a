"""Every crash state of whole games, as ALICE builds them (``tests.helpers.crashstates``):
the table's file calls recorded while real games are played, every state a cut at any of
them can leave (a process killed, the power gone, the folder's changes without their data
and the data without the folder's changes), and the real recovery started on each. No kept
result is lost, no game number comes back twice or skips ahead, no seq that may have gone
to the hub comes again or holds another result, a renumber leaves the
pairing whole (the old number or the new, the new once shown), recovery never raises.

``make test`` runs a few games (here); ``make bench`` every state of twenty
(``tests.bench.bench_crash_states``), printing how many states it checked.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from klik.link.outbox import Outbox
from klik.table.config import paired
from klik.table.game import durable
from klik.table.game import keeper as k
from tests.helpers import crashstates
from tests.helpers.crashstates import play, violations


@pytest.mark.slow  # a few hundred recoveries
def test_every_crash_state_of_three_games_recovers_without_losing_a_game_or_a_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.CRITICAL)  # each damaged state logs; hundreds of lines
    folder = tmp_path / "state"
    folder.mkdir()
    recorder = play(folder, 3, monkeypatch)
    assert len(recorder.kept) == 3  # the games' results, kept
    found = list(violations(recorder))
    broken = [v for _, v in found if v is not None]
    assert found[-1][0] > 150  # every state of the games, each kind of cut
    assert broken == [], "\n".join(map(str, broken[:10]))


@pytest.mark.slow
def test_the_harness_finds_a_result_whose_name_was_never_made_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The harness can fail: a result file linked into place without the folder's fsync is
    lost by a cut before the folder reaches the card, and it says so."""
    caplog.set_level(logging.CRITICAL)
    monkeypatch.setattr(durable, "sync_folder", lambda folder: None)
    folder = tmp_path / "state"
    folder.mkdir()
    recorder = play(folder, 1, monkeypatch)
    broken = [str(v) for _, v in violations(recorder) if v is not None]
    assert broken, "no state lost the result"
    assert all(said.endswith("game 1's kept result is lost or changed") for said in broken)


def rewritten_in_place(config: Any, given: dict[str, Any]) -> Path:
    """``paired.keep`` as a careless writer would: truncated and written over, no rename."""
    path = paired.path_of(config)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, tomli_w.dumps({"hub": given}).encode())
    finally:
        os.close(fd)
    return path


@pytest.mark.slow
def test_the_harness_finds_a_pairing_rewritten_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The renumber's states are checked too: ``paired.toml`` rewritten in place, not whole
    and renamed, is empty after a cut, and the table would forget its pairing."""
    caplog.set_level(logging.CRITICAL)
    folder = tmp_path / "state"
    folder.mkdir()
    monkeypatch.setattr(paired, "keep", rewritten_in_place)
    recorder = play(folder, 3, monkeypatch)
    broken = [str(v) for _, v in violations(recorder) if v is not None]
    assert broken, "no state lost the pairing"
    assert all("paired.toml does not hold table" in said for said in broken), broken[:3]
    assert any("does not hold table 3 or 8" in said for said in broken)  # truncated, torn
    assert any(said.endswith("does not hold table 8") for said in broken)  # never fsynced


@pytest.mark.slow
@pytest.mark.parametrize("high_water", [True, False])
def test_when_the_database_loses_its_commits_only_outbox_seq_keeps_a_seq_from_coming_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
    high_water: bool,
) -> None:  # fmt: skip
    """Every state with the outbox's database as a lost WAL leaves it (no commit in it): the
    seqs handed out are still above every one that may have gone, thanks to ``outbox.seq``
    (and the results put back from their files); without both, the harness finds a seq
    that would be handed out twice."""
    caplog.set_level(logging.CRITICAL)
    monkeypatch.setattr(crashstates, "_image", lambda outbox: b"")
    if not high_water:  # and no result file goes back into the outbox at the restart
        monkeypatch.setattr(Outbox, "_write_high_water", lambda outbox, seq: None)
        monkeypatch.setattr(k.Keeper, "restore", lambda keeper, went="": None)
    folder = tmp_path / "state"
    folder.mkdir()
    recorder = play(folder, 2, monkeypatch)
    assert len(recorder.sent) == 2
    broken = [str(v) for _, v in violations(recorder) if v is not None]
    if high_water:
        assert broken == []
    else:
        assert broken, "no seq came again"
        reused = ("may have been sent", "holds another result than the one sent")
        others = [said for said in broken if not any(word in said for word in reused)]
        assert others == [], others[:3]
