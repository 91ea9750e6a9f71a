"""The round's clock on the hub (issue 20, point 5; 000 o "skończy się czas rundy"): a table's
round time counts from its own start, the judge extends one table (logged), each heartbeat's
answer tells the table its time left, and at zero the hub sends round-over to the tables
still playing, once; on a real hub, SQLite and PostgreSQL."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx

from klik_hub import office
from klik_hub.storage.store import Store, utc_iso
from tests.helpers.hubkit import NOW_MS, Clock, post, sealed
from tests.helpers.tourney import API, Hall, create, draw, enrol, lowest_goes_out

Hub = tuple[str, Store]
BEATS = "/api/v1/heartbeats"
ROUND_TIME_S = 50 * 60


class Beats:
    """The hall's tables' heartbeats, each table numbering its own."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.seq = dict.fromkeys(hall.keys, 0)

    def answer(self, table: int) -> dict[str, Any]:
        device, key = self.hall.keys[table]
        self.seq[table] += 1
        body = {"game": 1, "state": "move", "mover": "A", "left_ms": 41_000, "draw_tiles": 28,
                "judge": False, "paused_by": None, "called_by": None, "outbox": 0,
                "last_seq": 0, "acks": []}  # fmt: skip
        said = post(self.hall.url, BEATS, sealed(device, key, self.seq[table], body, "heartbeat"))
        assert said.status_code == 200, said.text
        answer: dict[str, Any] = said.json()
        return answer

    def kinds(self, table: int) -> list[str]:
        """The kinds of the commands waiting for ``table``."""
        return [c["kind"] for c in self.answer(table)["commands"]]


def a_timed_round(hub: Hub, **over: Any) -> tuple[str, Clock, Hall, int, dict[str, Any]]:
    """A tournament of 7 with a 50-minute round time, its first round drawn at 2 tables."""
    url, store = hub
    tid = create(url, **{"round_time_s": ROUND_TIME_S, **over})
    enrol(url, tid, 7)
    drawn = draw(url, tid, random.Random(5)).json()
    assert isinstance(store.now_ms, Clock)
    return url, store.now_ms, Hall(url, store, 2), tid, drawn


def round_of(url: str, tid: int) -> dict[str, Any]:
    answer = httpx.get(f"{url}{API}/{tid}/rounds/1")
    assert answer.status_code == 200, answer.text
    got: dict[str, Any] = answer.json()
    return got


def command(url: str, tid: int, kind: str, **more: Any) -> httpx.Response:
    return httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": kind, **more})


def log_of(url: str, tid: int, kind: str) -> list[dict[str, Any]]:
    said = httpx.get(f"{url}{API}/{tid}/corrections").json()
    return [x for x in said if x["kind"] == kind]


def test_the_round_time_runs_out_and_only_the_tables_still_playing_get_round_over(
    hub: Hub,
) -> None:
    url, clock, hall, tid, drawn = a_timed_round(hub)
    beats = Beats(hall)
    before = round_of(url, tid)
    assert (before["round_time_s"], before["started_at"], before["ends_at"]) == (
        ROUND_TIME_S, None, None)  # fmt: skip
    assert [t["clock"] for t in before["tables"]] == [None, None]
    assert "round" not in beats.answer(1)  # not started: the table runs no round clock

    assert command(url, tid, "start").status_code == 201
    started = round_of(url, tid)
    ends = NOW_MS + ROUND_TIME_S * 1000
    assert started["started_at"] == utc_iso(NOW_MS)
    assert (started["ends_at"], started["left_ms"]) == (utc_iso(ends), ROUND_TIME_S * 1000)
    assert started["tables"][0]["clock"] == {
        "started_at": utc_iso(NOW_MS), "ends_at": utc_iso(ends), "left_ms": ROUND_TIME_S * 1000,
        "extra_s": 0, "over_at": None,
    }  # fmt: skip
    assert beats.answer(1)["round"] == {"tournament": str(tid), "round": 1, "left_ms": 3_000_000}

    clock.ms += 1_000_000  # 16 min 40 s later: the time left as the hub answers
    assert beats.answer(2)["round"]["left_ms"] == 2_000_000
    tick(hub)
    assert log_of(url, tid, "round_over") == []

    # table 2 plays its games to the end; the judge gives table 1 five minutes more
    seats_2 = drawn["tables"][1]["seats"]
    for game in (1, 2):
        racks = lowest_goes_out(1, 2, game, seats_2)
        said = hall.report(tid, 1, 2, seats_2, racks, rules="tournament", round_game=game)
        assert said.status_code == 201, said.text
    extended = httpx.post(f"{url}{API}/{tid}/rounds/1/tables/1/extend",
                          json={"seconds": 300, "reason": "spór przy stole"})  # fmt: skip
    assert extended.status_code == 200, extended.text
    assert extended.json()["ends_at"] == utc_iso(ends + 300_000)
    assert extended.json()["extra_s"] == 300
    extensions = log_of(url, tid, "extend")
    assert [(x["round"], x["table"], x["seconds"], x["reason"]) for x in extensions] == [
        (1, 1, 300, "spór przy stole")]  # fmt: skip

    clock.ms = ends  # the round's time is up: table 2 is done, table 1 has 5 minutes more
    tick(hub)
    assert log_of(url, tid, "round_over") == []
    assert round_of(url, tid)["tables"][1]["clock"]["over_at"] == utc_iso(ends)
    assert beats.answer(2)["round"]["left_ms"] == 0  # its clock is over
    assert beats.answer(1)["round"]["left_ms"] == 300_000
    assert "round-over" not in beats.kinds(1)

    clock.ms = ends + 300_000
    tick(hub)
    tick(hub)  # not twice
    said = beats.answer(1)
    assert [c["kind"] for c in said["commands"]].count("round-over") == 1
    assert said["round"] == {"tournament": str(tid), "round": 1, "left_ms": 0}
    logged = log_of(url, tid, "round_over")
    assert [(x["round"], x["table"], x["by"]) for x in logged] == [(1, 1, "hub")]
    # too late to extend: the table's final moves have begun
    again = httpx.post(f"{url}{API}/{tid}/rounds/1/tables/1/extend",
                       json={"seconds": 60, "reason": "za późno"})  # fmt: skip
    assert again.status_code == 409, again.text


