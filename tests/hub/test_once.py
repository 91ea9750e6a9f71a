"""The judge's requests done once (``Idempotency-Key``, issue 37 point 2), on a real hub over
SQLite and PostgreSQL: a repeat of a key gets the first answer and changes nothing, a repeat
under way waits for the first, another body with the same key is 422, a key is kept a day,
and a request without a key is served as always."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from klik_hub import office
from klik_hub.door import once
from klik_hub.storage.store import Store
from tests.helpers.tourney import API, create, enrol


def draw(
    url: str, tid: int, key: str | bytes | None, body: dict[str, Any] | None = None
) -> httpx.Response:
    headers: dict[str, str | bytes] = {"accept-language": "pl"}
    if key is not None:
        headers["idempotency-key"] = key
    return httpx.post(
        f"{url}{API}/{tid}/rounds", json=body or {"round": 1, "seed": 4}, headers=headers
    )


def rounds(url: str, tid: int) -> int:
    return len(httpx.get(f"{url}{API}/{tid}").json()["rounds"])


def test_a_repeated_key_gets_the_first_answer_and_changes_nothing(hub: tuple[str, Store]) -> None:
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    first = draw(url, tid, "k-1")
    assert first.status_code == 201, first.text
    again = draw(url, tid, "k-1")
    assert (again.status_code, again.content) == (201, first.content)
    assert again.headers["content-type"] == first.headers["content-type"]
    assert rounds(url, tid) == 1

    other = draw(url, tid, "k-1", {"round": 1, "seed": 5})
    assert other.status_code == 422
    assert other.json() == {"error": "Idempotency-Key k-1 wysłano już z inną treścią"}

    plain = draw(url, tid, None)  # a script's request, without a key: as always
    assert plain.status_code == 409, plain.text
    refused = draw(url, tid, "k-2")  # a new key: the route's own answer, kept too
    assert refused.status_code == 409
    assert draw(url, tid, "k-2").content == refused.content

    store.now_ms.ms += 24 * 3600 * 1000 + 1  # a day later the key is done with
    assert draw(url, tid, "k-1").status_code == 409  # done again: round 1 is drawn already
    assert rounds(url, tid) == 1


def test_a_repeat_under_way_waits_for_the_first(hub: tuple[str, Store], mocker: Any) -> None:
    """The second click comes while the first is still drawing: it waits, and gets the
    first's answer; the round is drawn once."""
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 12)
    drawing, gate, bodies = threading.Event(), threading.Event(), threading.Semaphore(0)
    real_draw, real_body = office.draws.draw, once._body

    def held_draw(*args: Any, **kwargs: Any) -> Any:
        drawing.set()
        assert gate.wait(10)
        return real_draw(*args, **kwargs)

    async def counted_body(receive: Any) -> bytes:
        body = await real_body(receive)
        bodies.release()  # this request is at the door of its key, on the server's loop
        return body

    draws = mocker.patch.object(office.draws, "draw", side_effect=held_draw)
    mocker.patch.object(once, "_body", counted_body)
    answers: list[httpx.Response] = []
    clicks = [threading.Thread(target=lambda: answers.append(draw(url, tid, "dbl"))) for _ in "12"]
    clicks[0].start()
    assert drawing.wait(10)
    assert bodies.acquire(timeout=10)
    clicks[1].start()
    assert bodies.acquire(timeout=10)  # the second is in: it finds the first under way
    gate.set()
    for click in clicks:
        click.join(30)
    assert [a.status_code for a in answers] == [201, 201]
    assert answers[0].content == answers[1].content
    assert draws.call_count == 1
    assert rounds(url, tid) == 1


def test_a_key_must_be_short_visible_ascii(hub: tuple[str, Store]) -> None:
    url, _ = hub
    tid = create(url)
    for bad in ("x" * 129, "zażółć".encode(), "a b"):
        answer = draw(url, tid, bad)
        assert answer.status_code == 422, bad
        assert answer.json() == {"error": "Idempotency-Key: od 1 do 128 widocznych znaków ASCII"}
    assert rounds(url, tid) == 0
