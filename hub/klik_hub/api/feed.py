"""The public pages told at once that their tournament changed (server-sent events).

A phone with a player's page or the tournament's board open keeps one stream open
(``GET /api/v1/tournaments/{id}/events``); when the tournament's revision changes
(``sql.tournaments.revision``: a result, a correction, a draw, a withdrawal…), every stream
of that tournament gets one event, and each page asks for its own answer again (from the
tally worked out once, ``office.tally``).

How a change is noticed: the revision of every tournament with a stream open is read after
each request that may change something (``poke``, from ``Pokes`` around the app), and once a
``period_s`` besides, for changes this process did not make (another hub process on the same
PostgreSQL, ``klik hub`` commands). One read of a few indexed maxima for all of them: the
streams themselves never touch the database.

At most one round of events per tournament goes out every ``spacing_s``: at a round's end,
results come a few a second, and each round of events makes every phone ask again. A change
is never later than ``spacing_s`` plus a read.

Pure asyncio on the server's loop; the reads run in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from klik.link import protocol as p
from klik_hub import sql
from klik_hub.storage.store import Store

PERIOD_S = 1.0  # how often the revisions are read without a poke
# The least time between two rounds of events of one tournament. Each round makes every
# phone ask again: at 0.25 s a hall's 300 phones asked up to 1,200 times a second at a
# round's end and the tables' results queued behind them (``tests/bench/bench_hall.py``:
# acknowledged p99 330-420 ms at 0.25 s, 180-300 ms at 0.5 s); a phone still shows a
# result within a second (``bench_phones``).
SPACING_S = 0.5
MAX_STREAMS = 2000  # streams open at once: a hall's phones many times over (each ~30 KB)
WAIT_S = 2.0  # the longest a page's request waits for the feed's next read (``known_soon``)
log = logging.getLogger("klik_hub")


class Feed:
    """Which tournaments have a page open, and each one's revision as last read."""

    def __init__(
        self,
        store: Store,
        *,
        period_s: float | None = None,
        spacing_s: float = SPACING_S,
        most: int = MAX_STREAMS,
        warm: Callable[[int, str], object] | None = None,
    ) -> None:
        self.store = store
        self.warm = warm
        self.period_s = PERIOD_S if period_s is None else period_s  # read when made: tests set it
        self.spacing_s = spacing_s
        self.most = most
        self.streams = 0
        self._watched: dict[int, int] = {}  # tournament: streams open
        self._revisions: dict[int, str] = {}  # of the watched tournaments, as last read
        self._news: dict[int, asyncio.Future[str]] = {}  # resolved with the next revision
        self._poked = asyncio.Event()
        self._failing = False
        # Requests of this process that may have changed something (counted before their
        # answers go out), and how many of them the last read saw: the revisions read are as
        # the database has them only while these are equal (a read that began after the
        # last poke has ended), and for a ``period_s`` after the read.
        self._pokes = 1
        self._pokes_read = 0
        self._read_at = -float("inf")
        self._reads: asyncio.Future[None] | None = None  # resolved as the next read ends

    def full(self) -> bool:
        """Whether every stream the hub keeps (``most``) is open."""
        return self.streams >= self.most

    def poke(self) -> None:
        """Something may have changed: read the revisions now (on the server's loop)."""
        self._pokes += 1
        self._poked.set()

    def known(self, tid: int) -> str | None:
        """Tournament ``tid``'s revision as last read, if that is still its revision as far
        as this process knows: it has a stream open, nothing was poked since, and the read
        is less than ``period_s`` old (a change by another process shows within that, as on
        the streams). None: read it from the database."""
        fresh = time.monotonic() - self._read_at < self.period_s
        return self._revisions.get(tid) if fresh and self._pokes_read == self._pokes else None

    async def known_soon(self, tid: int) -> str | None:
        """``known``, waiting for the feed's next read if a change may be under way or the
        last read is old: one read for every page that asks, on the server's loop, no
        thread. At the end of a round the phones ask while the results still come, each
        one poking; a read each would take the hub from the tables. None: still not known
        (nobody follows ``tid``, the database does not answer, ``WAIT_S`` passed): read it."""
        for _ in range(2):  # a read under way may have begun before the change
            known = self.known(tid)
            if known is not None or tid not in self._watched:
                return known
            if self._reads is None or self._reads.done():
                self._reads = asyncio.get_running_loop().create_future()
            self._poked.set()  # read now, not at the period's end (nothing is marked changed)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reads), WAIT_S)
        return self.known(tid)

    def revision(self, tid: int) -> str:
        """Tournament ``tid``'s revision, read now ("" if there is no such tournament)."""
        with self.store.reading() as db:
            return sql.tournaments.revision(db, tid)

    async def run(self) -> None:
        """Read the revisions when poked or every ``period_s``, and tell the streams of each
        tournament whose revision changed. Runs until cancelled."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), self.period_s)
            self._poked.clear()
            try:
                changed = await self.check()
            finally:
                if self._reads is not None and not self._reads.done():
                    self._reads.set_result(None)  # the pages waiting in ``known_soon``
            if changed:
                await asyncio.sleep(self.spacing_s)

    async def check(self) -> bool:
        """Read the watched tournaments' revisions once; whether any changed."""
        watched = list(self._watched)
        if not watched:
            return False
        pokes = self._pokes  # a poke while the read is under way needs another read
        began = time.monotonic()
        try:
            now = await anyio.to_thread.run_sync(self._read, watched)
        except Exception:  # the database is down: the pages are told when it is back
            if not self._failing:
                log.exception("hub: the public pages' revisions could not be read")
            self._failing = True
            return False
        self._failing = False
        changed = [
            tid
            for tid, revision in now.items()
            if tid in self._watched and revision != self._revisions.get(tid)
        ]
        if changed and self.warm is not None:
            # What the pages will ask for is worked out before they are told, once: else a
            # hall of phones asking at the same moment would queue for it.
            with contextlib.suppress(Exception):  # a page asking works it out itself then
                await anyio.to_thread.run_sync(self._warm, {t: now[t] for t in changed})
        for tid in changed:
            if tid not in self._watched:
                continue  # its last stream closed meanwhile: the next one reads it afresh
            self._revisions[tid] = now[tid]
            news = self._news.pop(tid, None)
            if news is not None and not news.done():
                news.set_result(now[tid])
        self._read_at = began
        self._pokes_read = pokes  # the revisions are the database's again, as far as it knows
        return bool(changed)

    def _warm(self, revisions: dict[int, str]) -> None:
        # Each at the revision just read, the one the pages will be told: read again, the
        # database may have moved on, and the tally would not be the one they ask for.
        assert self.warm is not None
        for tid, revision in revisions.items():
            self.warm(tid, revision)

    def _read(self, tids: list[int]) -> dict[int, str]:
        with self.store.reading() as db:
            return {tid: sql.tournaments.revision(db, tid) for tid in tids}

    async def changes(self, tid: int, first: str) -> AsyncGenerator[str, None]:
        """Tournament ``tid``'s revision ``first`` (read by the caller), then each new one as
        it is noticed. The caller checks ``full`` first."""
        self.streams += 1
        self._watched[tid] = self._watched.get(tid, 0) + 1
        self._revisions.setdefault(tid, first)
        try:
            seen = first
            yield seen
            while True:
                known = self._revisions[tid]
                if known != seen:
                    seen = known
                    yield seen
                    continue
                news = self._news.get(tid)
                if news is None:
                    news = self._news[tid] = asyncio.get_running_loop().create_future()
                # shield: one stream that goes away must not cancel the others' news
                seen = await asyncio.shield(news)
                yield seen
        finally:
            self.streams -= 1
            self._watched[tid] -= 1
            if not self._watched[tid]:
                # Nobody watches it: its revision is read afresh by the next stream.
                del self._watched[tid], self._revisions[tid]
                self._news.pop(tid, None)


class Pokes:
    """ASGI middleware: the feed is poked by every request that may have changed something
    (every method but GET and HEAD), except the tables' heartbeats, which change no page: as
    its answer begins (what it changed is committed by then), so that nobody who has seen
    the answer is answered from before the change. A request that fails before it answers
    has changed nothing: its transaction was rolled back."""

    def __init__(self, app: ASGIApp, feed: Feed) -> None:
        self.app = app
        self.feed = feed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _may_change(scope):
            await self.app(scope, receive, send)
            return

        async def answering(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.feed.poke()
            await send(message)

        await self.app(scope, receive, answering)


HEARTBEAT = p.PATHS[p.EnvelopeType.HEARTBEAT]


def _may_change(scope: Scope) -> bool:
    return scope["method"] not in ("GET", "HEAD") and scope["path"] != HEARTBEAT
