"""The sd_notify protocol, written by hand: tell systemd we are ready, alive or stopping.

systemd passes ``$NOTIFY_SOCKET`` to a ``Type=notify`` service: the path of an AF_UNIX
datagram socket, or an abstract-namespace name when it starts with ``@``. A message is one
datagram of newline-separated ``KEY=VALUE`` lines. We send UTF-8 because the table's status
lines are Polish ("Stół 7: gra trwa"); the ``sdnotify`` package encodes Latin-1 and drops what
does not fit, which is why this module exists.

Called by the table daemon's shell only. Outside systemd (tests, ``--sim``, a developer's
terminal) every call is a no-op that returns False. A socket error is logged as one line and
never raised: the clock must keep running even if systemd cannot be told about it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def notify(message: str, env: Mapping[str, str] = os.environ) -> bool:
    """Send ``message`` as one UTF-8 datagram to ``$NOTIFY_SOCKET``.

    Returns True when the datagram was sent, False when not under systemd or when sending
    failed (logged once per failure). Side effect: one short-lived socket.
    """
    address = env.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        # Abstract namespace: Linux names these with a leading NUL byte instead of '@'.
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message.encode("utf-8"), address)
    except OSError as error:
        log.warning("sd_notify to %r failed: %s", env["NOTIFY_SOCKET"], error)
        return False
    return True


def _one_line(text: str) -> str:
    # A newline would start a new KEY=VALUE assignment; keep a status to one line.
    return " ".join(text.splitlines())


def ready(status: str = "", env: Mapping[str, str] = os.environ) -> bool:
    """Tell systemd start-up is done (``READY=1``), with an optional status line."""
    return notify("READY=1" + (f"\nSTATUS={_one_line(status)}" if status else ""), env)


def status(text: str, env: Mapping[str, str] = os.environ) -> bool:
    """Set the line ``systemctl status klik-table`` shows (``STATUS=``)."""
    return notify(f"STATUS={_one_line(text)}", env)


def watchdog(env: Mapping[str, str] = os.environ) -> bool:
    """Pet the watchdog (``WATCHDOG=1``); call at least every ``watchdog_interval_s()``."""
    return notify("WATCHDOG=1", env)


def stopping(env: Mapping[str, str] = os.environ) -> bool:
    """Tell systemd we are shutting down on purpose (``STOPPING=1``)."""
    return notify("STOPPING=1", env)


def watchdog_interval_s(env: Mapping[str, str] = os.environ) -> float | None:
    """Seconds between watchdog pings: half of ``$WATCHDOG_USEC``, as sd_watchdog_enabled advises.

    None when no watchdog is set, when the value is not a positive integer, or when
    ``$WATCHDOG_PID`` names another process (the variable was inherited, not meant for us).
    """
    pid = env.get("WATCHDOG_PID")
    if pid is not None and pid != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    return usec / 2 / 1_000_000
