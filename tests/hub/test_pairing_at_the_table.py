"""Pairing at the table (issue 21), with two real processes over loopback: ``klik hub`` and
``klik sim`` with a config that has the hub's url and nothing from pairing. The table asks to
join, the judge compares the digits of seat A's screen with the console's list and accepts;
the table keeps what it was given (0600) and its heartbeats reach the hub. A man in the middle
who swaps keys shows other digits, and nothing is paired."""

from __future__ import annotations

import json
import os
import socket
import ssl
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from klik.link.protocol import pairing as x
from klik_hub.door.tls import CERT_FILE, fingerprint
from tests.crash.test_crash_campaign import VirtualTable
from tests.crash.test_delivery_faults import play
from tests.hub.test_demo import until  # waits on real servers, on the real clock

pytestmark = pytest.mark.slow  # real `klik hub` and `klik sim` processes on the real clock

KLIK = str(Path(sys.executable).parent / "klik")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


UNCHECKED = ssl.create_default_context()
UNCHECKED.check_hostname = False
UNCHECKED.verify_mode = ssl.CERT_NONE  # the test's own requests to a self-signed hub


def call(url: str, body: Any = None, method: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10, context=UNCHECKED) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@contextmanager
def hub_and_table(
    tmp_path: Path, hub_port: int | None = None, table_url: str | None = None, tls: bool = False
) -> Iterator[tuple[str, str]]:
    """``klik hub`` and ``klik sim`` (its config: the hub's url, or ``table_url``, only);
    ``tls``: the hub with its own self-signed certificate."""
    hub_port, sim_port = hub_port or free_port(), free_port()
    scheme = "https" if tls else "http"
    hub, sim = f"{scheme}://127.0.0.1:{hub_port}", f"http://127.0.0.1:{sim_port}"
    config = f'[hub]\nlink = "http"\nurl = "{table_url or hub}"\n'
    with running(tmp_path, config, hub_port, ["--tls"] if tls else [], sim_port):
        until(lambda: call(f"{hub}/api/v1/health")[0] == 200)
        yield hub, sim


