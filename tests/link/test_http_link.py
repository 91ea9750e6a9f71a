"""The HTTP link against real servers on loopback: envelopes out and acks back, JSON answers,
keep-alive, TLS pinning."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from klik.errors import KlikError
from klik.link import protocol as p
from klik.link.http import HttpLink, LinkDown, Reply

RESULT = b'{"body":{},"device":"t-7","mac":"00","seq":1,"type":"result","v":1}'
KEY = p.key_bytes("ab" * 32)
SIGNED = {"v": 1, "type": "ack", "device": "t-7", "seq": 1, "body": {}, "mac": "0" * 64}


class Hub(ThreadingHTTPServer):
    """A hub stand-in: records each request and answers as ``mode`` says."""

    daemon_threads = True

    def __init__(self, mode: str = "json") -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = mode
        self.seen: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as uvicorn answers
    server: Hub

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.seen.append(
            {
                "path": self.path,
                "type": self.headers["Content-Type"],
                "body": body,
                "port": self.client_address[1],  # one port: one connection
            }
        )
        mode = self.server.mode
        status, data = 201, json.dumps({"receipt": "K7QX2", "n": len(self.server.seen)}).encode()
        if mode == "html":
            status, data = 502, b"<html><body>Bad Gateway</body></html>"
        elif mode == "list":
            data = b'["not", "an", "object"]'
        elif mode == "422":
            status, data = 422, b'{"error": "body.seats: missing"}'
        elif mode == "401":
            status, data = 401, b'{"status": "refused", "error": "bad mac"}'
        elif mode == "stored":
            data = json.dumps({"status": "stored", "receipt": "K7QX2", "ack": SIGNED}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        if mode == "drop":
            # Close after answering without saying "Connection: close", as a hub restarting
            # or a proxy's idle timeout does: the client finds out on its next request.
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep the test output quiet


def serving(hub: Hub) -> Iterator[Hub]:
    # poll_interval: how soon shutdown() is noticed; the default half second adds up
    thread = threading.Thread(target=hub.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        hub.shutdown()
        hub.server_close()
        thread.join(timeout=10)


@pytest.fixture
def hub() -> Iterator[Hub]:
    yield from serving(Hub())


def test_a_post_is_json_to_the_path_and_the_answer_comes_back(hub: Hub) -> None:
    link = HttpLink(hub.url)
    assert link.post("/api/v1/results", RESULT) == Reply(201, {"receipt": "K7QX2", "n": 1})
    assert hub.seen[0]["path"] == "/api/v1/results"
    assert hub.seen[0]["type"] == "application/json"
    assert hub.seen[0]["body"] == RESULT
    link.close()


def test_a_hub_behind_a_base_path_gets_it_in_front(hub: Hub) -> None:
    link = HttpLink(hub.url + "/klik/")
    link.post("/api/v1/heartbeats", b"{}")
    assert hub.seen[0]["path"] == "/klik/api/v1/heartbeats"
    link.close()


def test_one_connection_carries_every_request(hub: Hub) -> None:
    link = HttpLink(hub.url)
    for _ in range(5):
        assert link.post("/api/v1/heartbeats", b"{}").status == 201
    assert len({seen["port"] for seen in hub.seen}) == 1
    link.close()


def test_a_dropped_keep_alive_is_reconnected_once() -> None:
    for hub in serving(Hub("drop")):
        link = HttpLink(hub.url)
        replies = [link.post("/api/v1/results", RESULT) for _ in range(3)]
        # every request answered, each on a fresh connection after the hub dropped the last
        assert [reply.body["n"] for reply in replies] == [1, 2, 3]
        assert len({seen["port"] for seen in hub.seen}) == 3
        link.close()


@pytest.mark.parametrize(
    ("mode", "reply"),
    [
        ("html", Reply(502, {})),  # a proxy's error page
        ("list", Reply(201, {})),  # JSON, but not an object
        ("422", Reply(422, {"error": "body.seats: missing"})),  # the hub refuses: still a reply
    ],
)
def test_an_answer_is_a_reply_whatever_it_holds(mode: str, reply: Reply) -> None:
    for hub in serving(Hub(mode)):
        link = HttpLink(hub.url)
        assert link.post("/api/v1/results", RESULT) == reply
        link.close()


# --- send: an envelope out, an ack back ----------------------------------------------------


def test_send_signs_once_and_posts_to_the_path_of_the_envelopes_type(hub: Hub) -> None:
    link = HttpLink(hub.url)
    result = p.Envelope("result", "t-7", 1, {"game": 1})
    beat = p.Envelope("heartbeat", "t-7", 40, {"state": "move"})
    link.send(result, KEY)
    link.send(beat, KEY)
    assert [(seen["path"], seen["body"]) for seen in hub.seen] == [
        ("/api/v1/results", p.seal(result, KEY)),
        ("/api/v1/heartbeats", p.seal(beat, KEY)),
    ]
    with pytest.raises(ValueError, match="a table sends result and heartbeat only"):
        link.send(p.Envelope("ack", "t-7", 1, {}), KEY)
    assert len(hub.seen) == 2
    link.close()


@pytest.mark.parametrize(
    ("mode", "ack"),
    [
        ("stored", p.Ack(p.Status.STORED, {"status": "stored", "receipt": "K7QX2"}, SIGNED)),
        ("401", p.Ack(None, {"status": "refused", "error": "bad mac"}, trouble=p.Trouble.UNPAIRED)),
        ("html", p.Ack(None, {}, trouble=p.Trouble.HUB_ERROR)),  # a proxy's 502 page
        ("json", p.Ack(None, {"receipt": "K7QX2", "n": 1}, trouble=p.Trouble.NO_STATUS)),
    ],
)  # fmt: skip
def test_send_gives_the_answer_as_an_ack(mode: str, ack: p.Ack) -> None:
    for hub in serving(Hub(mode)):
        link = HttpLink(hub.url)
        answer = link.send(p.Envelope("result", "t-7", 1, {}), KEY)
        assert answer == ack
        if mode == "html":
            assert answer.seen == "502 <html><body>Bad Gateway</body></html>"
        link.close()


# --- the hub cannot be reached ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_refused_connection_is_link_down() -> None:
    port = free_port()  # nothing listens there any more
    with pytest.raises(LinkDown) as caught:
        HttpLink(f"http://127.0.0.1:{port}").post("/api/v1/results", RESULT)
    assert str(caught.value) == (
        f"the hub at http://127.0.0.1:{port} refused the connection (is it running?)"
    )
    assert isinstance(caught.value, KlikError)
    assert isinstance(caught.value, ConnectionError)


@pytest.mark.slow  # waits out the real timeout
def test_a_hub_that_never_answers_is_link_down_within_the_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # the kernel completes the handshake; nobody ever reads or answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        with pytest.raises(LinkDown) as caught:
            HttpLink(url, timeout_s=0.5).post("/api/v1/results", RESULT)
        took = time.monotonic() - started
    assert str(caught.value) == f"the hub at {url} did not answer within 0.5 s"
    assert 0.4 < took < 2.0


def test_a_host_that_does_not_exist_is_link_down() -> None:
    # .invalid never resolves (RFC 6761)
    with pytest.raises(LinkDown, match=r"^cannot find the hub's host hub\.invalid \("):
        HttpLink("http://hub.invalid:8000", timeout_s=0.5).post("/api/v1/results", RESULT)


@pytest.mark.parametrize(
    ("url", "pin", "message"),
    [
        ("ftp://10.0.0.5", None, "must be http:// or https://"),  # not a web address
        ("http://", None, "must be http:// or https://"),  # no host
        ("http://10.0.0.5", "ab" * 32, "tls_pin_sha256 needs an https:// url"),  # a pin checks nothing over http
        ("https://10.0.0.5", "ab:cd", "64 hex digits, without colons"),  # a pin as openssl prints it
    ],
)  # fmt: skip
def test_a_url_or_pin_that_cannot_be_used_is_refused(
    url: str, pin: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        HttpLink(url, tls_pin_sha256=pin)


# --- TLS: a self-signed hub, pinned --------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A self-signed certificate as an organiser makes one for the hub's laptop; its pin."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-subj", "/CN=hub", "-days", "2", "-keyout", "k.pem", "-out", "c.pem"],
        cwd=folder, check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    der = ssl.PEM_cert_to_DER_cert((folder / "c.pem").read_text())
    return folder / "c.pem", folder / "k.pem", hashlib.sha256(der).hexdigest()


@pytest.fixture
def tls_hub(certificate: tuple[Path, Path, str]) -> Iterator[Hub]:
    cert, key, _ = certificate
    hub = Hub()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    hub.socket = context.wrap_socket(hub.socket, server_side=True)
    yield from serving(hub)


def https(hub: Hub) -> str:
    return hub.url.replace("http://", "https://")


def test_the_pinned_certificate_is_trusted(
    tls_hub: Hub, certificate: tuple[Path, Path, str]
) -> None:
    pin = certificate[2]
    for written in (pin, pin.upper()):  # openssl prints fingerprints in upper case
        link = HttpLink(https(tls_hub), tls_pin_sha256=written)
        assert link.post("/api/v1/results", RESULT).status == 201
        assert link.post("/api/v1/results", RESULT).status == 201  # on the same connection
        link.close()
    assert [seen["body"] for seen in tls_hub.seen] == [RESULT] * 4


def test_another_certificate_is_refused_before_anything_is_sent(
    tls_hub: Hub, certificate: tuple[Path, Path, str]
) -> None:
    wrong = hashlib.sha256(b"another hub's certificate").hexdigest()
    link = HttpLink(https(tls_hub), tls_pin_sha256=wrong)
    with pytest.raises(LinkDown) as caught:
        link.post("/api/v1/results", RESULT)
    assert str(caught.value) == (
        f"the hub's certificate does not match tls_pin_sha256 ({https(tls_hub)})"
    )
    with pytest.raises(LinkDown):
        link.post("/api/v1/results", RESULT)  # and again on the next try: never believed
    assert tls_hub.seen == []  # not one result left the table for the wrong hub


def test_a_dropped_keep_alive_over_tls_is_reconnected_once(
    tls_hub: Hub, certificate: tuple[Path, Path, str]
) -> None:
    tls_hub.mode = "drop"
    link = HttpLink(https(tls_hub), tls_pin_sha256=certificate[2])
    replies = [link.post("/api/v1/results", RESULT) for _ in range(3)]
    assert [reply.body["n"] for reply in replies] == [1, 2, 3]
    assert len({seen["port"] for seen in tls_hub.seen}) == 3
    link.close()


def test_https_without_a_pin_verifies_the_chain(tls_hub: Hub) -> None:
    with pytest.raises(LinkDown) as caught:
        HttpLink(https(tls_hub)).post("/api/v1/results", RESULT)
    assert str(caught.value).startswith(
        f"the hub at {https(tls_hub)} has a certificate this table does not trust ("
    )
    assert str(caught.value).endswith("); a self-signed hub needs tls_pin_sha256")
    assert tls_hub.seen == []


@pytest.mark.slow  # waits out the real timeout
def test_a_tls_hub_that_never_answers_the_handshake_is_link_down(
    certificate: tuple[Path, Path, str],
) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"https://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        with pytest.raises(LinkDown) as caught:
            HttpLink(url, tls_pin_sha256=certificate[2], timeout_s=0.5).post("/x", RESULT)
        took = time.monotonic() - started
    assert str(caught.value) == f"the hub at {url} did not answer within 0.5 s"
    assert took < 2.0
