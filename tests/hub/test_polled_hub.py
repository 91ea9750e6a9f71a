"""The hub's end of a polled channel (``klik_hub.serial.poll``) on the simulated radio, a
table played by a tap: a result it hears is kept while the next poll's answer comes, and
its short ack rides the polls after."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from klik.link import deflate, poll
from klik.link import protocol as p
from klik_hub import hall
from klik_hub.main import now_ms
from klik_hub.serial.poll import ASKERS, PolledHub, _Owed
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import result_body
from tests.helpers.radio import Radio, Tap

pytestmark = pytest.mark.slow  # ptys and threads on the real clock

BAUD = 9600
WAIT_S = 10.0
GARBLED = b"\x1d\x3f\x9a\x02\x51\x77\n"  # two answers over each other: no good frame


@contextmanager
def _polling(
    tmp_path: Path, tables: list[int], owed: int = 0
) -> Iterator[tuple[Store, Tap, PolledHub, str, bytes]]:
    """A hub polling ``tables`` (the tap answers as the first; the others are nobody), with
    ``owed`` short acks never yet told (tables elsewhere that may miss them): the store, the
    tap, the hub, and the first table's device and key."""
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), now_ms)
    device, key_hex = hall.devices.pair(store, tables[0])
    for n in tables[1:]:
        hall.devices.pair(store, n)
    with Radio(2, BAUD) as radio:
        table = radio.tap(1)
        table.deframer = poll.deframer({})
        # The test's thread answers in the tap's place: a reply window to spare for it.
        hub = PolledHub(store, radio.path(0), BAUD, reply_s=0.5)
        for n in range(owed):
            hub._owed[f"elsewhere-{n}"] = _Owed(poll.ShortAck(p.Status.STORED, "", bytes(4)))
        hub.start()
        try:
            yield store, table, hub, device, p.key_bytes(key_hex)
        finally:
            hub.stop()
            table.close()
            store.engine.dispose()


@pytest.fixture
def hall_of_two(tmp_path: Path) -> Iterator[tuple[Store, Tap, PolledHub, str, bytes]]:
    """A hub polling tables 7 (the tap) and 8 (nobody): the store, the tap, the hub, and
    table 7's device and key."""
    with _polling(tmp_path, [7, 8]) as hall_of:
        yield hall_of


def _polls(table: Tap) -> list[poll.Poll]:
    return [t for t in map(poll.turn_of, table.frames) if isinstance(t, poll.Poll)]


def _turn_of_seven(table: Tap, device: str) -> p.Envelope:
    """Wait for table 7's first poll; its result of game 1, to send."""
    assert table.wait(lambda: poll.Poll(7) in _polls(table), WAIT_S)
    return p.Envelope("result", device, 1, result_body(table=7, game=1))


def test_a_result_is_kept_while_the_next_poll_is_answered_and_acked_in_the_polls_after(
    hall_of_two: tuple[Store, Tap, PolledHub, str, bytes],
) -> None:
    store, table, _, device, key = hall_of_two
    request = _turn_of_seven(table, device)
    with table.changed:
        before = len(_polls(table))
    table.write(deflate.squeeze(p.canonical(request.signed(key))))
    tag = poll.tag_of(poll.ack_of(request, key))
    acked = lambda: any(a.tag == tag for t in _polls(table) for a in t.acks)  # noqa: E731
    assert table.wait(acked, WAIT_S)
    with table.changed:
        after = _polls(table)[before:]
    first = next(n for n, t in enumerate(after) if any(a.tag == tag for a in t.acks))
    # The poll right after the result went before the disk had it: its ack rides later.
    assert first >= 1
    (row,) = hall.results.newest(store)
    assert row["receipt"] == poll.ack_of(request, key)["body"]["receipt"]


def test_a_result_heard_as_the_hub_stops_is_kept(
    hall_of_two: tuple[Store, Tap, PolledHub, str, bytes],
) -> None:
    store, table, hub, device, key = hall_of_two
    request = _turn_of_seven(table, device)
    hub._taken.append(p.canonical(request.signed(key)))  # heard, its turn over, not yet kept
    hub.stop()
    (row,) = hall.results.newest(store)
    assert row["table"] == 7


def _pushes(table: Tap) -> int:
    """The pushes of commands the tap has heard."""
    frames = [f for f in table.frames if poll.turn_of(f) is None]
    return sum(p.open_envelope(f)[0].body.get("of") == "commands" for f in frames)


def _answer_next_poll(table: Tap, frame: bytes) -> None:
    """Answer table 7's next poll with ``frame``."""
    with table.changed:
        polled = _polls(table).count(poll.Poll(7))
    seven = lambda: sum(t.table == 7 for t in _polls(table)) > polled  # noqa: E731
    assert table.wait(seven, WAIT_S)
    table.write(frame)


def test_a_table_that_answers_nothing_after_a_push_is_pushed_again_at_once(
    hall_of_two: tuple[Store, Tap, PolledHub, str, bytes],
) -> None:
    store, table, hub, device, key = hall_of_two
    hub.push_s = 60.0  # no timer pushes again here: only the table's answer can
    beat = p.Envelope("heartbeat", device, 1, p.Heartbeat(state="move").json())
    _answer_next_poll(table, deflate.squeeze(p.canonical(beat.signed(key))))
    assert table.wait(lambda: hub.heard(device), WAIT_S)
    hall.commands.send(store, 7, "pause")
    assert table.wait(lambda: _pushes(table) == 1, WAIT_S)
    # Its next turn is its acknowledging one: a table that did not hear the push says
    # "nothing", and the push goes again at that turn's end.
    _answer_next_poll(table, poll.nothing_frame(7))
    assert table.wait(lambda: _pushes(table) == 2, WAIT_S)


def test_a_slot_with_one_table_heard_beside_a_garble_counts_as_garbled(tmp_path: Path) -> None:
    with _polling(tmp_path, [7]) as (_, table, hub, _, _):
        _answer_next_poll(table, poll.nothing_frame(7))  # table 7 is then idle a while
        assert table.wait(lambda: poll.Poll(poll.SLOT) in _polls(table), WAIT_S)
        # Table 7's "nothing" comes through; two others' answers garbled each other.
        table.write(poll.nothing_frame(7) + GARBLED)
        assert table.wait(lambda: hub.polls["garbled slots"] == 1, WAIT_S)
        assert hub.polls["asked"] == 1


def test_a_slot_with_one_table_heard_while_acks_are_owed_is_no_step_to_a_sweep(
    tmp_path: Path,
) -> None:
    """Tables that missed their acks garble a slot now and then: one heard among them is
    progress, so only slots garbled with nobody heard count towards polling every table."""
    with _polling(tmp_path, [7], owed=12) as (_, table, hub, _, _):
        _answer_next_poll(table, poll.nothing_frame(7))
        slot = lambda: any(t.table == poll.SLOT for t in _polls(table))  # noqa: E731
        assert table.wait(slot, WAIT_S)
        table.write(poll.nothing_frame(7) + GARBLED)
        assert table.wait(lambda: hub.polls["garbled slots"] == 1, WAIT_S)
        assert hub._askers() >= ASKERS  # so the garble is taken as tables that missed acks
        assert hub._garbled == 0
