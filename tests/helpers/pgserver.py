"""A real, throwaway PostgreSQL server for tests: one cluster a session, one database a test.

Why a real server and not SQLite or a mock: the hub runs on PostgreSQL, and what its tests
check there (transactions, locks, a commit surviving a crashed server) is what a stand-in gets
wrong.

Theory of operation:
- `running_cluster()`: `initdb` into a fresh folder under /tmp, then `pg_ctl -w start` listening
  on a unix socket in that folder and on 127.0.0.1 at a free port; at the end
  `pg_ctl stop -m immediate` and the folder removed. fsync stays on: durability is tested.
  Trust auth: only this machine's own processes reach a cluster that lives for one test run.
- `fresh_database(cluster, hint)`: an empty database with a unique name, as a SQLAlchemy URL;
  dropped afterwards, the connections a test left open (a pooled engine) terminated first.
- PostgreSQL refuses to run as root, so as root the cluster runs as Debian's `postgres` user
  (`runuser`), in folders it owns. Missing binaries fail with one line: this project skips no
  test.

The pytest fixtures that use this are in tests/hub/conftest.py.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

MISSING = "PostgreSQL is missing: apt-get install postgresql (.ci/run does)"
SERVER_USER = "postgres"  # Debian's package creates it; the cluster runs as it when we are root
MAX_CONNECTIONS = 200  # the hub's tests open many pools at once; the default 100 runs out
DEBIAN_ROOT = Path("/usr/lib/postgresql")  # one folder a major version: 15/bin, 16/bin, ...


def find_bindir(root: Path = DEBIAN_ROOT) -> Path:
    """The `bin` folder of the highest installed major version (Debian installs them side by side).

    Not `pg_config --bindir`: Debian ships pg_config only with libpq-dev. Fails the test (never
    skips) with `MISSING` when no version is installed.
    """
    versions = [
        p for p in root.glob("*/bin") if p.parent.name.isdigit() and (p / "initdb").is_file()
    ]
    if not versions:
        pytest.fail(MISSING, pytrace=False)
    return max(versions, key=lambda p: int(p.parent.name))  # by number: 9 < 15, unlike "9" > "15"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Cluster:
    """One throwaway PostgreSQL cluster: its folders, its port, and how to start and stop it.

    Made by `running_cluster()`. A durability test may `stop()` it (a crash, by default) and
    `start()` it again; it must leave the cluster running for the tests after it.
    """

    def __init__(self, bindir: Path, home: Path, user: str, as_root: bool) -> None:
        self.bindir = bindir
        self.home = home  # everything lives here, removed at the end
        self.datadir = home / "data"
        self.socket_dir = home / "socket"
        self.log = home / "server.log"
        self.user = user  # the OS user that runs the server, also the cluster's superuser
        self.as_root = as_root
        self.port = free_port()

    def run(self, tool: str, *args: str) -> None:
        """Run one of the cluster's binaries as the server's user; fail with its output and log.

        The working folder is the cluster's own: as `postgres`, the caller's may be unreadable,
        and pg_ctl refuses to run from a folder it cannot enter.
        """
        command = [str(self.bindir / tool), *args]
        if self.as_root:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(
            command, cwd=self.home, capture_output=True, text=True, check=False, timeout=60
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            pytest.fail(
                f"{tool} failed ({done.returncode}): {done.stdout}{done.stderr}{log}",
                pytrace=False,
            )

    def init(self) -> None:
        """Create the cluster and write its settings (once, before the first start).

        --no-sync only skips flushing initdb's own fresh files to disk; the server still runs
        with fsync on. A folder nobody reuses after a machine crash needs no flush.
        """
        self.run(
            "initdb",
            "--pgdata",
            str(self.datadir),
            "--username",
            self.user,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",  # always present on Debian: sorting does not vary by host
            "--no-sync",
        )
        # Appended to the file initdb wrote (so it stays owned by the server's user), and last
        # in it, so these settings win; no path goes through the shell quoting of pg_ctl -o.
        with (self.datadir / "postgresql.conf").open("a") as conf:
            conf.write(
                "\n# klik tests: a throwaway cluster, reachable from this machine only\n"
                "listen_addresses = '127.0.0.1'\n"
                f"port = {self.port}\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                f"max_connections = {MAX_CONNECTIONS}\n"
                "fsync = on\n"
            )

    def start(self) -> None:
        """Start the server; returns once it accepts connections (`-w` waits for that)."""
        self.run("pg_ctl", "start", "-w", "-t", "30", "-D", str(self.datadir), "-l", str(self.log))

    def stop(self, mode: str = "immediate") -> None:
        """Stop the server: `immediate` is a crash (no checkpoint), `fast` a clean shutdown."""
        self.run("pg_ctl", "stop", "-w", "-m", mode, "-D", str(self.datadir))

    def running(self) -> bool:
        """Whether a server runs on the data folder (pg_ctl removes the pid file when it stops)."""
        return (self.datadir / "postmaster.pid").exists()

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        """A superuser connection over the unix socket, in autocommit (CREATE DATABASE needs it)."""
        return psycopg.connect(
            host=str(self.socket_dir),
            port=self.port,
            user=self.user,
            dbname="postgres",
            autocommit=True,
        )

    def url(self, dbname: str) -> str:
        """The SQLAlchemy URL of one database, over TCP as the hub itself connects."""
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{dbname}"


def make_home(user: str, as_root: bool) -> Path:
    """A fresh folder for the cluster, owned by the server's user.

    mkdtemp directly under /tmp, not pytest's tmp_path: pytest's folder is private to root
    (mode 0700), where `postgres` cannot enter, and a unix socket's path must stay under 108
    bytes.
    """
    home = Path(tempfile.mkdtemp(prefix="klik-pg-"))
    (home / "socket").mkdir()
    if as_root:
        for folder in (home, home / "socket"):
            shutil.chown(folder, user=user, group=user)
    return home


def server_user() -> tuple[str, bool]:
    """Who runs the server, and whether we are root (so it must go through runuser)."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid()).pw_name, False
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        pytest.fail(f"{MISSING}: there is no '{SERVER_USER}' user to run it", pytrace=False)
    return SERVER_USER, True


