"""``make demo`` runs the small tournament end to end: the real hub and four virtual tables
as processes; the judge draws and starts round 1 through the API the console uses, the four
tables play their games through the virtual tables' API, and the standings fill."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from klik_hub.demo import PLAYERS, TABLES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ask(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)


def until(check: Any, timeout_s: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            found = check()
        except (urllib.error.URLError, ConnectionError, KeyError, IndexError):
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.1)  # sleep-ok: polling real servers on the real clock


TAP_S = 0.06  # a finger's press, and its gap inside a double tap
WINDOW_S = 0.5  # past the double tap's window (0.4 s): the gesture is read


def edges(sim: str, k: int, seat: str, dated: list[tuple[bool, float]]) -> None:
    """Post a seat button's edges at once, each dated when it happened on this clock (``at``):
    the virtual table keeps their spacing (``klik.table.sim.hands``), so a starved machine
    cannot stretch a double tap into two taps, as dating them on arrival once did."""
    for pressed, at in dated:
        ask(f"{sim}/t/{k}/api/seats/{seat}/button", {"pressed": pressed, "at": at})


def double(sim: str, k: int, seat: str) -> None:
    now = time.time()
    edges(sim, k, seat, [(n % 2 == 0, now + TAP_S * n) for n in range(4)])
    time.sleep(3 * TAP_S + WINDOW_S)  # sleep-ok: the next gesture begins after this is read


def pair_the_tables(hub: str, sim: str) -> None:
    """What the judge does in the console: each table's digits (seat A's screen) found among
    the tables asking to join, accepted as the number on that table's screen."""
    for k in range(1, TABLES + 1):
        digits = until(lambda k=k: ask(f"{sim}/t/{k}/api/state")["pairing"]["digits"])
        found = until(
            lambda d=digits: [a for a in ask(f"{hub}/api/v1/pairing") if a["digits"] == d]
        )
        accepted = ask(f"{hub}/api/v1/pairing/{found[0]['id']}", {"table": k, "digits": digits})
        assert accepted["table"] == k
    for k in range(1, TABLES + 1):
        until(lambda k=k: ask(f"{sim}/t/{k}/api/state")["pairing"]["state"] == "paired")


def test_make_demo_runs_a_round_of_the_small_tournament(tmp_path: Path) -> None:
    hub_port, sim_port = free_port(), free_port()
    hub, sim = f"http://127.0.0.1:{hub_port}", f"http://127.0.0.1:{sim_port}"
    demo = subprocess.Popen(
        [sys.executable, "-m", "klik_hub.demo", "--dir", str(tmp_path / "demo"),
         "--hub-port", str(hub_port), "--sim-port", str(sim_port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        (tournament,) = until(lambda: ask(f"{hub}/api/v1/tournaments"))
        api = f"{hub}/api/v1/tournaments/{tournament['id']}"
        assert [p["name"] for p in ask(f"{api}/players")] == [name for name, _ in PLAYERS]
        assert ask(f"{hub}/api/v1/tables") == []  # the tables start unpaired
        pair_the_tables(hub, sim)
        until(lambda: sum(t["seen_s_ago"] is not None for t in ask(f"{hub}/api/v1/tables")) == 4)
        drawn = ask(f"{api}/rounds", {"seed": 2026})
        assert [len(t["seats"]) for t in drawn["tables"]] == [4] * TABLES
        ask(f"{api}/rounds/1/commands", {"kind": "game"})
        names = {p["id"]: p["name"] for p in ask(f"{api}/players")}
        for k in range(1, TABLES + 1):  # the names reach the seats' screens
            seats = drawn["tables"][k - 1]["seats"]
            until(lambda k=k, seats=seats: ask(f"{sim}/t/{k}/api/state")["names"]
                  == {s: names[p] for s, p in seats.items()})  # fmt: skip
        ask(f"{api}/rounds/1/commands", {"kind": "start"})
        for k in range(1, TABLES + 1):
            until(lambda k=k: ask(f"{sim}/t/{k}/api/state")["state"] == "move")
        time.sleep(0.3)  # sleep-ok: a player's reaction to the start
        for k in range(1, TABLES + 1):
            double(sim, k, "A")  # A goes out at once: Rummikub
            until(lambda k=k: ask(f"{sim}/t/{k}/api/state")["state"] == "scoring")
            # Nobody else had opened: charged the penalty, not asked for a rack (000 n); the
            # winner confirms its 0.
            double(sim, k, "A")
            until(lambda k=k: ask(f"{sim}/t/{k}/api/state")["state"] == "done")
        board = until(lambda: all(t["missing"] == 0 for t in ask(f"{api}/rounds/1")["tables"]))
        assert board
        rows = ask(f"{api}/standings")
        assert sum(r["games"] for r in rows) == 16
        assert sum(r["big"] for r in rows) == TABLES
        winners = {t["seats"]["A"] for t in drawn["tables"]}
        assert {r["player"] for r in rows[:TABLES]} == winners
        with urllib.request.urlopen(f"{hub}/projector", timeout=10) as page:
            assert page.status == 200
        with urllib.request.urlopen(f"{sim}/hall", timeout=10) as page:
            assert page.read().count(b"<iframe") == TABLES
    finally:
        demo.send_signal(signal.SIGINT)
        output, _ = demo.communicate(timeout=30)
    assert demo.returncode == 0, output
    assert "konsola sędziego" in output


def test_ctrl_c_ends_the_demo_quietly_and_a_second_demo_says_where_the_first_runs(
    tmp_path: Path,
) -> None:
    hub_port, sim_port = free_port(), free_port()
    hub = f"http://127.0.0.1:{hub_port}"
    folder = str(tmp_path / "demo")
    command = [sys.executable, "-m", "klik_hub.demo", "--dir", folder,
               "--hub-port", str(hub_port), "--sim-port", str(sim_port)]  # fmt: skip
    # Its own process group, as a terminal's: Ctrl-C there reaches the whole group.
    demo = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        pair_the_tables(hub, f"http://127.0.0.1:{sim_port}")
        until(lambda: sum(t["seen_s_ago"] is not None for t in ask(f"{hub}/api/v1/tables")) == 4)
        second = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert second.stderr.startswith(f"make demo: pokaz już działa w {folder}/ (pid {demo.pid}")
        assert f"konsola {hub}" in second.stderr
        busy = subprocess.run(
            [sys.executable, "-m", "klik_hub.demo", "--dir", str(tmp_path / "other"),
             "--hub-port", str(hub_port), "--sim-port", str(free_port())],
            check=False, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert busy.returncode == 2
        assert f"port {hub_port} na 127.0.0.1 jest zajęty" in busy.stderr
        assert "make demo HUB_PORT=8010 SIM_PORT=8110" in busy.stderr
    finally:
        os.killpg(demo.pid, signal.SIGINT)  # Ctrl-C in the demo's terminal
        output, _ = demo.communicate(timeout=30)
    assert "Traceback" not in output, output
    assert demo.returncode == 0, output
    assert output.rstrip().endswith("Pokaz zakończony.")
