"""``make bench``: how many results and heartbeats a second the hub takes over HTTP and
HTTPS, and how soon a table's result is stored while the hall's Wi-Fi attacks the hub.

The real ``klik hub`` runs in its own process on a loopback port over a SQLite file, with 999
tables paired (over HTTPS with ``--tls``: its own self-signed certificate). The load comes from ``wrk`` (8 connections, 2 threads): written in C, it takes
a few hundredths of a core for thousands of requests a second, and so leaves the hub the CPU
that a Python client on the same 2-core machine would take from it. A Lua script (written
below) cycles through envelopes sealed beforehand, one a line in a file:

- results: every envelope a new result (its own table, seq and game), so each answer must be
  201; an answer that is not is counted and shown, and does not count towards the figure;
- heartbeats: table after table (998 of them), each one's seq one higher than its last, as
  tables send them; each answer must be 200. The hub refuses a heartbeat whose seq is not
  above the table's last (a replay: 409), so each run sends heartbeats none has sent before.
  With an even number of tables each table's heartbeats all go to one of wrk's two threads,
  in order, 499 requests apart: never two of one table's at once.

Under attack: 300 clients that open a connection and never finish their request, and 16
password guessers in a loop, while one table sends 200 results one after another over
HTTPS (pinned, as a table does); the figure is the 99th percentile of its results' time to
be stored and acknowledged.

Not a timed test: each figure is the median of a few runs of a few seconds, printed next to
its goal. ``wrk`` is Debian's package: the bench installs it when it runs as root and it is
missing, and otherwise says how to.
"""

from __future__ import annotations

import base64
import http.client
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from klik.link.http import HttpLink
from klik_hub import hall
from klik_hub.door import tls
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.bench.quick import size
from tests.helpers.hubkit import Clock, result_body, sealed

TABLES = size(999, 11)  # every table number the contract allows
CONNECTIONS = 8
THREADS = 2
RUN_S = size(5, 1)
RUNS = size(3, 1)
RESULTS_PER_RUN = size(20_000, 300)  # more than a run can send: each result is sent once
HEARTBEAT_TABLES = TABLES - 1  # a multiple of THREADS: see the module's docstring
HEARTBEATS_PER_RUN = size(40_000, 300)  # more than a run can send: each heartbeat is sent once
GOAL_RESULTS_S = 500.0
GOAL_HEARTBEATS_S = 2000.0  # 4,000 tables, one heartbeat every 2 s
SLOW_CLIENTS = size(300, 10)
GUESSERS = size(16, 2)
ATTACKED_RESULTS = size(200, 10)
GOAL_ATTACKED_P99_S = 2.0
PASSWORD = "sędzia-główny-2026"

BAD_BASIC = "Basic " + base64.b64encode(b"judge:zgaduje-haslo").decode()

# wrk's script: each thread takes every THREADS-th line of the file and sends them in turn,
# counting the answers whose status is the expected one; ``done`` prints one line to parse.
LUA = """
threads = {}
id, step = 0, 1

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  step, expected, path = tonumber(args[2]), tonumber(args[3]), args[4]
  requests, n, i, ok, other = {}, 0, 0, 0, 0
  local headers = {["Content-Type"] = "application/json"}
  for line in io.lines(args[1]) do
    if n % step == id then
      requests[#requests + 1] = wrk.format("POST", path, headers, line)
    end
    n = n + 1
  end
end

function request()
  i = i % #requests + 1
  return requests[i]
end

function response(status, headers, body)
  if status == expected then ok = ok + 1 else other = other + 1 end
end

function done(summary, latency, requests)
  local ok, other = 0, 0
  for _, thread in ipairs(threads) do
    ok = ok + thread:get("ok")
    other = other + thread:get("other")
  end
  io.write(string.format("klik-bench %d %d %d %d %d\\n", ok, other, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass(frozen=True, slots=True)
class Run:
    ok: int  # answers with the expected status
    other: int  # any other answer
    duration_s: float
    p50_ms: float
    p99_ms: float

    @property
    def rate(self) -> float:
        return self.ok / self.duration_s


def wrk_binary() -> str | None:
    """wrk's path; installed with apt-get when missing and we are root."""
    found = shutil.which("wrk")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "wrk"],
            check=False,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        found = shutil.which("wrk")
    return found


