"""One refused result never blocks a table: the hub signs the refusals it means for good, the
table sets such a result aside (kept, shown, reported) and sends the later ones; anything
else, a 401 after re-pairing included, is only a reason to try again."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from klik.link import protocol as p
from klik.link import serial
from klik.link.courier import Courier, State, Tracking
from klik.link.http import HttpLink
from klik.link.outbox import Outbox
from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.courier import Table
from tests.helpers.hubkit import post, result_body, sealed

IMPOSSIBLE = "2026-99-99T99:99:99Z"  # a table of older software might have kept such a body


@pytest.fixture
def table(hub: tuple[str, Store], tmp_path: Path) -> Iterator[tuple[Table, Store, str]]:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    kept = Table(tmp_path, HttpLink(url, timeout_s=2.0), device, key)
    yield kept, store, url
    kept.close()


def test_the_hub_signs_a_refusal_it_means_for_good(hub: tuple[str, Store]) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    bad = sealed(device, key, 1, result_body(finished_at=IMPOSSIBLE))
    answer = post(url, "/api/v1/results", bad)
    assert answer.status_code == 422
    said = answer.json()
    assert said["status"] == "refused"
    assert said["error"].startswith("body.finished_at:")
    ack, mac = p.open_envelope(said["ack"])
    assert p.verify(ack, mac, p.key_bytes(key))
    assert ack.body == {"of": "result", "status": "refused", "error": said["error"]}
    # an envelope the hub does not believe gets no signed refusal: nobody can forge one
    stranger = sealed(device, "0" * 64, 2, result_body(finished_at=IMPOSSIBLE))
    answer = post(url, "/api/v1/results", stranger)
    assert answer.status_code == 401
    assert "ack" not in answer.json()


def test_a_refused_result_is_set_aside_and_the_later_ones_go_on(
    table: tuple[Table, Store, str],
) -> None:
    kept, store, _ = table
    first = kept.outbox.keep(result_body(game=1, finished_at=IMPOSSIBLE))
    kept.courier.wake()
    second = kept.keep(game=2)
    kept.step(100.0)
    kept.step(100.0)
    assert {r["seq"] for r in hall.results.newest(store)} == {second}
    assert kept.outbox.waiting() == 0
    (aside,) = kept.outbox.set_aside()
    assert (aside.seq, aside.game) == (first, 1)
    assert aside.reason.startswith("body.finished_at:")
    assert kept.news[-1].state is State.SENT  # the newest result, game 2
    # kept through a restart, and reported in every heartbeat for the judge's console
    kept.outbox.close()
    kept.outbox = kept.courier.outbox = Outbox(kept.outbox.path)
    assert [x.seq for x in kept.outbox.set_aside()] == [first]
    kept.step(103.0)
    (row,) = hall.devices.tables(store)
    assert row["status"]["refused"] == [{"seq": first, "game": 1, "error": aside.reason}]


def test_the_screens_say_this_games_result_was_refused(table: tuple[Table, Store, str]) -> None:
    kept, _, _ = table
    seq = kept.outbox.keep(result_body(game=4, finished_at=IMPOSSIBLE))
    kept.courier.wake()
    kept.step(100.0)
    assert kept.news[-1] == Tracking(State.REFUSED, seq, None, 0)


class Forged:
    """A link whose answers come from someone on the Wi-Fi, not the hub: a ``refused``
    without the hub's signature."""

    def __init__(self) -> None:
        self.sent = 0

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        self.sent += 1
        return p.Ack(p.Status.REFUSED, {"status": "refused", "error": "forged"})

    def close(self) -> None:
        pass


def test_an_unsigned_refusal_sets_nothing_aside(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    news: list[Tracking] = []
    link = Forged()
    courier = Courier(
        outbox, link, "t3-00000000", bytes(32), heartbeat_s=2.0, status=p.Heartbeat,
        on_tracking=news.append, on_command=lambda _: None, clock=lambda: 0.0,
        rng=random.Random(1),
    )  # fmt: skip
    seq = outbox.keep(result_body(game=1))
    for at in (0.0, 20.0, 40.0):
        courier.step(at)
    assert outbox.waiting() == 1
    assert outbox.set_aside() == []
    assert outbox.oldest_waiting() is not None
    assert outbox.oldest_waiting().seq == seq  # type: ignore[union-attr]
    outbox.close()


def test_a_table_paired_again_elsewhere_is_told_to_pair_and_keeps_its_result(
    table: tuple[Table, Store, str],
) -> None:
    kept, store, url = table
    hall.devices.pair(
        store, 3
    )  # the judge paired table 3 again: this card's key is no longer the hub's
    seq = kept.keep(game=1)
    kept.step(100.0)
    assert kept.news[-1] == Tracking(State.UNPAIRED, seq, None, 1)
    assert kept.outbox.waiting() == 1
    assert kept.outbox.set_aside() == []
    assert httpx.get(url + "/api/v1/results").json() == []


def test_a_result_kept_under_the_old_number_after_a_re_pair_without_proof_says_so(
    hub: tuple[str, Store], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Re-paired as table 8 with no proof of its old pairing (a new card, an older hub): the
    result kept as table 3's is refused (401) and waits; the screens and the log say why in
    words, not "pair it again" (pairing again cannot help), and the judge enters it."""
    url, store = hub
    device, key = hall.devices.pair(store, 8)
    kept = Table(tmp_path, HttpLink(url, timeout_s=2.0), device, key)
    kept.courier.table = 8  # as the daemon gives it its pairing's number
    try:
        seq = kept.keep(game=4, table=3)
        kept.step(100.0)
        assert kept.news[-1] == Tracking(State.STRANDED, seq, None, 1)
        assert kept.outbox.waiting() == 1  # kept, for the judge to enter
        said = caplog.text
        assert "kept as table 3's, and the hub holds this table as 8" in said
        assert "pair it again" not in said
    finally:
        kept.close()


def test_the_serial_link_hands_a_signed_refusal_on_as_it_is() -> None:
    assert p.Status.REFUSED in serial.ANSWERS
