"""What a client sends never breaks the hub's log (issue 36): a path with a control character
names nothing here, so it is 404 at the door, never a 500 with a traceback; and every path,
address or frame the hub writes into its log is escaped (``door.escape``), so no request
forges a line of its own or sends the judge's terminal an escape sequence."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from klik_hub.api import install
from klik_hub.door import guard, judge
from klik_hub.door.escape import escaped
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock, live_hub
from tests.hub.test_install_route import raw_get
from tests.test_bundle import fake_bundle

# What a log line must never hold: a line break of any kind (``str.splitlines``'s, which a
# log viewer may break at too), a NUL, an escape sequence's ESC.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
NEVER_LOGGED = (*LINE_BREAKS, "\x00", "\x1b")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A live hub serving a (fake) bundle at /install: its URL."""
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), Clock())
    bundle, _ = fake_bundle(tmp_path)
    with live_hub(store, bundle=bundle) as url:
        yield url
    store.engine.dispose()


@pytest.mark.parametrize(
    "target",
    [
        "/install/files/x%00",  # a NUL: Path.resolve() raised, a 500 and 66 lines of traceback
        "/install/files/SHA256SUMS%00",  # a listed file's name and a NUL
        "/install/files/x%00%0dINFO%20forged",  # a NUL and a carriage return
        "/install/files/SHA256SUMS%1b[2J",  # an escape sequence that clears a terminal
        "/p/x%00",  # a player's page
        "/api/v1/tournaments/1%00",  # a route with an integer in its path
        "/x%7f",  # DEL, on no route at all
        "/x%c2%85",  # NEL, a C1 control (and a line break to str.splitlines)
        "/x%e2%80%a8",  # LINE SEPARATOR, a line break too
    ],
)
def test_a_path_with_a_control_character_is_404_and_no_traceback(
    served: str, caplog: pytest.LogCaptureFixture, target: str
) -> None:
    with caplog.at_level(logging.INFO):
        status, body = raw_get(served, target)
    assert (status, json.loads(body)) == (404, {"error": guard.CONTROL_IN_PATH})
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING] == []


def test_the_install_route_never_fails_on_a_name_no_file_can_have(tmp_path: Path) -> None:
    """Behind the guard too: a SHA256SUMS that lists a name with a NUL (no bundle does) is
    a file not in the bundle, not a ValueError from ``Path.resolve``."""
    bundle, _ = fake_bundle(tmp_path)
    with (bundle / install.SUMS).open("a", encoding="utf-8") as sums:
        sums.write(f"{'0' * 64}  wheels/x\x00.whl\n")
    answer = install.file("wheels/x\x00.whl", bundle)
    assert (answer.status_code, json.loads(answer.body)) == (
        404,
        {"error": "wheels/x\x00.whl: not in the bundle"},
    )


def _request(app: Any, path: str, **scope: Any) -> list[dict[str, Any]]:
    """``GET path`` (as decoded: control characters and all) through ``app``, in-process;
    the messages it sent back."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    request = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
        "headers": [(b"host", b"127.0.0.1")], **scope,
    }  # fmt: skip
    asyncio.run(app(request, receive, send))
    return sent


async def _failing(_scope: Any, _receive: Any, _send: Any) -> None:
    raise RuntimeError("a bug")


def _status(sent: list[dict[str, Any]]) -> int:
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


@pytest.mark.parametrize(
    ("path", "status"),
    [
        # CR LF and a line of the log's own shape: refused at the door, never in the log
        ("/boom\r\nERROR klik_hub: hub: forged", 404),
        # LINE SEPARATOR, a line break to a log viewer: refused at the door as well
        ("/boom\u2028forged", 404),
        # a backslash gets through (no control character), doubled: no "\r" can be spelt
        ("/boom\\r\\nforged", 500),
    ],
)
def test_a_path_never_breaks_the_guards_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, path: str, status: int
) -> None:
    gate = judge.Gate(Store(open_engine(str(tmp_path / "hub.sqlite")), Clock()))
    with caplog.at_level(logging.INFO):
        sent = _request(guard.Guard(_failing, gate), path)
    assert _status(sent) == status
    for record in caplog.records:
        message = record.getMessage()
        assert not any(c in message for c in NEVER_LOGGED), message
        assert "forged" not in message or "\\\\r\\\\nforged" in message


def test_a_wrong_password_from_a_strange_address_is_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The client's address can be what a proxy's ``X-Forwarded-For`` said (uvicorn trusts
    loopback's): whatever it holds, it is escaped."""
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), Clock())
    store.set_setting(judge.SETTING, judge.hash_password("sędzia"))
    wrong = "Basic " + base64.b64encode(b"judge:zgaduj-zgadula").decode()
    client = "10.0.0.7\r\nWARNING klik_hub: hub: forged\x1b[2J"
    with caplog.at_level(logging.INFO):
        verdict = asyncio.run(judge.Gate(store).judge(wrong, None, client))
    assert not verdict.ok
    assert [r.getMessage() for r in caplog.records] == [
        "hub: a wrong judge's password from 10.0.0.7\\r\\nWARNING klik_hub: hub: forged"
        "\\x1b[2J (1 in a row)"
    ]


@pytest.mark.parametrize(
    ("text", "logged"),
    [
        ("/api/v1/results", "/api/v1/results"),  # nothing to escape: as it was
        ("Łucja Żak", "Łucja Żak"),  # letters of any language stay
        ("a\x00b", "a\\x00b"),  # NUL
        ("a\r\nb", "a\\r\\nb"),  # CR LF: no second line
        ("\x1b[31mred", "\\x1b[31mred"),  # ESC: no colour, no cleared screen
        ("a\tb", "a\\tb"),  # a tab: columns stay where they were
        ("a\x85b\u2028c", "a\\x85b\\u2028c"),  # NEL and LINE SEPARATOR, line breaks too
        ("a\u202eb", "a\\u202eb"),  # RIGHT-TO-LEFT OVERRIDE: no text read backwards
        ("a\\x00b", "a\\\\x00b"),  # a backslash doubled: an escape is never spelt out
        ("x" * 500, "x" * 300 + "…"),  # a line stays a line's length
    ],
)
def test_escaped(text: str, logged: str) -> None:
    assert escaped(text) == logged
    assert not any(c in escaped(text) for c in NEVER_LOGGED)
