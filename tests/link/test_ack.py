"""A link's answer to the courier is the protocol's ``Ack``, whatever carried it: HTTP answers
are read once, by ``Ack.of_http``, into the hub's status or the trouble met instead."""

from __future__ import annotations

from typing import Any

import pytest

from klik.link import protocol as p

SIGNED = {"v": 1, "type": "ack", "device": "t3-1", "seq": 7, "body": {}, "mac": "0" * 64}
S, T = p.Status, p.Trouble


@pytest.mark.parametrize(
    ("code", "body", "status", "trouble"),
    [
        (201, {"status": "stored", "receipt": "K7QX2"}, S.STORED, None),  # a new result
        (200, {"status": "duplicate", "receipt": "K7QX2"}, S.DUPLICATE, None),  # sent again
        (409, {"status": "conflict", "receipt": "K7QX3"}, S.CONFLICT, None),  # flagged
        (422, {"status": "refused", "error": "body.x: …"}, S.REFUSED, None),  # for good, if signed
        (422, {"status": "invalid", "error": "seq: …"}, S.INVALID, None),  # breaks the contract
        (413, {"status": "invalid", "error": "(envelope): over"}, S.INVALID, None),  # too big
        (200, {"status": "ok", "commands": []}, S.OK, None),  # a heartbeat taken
        (409, {"status": "stale", "last_seq": 9}, S.STALE, None),  # a heartbeat behind
        (401, {"status": "refused", "error": "bad mac"}, None, T.UNPAIRED),  # another key
        (401, {}, None, T.UNPAIRED),  # whatever it says
        (500, {"error": "the hub failed on this request"}, None, T.HUB_ERROR),  # a bug
        (503, {"status": "invalid", "error": "disk full"}, None, T.HUB_ERROR),  # not an answer
        (502, {}, None, T.HUB_ERROR),  # a proxy's error page
        (200, {}, None, T.NO_STATUS),  # a hall's Wi-Fi login page
        (404, {"error": "Not Found"}, None, T.NO_STATUS),  # a proxy's, or another server
        (200, {"status": "maybe"}, None, T.NO_STATUS),  # no status of the contract
        (201, {"status": 201}, None, T.NO_STATUS),  # nor a status as a number
    ],
)  # fmt: skip
def test_an_http_answer_is_the_hubs_status_or_the_trouble_met(
    code: int, body: dict[str, Any], status: p.Status | None, trouble: p.Trouble | None
) -> None:
    ack = p.Ack.of_http(code, {**body, "ack": SIGNED}, "first line")
    assert (ack.status, ack.trouble) == (status, trouble)
    assert ack.body == body  # without the ack, which is ``signed``
    assert ack.signed == (SIGNED if status is not None else None)
    assert ack.seen == f"{code} first line"


def test_an_answer_without_an_ack_object_has_none_signed() -> None:
    assert p.Ack.of_http(201, {"status": "stored"}) == p.Ack(S.STORED, {"status": "stored"})
    assert p.Ack.of_http(201, {"status": "stored", "ack": "x"}).signed is None


@pytest.mark.parametrize(
    ("status", "trouble"),
    [(None, None), (S.STORED, T.HUB_ERROR)],  # neither; both
)
def test_an_ack_is_a_status_or_a_trouble(
    status: p.Status | None, trouble: p.Trouble | None
) -> None:
    with pytest.raises(ValueError, match="a status or a trouble"):
        p.Ack(status, trouble=trouble)


def test_the_taken_answers_are_statuses_and_the_codes_are_the_protocols() -> None:
    assert {S.STORED, S.DUPLICATE, S.CONFLICT} == p.TAKEN
    for status in p.Status:
        ack = p.Ack.of_http(status.http, {"status": status.value})
        assert (ack.status, ack.trouble) == (status, None), status
    assert set(p.PATHS) == set(p.REQUESTS)
    assert [p.status_of(v) for v in ("ok", "OK", None, 200)] == [S.OK, None, None, None]
