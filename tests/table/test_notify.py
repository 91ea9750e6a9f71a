"""sd_notify over a real AF_UNIX datagram socket: what systemd would receive, byte for byte."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from klik.table.service import notify

POLISH = "Stół 7: gra trwa — ruch B"


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, dict[str, str]]]:
    """A bound datagram socket in tmp_path and the environment that points at it."""
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2.0)
    try:
        yield sock, {"NOTIFY_SOCKET": str(path)}
    finally:
        sock.close()


def receive(sock: socket.socket) -> str:
    return sock.recv(4096).decode("utf-8")


def test_polish_status_arrives_intact_as_utf8(
    listener: tuple[socket.socket, dict[str, str]],
) -> None:
    sock, env = listener
    assert notify.status(POLISH, env) is True
    assert receive(sock) == f"STATUS={POLISH}"


@pytest.mark.parametrize(
    ("send", "expected"),
    [
        (lambda env: notify.ready("", env), "READY=1"),  # ready without a status
        (lambda env: notify.ready(POLISH, env), f"READY=1\nSTATUS={POLISH}"),  # ready + status
        (notify.watchdog, "WATCHDOG=1"),  # a watchdog ping
        (notify.stopping, "STOPPING=1"),  # orderly stop
        (lambda env: notify.status("a\nb", env), "STATUS=a b"),  # newline cannot add a key
    ],
)
def test_each_helper_sends_one_datagram(
    listener: tuple[socket.socket, dict[str, str]],
    send: Callable[[dict[str, str]], bool],
    expected: str,
) -> None:
    sock, env = listener
    assert send(env) is True
    assert receive(sock) == expected
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):  # exactly one datagram, nothing more
        sock.recv(4096)


def test_abstract_namespace_socket() -> None:
    name = f"klik-test-{os.getpid()}-{id(object())}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind("\0" + name)
        sock.settimeout(2.0)
        assert notify.status(POLISH, {"NOTIFY_SOCKET": "@" + name}) is True
        assert receive(sock) == f"STATUS={POLISH}"
    finally:
        sock.close()


def test_not_under_systemd_is_a_quiet_no_op() -> None:
    assert notify.notify("READY=1", {}) is False
    assert notify.ready("x", {"NOTIFY_SOCKET": ""}) is False


def test_socket_error_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = {"NOTIFY_SOCKET": str(tmp_path / "nobody-listens.sock")}
    assert notify.watchdog(env) is False
    assert len(caplog.records) == 1
    assert "nobody-listens.sock" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),  # no watchdog configured
        ({"WATCHDOG_USEC": "10000000"}, 5.0),  # WatchdogSec=10 -> ping every 5 s
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}, 5.0),  # meant for us
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}, None),  # meant for another pid
        ({"WATCHDOG_USEC": "0"}, None),  # zero disables
        ({"WATCHDOG_USEC": "ten"}, None),  # garbage is ignored, not raised
    ],
)
def test_watchdog_interval_is_half_of_watchdog_usec(
    env: dict[str, str], expected: float | None
) -> None:
    assert notify.watchdog_interval_s(env) == expected
