"""The engine: one thread's worth of work between the queue and the table's outputs.

Everything here runs on the engine thread, so nothing needs a lock except the snapshot the
virtual table's web server reads. Time comes in as numbers (``now``, the table's clock), so
tests drive it without sleeping; ``daemon.py`` owns the real clock and the threads.

For every item: journal it (fsynced) → step the core → carry out its commands (sounds, log
lines, a finished result) → redraw the seats whose view changed → set the LEDs and buzzer.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from PIL import Image

from klik import journal as j
from klik import replay as r
from klik import signals
from klik.config import Config
from klik.core import game as g
from klik.core import table as t
from klik.gpio import JudgeEdge
from klik.screens import render as render_screen
from klik.view import Delivery, Language, SeatView, TableInfo, next_view_change, seat_views

log = logging.getLogger("klik.engine")

Item = t.Edge | JudgeEdge | g.Order


class Screens(Protocol):
    """The seat panels (``klik.panels.Panels``): shown only when the image changed."""

    def show(self, seat: str, image: Image.Image, now: float) -> None: ...
    def retry(self, now: float) -> None: ...
    @property
    def out(self) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the virtual table's web server may read from another thread."""

    record: dict[str, Any]
    images: dict[str, Image.Image]
    views: dict[str, SeatView]
    frames: dict[str, int]  # how many images each seat has been shown: the page's cache key


