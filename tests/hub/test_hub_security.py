"""The hub on a hall's shared Wi-Fi, driven as the real ``klik hub`` process: TLS and the
tables' pin, the console's session, the Host check, password guessing, body limits, slow
clients. (The guard's and the gate's parts with no process of their own are tested below
them, in-process.)"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import resource
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from klik import serving
from klik.link import protocol as p
from klik.link.http import PIN_MISMATCH, HttpLink, LinkDown
from klik_hub.app import make_app
from klik_hub.door import guard, judge, tls
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import result_body, sealed

KLIK = Path(sys.executable).parent / "klik"
PASSWORD = "sędzia-główny-2026"


@dataclass
class Hub:
    url: str
    log: list[str]
    db: Path

    def said(self, text: str, within_s: float = 10.0) -> bool:
        """Whether a line of the log has ``text``, waiting for it: the log is read by a
        thread of its own, so a line said while answering a request may come a moment later."""
        deadline = time.monotonic() + within_s
        while not any(text in line for line in self.log):
            if time.monotonic() > deadline:
                return False
            threading.Event().wait(0.05)  # sleep-ok: the hub's log, on the real clock
        return True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def klik_hub(
    tmp_path: Path, *options: str, password: bool = True, files: tuple[int, int] | None = None
) -> Iterator[Hub]:
    """``klik hub`` in its own process on loopback; stopped with SIGTERM afterwards.
    ``files``: the soft and hard limits on open files it starts with, as a shell's."""
    db = tmp_path / "hub.sqlite"
    port = _free_port()
    argv = [str(KLIK), "hub", "--db", str(db), "--port", str(port), *options]
    if password:
        secret = tmp_path / "password"
        secret.write_text(PASSWORD + "\n", encoding="utf-8")
        argv += ["--judge-password-file", str(secret)]
    if files is not None:  # util-linux's prlimit execs the hub with them
        argv = ["prlimit", f"--nofile={files[0]}:{files[1]}", "--", *argv]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    log: list[str] = []
    for line in process.stdout:  # uvicorn says when it listens: no guessing with sleeps
        log.append(line)
        if "Uvicorn running on" in line:
            break
    else:
        raise AssertionError(f"klik hub did not start (exit {process.wait()}): {''.join(log)}")
    scheme = "https" if "running on https" in log[-1] else "http"
    # the rest of its log, read as it comes, so a full pipe never holds the hub up
    reader = threading.Thread(target=log.extend, args=(process.stdout,), daemon=True)
    reader.start()
    try:
        yield Hub(f"{scheme}://127.0.0.1:{port}", log, db)
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0, "".join(log)
        reader.join(timeout=5)


