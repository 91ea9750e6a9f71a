"""The public pages kept up to date: the tournament's revision, the tally worked out once per
revision, and the stream of events (``GET /api/v1/tournaments/{id}/events``), on a real hub
on loopback over SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from klik_hub import office, sql
from klik_hub.api import feed as feed_module
from klik_hub.api.feed import Feed
from klik_hub.storage.store import Store
from klik_hub.tournament.roster import Entrant
from tests.helpers.pgserver import free_port
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out, play_to_the_end

Hub = tuple[str, Store]
KLIK = Path(sys.executable).parent / "klik"
RULES = {"open": "tournament", "liga": "league", "szczecin": "tournament"}


def revision(store: Store, tid: int) -> str:
    with store.reading() as db:
        return sql.tournaments.revision(db, tid)


def board(url: str, tid: int) -> dict[str, Any]:
    answer = httpx.get(f"{url}{API}/{tid}/board")
    assert answer.status_code == 200, answer.text
    shown: dict[str, Any] = answer.json()
    return shown


# Every format on SQLite; on PostgreSQL the longest (liga): the formats differ in the pure
# core, the database's statements are the same (the two others there took a minute).
@pytest.mark.parametrize(
    ("db", "fmt"),
    [("sqlite", "open"), ("sqlite", "liga"), ("sqlite", "szczecin"), ("postgresql", "liga")],
    indirect=["db"],
)
def test_the_public_pages_agree_with_the_standings_after_every_result(
    hub: Hub, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through a whole tournament of every format, after every result: the revision moved,
    and the board and a player's page (from the tally) say what the standings say now."""
    url, store = hub
    tid = create(url, format=fmt)
    enrol(url, tid, 16)
    codes = {p["id"]: p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    checked = []
    send = Hall.send

    def reported(hall: Hall, table: int, body: dict[str, Any]) -> httpx.Response:
        before = revision(store, tid)
        board(url, tid)  # the tally of the revision before: must not be served after it
        answer = send(hall, table, body)
        assert answer.status_code == 201, answer.text
        assert revision(store, tid) != before
        shown = board(url, tid)
        fresh = httpx.get(f"{url}{API}/{tid}/standings").json()
        assert shown["standings"] == fresh
        player = next(iter(body["seats"].values()))["player"]
        page = httpx.get(f"{url}/api/v1/p/{codes[int(player)]}").json()
        assert page["revision"] == shown["revision"] == revision(store, tid)
        placed = next(r for r in fresh if r["player"] == int(player))
        assert page["place"] == (placed["place"] if placed["games"] else None)
        checked.append(player)
        return answer

    monkeypatch.setattr(Hall, "send", reported)
    drawn = play_to_the_end(url, Hall(url, store, 4), tid, random.Random(3), lowest_goes_out,
                            rules=RULES[fmt])  # fmt: skip
    assert len(checked) == sum(len(d["tables"]) * d["games"] for d in drawn)
    last = board(url, tid)["round"]
    assert last is not None
    assert last["round"] == drawn[-1]["round"]
    assert all(t["missing"] == 0 for t in last["tables"])


def test_every_change_of_the_judges_moves_the_revision_and_a_read_does_not(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 3)
    tid = create(url)
    seen = [revision(store, tid)]

    def moved(answer: httpx.Response, status: int = 201) -> None:
        assert answer.status_code == status, answer.text
        now = revision(store, tid)
        assert now not in seen, answer.request.url
        seen.append(now)

    moved(httpx.post(f"{url}{API}/{tid}/players", json=[{"name": f"G{k}"} for k in range(8)]))
    moved(httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}))
    drawn = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    for path in ("", "/board", "/standings", "/rounds/1", "/results"):
        assert httpx.get(f"{url}{API}/{tid}{path}").status_code == 200
    assert revision(store, tid) == seen[-1]  # reading changes nothing
    moved(httpx.request("DELETE", f"{url}{API}/{tid}/rounds/1", json={"reason": "x"}), 200)
    moved(httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}))
    drawn = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    table = drawn["tables"][0]
    seats = {s: str(p) for s, p in table["seats"].items()}
    racks = lowest_goes_out(1, table["table"], 1, table["seats"])
    moved(tables.report(tid, 1, table["table"], seats, racks, rules="tournament", round_game=1))
    result = httpx.get(f"{url}{API}/{tid}/results").json()[0]["id"]
    seat = next(iter(table["seats"]))
    correction = {"kind": "rack", "seat": seat, "value": 7, "reason": "x"}
    moved(httpx.post(f"{url}{API}/{tid}/results/{result}/corrections", json=correction))
    sanction = {"player": 3, "kind": "warning", "reason": "x"}
    moved(httpx.post(f"{url}{API}/{tid}/sanctions", json=sanction))
    moved(httpx.patch(f"{url}{API}/{tid}/players/3", json={"name": "Ola", "reason": "x"}), 200)
    moved(httpx.patch(f"{url}{API}/{tid}/players/4", json={"active": False, "reason": "x"}), 200)
    # a table's result sent again (its seq again) is a duplicate: nothing changed
    tables.seq[table["table"]] -= 1
    again = tables.send(table["table"], kept_body(store, result))
    assert again.json()["status"] == "duplicate"
    assert revision(store, tid) == seen[-1]


