"""Core tests pass time as numbers: sleeping in one is a bug, so it fails loudly."""

from __future__ import annotations

import time

import pytest


@pytest.fixture(autouse=True)
def _no_sleeping(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(seconds: float) -> None:
        raise AssertionError(f"core tests never sleep (asked to sleep {seconds} s)")

    monkeypatch.setattr(time, "sleep", refuse)