def pair(hub: Hub, table: int = 7) -> dict[str, str]:
    done = subprocess.run(
        [str(KLIK), "pair", "--db", str(hub.db), "--table", str(table), "--url", hub.url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    fields = (line.split(" = ", 1) for line in done.stdout.splitlines() if " = " in line)
    return {name: value.strip('"') for name, value in fields}


def client(hub: Hub, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=hub.url, verify=False, headers=headers, timeout=10)


# --- TLS and the tables' pin ------------------------------------------------------------------


def test_the_hub_makes_keeps_and_pins_its_own_certificate(tmp_path: Path) -> None:
    with klik_hub(tmp_path, "--tls") as hub:
        assert hub.url.startswith("https://")
        cert = tmp_path / "klik-hub-cert.pem"
        key = tmp_path / "klik-hub-key.pem"
        assert key.stat().st_mode & 0o077 == 0  # the key is the hub's user's alone
        der = ssl.PEM_cert_to_DER_cert(cert.read_text())
        fingerprint = hashlib.sha256(der).hexdigest()
        assert any(f"TLS certificate SHA-256 {fingerprint}" in line for line in hub.log)
        config = pair(hub)
        assert config["tls_pin_sha256"] == fingerprint
        body = result_body(table=7)
        envelope = sealed(config["device_id"], config["key"], 1, body)
        pinned = HttpLink(hub.url, tls_pin_sha256=config["tls_pin_sha256"])
        assert pinned.post("/api/v1/results", envelope).status == 201
        wrong = HttpLink(hub.url, tls_pin_sha256="00" * 32)
        with pytest.raises(LinkDown, match=PIN_MISMATCH):
            wrong.post("/api/v1/results", envelope)
        with pytest.raises(httpx.RemoteProtocolError):  # plain HTTP is not served
            httpx.get(hub.url.replace("https", "http") + "/api/v1/results")
    with klik_hub(tmp_path, "--tls") as again:  # started again: the same certificate
        assert any(f"TLS certificate SHA-256 {fingerprint}" in line for line in again.log)


def test_tls_is_the_default_off_loopback(tmp_path: Path) -> None:
    with klik_hub(tmp_path, "--host", "0.0.0.0") as hub:  # the venue's network
        assert hub.url.startswith("https://")
    with klik_hub(tmp_path) as hub:  # loopback: `make demo` without a certificate prompt
        assert hub.url.startswith("http://")


def test_a_certificate_of_ones_own(tmp_path: Path) -> None:
    cert_pem, key_pem = tls.make(["hub.example"])
    (tmp_path / "own.pem").write_bytes(cert_pem)
    (tmp_path / "own.key").write_bytes(key_pem)
    own = ["--tls-cert", str(tmp_path / "own.pem"), "--tls-key", str(tmp_path / "own.key")]
    with klik_hub(tmp_path, *own) as hub:
        assert any(tls.fingerprint(cert_pem) in line for line in hub.log)
        assert not (tmp_path / "klik-hub-cert.pem").exists()
    lonely = subprocess.run(
        [str(KLIK), "hub", "--db", str(tmp_path / "x.sqlite"), "--tls-cert", own[1]],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (lonely.returncode, lonely.stderr) == (
        2,
        "klik hub: --tls-cert and --tls-key go together\n",
    )


# --- the console's session --------------------------------------------------------------------


def test_the_console_logs_in_once_and_out(tmp_path: Path) -> None:
    new = {"name": "Liga", "rules": "league", "format": "liga", "move_time_s": 60}
    with klik_hub(tmp_path, "--tls") as hub, client(hub, **{"X-Klik-Console": "1"}) as console:
        wrong = console.post("/api/v1/session", json={"password": "nie-to-hasło"})
        assert (wrong.status_code, wrong.json()) == (401, {"error": guard.NEED_JUDGE})
        assert console.post("/api/v1/tournaments", json=new).status_code == 401
        login = console.post("/api/v1/session", json={"password": PASSWORD})
        assert login.status_code == 200
        cookie = login.headers["set-cookie"]
        assert cookie.startswith(f"{judge.SESSION_COOKIE}=")
        for flag in ("HttpOnly", "Secure", "SameSite=strict", "Max-Age=43200", "Path=/"):
            assert flag.lower() in cookie.lower(), cookie
        assert console.post("/api/v1/tournaments", json=new).status_code == 201
        assert console.get("/api/v1/judge").json() == {"judge": True, "open": False}
        # the cookie alone, as a forged form on another page would send it, counts for nothing
        token = console.cookies[judge.SESSION_COOKIE]
        with client(hub) as forged:
            forged.cookies.set(judge.SESSION_COOKIE, token)
            assert forged.post("/api/v1/tournaments", json=new).status_code == 401
        # scripts still use HTTP Basic over TLS
        with client(hub) as script:
            script.auth = ("judge", PASSWORD)
            assert script.post("/api/v1/tournaments", json=new).status_code == 201
        assert console.delete("/api/v1/session").status_code == 204
        console.cookies.set(judge.SESSION_COOKIE, token)  # kept by a careless browser
        assert console.post("/api/v1/tournaments", json=new).status_code == 401


def test_the_printed_pages_with_the_players_codes_are_the_judges(tmp_path: Path) -> None:
    """The badges, the enrolment list and the table sheets carry the players' codes: the
    judge's only, by HTTP Basic or by the console's session, whose cookie alone opens them (a
    plain link from the console sends no header); the printed standings stay public."""
    new = {"name": "Liga", "format": "open", "move_time_s": 60}
    with klik_hub(tmp_path) as hub, client(hub) as script:
        script.auth = ("judge", PASSWORD)
        tid = script.post("/api/v1/tournaments", json=new).json()["id"]
        enrolled = [{"name": f"Gracz {k}", "club": "SP 1"} for k in range(1, 5)]
        assert script.post(f"/api/v1/tournaments/{tid}/players", json=enrolled).status_code == 201
        assert script.post(f"/api/v1/tournaments/{tid}/rounds", json={}).status_code == 201
        codes = [p["code"] for p in script.get(f"/api/v1/tournaments/{tid}/players").json()]
        printed = [f"/print/badges?t={tid}", f"/print/players?t={tid}"]
        printed.append(f"/print/sheets?t={tid}&round=1")
        with client(hub) as anyone:
            for path in printed:
                answer = anyone.get(path)
                assert (answer.status_code, answer.json()) == (401, {"error": guard.NEED_JUDGE})
                assert answer.headers["www-authenticate"] == judge.REALM  # the browser asks
            assert anyone.get(f"/print/standings?t={tid}").status_code == 200
        for path in printed:
            answer = script.get(path)
            assert answer.status_code == 200, path
            assert all(code in answer.text for code in codes), path
        with client(hub, **{"X-Klik-Console": "1"}) as console:
            assert console.post("/api/v1/session", json={"password": PASSWORD}).status_code == 200
            token = console.cookies[judge.SESSION_COOKIE]
            assert all(console.get(path).status_code == 200 for path in printed)
        with client(hub) as tab:  # a new tab opened by the console's link: the cookie alone
            tab.cookies.set(judge.SESSION_COOKIE, token)
            for path in printed:
                answer = tab.get(path)
                assert answer.status_code == 200, path
                assert all(code in answer.text for code in codes), path
            # ... which opens nothing else of the judge's, and changes nothing
            assert tab.get(f"/api/v1/tournaments/{tid}/players").status_code == 401
            assert tab.post("/api/v1/tournaments", json=new).status_code == 401
            tab.cookies.set(judge.SESSION_COOKIE, "no-such-session")
            assert all(tab.get(path).status_code == 401 for path in printed)
    assert guard.needs_judge("GET", "/print/badges")
    assert guard.needs_judge("HEAD", "/print/players")
    assert not guard.needs_judge("GET", "/print/standings")


# --- Host, cross-site requests, headers -------------------------------------------------------


def test_only_addresses_loopback_and_public_names_are_served(tmp_path: Path) -> None:
    with klik_hub(tmp_path, "--public-name", "klik.local", password=False) as hub:
        new = {"name": "Liga", "rules": "league", "format": "liga", "move_time_s": 60}
        port = hub.url.rsplit(":", 1)[1]
        for host in ("rebind.attacker.example", f"rebind.attacker.example:{port}", "klik"):
            with client(hub, Host=host) as rebound:
                answer = rebound.post("/api/v1/tournaments", json=new)
                assert answer.status_code == 421, host
                assert "not served under that name" in answer.json()["error"]
                assert rebound.get("/api/v1/tournaments").status_code == 421
        for host in (
            f"127.0.0.1:{port}",
            "localhost",
            f"klik.local:{port}",
            "KLIK.LOCAL.",
            "[::1]",
        ):
            with client(hub, Host=host) as named:
                assert named.get("/api/v1/tournaments").status_code == 200, host
        with client(hub, Origin="http://evil.example") as other_site:
            assert other_site.post("/api/v1/tournaments", json=new).status_code == 403
        with client(hub, **{"Sec-Fetch-Site": "cross-site"}) as other_site:
            assert other_site.post("/api/v1/tournaments", json=new).status_code == 403
        with client(hub, Origin=hub.url) as console:
            assert console.post("/api/v1/tournaments", json=new).status_code == 201
        with client(hub) as browser:
            for page in ("/", "/projector", "/api/v1/tables"):
                headers = browser.get(page).headers
                assert headers["x-frame-options"] == "DENY"
                policy = headers["content-security-policy"]
                assert "script-src 'self';" in policy
                assert "frame-ancestors 'none'" in policy
            missing = browser.get("/no/such/page")
            assert (missing.status_code, missing.json()) == (404, {"error": "Not Found"})


# --- password guessing ------------------------------------------------------------------------


def test_a_guesser_waits_after_five_wrong_passwords(tmp_path: Path) -> None:
    with klik_hub(tmp_path) as hub, client(hub) as guesser:
        for _ in range(judge.FREE_FAILURES):
            guesser.auth = ("judge", "zgaduję-hasło")
            assert guesser.get("/api/v1/judge").status_code == 401
        answer = guesser.get("/api/v1/judge")
        assert answer.status_code == 429
        assert int(answer.headers["retry-after"]) >= 1
        guesser.auth = ("judge", PASSWORD)  # the right one too: the guesser must wait
        assert guesser.get("/api/v1/judge").status_code == 429
        login = guesser.post("/api/v1/session", json={"password": PASSWORD})
        assert login.status_code == 429
        assert "retry-after" in login.headers
    failures = [line for line in hub.log if "wrong judge's password" in line]
    assert len(failures) == judge.FREE_FAILURES  # once each, no traceback


def test_waits_double_to_a_cap_and_a_right_password_clears_them() -> None:
    attempts = judge.Attempts()
    waits = []
    for now in range(0, 1000, 100):  # each try after the last wait is over
        attempts.failed("10.0.0.9", float(now))
        waits.append(attempts.wait_s("10.0.0.9", float(now)))
    assert waits == [0, 0, 0, 0, 1, 2, 4, 8, 16, 32]
    for now in range(1000, 3000, 100):
        attempts.failed("10.0.0.9", float(now))
    assert attempts.wait_s("10.0.0.9", 2900.0) == judge.MAX_WAIT_S
    assert attempts.wait_s("10.0.0.8", 2900.0) == 0  # another client is not slowed down
    attempts.passed("10.0.0.9")
    assert attempts.wait_s("10.0.0.9", 2900.0) == 0


def test_at_most_two_password_hashes_run_at_once(tmp_path: Path, monkeypatch: Any) -> None:
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), lambda: 0)
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    running, most = 0, 0
    guard_lock = threading.Lock()
    release = threading.Event()

    def slow_verify(password: str, stored: str) -> bool:
        nonlocal running, most
        with guard_lock:
            running += 1
            most = max(most, running)
        release.wait(5)
        with guard_lock:
            running -= 1
        return False

    monkeypatch.setattr(judge, "verify", slow_verify)
    gate = judge.Gate(store)

    async def guess_together() -> list[judge.Verdict]:
        guesses = [
            asyncio.create_task(gate.judge(_basic("x"), None, f"10.0.0.{k}")) for k in range(16)
        ]
        for _ in range(200):  # let every guess reach the hashing
            await asyncio.sleep(0.005)
        threading.Timer(0, release.set).start()
        return await asyncio.gather(*guesses)

    verdicts = asyncio.run(guess_together())
    assert all(not v.ok for v in verdicts)
    assert most == judge.HASHES_AT_ONCE


def test_each_address_has_five_hashes_a_minute() -> None:
    budget = judge.Budget()
    assert [budget.take("10.0.0.9", 10.0 + k) for k in range(judge.HASHED_PER_MINUTE)] == [0] * 5
    assert budget.take("10.0.0.9", 20.0) == 50.0  # the first of the five frees at 70 s
    assert budget.take("10.0.0.8", 20.0) == 0  # another address has its own
    assert budget.take("10.0.0.9", 70.5) == 0


def test_guesses_sent_at_once_are_hashed_five_and_the_judge_never_waits_behind_them(
    tmp_path: Path, monkeypatch: Any
) -> None:
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), lambda: 0)
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    hashed: list[str] = []
    release = threading.Event()

    def slow_verify(password: str, stored: str) -> bool:
        hashed.append(password)
        if password != PASSWORD:
            release.wait(10)  # the guesses hold their hashes until the judge is in
        return password == PASSWORD

    monkeypatch.setattr(judge, "verify", slow_verify)
    gate = judge.Gate(store)

    async def wave() -> tuple[list[judge.Verdict], judge.Verdict]:
        guesses = [
            asyncio.create_task(gate.judge(_basic("x"), None, "10.0.0.66")) for _ in range(60)
        ]
        for _ in range(500):  # until every guess is answered or waits for its hash
            await asyncio.sleep(0.01)
            if sum(g.done() for g in guesses) >= 60 - judge.HASHED_PER_MINUTE:
                break
        # At once, while the first guess's hash still runs: the rest never reach one.
        assert sum(g.done() for g in guesses) == 60 - judge.HASHED_PER_MINUTE
        assert hashed == ["x"]
        judge_in, _token = await asyncio.wait_for(gate.login(PASSWORD, "10.0.0.1"), 5)
        release.set()
        await asyncio.gather(*guesses)
        return [g.result() for g in guesses], judge_in

    verdicts, judge_in = asyncio.run(wave())
    assert judge_in.ok
    assert hashed.count("x") == judge.HASHED_PER_MINUTE
    late = [v for v in verdicts if v.retry_after_s > 0]
    assert len(late) == 60 - judge.HASHED_PER_MINUTE
    assert all(1 <= v.retry_after_s <= 60 for v in late)