def kept_body(store: Store, result: int) -> dict[str, Any]:
    with store.reading() as db:
        body: dict[str, Any] = json.loads(sql.results.body_of(db, result).body)
    return body


def events(url: str, tid: int, count: int, timeout: float = 5.0) -> Generator[dict[str, Any]]:
    """The first ``count`` events of the tournament's stream, each ``{"event", "id", "data",
    "at"}`` (``at``: when it arrived, ``time.monotonic``)."""
    as_a_browser = {"accept": "text/event-stream"}  # as EventSource asks
    with httpx.stream(
        "GET", f"{url}{API}/{tid}/events", headers=as_a_browser, timeout=timeout
    ) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        event: dict[str, Any] = {}
        for line in stream.iter_lines():
            if not line:
                if "data" in event:
                    yield {**event, "at": time.monotonic()}
                    count -= 1
                    if not count:
                        return
                event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                event[name] = json.loads(value) if name == "data" else value


@pytest.fixture
def no_period(mocker: Any) -> None:
    """The feed's read without a poke once in 60 s: what comes sooner was poked."""
    mocker.patch("klik_hub.api.feed.PERIOD_S", 60.0)


def test_a_stream_tells_its_page_at_once_when_a_result_comes(no_period: None, hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url)
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    stream = events(url, tid, 2)
    first = next(stream)
    assert first["event"] == "revision"
    assert first["data"] == {"revision": revision(store, tid)}
    assert first["id"] == revision(store, tid)
    table = drawn["tables"][0]
    sent = time.monotonic()
    racks = lowest_goes_out(1, table["table"], 1, table["seats"])
    seats = {s: str(p) for s, p in table["seats"].items()}
    tables.report(tid, 1, table["table"], seats, racks, rules="tournament", round_game=1)
    second = next(stream)
    assert second["data"] == {"revision": revision(store, tid)} != first["data"]
    assert second["at"] - sent < 30.0  # poked by the result, not found by the minute's read
    stream.close()


def test_a_read_under_way_since_a_poke_is_not_the_database_until_it_ends(
    store: Store, mocker: Any
) -> None:
    """A page asking while the feed reads after a change is not answered from memory: the
    revisions kept are the old ones until the read ends (a player's check-in, then their page)."""
    tid = office.tournaments.create(store, "Liga", None, "open", 60)

    async def follow() -> None:
        feed = Feed(store, period_s=60.0)
        stream = feed.changes(tid, feed.revision(tid))
        first = await anext(stream)
        assert await feed.check() is False
        office.players.enrol(store, tid, [Entrant("Ola", "SP 1")])
        feed.poke()
        gate = threading.Event()
        reading = feed._read

        def held(tids: list[int]) -> dict[int, str]:
            gate.wait(10)
            return reading(tids)

        mocker.patch.object(feed, "_read", held)
        check = asyncio.create_task(feed.check())
        await asyncio.sleep(0)  # the read has begun, in its thread
        assert feed.known(tid) is None  # not ``first``: the read began after the poke
        gate.set()
        assert await check is True
        assert feed.known(tid) == revision(store, tid) != first
        await stream.aclose()

    asyncio.run(follow())


def test_pages_asking_while_a_change_is_under_way_wait_for_one_read(
    store: Store, mocker: Any
) -> None:
    """``known_soon``: fifty pages asking after a poke are answered from the feed's next read,
    one read for them all; a tournament nobody follows is not waited for."""
    tid = office.tournaments.create(store, "Liga", None, "open", 60)

    async def follow() -> None:
        feed = Feed(store, period_s=60.0, spacing_s=0.0)
        reads = mocker.spy(feed, "_read")
        stream = feed.changes(tid, feed.revision(tid))
        first = await anext(stream)
        running = asyncio.create_task(feed.run())
        assert await feed.known_soon(tid) == first  # its first read
        office.players.enrol(store, tid, [Entrant("Ola", "SP 1")])
        feed.poke()
        before = reads.call_count
        answers = await asyncio.gather(*(feed.known_soon(tid) for _ in range(50)))
        assert answers == [revision(store, tid)] * 50 != [first] * 50
        assert reads.call_count - before == 1
        assert await feed.known_soon(tid + 1) is None
        assert reads.call_count - before == 1
        running.cancel()
        await stream.aclose()

    asyncio.run(follow())


