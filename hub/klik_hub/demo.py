"""``make demo``: a small tournament, end to end, on one laptop.

The hub (http://127.0.0.1:8000), four virtual tables paired with it and shown together on one
page (http://127.0.0.1:8100/hall: the real table daemon with mock pins, four times), and a
demo tournament with 16 players, ready for the head judge to draw round 1 in the console,
send the lineups and start the round; the games are played on the virtual tables and the
standings appear on the projector (http://127.0.0.1:8000/projector).

Everything is kept in one folder (``.klik-demo``): delete it to start afresh. Run as
``python -m klik_hub.demo [--dir DIR] [--hub-port N] [--sim-port N]``; Ctrl-C ends it all.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from pathlib import Path

from klik_hub.db import open_engine
from klik_hub.main import now_ms
from klik_hub.store import Store
from klik_hub.tournament.roster import Entrant
from klik_hub.tournaments import Tournaments

TABLES = 4
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


def prepare(folder: Path, hub_port: int) -> list[Path]:
    """The hub's database with four paired tables and the demo tournament; the tables'
    configs. Done once: a second run finds them and changes nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    store = Store(open_engine(str(folder / "hub.sqlite"), pool_size=1), now_ms)
    try:
        configs = []
        for k in range(1, TABLES + 1):
            path = folder / f"table-{k}.toml"
            if not path.exists() or not store.paired(k):
                device, key = store.pair(k)
                path.write_text(
                    f'[table]\nname = "{k}"\n\n[hub]\nlink = "http"\n'
                    f'url = "http://127.0.0.1:{hub_port}"\ntable = {k}\n'
                    f'device_id = "{device}"\nkey = "{key}"\n',
                    encoding="utf-8",
                )
            configs.append(path)
        tournaments = Tournaments(store)
        if not tournaments.listed():
            tid = tournaments.create(NAME, "tournament", "open", 60)
            tournaments.enrol(tid, [Entrant(name, club) for name, club in PLAYERS])
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
    folder = Path(args.dir)
    configs = prepare(folder, args.hub_port)
    klik = str(Path(sys.executable).parent / "klik")
    hub = subprocess.Popen(
        [klik, "hub", "--db", str(folder / "hub.sqlite"), "--port", str(args.hub_port)]
    )
    tables = subprocess.Popen(
        [klik, "sim", *[a for c in configs for a in ("--config", str(c))],
         "--state-dir", str(folder / "tables"), "--port", str(args.sim_port)]
    )  # fmt: skip
    hub_url, sim_url = f"http://127.0.0.1:{args.hub_port}", f"http://127.0.0.1:{args.sim_port}"
    print(
        f"\nKlik — pokaz turnieju\n"
        f"  konsola sędziego:  {hub_url}  (Runda: Losuj → Wyślij składy → Start rundy)\n"
        f"  cztery stoły:      {sim_url}/hall  (klawisze 1–4 po kliknięciu w stół)\n"
        f"  projektor:         {hub_url}/projector\n"
        f"  Ctrl-C kończy; wszystko jest w {folder}/ (usuń, by zacząć od nowa)\n",
        flush=True,
    )
    stopped = {"by": False}  # Ctrl-C or SIGTERM: the judge ended the demo
    signal.signal(signal.SIGTERM, lambda *_: stopped.update(by=True))
    try:
        while not stopped["by"] and hub.poll() is None and tables.poll() is None:
            time.sleep(0.2)
    except KeyboardInterrupt:
        stopped["by"] = True
    finally:
        for process in (tables, hub):
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in (tables, hub):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
    if not stopped["by"]:
        print("make demo: the hub or the tables stopped on their own (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