def test_a_forwarded_address_is_no_fresh_address_unless_a_proxy_is_named(tmp_path: Path) -> None:
    def guesses(hub: Hub, addresses: list[str]) -> list[int]:
        with client(hub) as guesser:
            guesser.auth = ("judge", "zgaduję-hasło")
            return [
                guesser.get("/api/v1/judge", headers={"X-Forwarded-For": a}).status_code
                for a in addresses
            ]

    fresh = [f"10.1.0.{k}" for k in range(1, 8)]
    (tmp_path / "plain").mkdir()
    (tmp_path / "proxied").mkdir()
    with klik_hub(tmp_path / "plain") as hub:
        assert guesses(hub, fresh) == [401] * judge.FREE_FAILURES + [429, 429]
    with klik_hub(tmp_path / "proxied", "--forwarded-allow-ips", "127.0.0.1") as hub:
        assert guesses(hub, fresh) == [401] * 7  # the proxy's clients, each its own
        assert hub.said("a wrong judge's password from 10.1.0.7"), "".join(hub.log)


def test_a_proxy_that_is_not_an_address_is_one_line(tmp_path: Path) -> None:
    said = subprocess.run(
        [str(KLIK), "hub", "--db", str(tmp_path / "h.sqlite"), "--forwarded-allow-ips", "proxy"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert said.returncode == 2
    assert "proxy: allowed are IP addresses or networks" in said.stderr


def _basic(password: str) -> str:
    return "Basic " + base64.b64encode(f"judge:{password}".encode()).decode()


# --- body limits ------------------------------------------------------------------------------


def _raw(url: str, head: bytes, body_parts: list[bytes]) -> tuple[bytes, int]:
    """Send ``head`` then the parts one by one, stopping when the hub answers; its answer
    and how many parts it had taken by then."""
    host, port = url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head)
        sent = 0
        sock.setblocking(False)
        answer = b""
        for part in body_parts:
            with suppress(BlockingIOError):
                answer += sock.recv(65536)
            if answer:
                break
            try:
                sock.sendall(part)
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                break
            sent += 1
        sock.setblocking(True)
        try:
            while b"\r\n\r\n" not in answer:
                more = sock.recv(65536)
                if not more:
                    break
                answer += more
        except ConnectionResetError:
            pass
        return answer, sent


def test_a_body_over_its_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with klik_hub(tmp_path) as hub:
        big = b"POST /api/v1/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        announced = big + b"Content-Length: 40000000\r\nContent-Type: application/json\r\n\r\n"
        answer, _ = _raw(hub.url, announced, [])
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        # no schema is told to a client without the password: 401, not 422
        with client(hub) as stranger:
            bad = stranger.post("/api/v1/tournaments", json={"name": 5})
            assert (bad.status_code, bad.json()) == (401, {"error": guard.NEED_JUDGE})
        # a judge's route without the password: 401 at once, the body never read
        small = big + b"Content-Length: 100000\r\nContent-Type: application/json\r\n\r\n"
        answer, _ = _raw(hub.url, small, [])
        assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    (tmp_path / "open").mkdir()
    with klik_hub(tmp_path / "open", password=False) as hub:  # no password: the stream
        chunked = (
            b"POST /api/v1/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        )
        part = b"%x\r\n%s\r\n" % (64 << 10, b" " * (64 << 10))
        answer, _ = _raw(hub.url, chunked, [part] * 64)  # 4 MiB offered
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


@pytest.mark.parametrize(
    ("path", "limit"),
    [("/api/v1/tournaments", guard.MAX_JSON), ("/api/v1/results", p.MAX_BODY)],
)
def test_a_streamed_body_is_never_read_past_its_limit(
    tmp_path: Path, path: str, limit: int
) -> None:
    """At the ASGI level, where what the hub reads can be counted: 4 KiB chunks, 64 MiB."""
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), lambda: 0)
    app = make_app(store)
    chunk = 4 << 10
    pulled = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b" " * chunk, "more_body": pulled < 16384}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                    (b"transfer-encoding", b"chunked")],
    }  # fmt: skip
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    assert pulled == limit // chunk + 1  # the chunk that passed the limit, and no more
    starts = [m for m in sent if m["type"] == "http.response.start"]
    assert [m["status"] for m in starts] == [413]  # the app's own answer never went out


