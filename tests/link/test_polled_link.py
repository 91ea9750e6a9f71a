"""The table's end of a polled channel (``klik.link.polled``) on the simulated radio, the
hub's end played by a tap: whom it answers, and a short ack it believes or not."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from klik.link import poll
from klik.link import protocol as p
from klik.link.polled import PolledLink
from tests.helpers.radio import Radio, Tap

pytestmark = pytest.mark.slow  # ptys and reader threads on the real clock

KEY = bytes(range(32))
WAIT_S = 5.0


@pytest.fixture
def hub_and_link() -> Iterator[tuple[Tap, PolledLink]]:
    with Radio(2, 9600) as radio:
        hub = radio.tap(0)
        hub.deframer = poll.deframer({})  # turn frames, as the hub's end reads them
        link = PolledLink(radio.path(1), 9600, "t7-ab", KEY, table=7)
        try:
            yield hub, link
        finally:
            link.close()
            hub.close()


def _said(hub: Tap) -> list[object]:
    return [poll.turn_of(frame) for frame in hub.frames]


def test_a_renumbered_table_answers_the_polls_of_its_new_number(
    hub_and_link: tuple[Tap, PolledLink],
) -> None:
    hub, link = hub_and_link
    hub.write(poll.poll_frame(7))
    assert hub.wait(lambda: poll.Nothing(7) in _said(hub), WAIT_S)
    link.renumbered(12)
    hub.write(poll.poll_frame(7))  # the old number: nobody answers ...
    hub.write(poll.poll_frame(12))  # ... the new one does
    assert hub.wait(lambda: poll.Nothing(12) in _said(hub), WAIT_S)
    assert _said(hub).count(poll.Nothing(7)) == 1


def test_a_result_is_sent_in_its_turn_and_taken_by_a_short_ack_in_another_s_poll(
    hub_and_link: tuple[Tap, PolledLink],
) -> None:
    hub, link = hub_and_link
    result = p.Envelope("result", "t7-ab", 3, {"table": 7, "game": 1})
    answers: list[p.Ack] = []
    sender = threading.Thread(target=lambda: answers.append(link.send(result, KEY)))
    sender.start()
    hub.write(poll.poll_frame(7))
    assert hub.wait(lambda: any(f[:1] == b"{" for f in hub.frames), WAIT_S)
    receipt = p.receipt({"device": "t7-ab", "seq": 3, "body": result.body})
    body = {"of": "result", "receipt": receipt, "status": "stored"}
    forged = p.Envelope("ack", "t7-ab", 3, body).signed(bytes(32))  # not the table's key
    short = poll.ShortAck.of(forged)
    assert short is not None
    hub.write(poll.poll_frame(5, [short]))  # another table's poll carries it: not believed
    signed = p.Envelope("ack", "t7-ab", 3, body).signed(KEY)
    short = poll.ShortAck.of(signed)
    assert short is not None
    hub.write(poll.poll_frame(5, [short]))
    sender.join(WAIT_S)
    (answer,) = answers
    assert answer.status is p.Status.STORED
    assert answer.signed == signed  # the very ack the hub signed
    assert link.turns["short acks"] == 1  # the true one; the forged one was let go
