"""``make demo``: a small tournament, end to end, on one laptop.

The hub (http://127.0.0.1:8000), four virtual tables shown together on one page
(http://127.0.0.1:8100/hall: the real table daemon with mock pins, four times), and a demo
tournament with 16 players. The tables start unpaired and ask the hub to join: seat A of each
shows six digits, and the console's Tables tab lists them under "Tables asking to join"; the
judge compares, types the table's number (the one on its screen) and accepts, one click each.
Then the tournament is ready for the head judge to draw round 1 in the console,
send the lineups and start the round; the games are played on the virtual tables and the
standings appear on the projector (http://127.0.0.1:8000/projector), which counts down the
round's 30 minutes from the Start.

Everything is kept in one folder (``.klik-demo``): delete it to start afresh. Run as
``python -m klik_hub.demo [--dir DIR] [--hub-port N] [--sim-port N]``; Ctrl-C ends it all,
quietly. A second demo from the same folder says where the first one runs; a busy port says
how to choose another.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from klik_hub import office
from klik_hub.main import now_ms
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from klik_hub.tournament.roster import Entrant

TABLES = 4
ROUND_TIME_S = 30 * 60
PLAYERS = (
    ("Łucja Żak", "SP 5 Szczecin"), ("Źdźisław Ćwik", "SP 12 Szczecin"),
    ("Ania Nowak", "SP 5 Szczecin"), ("Bożena Kęs", "SP 3 Police"),
    ("Jan Óssowski", "SP 3 Police"), ("Ewa Śliwa", "SP 12 Szczecin"),
    ("Olek Wąs", "SP 7 Stargard"), ("Iga Ńuk", "SP 7 Stargard"),
    ("Paweł Gęś", "SP 1 Goleniów"), ("Zofia Dąb", "SP 1 Goleniów"),
    ("Marek Śnieg", "SP 2 Gryfino"), ("Hanna Łoś", "SP 2 Gryfino"),
    ("Kuba Żuraw", "SP 9 Szczecin"), ("Ola Cieśla", "SP 9 Szczecin"),
    ("Tomek Róg", "SP 4 Police"), ("Ela Wróbel", "SP 4 Police"),
)  # fmt: skip
NAME = "Turniej pokazowy Klik"
LOCK = "demo.lock"  # held while a demo runs from the folder; says where to find it


def prepare(folder: Path, hub_port: int) -> list[Path]:
    """The hub's database with the demo tournament, and the four tables' configs: the hub's
    address and nothing from pairing, so each asks to join until the judge accepts it (what
    that gives is kept in the table's state folder). Done once: a second run changes nothing."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # the hub's database: its keys
    store = Store(open_engine(str(folder / "hub.sqlite"), pool_size=1), now_ms)
    try:
        configs = []
        for k in range(1, TABLES + 1):
            path = folder / f"table-{k}.toml"
            # Table 1 is the hall's accessible table: a vibration motor at every seat.
            fitted = '\n[hardware]\nvibration = ["A", "B", "C", "D"]\n' if k == 1 else ""
            path.write_text(
                f'[table]\nname = "{k}"\n\n[hub]\nlink = "http"\n'
                f'url = "http://127.0.0.1:{hub_port}"\n{fitted}',
                encoding="utf-8",
            )
            configs.append(path)
        if not office.tournaments.listed(store):
            # A round of 30 minutes: the console, the projector and the seats count it down.
            tid = office.tournaments.create(
                store, NAME, "tournament", "open", 60, round_time_s=ROUND_TIME_S
            )
            office.players.enrol(store, tid, [Entrant(name, club) for name, club in PLAYERS])
        return configs
    finally:
        store.engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m klik_hub.demo", description="A small tournament on one laptop."
    )
    parser.add_argument("--dir", default=".klik-demo", help="where the demo keeps everything")
    parser.add_argument("--hub-port", type=int, default=8000)
    parser.add_argument("--sim-port", type=int, default=8100)
    args = parser.parse_args(argv)
    # Ctrl-C (and SIGTERM) only asks the demo to end: no KeyboardInterrupt, so no traceback
    # wherever it lands, even when pressed twice or while the demo is still starting.
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    folder = Path(args.dir)
    hub_url, sim_url = f"http://127.0.0.1:{args.hub_port}", f"http://127.0.0.1:{args.sim_port}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # the hub's database: its keys
    with (folder / LOCK).open("a+", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            print(f"make demo: pokaz już działa w {folder}/ ({lock.read().strip()}); "
                  "zakończ go Ctrl-C w jego terminalu albo użyj innego katalogu: "
                  "python -m klik_hub.demo --dir INNY", file=sys.stderr)  # fmt: skip
            return 1
        if busy := [port for port in (args.hub_port, args.sim_port) if not _free(port)]:
            print(f"make demo: port {busy[0]} na 127.0.0.1 jest zajęty przez inny program; "
                  "wybierz inne: make demo HUB_PORT=8010 SIM_PORT=8110 (albo python -m "
                  "klik_hub.demo --hub-port 8010 --sim-port 8110)", file=sys.stderr)  # fmt: skip
            return 2
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}, konsola {hub_url}, stoły {sim_url}/hall\n")
        lock.flush()
        return _run(folder, args.hub_port, args.sim_port, stopped)


def _run(folder: Path, hub_port: int, sim_port: int, stopped: threading.Event) -> int:
    configs = prepare(folder, hub_port)
    if stopped.is_set():
        return 0
    klik = str(Path(sys.executable).parent / "klik")
    # Their own sessions: a terminal's Ctrl-C reaches the demo alone, which ends them in turn,
    # once each, so neither is interrupted in the middle of stopping.
    hub = subprocess.Popen(
        [klik, "hub", "--db", str(folder / "hub.sqlite"), "--port", str(hub_port)],
        start_new_session=True,
    )
    tables = subprocess.Popen(
        [klik, "sim", *[a for c in configs for a in ("--config", str(c))],
         "--state-dir", str(folder / "tables"), "--port", str(sim_port)],
        start_new_session=True,
    )  # fmt: skip
    hub_url, sim_url = f"http://127.0.0.1:{hub_port}", f"http://127.0.0.1:{sim_port}"
    print(
        f"\nKlik — pokaz turnieju\n"
        f"  konsola sędziego:  {hub_url}  (Stoły: przyjmij cztery stoły po ich cyfrach;\n"
        f"                     Runda: Losuj → Wyślij składy → Start rundy)\n"
        f"  cztery stoły:      {sim_url}/hall  (klawisze 1–4 po kliknięciu w stół)\n"
        f"  projektor:         {hub_url}/projector\n"
        f"  Ctrl-C kończy; wszystko jest w {folder}/ (usuń, by zacząć od nowa)\n",
        flush=True,
    )
    while not stopped.is_set() and hub.poll() is None and tables.poll() is None:
        stopped.wait(0.2)
    for process in (tables, hub):
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in (tables, hub):
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
    if not stopped.is_set():
        print("make demo: the hub or the tables stopped on their own (see above)", file=sys.stderr)
        return 1
    print("Pokaz zakończony.", flush=True)
    return 0


def _free(port: int) -> bool:
    """Whether ``port`` on loopback can be served on (nothing listens there)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


if __name__ == "__main__":
    sys.exit(main())