# --- slow clients -----------------------------------------------------------------------------


def test_three_hundred_slow_clients_do_not_stop_a_tables_result(tmp_path: Path) -> None:
    with klik_hub(tmp_path) as hub:
        config = pair(hub)
        host, port = "127.0.0.1", int(hub.url.rsplit(":", 1)[1])
        slow = []
        for _ in range(300):  # each sends half a request, then nothing
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
            slow.append(sock)
        try:
            envelope = sealed(config["device_id"], config["key"], 1, result_body(table=7))
            started = time.monotonic()
            assert HttpLink(hub.url).post("/api/v1/results", envelope).status == 201
            assert time.monotonic() - started < 2.0
            with client(hub) as console:
                assert console.get("/").status_code == 200
        finally:
            for sock in slow:
                sock.close()


SHELLS = 1_024  # the soft limit on open files a shell commonly gives a process
SILENT = 1_100  # connections that never send a byte: more than a shell's files


@contextmanager
def own_files(n: int) -> Iterator[None]:
    """This test's process allowed ``n`` open files (its end of the silent connections), and
    its limit as it was afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < n:
        pytest.skip(f"the hard limit on open files is {hard}; {n} are needed")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, n), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@contextmanager
def silent(hub: Hub, n: int) -> Iterator[list[socket.socket]]:
    """``n`` connections to the hub that never send a byte, closed afterwards."""
    port = int(hub.url.rsplit(":", 1)[1])
    sockets: list[socket.socket] = []
    try:
        for _ in range(n):
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def held(sockets: list[socket.socket]) -> int:
    """How many of ``sockets`` the hub holds open: neither closed nor answered."""
    count = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            sock.recv(1)
        except BlockingIOError:
            count += 1
        except OSError:  # reset
            pass
    return count


def test_a_hub_started_by_hand_holds_a_thousand_silent_connections(tmp_path: Path) -> None:
    """A shell's 1,024 open files, raised to the hard limit at start: the tables, the
    console and the judge from another address are answered beside 1,100 silent
    connections, and none of these is closed for want of a file."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    with own_files(SILENT + 100), klik_hub(tmp_path, files=(SHELLS, hard)) as hub:
        assert any(f"hub: open files: up to {hard} (was {SHELLS})" in line for line in hub.log)
        config = pair(hub)
        envelope = sealed(config["device_id"], config["key"], 1, result_body(table=7))
        with silent(hub, SILENT) as sockets:
            started = time.monotonic()
            assert HttpLink(hub.url).post("/api/v1/results", envelope).status == 201
            assert time.monotonic() - started < 2.0
            with client(hub) as console:
                assert console.get("/").status_code == 200
            elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
            with httpx.Client(base_url=hub.url, transport=elsewhere, timeout=10) as judges:
                started = time.monotonic()
                login = judges.post("/api/v1/session", json={"password": PASSWORD})
                assert login.status_code == 200
                assert time.monotonic() - started < 1.0
            assert held(sockets) == SILENT  # well within their 10 s


