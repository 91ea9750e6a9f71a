"""The presenter: what the table shows and sounds, drawn from the game and the table's info.

The table's session (``klik.table.game.session``) calls ``refresh`` after everything that may have
changed a screen, ``sound`` for each sound the core asked for and ``next_wake`` to learn when
time alone changes what is shown. The presenter redraws only the seats whose view changed
(``klik.table.screens.view``), hands each new image to the panels and to ``on_frame``, sets the LEDs
and the buzzer, and, on the virtual table, publishes a snapshot for its web server's thread.
It keeps no game state of its own: the game and the info are handed in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from PIL import Image

from klik.core import game as g
from klik.core.haptics import Pulse
from klik.table.config import Config
from klik.table.hardware import signals
from klik.table.record import replay as r
from klik.table.record.driver import Driver
from klik.table.screens.view import SeatView, TableInfo, next_view_change, seat_views
from klik.words import Language


class Screens(Protocol):
    """The seat panels (``klik.table.hardware.panels.Panels``): shown only when the image
    changed."""

    def show(self, seat: str, image: Image.Image, now: float) -> None: ...
    def retry(self, now: float) -> None: ...
    def keep_shown(self) -> None: ...
    @property
    def out(self) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the virtual table's web server may read from another thread."""

    record: dict[str, Any]
    images: dict[str, Image.Image]
    views: dict[str, SeatView]
    frames: dict[str, int]  # how many images each seat has been shown: the page's cache key
    game: g.Game | None = None  # states are never changed, so another thread may read one

    def time_left(self, now: float) -> float | None:
        """The mover's clock at ``now`` (the record's is as of the last redraw)."""
        return None if self.game is None else self.game.time_left(now)


class Presenter:
    """The screens, the LEDs and the buzzer, and the snapshot; on the engine thread only
    (but ``snapshot``, which another thread may call)."""

    def __init__(
        self,
        config: Config,
        screens: Screens | None,
        *,
        render: Callable[[SeatView], Image.Image],
        set_outputs: Callable[[signals.Outputs], None] | None = None,
        on_frame: Callable[[str, Image.Image, float], None] | None = None,
        publishing: bool = False,
    ) -> None:
        self.config = config
        self.screens = screens
        self.render = render
        self.set_outputs = set_outputs
        self.on_frame = on_frame  # each new image, after the panel (``klik replay --frames``)
        self.publishing = publishing  # the virtual table reads snapshots; the Pi's does not
        self.sounds: tuple[g.Sound, ...] = ()  # still sounding, or to sound
        self.pulses: tuple[Pulse, ...] = ()  # still pulsing, or to pulse
        self.views: dict[str, SeatView] = {}
        self.images: dict[str, Image.Image] = {}
        self.frames: dict[str, int] = {}
        self.panels_out: frozenset[str] = frozenset()  # the panels out at the last refresh
        self._lock = threading.Lock()
        self._snapshot = Snapshot({}, {}, {}, {})

    def sound(self, sound: g.Sound) -> None:
        """A sound the core asked for: it plays from ``sound.at``
        (``klik.table.hardware.signals``)."""
        self.sounds = (*signals.still_sounding(self.sounds, sound.at), sound)

    def pulse(self, pulse: Pulse) -> None:
        """A pulse for the seats' motors: it runs from ``pulse.at``."""
        self.pulses = (*signals.still_pulsing(self.pulses, pulse.at), pulse)

    def keep_shown(self) -> None:
        """What the seats show now stays after the table stops (the supply failing)."""
        if self.screens is not None:
            self.screens.keep_shown()

    def silence(self) -> None:
        """A new game: the last one's sounds and pulses are over."""
        self.sounds = ()
        self.pulses = ()

    def refresh(
        self, driver: Driver, info: TableInfo, pressed: Mapping[str, float], now: float
    ) -> None:
        """Redraw the seats whose view changed and set the LEDs and buzzer for ``now``.

        ``pressed`` is when each seat button that is down now was pressed; the info's
        ``panels_out`` is taken from the panels here.
        """
        if self.screens is not None and self.screens.out != self.panels_out:
            self.panels_out = self.screens.out
        info = replace(info, panels_out=self.panels_out)
        game = driver.tabletop.game
        changed = False
        for view in seat_views(game, now, info, pressed):
            if self.views.get(view.seat) == view:
                continue
            image = self.render(view)
            self.views[view.seat] = view
            self.images[view.seat] = image
            self.frames[view.seat] = self.frames.get(view.seat, 0) + 1
            changed = True
            if self.screens is not None:
                self.screens.show(view.seat, image, now)
            if self.on_frame is not None:
                self.on_frame(view.seat, image, now)
        self.sounds = signals.still_sounding(self.sounds, now)
        self.pulses = signals.still_pulsing(self.pulses, now)
        if self.set_outputs is not None:
            mode = "off" if info.quiet else self.config.hardware.sound
            out = signals.outputs(game, now, self.sounds, mode, self.pulses, felt=info.felt)
            self.set_outputs(out)
        if self.publishing and (changed or not self._snapshot.record):
            self._publish(driver, info)

    def retry(self, now: float) -> None:
        """Time has reached ``now``: a panel that is out is tried again when it is due."""
        if self.screens is not None:
            self.screens.retry(now)

    def next_wake(
        self,
        game: g.Game,
        now: float,
        pressed: Mapping[str, float],
        *,
        round_ends: float | None = None,
    ) -> list[float]:
        """The moments time alone changes what is shown or sounded, or a panel is retried;
        ``round_ends``: the info's (the round's clock on the status line)."""
        due = [
            next_view_change(game, now, pressed, round_ends=round_ends),
            signals.next_change(game, now, self.sounds, self.config.hardware.sound, self.pulses),
        ]
        if self.screens is not None and self.screens.out:
            due.append(now + self.config.panels.retry_s)
        return [d for d in due if d is not None]

    def _publish(self, driver: Driver, info: TableInfo) -> None:
        record = r.record(driver, Language(self.config.table.language))
        record["table"] = info.table
        record["game_no"] = info.game_no
        with self._lock:
            self._snapshot = Snapshot(
                record, dict(self.images), dict(self.views), dict(self.frames), driver.tabletop.game
            )

    def snapshot(self) -> Snapshot:
        """The latest published state (``publishing`` must be on: the virtual table's)."""
        with self._lock:
            return self._snapshot
