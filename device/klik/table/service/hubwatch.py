"""A hub that moved: a table that found its hub by DNS-SD finds it again at its new address.

A table paired at the table with no ``[hub] url`` on its card found the hub on the venue's
network (``klik.link.discovery``), and ``paired.toml`` keeps the address it had then. When
the hub comes back at another one (the laptop restarted with another DHCP lease, or the
judge moved to another machine with the hub's folder), the table's courier would knock at
the old address for ever. ``HubWatch`` runs on a thread of its own beside the courier:

- a hub that has not answered for ``lost_s`` (no ack signed with this table's key since the
  courier started or last heard one) is looked for again, the one named ``[hub] name`` if
  the card names one;
- a hub found at the address kept is only away: nothing changes, and it is looked for again
  after another ``lost_s``;
- a hub found at another address is *tried*: the courier sends by it from its next try;
- it is kept (``paired.toml`` rewritten, by ``keep``) only once it has answered with an ack
  signed with this table's key: only the hub that paired this table holds that key, so
  another hub on the network (another tournament's, or one posing as ours) is never kept;
- a tried hub that has not so answered within ``lost_s`` is let go: the courier goes back to
  the address kept. Meanwhile its "unknown table" is no cause to re-pair: the screens say
  the hub is away (``Courier.on_trial``).

What to do is decided by ``step``, pure (times as numbers); the thread and the discovery are
the adapter around it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from klik.link.courier import Courier, Link
from klik.link.discovery import SERVICE, Discovery, Found

log = logging.getLogger("klik.table.service.hubwatch")

LOST_S = 60.0  # a hub silent this long is looked for again
EVERY_S = 5.0  # how often the watch looks at the courier


class Do(Enum):
    NOTHING = "nothing"
    LOOK = "look"  # browse for the hub again
    KEEP = "keep"  # the tried address answered: keep it
    LET_GO = "let go"  # the tried address did not answer: back to the kept one


@dataclass(frozen=True, slots=True)
class Watched:
    """What the watch knows: since when the hub has been silent at the latest (courier
    started, an ack, a look that found the hub where it was), and the address on trial
    with when its trial began."""

    quiet_since: float
    trying: str | None = None
    tried_at: float = 0.0


def step(watched: Watched, answered_at: float, now: float, *, lost_s: float = LOST_S) -> Do:
    """What to do ``now``, the courier's last signed ack at ``answered_at``."""
    if watched.trying is not None:
        if answered_at > watched.tried_at:
            return Do.KEEP
        return Do.LET_GO if now - watched.tried_at >= lost_s else Do.NOTHING
    if now - max(watched.quiet_since, answered_at) >= lost_s:
        return Do.LOOK
    return Do.NOTHING


class HubWatch:
    """The watch for one table: ``start`` it with the courier, ``stop`` it.

    ``courier()``: the courier now (None: none, or the table asks to join again meanwhile);
    ``kept()``: the address ``paired.toml`` keeps; ``link_to(url)``: a link to ``url`` with
    the table's pin (ValueError: not one to try, e.g. plain http for a table that holds a
    pin); ``keep(url)``: rewrite ``paired.toml`` with ``url`` (the daemon's).
    """

    def __init__(
        self,
        courier: Callable[[], Courier | None],
        kept: Callable[[], str],
        link_to: Callable[[str], Link],
        keep: Callable[[str], None],
        *,
        wanted: str = "",
        service: str = SERVICE,
        interfaces: Sequence[str] | None = None,
        lost_s: float = LOST_S,
        every_s: float = EVERY_S,
    ) -> None:
        self.courier = courier
        self.kept = kept
        self.link_to = link_to
        self.keep = keep
        self.wanted = wanted
        self.service = service
        self.interfaces = interfaces
        self.lost_s = lost_s
        self.every_s = every_s
        self._watched: Watched | None = None  # set from the first courier seen
        self._looking: Discovery | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="klik-hubwatch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            looking, self._looking = self._looking, None
        if looking is not None:
            looking.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.check()
            except Exception:  # a file that cannot be written, most likely: the watch goes on
                log.exception("hub: the watch for a moved hub failed")

    def check(self) -> None:
        """One look at the courier: what ``step`` says, done."""
        courier = self.courier()
        if courier is None:
            return
        now = courier.clock()
        with self._lock:
            if self._watched is None or self._watched.quiet_since < courier.started_at:
                self._watched = Watched(courier.started_at)  # a courier new since
            watched = self._watched
            do = step(watched, courier.answered_at, now, lost_s=self.lost_s)
            looking = self._looking
            if do is Do.LOOK and looking is not None:
                return  # still browsing: no hub answers on the network yet
            if do is Do.NOTHING and looking is not None and watched.trying is None:
                self._looking = None  # the hub answers where it was: browse no more
            else:
                looking = None
        if looking is not None:
            looking.stop()
            return
        if do is Do.KEEP and watched.trying is not None:
            courier.on_trial = False  # it answered with the table's key: the table's hub
            self.keep(watched.trying)
            log.info("hub: found again at %s, kept", watched.trying)
            with self._lock:
                self._watched = Watched(now)
        elif do is Do.LET_GO:
            log.warning("hub: %s did not answer this table; back to %s",
                        watched.trying, self.kept())  # fmt: skip
            courier.relink(self.link_to(self.kept()))
            with self._lock:
                self._watched = Watched(now)
        elif do is Do.LOOK:
            looking = Discovery(
                self._found, wanted=self.wanted, service=self.service, interfaces=self.interfaces
            )
            with self._lock:
                if self._stop.is_set():
                    return
                self._looking = looking
            log.info("hub: silent for %g s at %s; looking for it on the network",
                     self.lost_s, self.kept())  # fmt: skip
            looking.start()

    def _found(self, found: Found) -> None:
        """The discovery's answer (its thread): the hub where it was, or at another address
        to try."""
        with self._lock:
            self._looking = None
            courier = self.courier()
            if courier is None or self._stop.is_set():
                return
            now = courier.clock()
            if found.url == self.kept():
                self._watched = Watched(now)  # only away: look again after another lost_s
                return
            try:
                link = self.link_to(found.url)
            except ValueError as error:  # an http hub for a table that holds a TLS pin
                log.warning("hub: %s found at %s, not tried: %s", found.name, found.url, error)
                self._watched = Watched(now)
                return
            self._watched = Watched(now, found.url, now)
        log.info("hub: %s found at %s; trying it", found.name, found.url)
        courier.relink(link, trial=True)
