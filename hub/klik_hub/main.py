"""``klik hub`` and ``klik pair``: the hub's commands, reached lazily from ``klik.cli``."""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from klik.errors import InputError
from klik_hub import hall
from klik_hub.door import files, judge
from klik_hub.door import tls as certs  # "tls" is the option
from klik_hub.storage import backup
from klik_hub.storage.backup import Checkpoints
from klik_hub.storage.db import open_engine, sqlite_file, url_of
from klik_hub.storage.store import Store

if TYPE_CHECKING:
    from klik_hub.advert import Advert
    from klik_hub.serial.hub import SerialHub
    from klik_hub.serial.poll import PolledHub

log = logging.getLogger("klik_hub")

DEFAULT_URL = "http://127.0.0.1:8000"  # the hub's own default --host and --port
MAX_TABLE = 999  # as the table's [hub] table


def now_ms() -> int:
    """The hub's clock for ``received_at`` and last contact: wall time, ms since the epoch."""
    return time.time_ns() // 1_000_000


def pair(db: str, table: int, url: str | None, tls_cert: str | None = None) -> str:
    """Register table ``table`` with the hub's store; the TOML ``[hub]`` section for its config.

    An ``https://`` url pins the hub's certificate (``tls_pin_sha256``): ``tls_cert``, or the
    hub's own self-signed one, made now if the hub has not started with TLS yet.
    """
    if not 1 <= table <= MAX_TABLE:
        raise InputError(f"--table {table}: allowed are 1 to {MAX_TABLE}")
    url = url or DEFAULT_URL
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--url {url}: must start with http:// or https://")
    store = open_store(db, pool_size=1)
    try:
        pin = None
        if url.startswith("https://"):
            host = urlsplit(url).hostname or ""
            pin = (
                certs.given(tls_cert, tls_cert).sha256
                if tls_cert is not None
                else certs.kept(store, sqlite_path(db), [host]).sha256
            )
        device, key = hall.devices.pair(store, table)
    finally:
        store.engine.dispose()
    return (
        f"# table {table}, paired with the hub at {url}; keep this key secret\n"
        "[hub]\n"
        'link = "http"\n'
        f'url = "{url}"\n'
        f"table = {table}\n"
        f'device_id = "{device}"\n'
        f'key = "{key}"\n' + (f'tls_pin_sha256 = "{pin}"\n' if pin is not None else "")
    )


def open_store(db: str, pool_size: int = 8) -> Store:
    """The store on ``--db``, checked first: a damaged SQLite file or a database that cannot
    be reached is one line (InputError), never a traceback."""
    path = sqlite_path(db)
    if path is not None and path.exists():
        backup.check(path)
    try:
        return Store(open_engine(db, pool_size=pool_size), now_ms)
    except DBAPIError as error:
        first = str(error.orig).strip().splitlines()[0] if error.orig else type(error).__name__
        raise InputError(f"--db {_shown(db)}: cannot open the database ({first})") from None


def save_copy(db: str, file: str) -> str:
    """``klik hub backup --db DB FILE``: a consistent copy of the SQLite database in FILE."""
    path = sqlite_path(db)
    if path is None:
        raise InputError(f"--db {_shown(db)}: a PostgreSQL database is backed up with pg_dump")
    if not path.exists():
        raise InputError(f"--db {db}: no such file")
    target = Path(file)
    if not target.parent.is_dir():
        raise InputError(f"{file}: the folder {target.parent} does not exist")
    backup.check(path)
    backup.write(path, target)
    return f"klik hub backup: {path} copied to {target}"


def export_results(db: str, tid: int, file: str, *, as_csv: bool = False) -> str:
    """``klik hub export-results --db DB --tournament ID FILE [--csv]``: the tournament as a
    results file (``league.exchange``), written whole (fsynced, then renamed); the line to
    print."""
    from klik_hub.league import exchange
    from klik_hub.office.errors import NotFoundError
    from klik_hub.reports.exports import exchange_csv

    store = _existing(db)
    try:
        exported = exchange.export(store, tid)
    except NotFoundError:
        raise InputError(f"--tournament {tid}: no such tournament in {_shown(db)}") from None
    finally:
        store.engine.dispose()
    data = exchange_csv(exported) if as_csv else exchange.dumps(exported)
    _write_whole(Path(file), data)
    games = len(exported["games"])
    return f"klik hub export-results: tournament {tid} ({games} games) written to {file}"


