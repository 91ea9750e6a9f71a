"""The table says what is wrong with its link, in words a judge can act on: the hub failing
(`Hub: błąd serwera`), another key (`Sparuj stół ponownie`), another certificate (`Zły
certyfikat huba`); the log says each trouble once per change, with the hub's status and the
first line of its answer."""

from __future__ import annotations

import http.server
import logging
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from klik.link import protocol as p
from klik.link.courier import Courier, State, Tracking
from klik.link.http import HttpLink
from klik.link.outbox import Outbox
from klik.table.screens import render as screens
from klik.table.screens.view import Delivery
from klik.words import Language, catalogue
from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.courier import Clock
from tests.helpers.hubkit import result_body
from tests.hub.test_hub_security import klik_hub, pair

COURIER = "klik.link.courier"


class Seat:
    """An outbox and a courier over ``link``, driven by hand on a clock the test moves."""

    def __init__(self, folder: Path, link: Any, device: str, key: str) -> None:
        self.outbox = Outbox(folder / "outbox.sqlite")
        self.news: list[Tracking] = []
        self.clock = Clock()
        self.courier = Courier(
            self.outbox, link, device, p.key_bytes(key), heartbeat_s=3600.0, status=p.Heartbeat,
            on_tracking=self.news.append, on_command=lambda _: None, clock=self.clock,
            rng=random.Random(3),
        )  # fmt: skip

    def tries(self, count: int) -> None:
        """``count`` tries of the oldest result, each after its back-off."""
        for _ in range(count):
            self.clock.now += 20.0
            self.courier.step(self.clock.now)

    def close(self) -> None:
        self.courier.link.close()
        self.outbox.close()


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == COURIER]


def test_a_hub_that_fails_is_a_server_error_said_once(
    hub: tuple[str, Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    seat = Seat(tmp_path, HttpLink(url), device, key)
    seat.outbox.keep(result_body(game=1))

    def broken(*_: Any) -> None:
        raise RuntimeError("a bug in the hub")

    with monkeypatch.context() as patch, caplog.at_level(logging.INFO, COURIER):
        patch.setattr(hall.results, "keep", broken)
        seat.tries(4)
        assert seat.news[-1].state is State.SERVER_ERROR
        assert said(caplog) == [
            'hub: result 1: 500 {"error": "the hub failed on this request (it is in the log)"}:'
            " not taken"
        ]
    with caplog.at_level(logging.INFO, COURIER):
        seat.tries(1)  # the hub mended: the result goes, and the log says so once
    assert seat.news[-1].state is State.SENT
    assert said(caplog)[-1] == "hub: results go through again"
    seat.close()


class Portal(http.server.BaseHTTPRequestHandler):
    """What a hall's Wi-Fi login page answers to anything: 200 and HTML."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        page = b"<html><body>Zaloguj si\xc4\x99 do sieci hotelu</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def portal() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Portal)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.slow  # a real server in a thread
def test_an_answer_that_is_not_the_hubs_is_not_retried_silently(
    portal: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seat = Seat(tmp_path, HttpLink(portal), "t3-00000000", "0" * 64)
    seat.outbox.keep(result_body(game=1))
    with caplog.at_level(logging.INFO, COURIER):
        seat.tries(3)
    assert seat.news[-1].state is State.SERVER_ERROR
    assert said(caplog) == [
        "hub: result 1: 200 <html><body>Zaloguj się do sieci hotelu</body></html>: "
        "an answer without this table's signed receipt"
    ]
    assert seat.outbox.waiting() == 1
    seat.close()


@pytest.mark.slow  # real `klik hub` processes with TLS
def test_another_certificate_is_said_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with klik_hub(tmp_path, "--tls") as hub:
        config = pair(hub)
        seat = Seat(tmp_path, HttpLink(hub.url, tls_pin_sha256="ab" * 32), *_keys(config))
        seat.outbox.keep(result_body(table=7, game=1))
        with caplog.at_level(logging.INFO, COURIER):
            seat.tries(1)
            assert seat.news[-1].state is State.BAD_CERTIFICATE  # at the first try
            seat.tries(2)
        seat.close()
    (line,) = said(caplog)
    assert line.startswith("hub: result 1: the hub's certificate does not match tls_pin_sha256")


def test_a_table_paired_again_is_told_so_once(
    hub: tuple[str, Store], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url, store = hub
    device, key = hall.devices.pair(store, 3)
    hall.devices.pair(store, 3)  # the judge paired table 3 again, on another card
    seat = Seat(tmp_path, HttpLink(url), device, key)
    seat.outbox.keep(result_body(game=1))
    with caplog.at_level(logging.INFO, COURIER):
        seat.tries(3)
    assert seat.news[-1].state is State.UNPAIRED
    (line,) = said(caplog)
    assert line.startswith("hub: result 1: 401 ")
    assert line.endswith("this table's key is not the hub's; pair it again")
    seat.close()


@pytest.mark.parametrize(
    ("state", "words"),
    [
        (State.SERVER_ERROR, "Hub: błąd serwera"),
        (State.UNPAIRED, "Sparuj stół ponownie"),
        (State.BAD_CERTIFICATE, "Zły certyfikat huba"),
    ],
)
def test_the_three_screen_texts_are_the_contracts(state: State, words: str) -> None:
    assert catalogue(Language.PL).gettext(screens.DELIVERY[Delivery(state.value)]) == words


def _keys(config: dict[str, str]) -> tuple[str, str]:
    return config["device_id"], config["key"]