def test_a_stream_of_no_tournament_is_404_in_one_line(hub: Hub) -> None:
    url, _ = hub
    answer = httpx.get(f"{url}{API}/99/events")
    assert answer.status_code == 404
    assert answer.json() == {"error": "no tournament 99"}
    assert httpx.get(f"{url}{API}/0/events").status_code == 422


def test_streams_past_the_hubs_limit_are_refused_and_ask_again_later(hub: Hub, mocker: Any) -> None:
    url, _ = hub
    tid = create(url)
    mocker.patch("klik_hub.api.feed.Feed.full", return_value=True)
    answer = httpx.get(f"{url}{API}/{tid}/events")
    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "10"
    assert answer.json() == {"error": "too many pages are open; this page tries again by itself"}


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_board_shows_the_round_and_names_no_code(hub: Hub) -> None:
    url, _ = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 7)
    empty = board(url, tid)
    assert (empty["name"], empty["round"], empty["standings"][0]["games"]) == ("Liga", None, 0)
    httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4})
    shown = board(url, tid)
    assert [len(t["seats"]) for t in shown["round"]["tables"]] == [4, 3]
    assert {s["player"] for t in shown["round"]["tables"] for s in t["seats"]} == set(range(1, 8))
    codes = [p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()]
    assert not [c for c in codes if c in json.dumps(shown)]
    assert httpx.get(f"{url}{API}/99/board").status_code == 404
    page = httpx.get(f"{url}/t/{tid}")
    assert page.status_code == 200
    assert "Znajdź gracza" in page.text
    assert httpx.get(f"{url}/t/99").status_code == 404
    qr = httpx.get(f"{url}/t/{tid}/qr.svg")
    assert (qr.status_code, qr.headers["content-type"]) == (200, "image/svg+xml")
    assert qr.headers["x-klik-address"] == f"{url}/t/{tid}"  # a loopback hub keeps its own
    missing = httpx.get(f"{url}/t/99/qr.svg")
    assert (missing.status_code, missing.json()) == (404, {"error": "no tournament 99"})


@pytest.mark.slow
def test_a_hub_stops_at_once_with_a_page_streaming(tmp_path: Path) -> None:
    """A stream never ends by itself: at a stop the hub ends it, rather than wait for it."""
    hub = subprocess.Popen(
        [str(KLIK), "hub", "--db", str(tmp_path / "hub.sqlite"), "--port", str(free_port())],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert hub.stdout is not None
        port = next(
            int(line.split(":")[-1].split()[0]) for line in hub.stdout if "Uvicorn running" in line
        )
        url = f"http://127.0.0.1:{port}"
        stream = events(url, create(url), 2, timeout=30)
        next(stream)
        hub.send_signal(signal.SIGTERM)
        stopping = time.monotonic()
        assert hub.wait(timeout=10) == 0
        assert time.monotonic() - stopping < 3
        with pytest.raises((httpx.TransportError, StopIteration)):
            next(stream)
    finally:
        if hub.poll() is None:
            hub.kill()


def test_the_feed_knows_a_revision_only_while_nothing_may_have_changed(
    store: Store, mocker: Any
) -> None:
    """``Feed.known`` answers the phones from memory: never after a poke until the next
    read, never for a tournament without a stream, never once its read is a period old."""
    tid = office.tournaments.create(store, "Liga", None, "open", 60)

    async def follow() -> None:
        warmed: list[tuple[int, str]] = []
        feed = Feed(store, period_s=0.5, warm=lambda *tally: warmed.append(tally))
        first = feed.revision(tid)
        stream = feed.changes(tid, first)
        assert await anext(stream) == first
        assert feed.known(tid) is None  # not read by the feed yet
        assert await feed.check() is False
        assert warmed == []  # nothing changed: nothing to work out
        assert feed.known(tid) == first
        assert feed.known(tid + 1) is None  # nobody follows it
        feed.poke()
        assert feed.known(tid) is None  # a change may be under way
        office.players.enrol(store, tid, [Entrant("Ola", "SP 1")])
        telling = asyncio.create_task(anext(stream))
        assert await feed.check() is True
        second = await telling
        assert warmed == [(tid, second)]  # worked out once, before the pages are told
        assert second != first
        assert feed.known(tid) == second == revision(store, tid)
        later = time.monotonic() + 0.5  # the read grows a period old
        mocker.patch.object(feed_module, "time", SimpleNamespace(monotonic=lambda: later))
        assert feed.known(tid) is None
        await stream.aclose()
        assert feed.streams == 0

    asyncio.run(follow())