def pair_tables(db: str) -> dict[int, tuple[str, str]]:
    """Pair tables 1 to TABLES as ``klik pair`` does; table → (device, key)."""
    store = Store(open_engine(db, pool_size=1), Clock())
    paired = {table: hall.devices.pair(store, table) for table in range(1, TABLES + 1)}
    store.engine.dispose()
    return paired


def write_results(path: Path, paired: dict[int, tuple[str, str]], run: int) -> None:
    """RESULTS_PER_RUN new results, table after table: run ``run``'s seqs and games."""
    with path.open("wb") as out:
        for n in range(RESULTS_PER_RUN):
            table = n % TABLES + 1
            number = run * RESULTS_PER_RUN + n // TABLES + 1
            device, key = paired[table]
            out.write(sealed(device, key, number, result_body(table, number)) + b"\n")


def write_heartbeats(path: Path, paired: dict[int, tuple[str, str]], run: int) -> None:
    """HEARTBEATS_PER_RUN heartbeats, table after table: run ``run``'s seqs, above the last
    run's."""
    with path.open("wb") as out:
        for n in range(HEARTBEATS_PER_RUN):
            table = n % HEARTBEAT_TABLES + 1
            seq = run * HEARTBEATS_PER_RUN + n // HEARTBEAT_TABLES
            device, key = paired[table]
            body = {
                "game": 12,
                "state": "move",
                "mover": "B",
                "left_ms": 41_000,
                "draw_tiles": 28,
                "judge": False,
                "paused_by": None,
                "outbox": 0,
                "last_seq": 11,
                "acks": [],
            }
            out.write(sealed(device, key, seq, body, "heartbeat") + b"\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running_hub(db: str, *options: str) -> Iterator[str]:
    """``klik hub --db DB [OPTIONS]`` in its own process; yields its base URL."""
    with hub_process(db, *options) as (url, _):
        yield url


@contextmanager
def hub_process(db: str, *options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``running_hub``, with the process (for its memory)."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from klik import cli; sys.exit(cli.main(sys.argv[1:]))",
            "hub",
            "--db",
            db,
            "--port",
            str(port),
            *options,
        ],
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30.0
        while True:  # ready when it accepts a connection
            assert process.poll() is None, "klik hub did not start"
            assert time.monotonic() < deadline, "klik hub did not listen within 30 s"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
                break
            except OSError:
                time.sleep(0.05)  # sleep-ok: a real process starting
        scheme = "https" if "--tls" in options else "http"
        yield f"{scheme}://127.0.0.1:{port}", process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def load(wrk: str, script: Path, url: str, path: str, envelopes: Path, *, expected: int) -> Run:
    """One wrk run of RUN_S seconds against ``url + path``."""
    done = subprocess.run(
        [
            wrk,
            f"-t{THREADS}",
            f"-c{CONNECTIONS}",
            f"-d{RUN_S}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            url + path,
            "--",
            str(envelopes),
            str(THREADS),
            str(expected),
            path,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("klik-bench "))
    ok, other, duration_us, p50_us, p99_us = (int(x) for x in line.split()[1:])
    return Run(ok, other, duration_us / 1e6, p50_us / 1000, p99_us / 1000)


def report(what: str, runs: list[Run], expected: int, goal: float) -> None:
    rate = statistics.median(run.rate for run in runs)
    other = sum(run.other for run in runs)
    p99 = statistics.median(run.p99_ms for run in runs)
    verdict = "✓" if rate >= goal and other == 0 else "✗"
    rates = ", ".join(f"{run.rate:.0f}" for run in runs)
    print(
        f"hub ingest, {what} ({CONNECTIONS} connections): median {rate:.0f}/s "
        f"({rates}; p99 {p99:.0f} ms)  goal ≥ {goal:.0f}/s {verdict}"
    )
    if other:
        print(f"  {other} answers were not {expected}")


def under_attack(db: str, paired: dict[int, tuple[str, str]], folder: Path) -> list[float]:
    """Seconds each of a table's results took to be stored over HTTPS while slow clients and
    password guessers hit the hub."""
    secret = folder / "password"
    secret.write_text(PASSWORD + "\n", encoding="utf-8")
    with running_hub(db, "--tls", "--judge-password-file", str(secret)) as url:
        pin = tls.fingerprint((Path(db).parent / tls.CERT_FILE).read_bytes())
        host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
        slow = []
        for _ in range(SLOW_CLIENTS):  # a TCP connection that never says a word
            slow.append(socket.create_connection((host, port), timeout=10))
        stop = threading.Event()

        def guess() -> None:
            wrong = ssl.create_default_context()
            wrong.check_hostname, wrong.verify_mode = False, ssl.CERT_NONE
            while not stop.is_set():
                guesser = http.client.HTTPSConnection(host, port, context=wrong, timeout=10)
                try:
                    guesser.request("GET", "/api/v1/judge", headers={"Authorization": BAD_BASIC})
                    guesser.getresponse().read()
                except OSError:
                    pass
                finally:
                    guesser.close()

        guessers = [threading.Thread(target=guess, daemon=True) for _ in range(GUESSERS)]
        for guesser in guessers:
            guesser.start()
        device, key = paired[TABLES]
        link = HttpLink(url, tls_pin_sha256=pin, timeout_s=10)
        took = []
        try:
            for game in range(1, ATTACKED_RESULTS + 1):
                number = 1_000_000 + game  # above every seq and game the loads sent
                envelope = sealed(device, key, number, result_body(TABLES, number))
                started = time.perf_counter()
                reply = link.post("/api/v1/results", envelope)
                took.append(time.perf_counter() - started)
                assert reply.status == 201, reply
        finally:
            stop.set()
            for guesser in guessers:
                guesser.join(timeout=15)
            for sock in slow:
                sock.close()
            link.close()
    return took


def main() -> None:
    wrk = wrk_binary()
    if wrk is None:
        print("hub ingest: needs wrk; run: sudo apt-get install wrk")
        return
    with tempfile.TemporaryDirectory(prefix="klik-bench-") as name:
        folder = Path(name)
        db = str(folder / "hub.sqlite")
        script = folder / "envelopes.lua"
        script.write_text(LUA)
        paired = pair_tables(db)
        measured: dict[str, tuple[list[Run], list[Run]]] = {}
        for n, scheme in enumerate(("HTTP", "HTTPS")):
            runs = range(n * RUNS, (n + 1) * RUNS)  # each scheme's envelopes new to the hub
            beating = [folder / f"heartbeats-{run}.jsonl" for run in runs]
            for run, batch in zip(runs, beating, strict=True):
                write_heartbeats(batch, paired, run)
            batches = [folder / f"results-{run}.jsonl" for run in runs]
            for run, batch in zip(runs, batches, strict=True):
                write_results(batch, paired, run)
            with running_hub(db, *(["--tls"] if scheme == "HTTPS" else [])) as url:
                took = [load(wrk, script, url, "/api/v1/results", b, expected=201) for b in batches]
                beats = [
                    load(wrk, script, url, "/api/v1/heartbeats", b, expected=200) for b in beating
                ]
            measured[scheme] = (took, beats)
        attacked = under_attack(db, paired, folder)
    for scheme, (took, beats) in measured.items():
        report(f"new results over {scheme}", took, 201, GOAL_RESULTS_S)
        report(f"heartbeats over {scheme}", beats, 200, GOAL_HEARTBEATS_S)
    p50 = statistics.median(attacked)
    p99 = statistics.quantiles(attacked, n=100)[98]
    verdict = "✓" if p99 < GOAL_ATTACKED_P99_S else "✗"
    print(
        f"hub under attack ({SLOW_CLIENTS} slow clients, {GUESSERS} password guessers): "
        f"a table's result stored in p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms  "
        f"goal p99 < {GOAL_ATTACKED_P99_S:.0f} s {verdict}"
    )


if __name__ == "__main__":
    main()