class Engine:
    def __init__(
        self,
        config: Config,
        journal: j.Journal | None,
        screens: Screens | None,
        *,
        set_outputs: Callable[[signals.Outputs], None] | None = None,
        render: Callable[[SeatView], Image.Image] = render_screen,
        on_frame: Callable[[str, Image.Image, float], None] | None = None,
        settings: g.Settings | None = None,
    ) -> None:
        self.config = config
        self.settings = config.settings() if settings is None else settings
        self.journal = journal
        self.screens = screens
        self.set_outputs = set_outputs
        self.render = render
        self.on_frame = on_frame
        self.info = TableInfo(
            table=config.table.name,
            names=config.players,
            language=Language(config.table.language),
        )
        self.replay = r.Replay(t.new_table(self.settings))
        self.sounds: tuple[g.Sound, ...] = ()
        self.views: dict[str, SeatView] = {}
        self.images: dict[str, Image.Image] = {}
        self.judge_down: float | None = None
        self.next_checkpoint: float | None = None
        self.results_dir: Path | None = None if journal is None else journal.path.parent
        self.publishing = False  # the virtual table reads snapshots; the Pi's daemon does not
        self._lock = threading.Lock()
        self._snapshot = Snapshot({}, {}, {}, {})
        self.frames: dict[str, int] = {}

    # --- the game's life ----------------------------------------------------------------

    @property
    def game(self) -> g.Game:
        return self.replay.table.game

    def start(self, now: float) -> float:
        """Recover the journalled game, or begin a new one; returns the table clock's offset.

        The table's clock continues from the journal's last moment, so a game recovered after
        a reboot (when the monotonic clock starts again from zero) keeps its time left.
        """
        recovered = None if self.journal is None else j.read(self.journal.path)
        if recovered is None or not self._recover(recovered):
            self._new_game(now, self.info.game_no)
            return 0.0
        last = self.replay.now
        if self.game.phase in (g.Phase.MOVE, g.Phase.TIMED_OUT):
            self._do(g.Order(g.Action.PAUSE, last, g.RECOVERY))
            log.warning(
                "stół %s: gra %d wznowiona po awarii: pauza, ruch %s, zostało %s s",
                self.info.table,
                self.info.game_no,
                self.game.mover,
                self.game.left_s,
            )
        self.refresh(last)
        return last - now

    def _recover(self, recovered: j.Recovered) -> bool:
        header = recovered.header
        try:
            settings = self.settings
            game_no = int(header.get("game_no", 1))
            if header.get("seats") != list(settings.seats):
                log.error("journal: seats %s differ from the config; new game", header.get("seats"))
                return False
        except (TypeError, ValueError) as error:
            log.error("journal header unusable (%s); new game", error)
            return False
        self.info = replace(self.info, game_no=game_no)
        table, last = j.replay_entries(t.new_table(settings), recovered.entries)
        start = float(header.get("at", 0.0))
        self.replay = r.Replay(table, max(last, start))
        return True

    def _new_game(self, now: float, game_no: int) -> None:
        settings = self.settings
        self.replay = r.Replay(t.new_table(settings), now)
        self.info = replace(self.info, game_no=game_no, delivery=Delivery.KEPT, receipt=None)
        self.sounds = ()
        self.next_checkpoint = None
        if self.journal is not None:
            self.journal.start(
                {
                    "table": self.info.table,
                    "game_no": game_no,
                    "seats": list(settings.seats),
                    "at": now,
                }
            )
        log.info("stół %s: gra %d gotowa", self.info.table, game_no)
        self.refresh(now)

    # --- items from the queue -------------------------------------------------------------

    def handle(self, item: Item, now: float) -> None:
        """One item from the queue; ``now`` is the table clock when it was taken off."""
        if isinstance(item, JudgeEdge):
            self._judge(item)
        elif isinstance(item, t.Edge):
            if not item.pressed and item.seat in self.info.stuck:
                self.info = replace(self.info, stuck=self.info.stuck - {item.seat})
            self._do(item)
        else:
            self._do(item)
        self.refresh(max(now, self.replay.now))

    def _judge(self, edge: JudgeEdge) -> None:
        """The judge key: tap = start / pause / resume / next game; hold = undo a hand-over."""
        if edge.pressed:
            self.judge_down = edge.at
            return
        if self.judge_down is None:
            return
        held = edge.at - self.judge_down
        self.judge_down = None
        phase = self.game.phase
        if held >= self.config.buttons.long_hold_s:
            self._do(g.Order(g.Action.UNDO, edge.at))
        elif phase is g.Phase.DONE:
            self._new_game(edge.at, self.info.game_no + 1)
        elif phase is g.Phase.READY:
            self._do(g.Order(g.Action.START, edge.at))
        elif phase is g.Phase.PAUSED:
            self._do(g.Order(g.Action.RESUME, edge.at))
        else:
            self._do(g.Order(g.Action.PAUSE, edge.at))

    def new_game(self, now: float) -> bool:
        """The next game at this table (judge key or the virtual table), once this one is done."""
        if self.game.phase is not g.Phase.DONE:
            return False
        self._new_game(now, self.info.game_no + 1)
        return True

    def _do(self, event: t.Edge | g.Order) -> None:
        if self.journal is not None:
            self.journal.append(event)
        before = len(self.replay.commands)
        self.replay.apply(event)
        self._carry_out(self.replay.commands[before:])

    def tick(self, now: float) -> None:
        """Time has reached ``now``: due work, the checkpoint, the panels' retry."""
        before, game = len(self.replay.commands), self.game
        self.replay.advance(max(now, self.replay.now))
        self._carry_out(self.replay.commands[before:])
        if self.journal is not None and self.game is not game:
            # Time decided something (a tap recognised, a timeout): journal the moment, so a
            # recovery replays up to it and not just to the last edge.
            self.journal.append(j.Checkpoint(now))
            self.next_checkpoint = now + self.config.table.checkpoint_s
        elif self.game.phase is g.Phase.MOVE and self.journal is not None:
            if self.next_checkpoint is None or now >= self.next_checkpoint:
                self.journal.append(j.Checkpoint(now))
                # A little early, so that a redraw a whole second on still takes it along.
                self.next_checkpoint = now + 0.9 * self.config.table.checkpoint_s
        else:
            self.next_checkpoint = None
        if self.screens is not None:
            self.screens.retry(now)
        self.refresh(now)

    def next_wake(self, now: float) -> float | None:
        """The next moment the engine has something to do without a new item."""
        game = self.game
        redraw = next_view_change(game, now)
        due = [
            t.next_due(self.replay.table),
            redraw,
            signals.next_change(game, now, self.sounds, self.config.hardware.sound),
            # While the seconds tick down the checkpoint rides on their redraw: one wake a
            # second, not two.
            self.next_checkpoint if redraw is None else None,
        ]
        if self.screens is not None and self.screens.out:
            due.append(now + self.config.panels.retry_s)
        times = [d for d in due if d is not None]
        return min(times) if times else None

    def _carry_out(self, commands: list[g.Command]) -> None:
        for command in commands:
            if isinstance(command, g.Sound):
                self.sounds = (*signals.still_sounding(self.sounds, command.at), command)
            elif isinstance(command, g.Note):
                log.info("stół %s: %s", self.info.table, command.text)
                if command.kind is g.NoteKind.STUCK and command.seat is not None:
                    self.info = replace(self.info, stuck=self.info.stuck | {command.seat})
            elif isinstance(command, g.ResultReady):
                self._keep_result(command)

    def _keep_result(self, ready: g.ResultReady) -> None:
        """Store the finished result next to the journal; step 3 sends it to the hub."""
        record = {
            "table": self.info.table,
            "game_no": self.info.game_no,
            "result": r.result_json(ready.result),
        }
        log.info("stół %s: wynik gry %d: %s", self.info.table, self.info.game_no, record)
        if self.results_dir is None:
            return
        path = self.results_dir / f"result-{self.info.game_no}.json"
        try:
            path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as error:
            log.error("wynik: cannot write %s (%s); it stays in the journal", path, error)

    # --- outputs -----------------------------------------------------------------------------

    def refresh(self, now: float) -> None:
        """Redraw the seats whose view changed and set the LEDs and buzzer for ``now``."""
        if self.screens is not None and self.screens.out != self.info.panels_out:
            self.info = replace(self.info, panels_out=self.screens.out)
        changed = False
        for view in seat_views(self.game, now, self.info):
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
        if self.set_outputs is not None:
            mode = self.config.hardware.sound
            self.set_outputs(signals.outputs(self.game, now, self.sounds, mode))
        if self.publishing and (changed or not self._snapshot.record):
            self._publish()

    def _publish(self) -> None:
        record = r.record(self.replay)
        record["table"] = self.info.table
        record["game_no"] = self.info.game_no
        with self._lock:
            self._snapshot = Snapshot(
                record, dict(self.images), dict(self.views), dict(self.frames)
            )

    def snapshot(self) -> Snapshot:
        """The latest published state (``publishing`` must be on: the virtual table's)."""
        with self._lock:
            return self._snapshot