def tick(hub: Hub) -> None:
    """The hub's clock looks for tables whose time ran out now (it also does every second
    by itself, which these tests do not wait for)."""
    office.clock.due(hub[1])


def test_a_late_table_counts_its_time_from_its_own_start(hub: Hub) -> None:
    url, clock, hall, tid, _ = a_timed_round(hub)
    beats = Beats(hall)
    assert command(url, tid, "start", tables=[1]).status_code == 201
    assert "start" in beats.kinds(1)
    assert "start" not in beats.kinds(2)
    assert "round" not in beats.answer(2)

    clock.ms += 10 * 60_000  # table 2's players come 10 minutes late
    assert command(url, tid, "start", tables=[2]).status_code == 201
    assert command(url, tid, "start").status_code == 201  # Start again: no table restarts
    shown = round_of(url, tid)
    firsts = [t["clock"]["started_at"] for t in shown["tables"]]
    assert firsts == [utc_iso(NOW_MS), utc_iso(NOW_MS + 600_000)]
    assert shown["ends_at"] == utc_iso(NOW_MS + ROUND_TIME_S * 1000)  # the round's: table 1's
    assert shown["tables"][1]["clock"]["ends_at"] == utc_iso(NOW_MS + (ROUND_TIME_S + 600) * 1000)
    assert beats.answer(2)["round"]["left_ms"] == ROUND_TIME_S * 1000

    clock.ms = NOW_MS + ROUND_TIME_S * 1000
    tick(hub)
    assert [x["table"] for x in log_of(url, tid, "round_over")] == [1]
    clock.ms += 600_000
    tick(hub)
    assert [x["table"] for x in log_of(url, tid, "round_over")] == [2, 1]

    unknown = command(url, tid, "start", tables=[3])
    assert unknown.status_code == 404
    assert unknown.json()["error"] == "round 1 has no table 3"


def test_the_judges_round_over_stops_the_clock(hub: Hub) -> None:
    url, clock, hall, tid, _ = a_timed_round(hub)
    beats = Beats(hall)
    command(url, tid, "start")
    clock.ms += 60_000
    assert command(url, tid, "round-over").status_code == 201
    assert [t["clock"]["over_at"] for t in round_of(url, tid)["tables"]] == [utc_iso(clock.ms)] * 2
    assert beats.answer(1)["round"]["left_ms"] == 0  # over: the judge said so
    clock.ms += ROUND_TIME_S * 1000
    tick(hub)
    assert log_of(url, tid, "round_over") == []  # the judge sent it already
    assert beats.kinds(1).count("round-over") == 1


def test_without_a_round_time_a_round_has_no_clock_to_run_out(hub: Hub) -> None:
    url, clock, hall, tid, _ = a_timed_round(hub, round_time_s=None)  # the format's: none
    beats = Beats(hall)
    assert httpx.get(f"{url}{API}/{tid}").json()["round_time_s"] is None
    command(url, tid, "start")
    shown = round_of(url, tid)
    assert (shown["started_at"], shown["ends_at"], shown["left_ms"]) == (
        utc_iso(NOW_MS),
        None,
        None,
    )
    assert shown["tables"][0]["clock"]["ends_at"] is None
    assert "round" not in beats.answer(1)
    clock.ms += 100 * 3_600_000
    tick(hub)
    assert log_of(url, tid, "round_over") == []
    no_time = httpx.post(f"{url}{API}/{tid}/rounds/1/tables/1/extend",
                         json={"seconds": 60, "reason": "x"})  # fmt: skip
    assert no_time.status_code == 409
    assert no_time.json()["error"] == f"tournament {tid} has no round time"