@contextmanager
def running(
    tmp_path: Path, table_toml: str, hub_port: int, hub_args: Sequence[str], sim_port: int
) -> Iterator[None]:
    """``klik hub`` on ``hub_port`` with ``hub_args`` and ``klik sim`` on ``sim_port`` with
    ``table_toml`` as its config (its state in ``tmp_path/table``), both stopped at the end."""
    config = tmp_path / "table.toml"
    config.write_text(table_toml, encoding="utf-8")
    processes = [
        subprocess.Popen(
            [KLIK, "hub", "--db", str(tmp_path / "hub.sqlite"), "--port", str(hub_port),
             *hub_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ),
        subprocess.Popen(
            [KLIK, "sim", "--config", str(config), "--state-dir", str(tmp_path / "table"),
             "--port", str(sim_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ),
    ]  # fmt: skip
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=15)


def pairing_of(sim: str) -> dict[str, Any]:
    return dict(call(f"{sim}/api/state")[1]["pairing"])


def test_the_judge_pairs_a_table_by_its_digits_and_its_heartbeats_reach_the_hub(
    tmp_path: Path,
) -> None:
    with hub_and_table(tmp_path) as (hub, sim):
        shown = until(lambda: (p := pairing_of(sim))["digits"] and p)
        assert shown["state"] == "asking"
        (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
        assert asking["digits"] == shown["digits"]
        assert asking["link"] == "http"
        assert asking["seen_s_ago"] < 5
        # Digits that are not the request's: 409, and nothing is paired.
        wrong = f"{(int(shown['digits']) + 1) % 10**6:06d}"
        status, said = call(f"{hub}/api/v1/pairing/{asking['id']}", {"table": 7, "digits": wrong})
        assert status == 409, said
        assert call(f"{hub}/api/v1/tables")[1] == []
        status, said = call(
            f"{hub}/api/v1/pairing/{asking['id']}", {"table": 7, "digits": shown["digits"]}
        )
        assert status == 201, said
        assert said["table"] == 7
        assert until(lambda: pairing_of(sim)["state"] == "paired")
        assert pairing_of(sim) == {"state": "paired", "digits": None}
        assert call(f"{sim}/api/state")[1]["table"] == "7"
        (table,) = until(
            lambda: [t for t in call(f"{hub}/api/v1/tables")[1] if t["seen_s_ago"] is not None]
        )
        assert table["table"] == 7
        assert table["device"] == said["device"]
        assert call(f"{hub}/api/v1/pairing")[1] == []
    kept = tmp_path / "table" / "paired.toml"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    text = kept.read_text(encoding="utf-8")
    assert "table = 7" in text
    assert f'device_id = "{said["device"]}"' in text


def test_a_game_played_before_the_judge_paired_the_table_reaches_the_hub_with_its_number(
    tmp_path: Path,
) -> None:
    """The players did not wait for the judge: their game, kept at the table while it asked,
    goes to the hub at the accept, as table 7's, and its receipt reaches the table."""
    with hub_and_table(tmp_path) as (hub, sim):
        shown = until(lambda: (p := pairing_of(sim))["digits"] and p)
        seats = VirtualTable(tmp_path / "table", dated=True)  # the running sim's seats
        seats.port = int(sim.rsplit(":", 1)[1])
        play(seats)
        assert seats.state()["delivery"]["state"] == "kept"
        assert call(f"{hub}/api/v1/results")[1] == []
        (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
        accept = {"table": 7, "digits": shown["digits"]}
        assert call(f"{hub}/api/v1/pairing/{asking['id']}", accept)[0] == 201
        (stored,) = until(lambda: call(f"{hub}/api/v1/results")[1])
        assert (stored["table"], stored["game"], stored["tournament"]) == (7, 1, None)
        delivery = until(lambda: (d := seats.state()["delivery"])["receipt"] and d)
        assert (delivery["state"], delivery["waiting"]) == ("sent", 0)
        assert delivery["receipt"] == stored["receipt"]


def test_a_refused_request_pairs_nothing_and_the_table_asks_again(tmp_path: Path) -> None:
    with hub_and_table(tmp_path) as (hub, sim):
        (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
        assert call(f"{hub}/api/v1/pairing/{asking['id']}", method="DELETE") == (
            200,
            {"status": "refused"},
        )
        # The table hears it, and asks again with a new key (other digits, another id).
        again = until(
            lambda: [a for a in call(f"{hub}/api/v1/pairing")[1] if a["id"] != asking["id"]]
        )
        assert again
        assert call(f"{hub}/api/v1/tables")[1] == []
        assert pairing_of(sim)["state"] == "asking"
    assert not (tmp_path / "table" / "paired.toml").exists()


class Mallory:
    """A proxy between the table and the hub that swaps keys both ways: to the table it is a
    hub (its own key, nonce and commitment), to the hub a table (its own key); it passes the
    table's nonce on, the best it can do, since the hub reveals its nonce only after."""

    def __init__(self, hub: str) -> None:
        self.hub = hub
        self.key = x.new_private()
        self.nonce = x.new_nonce()
        self.digits: dict[str, str] = {}  # the table's digits by request id, as Mallory sees
        self.table_key = ""
        mallory = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path == "/api/v1/join":
                    mallory.table_key = body["table_key"]
                    body["table_key"] = x.public_hex(mallory.key)
                    status, said = call(mallory.hub + self.path, body)
                    own = x.public_hex(mallory.key)
                    said["hub_key"] = own
                    said["commit"] = x.commitment(own, mallory.table_key, mallory.nonce)
                else:
                    status, said = call(mallory.hub + self.path, body)
                    request_id = self.path.split("/")[4]
                    mallory.digits[request_id] = x.digits(
                        mallory.table_key, x.public_hex(mallory.key), body["nonce"], mallory.nonce
                    )
                    said["nonce"] = mallory.nonce
                self.answer(status, said)

            def do_GET(self) -> None:
                self.answer(*call(mallory.hub + self.path))

            def answer(self, status: int, said: Any) -> None:
                data = json.dumps(said).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_a_man_in_the_middle_who_swaps_keys_shows_other_digits_and_nothing_is_paired(
    tmp_path: Path,
) -> None:
    hub_port = free_port()
    mallory = Mallory(f"http://127.0.0.1:{hub_port}")
    try:
        with hub_and_table(tmp_path, hub_port, table_url=mallory.url) as (hub, sim):
            shown = until(lambda: (p := pairing_of(sim))["digits"] and p)
            (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
            # The table shows the digits of its exchange with Mallory; the hub lists those of
            # its exchange with Mallory: they differ (but for one chance in a million).
            assert shown["digits"] == mallory.digits[asking["id"]]
            assert asking["digits"] != shown["digits"]
            status, _ = call(
                f"{hub}/api/v1/pairing/{asking['id']}", {"table": 7, "digits": shown["digits"]}
            )
            assert status == 409  # the judge, comparing, finds no match: nothing is paired
            assert call(f"{hub}/api/v1/tables")[1] == []
            assert pairing_of(sim)["state"] == "asking"
    finally:
        mallory.server.shutdown()
    assert not (tmp_path / "table" / "paired.toml").exists()


def test_over_https_the_table_takes_the_hubs_pin_from_the_sealed_answer(tmp_path: Path) -> None:
    with hub_and_table(tmp_path, tls=True) as (hub, sim):
        shown = until(lambda: (p := pairing_of(sim))["digits"] and p)
        (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
        status, _ = call(
            f"{hub}/api/v1/pairing/{asking['id']}", {"table": 2, "digits": shown["digits"]}
        )
        assert status == 201
        # Its heartbeats reach the hub over the pinned connection.
        until(lambda: [t for t in call(f"{hub}/api/v1/tables")[1] if t["seen_s_ago"] is not None])
    pin = fingerprint((tmp_path / CERT_FILE).read_bytes())
    assert f'tls_pin_sha256 = "{pin}"' in (tmp_path / "table" / "paired.toml").read_text()
