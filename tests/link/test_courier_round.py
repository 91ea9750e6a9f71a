"""The round's clock in the hub's answer to a heartbeat (``docs/protocol.md``, *The round's
clock*): the courier hands a well-formed one to the engine, forgets it when an answer carries
none, and logs a malformed one once, ignoring it. Only the signed ack is believed."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from klik.link import protocol as p
from klik.link.courier import Courier
from klik.link.outbox import Outbox
from klik.link.reply import LinkDown
from tests.helpers.courier import Clock

DEVICE, KEY = "t3-00000000", p.key_bytes("ab" * 32)
COURIER = "klik.link.courier"
ROUND = {"tournament": "7", "round": 2, "left_ms": 754_000}

ABSENT = object()  # an answer with no ``round`` at all


class Hub:
    """A hub that answers every heartbeat with a signed ``ok`` and ``round`` in its ack's body
    (none if it is ``ABSENT``); ``down`` makes it answer nothing, ``signed`` False sends the
    round only outside the ack (anyone on the Wi-Fi can write that)."""

    def __init__(self) -> None:
        self.round: Any = ROUND
        self.down = False
        self.signed = True

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        if self.down:
            raise LinkDown("no answer")
        body: dict[str, Any] = {"of": "heartbeat", "status": "ok", "commands": []}
        said = {} if self.round is ABSENT else {"round": self.round}
        if not self.signed:
            return p.Ack(p.Status.OK, {"status": "ok", "commands": [], **said})
        ack = p.Envelope("ack", envelope.device, envelope.seq, {**body, **said})
        return p.Ack(p.Status.OK, {"status": "ok", "commands": []}, ack.signed(KEY))

    def close(self) -> None:
        pass


class Table:
    """A courier over ``hub`` whose engine side only writes down the round clocks it hears."""

    def __init__(self, folder: Path, hub: Hub) -> None:
        self.outbox = Outbox(folder / "outbox.sqlite")
        self.clock = Clock()
        self.heard: list[p.RoundClock | None] = []
        self.courier = Courier(
            self.outbox, hub, DEVICE, KEY, heartbeat_s=2.0, status=p.Heartbeat,
            on_tracking=lambda _: None, on_command=lambda _: None, on_round=self.heard.append,
            clock=self.clock, rng=random.Random(5),
        )  # fmt: skip

    def beat(self) -> Table:
        self.clock.now = self.courier.next_heartbeat
        self.courier.step(self.clock.now)
        return self

    def close(self) -> None:
        self.outbox.close()


@pytest.fixture
def hub() -> Hub:
    return Hub()


@pytest.fixture
def table(tmp_path: Path, hub: Hub) -> Iterator[Table]:
    made = Table(tmp_path, hub)
    yield made
    made.close()


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == COURIER]


def test_a_heartbeats_answer_hands_its_round_clock_to_the_engine(table: Table, hub: Hub) -> None:
    table.beat()
    assert table.heard == [p.RoundClock("7", 2, 754_000)]
    hub.round = {**ROUND, "left_ms": 0}  # the time is up
    table.beat()
    assert table.heard[-1] == p.RoundClock("7", 2, 0)


def test_an_answer_without_a_round_clock_forgets_it(table: Table, hub: Hub) -> None:
    table.beat()
    hub.round = ABSENT
    table.beat()
    assert table.heard == [p.RoundClock("7", 2, 754_000), None]


def test_no_answer_says_nothing_about_the_round_clock(table: Table, hub: Hub) -> None:
    table.beat()
    hub.down = True
    table.beat().beat()
    assert table.heard == [p.RoundClock("7", 2, 754_000)]  # the table counts on by itself


def test_a_round_clock_outside_the_signed_ack_is_not_believed(table: Table, hub: Hub) -> None:
    hub.signed = False
    table.beat()
    assert table.heard == []


@pytest.mark.parametrize(
    ("sent", "line"),
    [
        ([], "round: must be an object"),  # not an object
        (None, "round: must be an object"),  # null is not "no round clock": that is no key
        ({**ROUND, "left_ms": -1}, "round.left_ms: must be a whole number of milliseconds from 0"),
        (
            {**ROUND, "left_ms": 2**53},
            "round.left_ms: must be a whole number of milliseconds from 0",
        ),  # past what JSON keeps exactly (a float cannot be signed at all)
        (
            {**ROUND, "left_ms": True},
            "round.left_ms: must be a whole number of milliseconds from 0",
        ),
        (
            {**ROUND, "left_ms": "754000"},
            "round.left_ms: must be a whole number of milliseconds from 0",
        ),
        (
            {"tournament": "7", "round": 2},
            "round.left_ms: must be a whole number of milliseconds from 0",
        ),
        ({**ROUND, "tournament": 7}, "round.tournament: must be text of 1 to 200 characters"),
        ({**ROUND, "round": "2"}, "round.round: must be a whole number from 1 to 10000"),
        ({**ROUND, "round": 0}, "round.round: must be a whole number from 1 to 10000"),
        ({**ROUND, "table": 3}, "round.table: unknown; allowed: left_ms, round, tournament"),
    ],
)
def test_a_malformed_round_clock_is_one_log_line_and_ignored(
    table: Table, hub: Hub, caplog: pytest.LogCaptureFixture, sent: Any, line: str
) -> None:
    table.beat()  # a good one first: a malformed one after it changes nothing
    hub.round = sent
    with caplog.at_level(logging.INFO, COURIER):
        table.beat().beat().beat()  # the same fault three times: said once
    assert said(caplog) == [f"hub: the answer to heartbeat 1: {line}; the round's clock ignored"]
    assert table.heard == [p.RoundClock("7", 2, 754_000)]
    hub.round = ROUND
    table.beat()  # mended: heard again
    assert table.heard[-1] == p.RoundClock("7", 2, 754_000)


def test_the_round_clock_is_the_protocols_both_ways() -> None:
    clock = p.RoundClock("Mistrzostwa Łodzi", 3, 12_345)
    assert clock.json() == {"tournament": "Mistrzostwa Łodzi", "round": 3, "left_ms": 12_345}
    assert p.RoundClock.decode(clock.json()) == clock
