"""The one "did you mean": config keys, scripts, score sheets and formats all ask it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from klik.suggest import did_you_mean

KEYS = ("move_time_s", "penalty_tiles", "warn_s")


@pytest.mark.parametrize(
    ("word", "allowed", "show", "hint"),
    [
        ("move_tme_s", KEYS, str, "did you mean move_time_s?"),  # a letter left out
        ("wran_s", KEYS, str, "did you mean warn_s?"),  # two letters swapped
        ("hodl", ("down", "up", "tap", "hold"), repr, "did you mean 'hold'?"),  # a script's words are quoted
        ("seats", KEYS, str, ""),  # nothing close: the caller lists what is allowed instead
        ("", KEYS, str, ""),  # an empty word is close to nothing
        ("warn_s", (), str, ""),  # nothing allowed at all
        ("szczecn", iter(["liga", "open", "szczecin"]), str, "did you mean szczecin?"),  # any iterable
    ],
)  # fmt: skip
def test_did_you_mean(
    word: str, allowed: tuple[str, ...], show: Callable[[str], str], hint: str
) -> None:
    assert did_you_mean(word, allowed, show) == hint
