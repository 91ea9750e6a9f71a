"""The clerk takes a waiting result before the heartbeats queued ahead of it (issue 36: at a
busy moment a dozen of a hall's beats waited ahead of a round's last results), and each kind
in the order it came."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from klik.link import protocol as p
from klik_hub.hall import inbox
from klik_hub.hall.inbox import Answer, Clerk


def test_a_result_is_taken_before_the_beats_that_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bytes] = []
    busy = threading.Event()  # the clerk is at work on the first envelope
    go_on = threading.Event()

    def take(store: Any, data: bytes, expected: str | None = None) -> Answer:
        busy.set()
        go_on.wait(timeout=10)
        taken.append(data)
        return Answer(200, {"status": "ok"})

    monkeypatch.setattr(inbox, "take", take)
    clerk = Clerk(store=None)  # type: ignore[arg-type]  # take above never touches it

    async def hall() -> None:
        beat, result = p.EnvelopeType.HEARTBEAT, p.EnvelopeType.RESULT
        first = asyncio.create_task(clerk.take(b"beat 0", beat))
        await asyncio.to_thread(busy.wait, 10)
        waiting = [asyncio.create_task(clerk.take(f"beat {n}".encode(), beat)) for n in (1, 2)]
        waiting += [asyncio.create_task(clerk.take(b"result 1", result))]
        waiting += [asyncio.create_task(clerk.take(b"beat 3", beat))]
        waiting += [asyncio.create_task(clerk.take(b"result 2", result))]
        while clerk._jobs.qsize() < 5:  # every one queued behind the first
            await asyncio.sleep(0)
        go_on.set()
        answers = await asyncio.gather(first, *waiting)
        assert all(a.status == 200 for a in answers)

    try:
        asyncio.run(hall())
    finally:
        go_on.set()
        clerk.stop()
    assert taken == [b"beat 0", b"result 1", b"result 2", b"beat 1", b"beat 2", b"beat 3"]