def test_a_round_time_of_0_is_none_and_a_short_one_is_refused(hub: Hub) -> None:
    url, _ = hub
    tid = create(url, round_time_s=0)
    assert httpx.get(f"{url}{API}/{tid}").json()["round_time_s"] is None
    short = httpx.post(url + API, json={"name": "T", "format": "open", "move_time_s": 60,
                                        "round_time_s": 120})  # fmt: skip
    assert short.status_code == 422
    assert short.json()["error"] == "round time: 0 for no round time, or at least 300 seconds"
    listed = httpx.get(url + API).json()
    assert listed[0]["round_time_s"] is None


def test_an_extension_is_refused_in_one_line(hub: Hub) -> None:
    url, _, _, tid, _ = a_timed_round(hub)

    def extend(round_no: int = 1, table: int = 1, **sent: Any) -> httpx.Response:
        return httpx.post(f"{url}{API}/{tid}/rounds/{round_no}/tables/{table}/extend",
                          json={"seconds": 60, "reason": "spór", **sent})  # fmt: skip

    not_started = extend()
    assert not_started.status_code == 409
    assert not_started.json()["error"].startswith("round 1, table 1: not started")
    assert extend(round_no=2).status_code == 404
    assert extend(seconds=0).status_code == 422
    assert extend(seconds=office.clock.MAX_EXTRA_S + 1).status_code == 422
    assert extend(reason="").status_code == 422


def test_the_round_s_clock_stops_once_every_game_is_in(hub: Hub) -> None:
    """After the round's last result no page counts down: each table's time stops when its
    games are in, the round's when every table's are (the console, the projector, the board
    read ``left_ms`` from here)."""
    url, clock, hall, tid, drawn = a_timed_round(hub)
    command(url, tid, "start")
    clock.ms += 60_000
    first, second = drawn["tables"]
    hall.play(tid, {**drawn, "tables": [first]}, lowest_goes_out, "tournament")
    now = round_of(url, tid)
    assert now["left_ms"] == (ROUND_TIME_S - 60) * 1000  # the round goes on
    assert [t["clock"]["left_ms"] for t in now["tables"]] == [None, (ROUND_TIME_S - 60) * 1000]
    hall.play(tid, {**drawn, "tables": [second]}, lowest_goes_out, "tournament")
    clock.ms += 60_000
    over = round_of(url, tid)
    assert over["left_ms"] is None
    assert [t["clock"]["left_ms"] for t in over["tables"]] == [None, None]
    assert over["ends_at"] == now["ends_at"]  # when it would have ended: still said


def test_a_table_gets_at_most_an_hour_of_extra_time_in_a_round(hub: Hub) -> None:
    """Eight quick "+5 min" clicks are 40 minutes; past 60 in all the hub says how many are
    left, in the reader's language, and gives none of it."""
    url, _, _, tid, _ = a_timed_round(hub)
    command(url, tid, "start")

    def extend(minutes: int, table: int = 1) -> httpx.Response:
        return httpx.post(
            f"{url}{API}/{tid}/rounds/1/tables/{table}/extend",
            json={"seconds": minutes * 60, "reason": "spór"},
            headers={"accept-language": "pl"},
        )

    assert [extend(5).status_code for _ in range(10)] == [200] * 10
    over = extend(15)
    assert over.status_code == 422
    assert over.json()["error"] == (
        "runda 1, stół 1: najwyżej 60 min dodatkowego czasu łącznie; zostało 10 min"
    )
    assert extend(10).json()["extra_s"] == 3600  # the last ten minutes are still there
    assert extend(1).status_code == 422
    assert extend(60, table=2).status_code == 200  # each table its own hour
    assert len(log_of(url, tid, "extend")) == 12


def test_the_hub_sends_round_over_by_itself_when_the_time_is_up(hub: Hub) -> None:
    url, clock, hall, tid, _ = a_timed_round(hub)
    beats = Beats(hall)
    command(url, tid, "start")
    clock.ms += ROUND_TIME_S * 1000
    # the hub's own clock looks every second: wait for it, not a set time
    deadline = time.monotonic() + 10
    while not log_of(url, tid, "round_over") and time.monotonic() < deadline:
        time.sleep(0.1)  # sleep-ok: polls the hub, whose clock looks every second
    assert sorted(x["table"] for x in log_of(url, tid, "round_over")) == [1, 2]
    assert "round-over" in beats.kinds(1)
    assert "round-over" in beats.kinds(2)