@contextmanager
def running_cluster() -> Iterator[Cluster]:
    """A new cluster, running; crashed (`-m immediate`) and removed on exit.

    Prints how long initdb and start took (shown with pytest -s or -rP).
    """
    bindir = find_bindir()
    user, as_root = server_user()
    cluster = Cluster(bindir, make_home(user, as_root), user, as_root)
    try:
        began = time.monotonic()
        cluster.init()
        cluster.start()
        took = time.monotonic() - began
        print(f"postgres: {bindir} up in {took:.2f} s on 127.0.0.1:{cluster.port}")
        yield cluster
        # The data is thrown away, so a clean shutdown buys nothing. Not running: a test
        # stopped it and failed before starting it again, and that failure says so already.
        if cluster.running():
            cluster.stop("immediate")
    finally:
        shutil.rmtree(cluster.home, ignore_errors=True)


_numbers = itertools.count(1)


def database_name(hint: str) -> str:
    """A unique database name that still says which test made it (well under 63 bytes)."""
    slug = re.sub(r"[^a-z0-9]+", "_", hint.lower()).strip("_")[:40]
    return f"t{next(_numbers):04d}_{slug}"


@contextmanager
def fresh_database(cluster: Cluster, hint: str) -> Iterator[str]:
    """An empty database in `cluster`, as `postgresql+psycopg://USER@127.0.0.1:PORT/NAME`.

    Dropped on exit; WITH (FORCE) terminates the connections still open on it first.
    """
    name = database_name(hint)
    with cluster.admin() as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield cluster.url(name)
    finally:
        with cluster.admin() as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