def test_a_hub_out_of_files_says_so_once_and_serves_again(tmp_path: Path) -> None:
    """A hard limit of 1,024: said at start; 1,100 silent connections use the files up, and
    the log says so at once, in one line (then once a minute: ``Shortage``)."""
    told = f"hub: out of open files ({SHELLS} at most)"
    with own_files(SILENT + 100), klik_hub(tmp_path, files=(SHELLS, SHELLS)) as hub:
        assert any(f"up to {SHELLS}, the most this system allows" in line for line in hub.log)
        with silent(hub, SILENT) as sockets:
            assert hub.said(told, within_s=5.0), "".join(hub.log)  # it looks once a second
            assert len([line for line in hub.log if told in line]) == 1, "".join(hub.log)
            assert held(sockets) < SILENT  # the last ones found no file
        with client(hub) as console:  # the files are back
            assert console.get("/").status_code == 200


def test_a_tls_connection_that_never_says_hello_is_closed_in_ten_seconds(tmp_path: Path) -> None:
    with klik_hub(tmp_path, "--tls") as hub:
        port = int(hub.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=15) as mute:
            started = time.monotonic()
            try:
                closed = mute.recv(100)  # no ClientHello sent: the hub has nothing to say
            except ConnectionResetError:
                closed = b""
            assert closed == b""
            assert 9.0 < time.monotonic() - started < 12.0


def test_a_request_that_does_not_arrive_in_time_is_dropped(tmp_path: Path) -> None:
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), lambda: 0)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(make_app(store), log_level="warning", http=serving.deadline(0.3))
    hub = uvicorn.Server(config)
    thread = threading.Thread(target=hub.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if hub.started:
                break
            threading.Event().wait(0.01)  # sleep-ok: polling uvicorn's start, real clock
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            slow.sendall(b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no end
            started = time.monotonic()
            assert slow.recv(100) == b""  # closed by the hub
            assert 0.2 < time.monotonic() - started < 3.0
        with socket.create_connection(("127.0.0.1", port), timeout=5) as prompt:
            prompt.sendall(b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert prompt.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        hub.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_an_envelope_past_the_limit_is_the_protocols_413() -> None:
    assert guard.limit_of("POST", "/api/v1/results") == p.MAX_BODY
    assert guard.limit_of("POST", "/api/v1/tournaments/3/players") == guard.MAX_PLAYER_LIST
    assert guard.limit_of("PATCH", "/api/v1/tournaments/3/players/4") == guard.MAX_JSON
