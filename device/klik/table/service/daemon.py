"""The table daemon: the real clock, the threads, systemd, and the hardware put together.

Threads: gpiozero's callback thread only stamps edges and queues them; one engine thread
takes them off the queue and does all the work (``klik.table.game.engine``); the main thread
tells systemd it is ready once the hardware is up and pings the watchdog only while the engine
thread is alive and has come round its loop lately, so a hung engine is restarted by systemd.
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image

from klik.core.tabletop import Edge
from klik.link import protocol as p
from klik.link.courier import Command, Courier, Link
from klik.link.discovery import Discovery, Found
from klik.link.http import HttpLink
from klik.link.joining import HttpJoin, Joined, Joiner, Transport
from klik.link.outbox import Outbox, OutboxCorruptError, OutboxError
from klik.link.polled import PolledLink
from klik.link.serial import SerialLink
from klik.link.serial_join import SerialJoin
from klik.table.config import Config, ConfigError, paired
from klik.table.game.card import Card
from klik.table.game.engine import Engine, Item, Screens
from klik.table.game.journal import Journal
from klik.table.hardware.gpio import JudgeEdge, PowerFail, TableGPIO, make_factory
from klik.table.service import notify
from klik.table.service.health import Readings
from klik.table.service.hubwatch import HubWatch
from klik.table.service.renumbering import renumbered

log = logging.getLogger("klik.table.service.daemon")

IDLE_WAKE_S = 1.0  # the engine comes round at least this often, for the watchdog
SERIAL_HEARTBEAT_S = 30.0  # the least heartbeat interval on a shared serial channel
_STOP = object()
COMMAND_WAIT_S = 5.0  # a hub command's longest wait for the engine thread


class Daemon:
    """One table: GPIO, panels, journal and the engine thread."""

    def __init__(
        self,
        config: Config,
        *,
        screens: Screens | None,
        factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        journal: bool = True,
        publishing: bool = False,
        on_frame: Callable[[str, Image.Image, float], None] | None = None,
        health_root: Path = Path("/"),
    ) -> None:
        self._stopping = threading.Event()
        # Set when the table should stop (``serve`` waits on it): SIGTERM, or the HAT's
        # power-fail line, after the engine made the game durable and the seats said so.
        self.stop_asked = threading.Event()
        # A card with no hub address: the table finds the hub by DNS-SD, and again if it moves.
        finds_hub = config.hub.finds_hub
        # What pairing at the table gave (``paired.toml`` in the state folder) is laid over
        # the config here, at every start.
        config = paired.applied(config)
        self.config = config
        self._monotonic = clock
        self.offset = 0.0
        self.events: queue.Queue[Any] = queue.Queue()
        if factory is None:
            factory = make_factory(config.hardware.pin_factory)
        self.gpio = TableGPIO(config, factory, self.events, self.clock)
        state = Path(config.table.state_dir)
        # The heartbeat's health readings (``klik.table.service.health``), of the machine under
        # ``health_root`` (a test's fake sysfs tree).
        self.readings = Readings(state, root=health_root)
        self.journal = Journal(state / "journal.jsonl") if journal else None
        if self.journal is not None:
            state.mkdir(parents=True, exist_ok=True)
            # Room for the games even when the card fills up (``klik.table.game.card``).
            self.journal.card.hold(state, config.table.reserve_mib * 2**20)
        self.outbox: Outbox | None = None
        self.courier: Courier | None = None
        self.joiner: Joiner | None = None  # while the table asks the hub to join
        # while it looks for the hub on the network (no [hub] url): the joiner starts once
        # it found one
        self.discovery: Discovery | None = None
        self._joining = threading.Lock()  # discovery's thread and stop() both touch joiner
        # ``paired.toml`` and the config's [hub] are read and rewritten under this: the
        # judge's accept (the joiner's thread), a renumber (the courier's) and a hub found
        # again (the watch's) each keep their own change and the others' too.
        self._pairing_file = threading.Lock()
        hub = config.hub
        self.hub_url = hub.url  # the hub it asks to join, or the one discovery found
        # "none", "asking" (with the digits once the exchange gave them) or "paired"
        self.pairing: tuple[str, str | None] = (
            ("paired", None) if hub.device_id and hub.key else ("none", None)
        )
        if journal and (hub.link != "off" or hub.asks_to_join):
            self.outbox = self._outbox(state, self.journal.card if self.journal else None)
        if self.outbox is not None:
            if hub.finds_hub:
                self.discovery = Discovery(self._found, wanted=hub.name)
                self.pairing = ("asking", None)
            elif hub.asks_to_join:
                self.joiner = self._joiner(hub.url)
                self.pairing = ("asking", None)
            else:
                self.courier = self._courier(self.outbox)
        self.engine = Engine(
            config,
            self.journal,
            screens,
            set_outputs=self.gpio.set,
            # While it asks to join, a result is kept in its file only: it has no table number
            # the hub knows yet. The outbox is the engine's once the judge accepted it, and
            # the games kept meanwhile go to it then, with the number (``Keeper.adopt``).
            outbox=None if self.pairing[0] == "asking" else self.outbox,
            on_kept=None if self.outbox is None else self._wake,
            wall_clock=wall_clock,
            publishing=publishing,
            on_frame=on_frame,
            on_repair=self._repair,
        )
        self._rejoiner: Joiner | None = None  # while a paired table asks to join again
        self.hubwatch = (
            HubWatch(
                lambda: self.courier if self._rejoiner is None else None,
                lambda: self.config.hub.url,
                self._http_link,
                self._moved,
                wanted=hub.name,
            )
            if finds_hub and self.outbox is not None
            else None
        )
        # Over a serial link the courier and a re-pairing joiner take turns with the one port:
        # each hand-over (one stops, the other starts) holds this.
        self._port = threading.Lock()
        if self.pairing[0] == "asking":
            self.call(lambda engine, now: engine.seeking(True, now))
        self.beat = 0.0  # the engine loop's last round, on the table clock
        # The table clock's moment at ``start``: the pins are live from construction, but an
        # edge before the clock was set was stamped on the raw monotonic clock (``offset``
        # 0), which after a restart is another time altogether: such edges are dropped.
        self.started_at: float | None = None
        self.early_edges = 0
        self._thread: threading.Thread | None = None
        self.failure: BaseException | None = None

    def _outbox(self, state: Path, card: Card | None) -> Outbox | None:
        """The results kept for the hub, made before the engine, which takes it; None if the
        card cannot hold it (full, read-only): the players still have their clock, the seats
        say why the games are not kept, and the table does not talk to the hub until the
        card is changed (a result it cannot keep, it must not send: its seq could come
        again)."""
        path = state / "outbox.sqlite"
        try:
            try:
                return Outbox(path) if card is None else card.attempt(lambda: Outbox(path))
            except OutboxCorruptError:
                return Outbox.start_anew(path)  # one line says what was moved aside
        except OutboxError as error:
            if card is not None:
                card.failed(error, "the results for the hub")
            log.error(
                "stół %s: %s; the games are played but not kept nor sent to the hub "
                "until the card is changed",
                self.config.table.name,
                error,
            )
            return None

    def _wake(self) -> None:
        """A result was kept: the courier takes it (once the table is paired)."""
        if self.courier is not None:
            self.courier.wake()

    def _joiner(self, url: str) -> Joiner:
        """The joiner that asks the hub to join: over the serial port with a serial link
        (``SerialJoin``, closed before the courier's link opens the port), else over http to
        ``url``."""
        hub = self.config.hub
        # Paired already (a re-pair): the request proves it, so the results go along.
        proof = (hub.device_id, hub.key) if hub.device_id and hub.key else None
        transport: Transport
        if hub.link == "serial":
            transport = SerialJoin(
                hub.serial_port, hub.serial_baud, polled=hub.serial_channel == "polled",
                paired_as=proof,
            )  # fmt: skip
        else:
            transport = HttpJoin(url, paired_as=proof)
        return Joiner(transport, on_digits=self._digits, on_joined=self._joined)

    def _found(self, found: Found) -> None:
        """Discovery found the hub (its thread): ask it to join, as a configured url is."""
        with self._joining:
            if self._stopping.is_set():
                return
            self.hub_url = found.url
            self.joiner = self._joiner(found.url)
            self.joiner.start()

    def _digits(self, digits: str | None) -> None:
        """The joiner's digits (its thread): seat A shows them while the table asks."""
        self.pairing = ("asking", digits)
        self.call(lambda engine, now: engine.pairing(digits, None, now))

    def _given(self, joined: Joined) -> dict[str, object]:
        """What the judge's accept gave, as ``paired.toml`` keeps it: the pin only over
        https, the url only over the network."""
        https = self.hub_url.startswith("https://")
        return {
            "url": self.hub_url or None,  # none over a serial link
            "table": joined.table,
            "device_id": joined.device_id,
            "key": joined.key,
            "tls_pin_sha256": joined.tls_pin_sha256 if https else None,
        }

    def _joined(self, joined: Joined) -> None:
        """The judge accepted this table (the joiner's thread): what it gave is kept in the
        state folder, the config takes it, and the courier starts."""
        given = self._given(joined)
        try:
            with self._pairing_file:
                paired.keep(self.config, given)
                self.config = paired.applied(self.config)
        except (OSError, ConfigError) as error:
            log.error("stół %s: parowanie nie zapisane (%s)", self.config.table.name, error)
            self.pairing = ("none", None)
            self.call(lambda engine, now: engine.seeking(False, now))
            return
        assert self.outbox is not None  # the joiner runs only with a journal, and so an outbox
        courier = self._courier(self.outbox)
        self.courier = courier
        config = self.config
        where = config.hub.serial_port if config.hub.link == "serial" else config.hub.url
        log.info("stół %s: połączono z hubem %s", config.table.name, where)
        self._paired(config)
        if not self._stopping.is_set():
            courier.start()

    def _paired(self, config: Config) -> None:
        """The engine takes what pairing gave (``config``: the table's number; the outbox its
        results go to from now on) on its thread, and only then is the table paired: what
        the virtual table reports never says "paired" beside the number it had before."""
        outbox = self.outbox

        def take(engine: Engine, now: float) -> None:
            engine.pairing(None, config, now, outbox=outbox)
            self.pairing = ("paired", None)

        self.call(take)

    def _courier(self, outbox: Outbox) -> Courier:
        """The courier to the hub for the config's ``[hub]``. It reads the engine's
        ``status`` once started and hands it news and commands through the engine thread's
        queue (``call``)."""
        hub = self.config.hub
        key = p.key_bytes(hub.key)
        link: Link
        heartbeat_s = hub.heartbeat_s
        if hub.link == "serial":
            if hub.serial_channel == "polled":
                link = PolledLink(
                    hub.serial_port, hub.serial_baud, hub.device_id, key, table=hub.table
                )
            else:
                link = SerialLink(hub.serial_port, hub.serial_baud, hub.device_id, key)
            # Nine tables' heartbeats every 2 s would fill a shared 9600-baud channel; the
            # hub pushes commands over serial, so the heartbeat only reports the state.
            heartbeat_s = max(heartbeat_s, SERIAL_HEARTBEAT_S)
        else:
            link = self._http_link(hub.url)
        courier = Courier(
            outbox,
            link,
            hub.device_id,
            key,
            heartbeat_s=heartbeat_s,
            status=self._status,
            on_tracking=lambda news: self.call(lambda engine, now: engine.delivered(news, now)),
            on_command=self._command,
            on_round=self._round,
            table=hub.table or None,  # a result kept under another number is told apart
        )
        if isinstance(link, (SerialLink, PolledLink)):
            link.on_push = courier.push
        return courier

    def _http_link(self, url: str) -> HttpLink:
        """A link to the hub at ``url`` held to the table's pin; ValueError for plain http
        when the table holds one (a hub found again must not lose the table its TLS)."""
        pin = self.config.hub.tls_pin_sha256
        if pin and not url.startswith("https://"):
            raise ValueError("this table holds the hub's TLS pin: https only")
        return HttpLink(url, tls_pin_sha256=pin or None)

    def _moved(self, url: str) -> None:
        """The hub found again at ``url`` answered this table (the watch's thread):
        ``paired.toml`` keeps the address from now on."""
        with self._pairing_file:
            hub = self.config.hub
            given = {"url": url, "table": hub.table, "device_id": hub.device_id, "key": hub.key,
                     "tls_pin_sha256": hub.tls_pin_sha256 or None}  # fmt: skip
            paired.keep(self.config, given)
            self.config = replace(self.config, hub=replace(hub, url=url))
            self.hub_url = url
        log.info("stół %s: hub pod nowym adresem %s", self.config.table.name, url)

    def _status(self) -> p.Heartbeat:
        """The heartbeat's state of the table with its health (the courier's thread)."""
        now = self.clock()
        beat = self.engine.status(now)
        alerts = self.engine.session  # the seats whose panel is out or button stuck
        health = self.readings.health(
            now, panels_out=alerts.presenter.panels_out, stuck=alerts.stuck
        )
        card = self.engine.card
        return replace(beat, health=replace(health, card=card.state.value, card_errors=card.errors))

    def _command(self, order: Command) -> bool:
        """Carry out a hub command on the engine thread and wait until it has (the courier
        records and acknowledges it only then); False if the engine did not within
        ``COMMAND_WAIT_S``."""
        if order.kind == p.CommandKind.RENUMBER:
            return self._renumber(order)
        return self._on_engine(lambda engine, now: engine.command(order, now))

    def _on_engine(self, work: Callable[[Engine, float], None]) -> bool:
        """Run ``work`` on the engine thread and wait until it has; False if it did not
        within ``COMMAND_WAIT_S``."""
        done = threading.Event()

        def carry_out(engine: Engine, now: float) -> None:
            work(engine, now)
            done.set()

        self.call(carry_out)
        return done.wait(COMMAND_WAIT_S)

    def _renumber(self, order: Command) -> bool:
        """The hub's ``renumber`` command (the courier's thread): ``paired.toml`` rewritten
        with the new number (``klik.table.service.renumbering``), then the engine shows it and the
        next results carry it. False (not acknowledged: the courier tries again) while the
        file cannot be written."""
        table = order.args.get("table")
        name = self.config.table.name
        if not isinstance(table, int) or isinstance(table, bool) or not 1 <= table <= 999:
            log.error("stół %s: polecenie renumber bez numeru 1-999: %r", name, order.args)
            return True  # it never gets better: acknowledged, nothing done
        with self._pairing_file:
            try:
                config, kept = renumbered(self.config, table)
            except OSError as error:
                log.error("stół %s: nowy numer %d nie zapisany (%s)", name, table, error)
                return False
            self.config = config
        if not kept:
            log.warning(
                "stół %s: teraz stół %d do restartu: wpisz [hub] table = %d i [table] name "
                '= "%d" w konfiguracji',
                name, table, table, table,
            )  # fmt: skip
        log.info("stół %s: teraz stół %d (hub)", name, table)
        if self.courier is not None and isinstance(self.courier.link, PolledLink):
            self.courier.link.renumbered(table)  # the hub polls the new number from now
        return self._on_engine(lambda engine, now: engine.renumbered(config, now))

    def _repair(self) -> None:
        """The judge key's re-pair (a 5 s hold on a ready game; the engine thread): a table
        paired at the table asks the hub to join again, in the background: its pairing stays
        until the judge accepts (``_rejoined``). Over http its courier goes on meanwhile; over
        a serial link the joiner needs the port, so the courier stops (results wait in the
        outbox) and starts again if the re-pairing ends without an accept. The same hold
        while it asks stops asking."""
        name = self.config.table.name
        with self._joining:
            if self._stopping.is_set():
                return
            if self._rejoiner is not None:
                log.info("stół %s: parowanie ponowne przerwane", name)
                self._stop_rejoining_locked()
                self.call(lambda engine, now: engine.pairing(None, None, now))
                return
            hub = self.config.hub
            at_table = paired.path_of(self.config).exists()
            if self.courier is None or hub.link == "off" or not at_table:
                log.warning("stół %s: parowanie ponowne tylko dla stołu sparowanego przy stole",
                            name)  # fmt: skip
                return
            joiner = self._joiner(self.hub_url)
            joiner.on_digits = self._repair_digits
            joiner.on_joined = self._rejoined
            self._rejoiner = joiner
            courier, serial = self.courier, hub.link == "serial"
            if serial:
                self.courier = None  # results kept meanwhile wait in the outbox
        if serial:
            log.info("stół %s: parowanie ponowne przez port szeregowy: wyniki czekają", name)
            threading.Thread(
                target=self._hand_port_over, args=(courier, joiner), name="klik-repair",
                daemon=True,
            ).start()  # fmt: skip
            return
        log.info("stół %s: parowanie ponowne: pyta hub, dotychczasowe zostaje", name)
        joiner.start()

    def _hand_port_over(self, courier: Courier, joiner: Joiner) -> None:
        """A re-pairing over the serial port (its own thread): the courier stops and closes
        the port, then the joiner opens it, unless the re-pairing ended meanwhile."""
        with self._port:
            courier.stop()
            with self._joining:
                if self._rejoiner is joiner and not self._stopping.is_set():
                    joiner.start()

    def _courier_again(self) -> None:
        """A serial re-pairing ended without a new pairing (its joiner stopped): the courier
        of the pairing the table still has takes the port again."""
        with self._joining:
            if self._stopping.is_set() or self.courier is not None or self.outbox is None:
                return
            if self.pairing[0] != "paired":
                return
            self.courier = self._courier(self.outbox)
            self.courier.start()
        log.info("stół %s: parowanie ponowne skończone: wyniki idą dalej", self.config.table.name)

    def _repair_digits(self, digits: str | None) -> None:
        """The re-pairing joiner's digits (its thread): seat A shows them; the table stays
        paired meanwhile."""
        self.call(lambda engine, now: engine.pairing(digits, None, now))

    def _rejoined(self, joined: Joined) -> None:
        """The judge accepted the re-pairing (the joiner's thread): only now is the pairing
        replaced, in ``paired.toml`` and by a new courier. A file that cannot be written
        leaves the old pairing as it was."""
        with self._joining:
            if self._rejoiner is None or self._stopping.is_set():
                return  # stopped meanwhile
            self._rejoiner = None
        given = self._given(joined)
        try:
            with self._pairing_file:
                asking = replace(self.config, hub=replace(self.config.hub, device_id="", key=""))
                paired.keep(self.config, given)
                config = self.config = paired.applied(asking)
        except (OSError, ConfigError) as error:
            log.error("stół %s: parowanie nie zapisane (%s)", self.config.table.name, error)
            self.call(lambda engine, now: engine.pairing(None, None, now))
            self._courier_again()  # over a serial link it stopped for the joiner
            return
        assert self.outbox is not None  # a paired table over http has one
        old = self.courier
        courier = self._courier(self.outbox)
        if old is not None:
            old.stop()
        self.courier = courier
        log.info("stół %s: sparowany ponownie z hubem %s", config.table.name, config.hub.url)
        self._paired(config)
        if not self._stopping.is_set():
            courier.start()

    def _stop_rejoining(self) -> None:
        with self._joining:
            self._stop_rejoining_locked()

    def _stop_rejoining_locked(self) -> None:
        """Stop asking to join again, on a thread of its own: a joiner's stop waits for its
        request, which the engine thread must not."""
        joiner, self._rejoiner = self._rejoiner, None
        if joiner is not None:
            joiner.on_digits = lambda _digits: None
            threading.Thread(
                target=self._end_rejoining, args=(joiner,), name="klik-rejoiner-stop",
                daemon=True,
            ).start()  # fmt: skip

    def _end_rejoining(self, joiner: Joiner) -> None:
        """Stop a re-pairing joiner (its own thread); over a serial link its port goes back
        to the courier (``_courier_again``)."""
        with self._port:
            joiner.stop()
            self._courier_again()

    def _round(self, said: p.RoundClock | None) -> None:
        """The hub's round clock in its answer to a heartbeat (from the courier's thread):
        heard now, on the table clock, and handed to the engine thread with that moment (the
        engine may take it off the queue a little later)."""
        heard = self.clock()
        self.call(lambda engine, now: engine.round_clock(said, heard, now))

    def clock(self) -> float:
        """The table clock: monotonic seconds, continued from the journal after a restart."""
        return self._monotonic() + self.offset

    def start(self) -> None:
        self.offset = self.engine.start(self._monotonic())
        self.started_at = self.beat = self.clock()
        self._thread = threading.Thread(target=self._loop, name="klik-engine", daemon=True)
        self._thread.start()
        if self.courier is not None:
            self.courier.start()
        if self.joiner is not None:
            self.joiner.start()
        if self.discovery is not None:
            self.discovery.start()
        if self.hubwatch is not None:
            self.hubwatch.start()

    def put(self, item: Item) -> None:
        """Queue an order or an edge from another thread (the hub, the virtual table)."""
        self.events.put(item)

    def call(self, fn: Callable[[Engine, float], Any]) -> None:
        """Run ``fn(engine, now)`` on the engine thread (e.g. the virtual table's next game)."""
        self.events.put(fn)

    def _loop(self) -> None:
        try:
            while not self._stopping.is_set():
                now = self.clock()
                wake = self.engine.next_wake(now)
                wait = IDLE_WAKE_S if wake is None else min(IDLE_WAKE_S, max(0.0, wake - now))
                try:
                    item = self.events.get(timeout=wait)
                except queue.Empty:
                    item = None
                while item is not None:
                    if item is _STOP:
                        return
                    if callable(item):
                        item(self.engine, self.clock())
                    elif isinstance(item, PowerFail):
                        self.engine.power_fail(self.clock())
                        self.stop_asked.set()
                    elif self._in_time(item):
                        self.engine.handle(item, self.clock())
                    try:
                        item = self.events.get_nowait()
                    except queue.Empty:
                        item = None
                now = self.clock()
                self.engine.tick(now)
                self.beat = now
        except BaseException as error:  # the main thread sees it and stops the watchdog
            self.failure = error
            log.exception("engine thread failed")
            raise

    def _in_time(self, item: Any) -> bool:
        """Whether ``item`` may reach the engine: an edge stamped before the clock was set
        (or, on the raw clock, seemingly after now) is dropped, with one line per start."""
        if not isinstance(item, Edge | JudgeEdge):
            return True
        started = self.started_at
        if started is not None and started <= item.at <= self.clock():
            return True
        self.early_edges += 1
        if self.early_edges == 1:
            log.warning(
                "stół %s: naciśnięcie sprzed uruchomienia zegara pominięte (i kolejne takie)",
                self.config.table.name,
            )
        return False

    def alive(self, stale_s: float) -> bool:
        """The engine thread runs and has come round its loop within ``stale_s``."""
        thread = self._thread
        return thread is not None and thread.is_alive() and self.clock() - self.beat <= stale_s

    def stop(self) -> None:
        with self._joining:
            self._stopping.set()
        if self.discovery is not None:
            self.discovery.stop()
        if self.hubwatch is not None:
            self.hubwatch.stop()
        if self.joiner is not None:
            self.joiner.stop()
        self._stop_rejoining()
        if self.courier is not None:
            self.courier.stop()
        self.events.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.gpio.close()
        if self.journal is not None:
            self.journal.close()

    def wait_idle(self, timeout: float = 5.0) -> None:
        """Block until the engine has taken everything queued so far (tests, the web API)."""
        done = threading.Event()
        self.call(lambda engine, now: done.set())
        done.wait(timeout)


SYNCHRONISED = Path("/run/systemd/timesync/synchronized")  # systemd-timesyncd's flag file


def wall_clock() -> str | None:
    """UTC now for a result's ``finished_at``, or None: a Pi has no RTC until NTP has answered."""
    if not SYNCHRONISED.exists():
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def serve(daemon: Daemon, status: Callable[[Daemon], str] | None = None) -> int:
    """Run until SIGTERM/SIGINT or the HAT's power-fail line: READY to systemd, then watchdog
    pings while the engine lives."""
    stop = daemon.stop_asked
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    daemon.start()
    table = daemon.config.table.name
    notify.ready(f"Stół {table}: gotowy")
    interval = notify.watchdog_interval_s() or IDLE_WAKE_S
    try:
        while not stop.wait(interval):
            if not daemon.alive(stale_s=max(3 * IDLE_WAKE_S, interval)):
                log.error("engine thread stopped answering; no watchdog ping, systemd restarts")
                return 1
            notify.watchdog()
            if status is not None:
                notify.status(status(daemon))
    finally:
        notify.stopping()
        daemon.stop()
    return 0