def import_results(db: str, file: str, season: int | None) -> str:
    """``klik hub import-results --db DB [--season S] FILE``: another hub's results file as a
    finished tournament here; the line to print. A file the hub cannot take is one line and
    nothing is kept."""
    import json

    from klik.arguments import read
    from klik_hub.league import exchange

    text = read(file)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{file}: not JSON ({error})") from None
    store = _existing(db)
    try:
        tid = exchange.take(store, data, season)
    except exchange.ExchangeError as error:
        raise InputError(f"{file}: {error}") from None
    finally:
        store.engine.dispose()
    return f"klik hub import-results: {file} kept as tournament {tid}"


def _existing(db: str) -> Store:
    path = sqlite_path(db)
    if path is not None and not path.exists():
        raise InputError(f"--db {db}: no such file")  # not a new, empty database
    return open_store(db, pool_size=1)


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` in ``path``, whole or not at all: a temporary file beside it, fsynced, then
    renamed over it."""
    part = path.with_name(path.name + ".part")
    try:
        with part.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        part.replace(path)
    except OSError as error:
        raise InputError(f"{path}: cannot write ({error.strerror or error})") from None


def export_site(db: str, tid: int, folder: str, lang: str = "pl", *, force: bool = False) -> str:
    """``klik hub export-site --db DB --tournament ID DIR``: the finished tournament as a
    static web site in DIR (``archive``); the line to print. A tournament that does not
    exist or is not finished, or a DIR that is not empty (without ``force``), is one line
    (InputError) and nothing is written; so is a DIR that cannot be written (what was
    written before the failure stays)."""
    from klik.words import Language, nwords
    from klik_hub import league
    from klik_hub.office.errors import NotFoundError
    from klik_hub.office.tally import Tallies
    from klik_hub.reports import archive

    path = sqlite_path(db)
    if path is not None and not path.exists():
        raise InputError(f"--db {db}: no such file")  # not a new, empty database
    store = open_store(db, pool_size=1)
    try:
        tally = Tallies(store).of(tid)
        seasons = [(sid, name, league.seasons.standings(store, sid)) for sid, name in tally.seasons]
    except NotFoundError:
        raise InputError(f"--tournament {tid}: no such tournament in {_shown(db)}") from None
    finally:
        store.engine.dispose()
    why = archive.unfinished(tally)
    if why is not None:
        raise InputError(f"--tournament {tid}: the tournament is not finished ({why})")
    site = archive.pages(tally, Language(lang), seasons)
    archive.write(site, Path(folder), force=force)
    rounds = nwords("{n} round", "{n} rounds", sum(1 for n in site if n.startswith("rounds/")))
    players = sum(1 for name in site if name.startswith("players/"))
    pages = nwords("{n} player's page", "{n} players' pages", players)
    return (
        f"klik hub export-site: tournament {tid} written to {Path(folder) / 'index.html'} "
        f"({rounds}, {pages})"
    )


def _shown(db: str) -> str:
    """``db`` as it may be printed: a URL's password hidden."""
    return make_url(url_of(db)).render_as_string(hide_password=True) if "://" in db else db


def sqlite_path(db: str) -> Path | None:
    """The SQLite file of ``--db``; None for PostgreSQL."""
    return sqlite_file(url_of(db))


def judge_password(store: Store, host: str, password_file: str | None) -> None:
    """Store the judge's password's hash from ``password_file``; refuse to serve a network
    without one (a hub on loopback, for one laptop, may go without)."""
    if password_file is not None:
        store.set_setting(judge.SETTING, judge.hash_password(judge.read_password(password_file)))
        log.info("hub: the judge's password is set from %s", password_file)
        return
    if store.setting(judge.SETTING) is not None:
        return
    if not _loopback(host):
        raise InputError(
            f"--host {host}: a hub on the network needs the judge's password: "
            "--judge-password-file FILE"
        )
    log.warning("hub: no judge's password: the judge's routes are open to this machine")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    db: str,
    host: str,
    port: int,
    serial: list[str],
    password_file: str | None = None,
    *,
    tls: bool | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    public_names: Sequence[str] = (),
    bundle: str | None = None,
    serial_channel: str = "listen",
    advertise: bool | None = None,
    advertise_name: str | None = None,
    forwarded_allow_ips: str | None = None,
) -> int:
    """Run the hub until SIGINT/SIGTERM (uvicorn handles both).

    ``password_file``: the judge's password, stored as a hash (see ``judge_password``).
    ``tls``: HTTPS (None: off loopback only), with ``tls_cert`` and ``tls_key`` or the hub's
    own certificate (``tls.kept``), whose SHA-256 is logged for the tables' pins.
    ``public_names``: host names the hub answers to besides its addresses (``guard``).
    ``bundle``: a folder made by ``make bundle``, served to the tables at ``/install``.
    ``advertise``: the hub's DNS-SD advert on the network (``advert``; None: off loopback
    only), named ``advertise_name`` (None: the machine's host name).
    ``forwarded_allow_ips``: the proxies (uvicorn's comma-separated addresses) whose
    ``X-Forwarded-For`` and ``-Proto`` count; None: no proxy, the headers are ignored.

    Each ``--serial`` device gets a ``SerialHub`` on the same store, at 9600 baud (the HC-12's
    factory setting and the tables' default), started before the API and stopped after it.
    A device that is missing or vanishes is logged and opened again every few seconds; the
    API goes on meanwhile. ``serial_channel`` "polled": a ``PolledHub`` instead, which gives
    each table its turn (``docs/protocol.md``, "The polled channel").
    """
    import uvicorn

    from klik.serving import Deadline
    from klik_hub.app import make_app
    from klik_hub.door import loop as hall_loop

    if (tls_cert is None) != (tls_key is None):
        raise InputError("--tls-cert and --tls-key go together")
    if tls is False and tls_cert is not None:
        raise InputError("--no-tls with --tls-cert: choose one")
    https = tls if tls is not None else (tls_cert is not None or not _loopback(host))
    # The files the hub names are made 0600 one by one, whatever the umask (``storage.
    # private``); this covers the ones it does not name (SQLite's temporary files, a file
    # some library makes): nothing the hub writes is for another user to read, and a hub
    # started by hand has the shell's umask, commonly 022.
    os.umask(0o077)
    served = _bundle(bundle)
    store = open_store(db)
    judge_password(store, host, password_file)
    certificate = _certificate(
        store, db, https, host=host, public_names=public_names, tls_cert=tls_cert, tls_key=tls_key
    )
    scheme = "https" if https else "http"
    where = store.engine.url.render_as_string()
    log.info("hub: database %s, %s://%s:%d/", where, scheme, host, port)
    # After the database: a hub that cannot start says so in its one line, nothing before it.
    watch = _open_files()
    if served is not None:
        _install_line(served, scheme, host, port)
    serial_hubs = _serial_hubs(store, serial, serial_channel)
    app = make_app(
        store,
        public_names=tuple(public_names),
        tls=https,
        listening=host,
        tls_pin=certificate.sha256 if certificate else None,
        bundle=served,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        access_log=False,
        http=Deadline,
        loop=hall_loop.NAME,  # a TLS handshake not done in 10 s is dropped, not after 60 s
        # uvicorn believes X-Forwarded-For from loopback by default: anyone on the laptop
        # would then be a fresh address per guess (and -Proto would change the scheme the
        # install script names). Only a proxy the organiser names counts.
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
        ssl_certfile=certificate.cert_file if certificate else None,
        ssl_keyfile=certificate.key_file if certificate else None,
        # A stop ends the pages' streams of events at once (``Deadline``); one that did not
        # ask as a browser does is cut after this long rather than waited for.
        timeout_graceful_shutdown=STOP_S,
    )
    # uvicorn finishes the requests under way on SIGINT and SIGTERM, then raises the signal
    # again for the handler it found; these handlers make that a quiet stop with exit 0.
    signal.signal(signal.SIGTERM, _stopped)
    signal.signal(signal.SIGINT, _stopped)
    path = sqlite_path(db)
    checkpoints = Checkpoints(store.engine, RoundBackups(store, path).check) if path else None
    if checkpoints is not None:
        checkpoints.start()
    watch.start()
    on = advertise if advertise is not None else not _loopback(host)
    advert = _advert(host, port, scheme, advertise_name) if on else None
    try:
        uvicorn.Server(config).run()
    finally:
        if advert is not None:
            advert.stop()
        for serial_hub in serial_hubs:
            serial_hub.stop()
        if checkpoints is not None:
            checkpoints.stop()
        watch.stop()
        # The last connection to a SQLite file folds the WAL into it: the file alone then
        # holds every result, for a judge who copies only the file named by --db.
        store.engine.dispose()
    return 0


STOP_S = 5  # the longest a stop waits for a request under way


def _open_files() -> files.Watch:
    """Take every file the system allows (logged), and the watch for a shortage, not started.
    Every connection is a file: a hub started from a shell would have the shell's 1,024 and
    lock the tables out after a thousand silent connections (``files``)."""
    limit = files.raise_limit()
    level, line = files.said(limit)
    log.log(level, "%s", line)
    return files.Watch(limit.now)


def _serial_hubs(store: Store, devices: list[str], kind: str) -> list[SerialHub | PolledHub]:
    """A started ``SerialHub`` (``PolledHub`` for ``kind`` "polled") on each device."""
    from klik_hub.serial.hub import SerialHub
    from klik_hub.serial.poll import PolledHub

    hub_of = PolledHub if kind == "polled" else SerialHub
    serial_hubs: list[SerialHub | PolledHub] = [hub_of(store, device) for device in devices]
    for serial_hub in serial_hubs:
        serial_hub.start()
        channel = serial_hub.channel
        log.info("hub: serial link on %s at %d baud", channel.name, channel.baud)
    return serial_hubs


def _advert(host: str, port: int, scheme: str, name: str | None) -> Advert:
    """The hub's DNS-SD advert (``klik_hub.advert``), started: it registers on a thread."""
    from klik_hub.advert import Advert

    advert = Advert(host, port, scheme, name=name)
    advert.start()
    return advert


def _bundle(folder: str | None) -> Path | None:
    """``--bundle DIR``: the folder, if it holds a bundle (its hash logged for the organiser
    to compare with the one ``make bundle`` printed); a folder without one is one line."""
    from klik_hub.api.install import SUMS, bundle_hash

    if folder is None:
        return None
    digest = bundle_hash(Path(folder))
    if digest is None:
        raise InputError(f"--bundle {folder}: no {SUMS} there: not a bundle (make bundle)")
    log.info("hub: the tables' install at /install: bundle %s in %s", digest, folder)
    return Path(folder).resolve()


def _certificate(
    store: Store,
    db: str,
    https: bool,
    *,
    host: str,
    public_names: Sequence[str],
    tls_cert: str | None,
    tls_key: str | None,
) -> certs.Certificate | None:
    """The hub's certificate (None: plain HTTP, which off loopback is one warning)."""
    if not https:
        if not _loopback(host):
            log.warning("hub: --no-tls on %s: the judge's password crosses the network in the "
                        "clear", host)  # fmt: skip
        return None
    certificate = (
        certs.given(tls_cert, tls_key)
        if tls_cert is not None and tls_key is not None
        else certs.kept(store, sqlite_path(db), [host, *public_names])
    )
    log.info("hub: TLS certificate SHA-256 %s (klik pair puts it in the tables' configs)",
             certificate.sha256)  # fmt: skip
    return certificate


def _install_line(bundle: Path, scheme: str, host: str, port: int) -> None:
    """Log the line a table is installed by, for the hub's hall address (the one the console
    and the printed card give): the organiser copies it from the log as well."""
    from klik_hub.api.install import described
    from klik_hub.door.addresses import hall_base

    hub = hall_base(f"{scheme}://127.0.0.1:{port}/", host).rstrip("/")
    said = described(hub, bundle)
    if said is not None:
        log.info("hub: to install a table, on the table: %s", said["line"])


class RoundBackups:
    """A copy of the database in ``backups/`` once the last result of the tournament's
    current round is in (checked with every checkpoint): a card that fails later costs at
    most the round under way. The tournament in play, or else the newest one, is watched."""

    def __init__(self, store: Store, path: Path) -> None:
        self.store = store
        self.path = path

    def check(self) -> Path | None:
        """Write the copy if the round is complete and has none yet; the copy's path."""
        from klik_hub import office

        tid = office.tournaments.in_play(self.store)
        if tid is None:
            newest = office.tournaments.listed(self.store)
            if not newest:
                return None
            tid = int(newest[0]["id"])
        drawn = office.tournaments.get(self.store, tid)["rounds"]
        if not drawn:
            return None
        round_no = int(drawn[-1]["round"])
        board = office.rounds.get(self.store, tid, round_no)
        if any(table["missing"] for table in board["tables"]):
            return None
        why = f"turniej-{tid}-runda-{round_no}"
        if any((self.path.parent / backup.FOLDER).glob(f"{self.path.stem}-*-{why}.sqlite")):
            return None
        copy = backup.keep(self.path, why)
        log.info("hub: round %d of tournament %d is complete: a copy in %s", round_no, tid, copy)
        return copy


def _stopped(_signal: int, _frame: object) -> None:
    """A stop signal after uvicorn's own stop: nothing more to do."""
