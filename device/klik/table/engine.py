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

from klik.core import game as g
from klik.core import table as t
from klik.errors import KlikError
from klik.faults import kill_point
from klik.link import courier as c
from klik.link.protocol import CommandKind, Heartbeat
from klik.link.results import make_result
from klik.table import journal as j
from klik.table import replay as r
from klik.table import signals
from klik.table.config import Config
from klik.table.gpio import JudgeEdge
from klik.table.lineup import Lineup, LineupError
from klik.table.lineup import parse as parse_lineup
from klik.table.screens import render as render_screen
from klik.table.store import RESULT as RESULT_NAME
from klik.table.store import GameCounter, write_atomic
from klik.table.view import Delivery, Language, SeatView, TableInfo, next_view_change, seat_views

log = logging.getLogger("klik.table.engine")

Item = t.Edge | JudgeEdge | g.Order
LINEUP_FILE = "lineup.json"  # the hub's lineup for the round, in the state folder
ORDERS = frozenset(action.value for action in g.Action)  # what a command may order the clock
UNSAVED_RETRY_S = 2.0  # a result the outbox could not commit is tried again this often


class Outbox(Protocol):
    """Where finished results wait for the hub (``klik.link.outbox.Outbox``)."""

    def keep(self, body: dict[str, Any]) -> int: ...
    def waiting(self) -> int: ...
    def seq_of_game(self, game: int) -> int | None: ...


class Screens(Protocol):
    """The seat panels (``klik.table.panels.Panels``): shown only when the image changed."""

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
    game: g.Game | None = None  # states are never changed, so another thread may read one

    def time_left(self, now: float) -> float | None:
        """The mover's clock at ``now`` (the record's is as of the last redraw)."""
        return None if self.game is None else self.game.time_left(now)


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
            seats=self.settings.seats,
        )
        self.replay = r.Replay(t.new_table(self.settings))
        self.sounds: tuple[g.Sound, ...] = ()
        self.views: dict[str, SeatView] = {}
        self.images: dict[str, Image.Image] = {}
        self.judge_down: float | None = None
        self.next_checkpoint: float | None = None
        self.results_dir: Path | None = None if journal is None else journal.path.parent
        self.counter = None if self.results_dir is None else GameCounter(self.results_dir)
        self.game_started = False  # info.game_no is a game of this table (not the default)
        self.publishing = False  # the virtual table reads snapshots; the Pi's daemon does not
        self._lock = threading.Lock()
        self._snapshot = Snapshot({}, {}, {}, {})
        self.frames: dict[str, int] = {}
        # The link to the hub (``daemon`` sets these when ``[hub] link`` is on).
        self.outbox: Outbox | None = None
        self.on_kept: Callable[[], None] | None = None  # wakes the courier
        self.wall_clock: Callable[[], str | None] = lambda: None  # UTC, when synchronised
        self.result_seq: int | None = None  # the outbox's seq of this game's result
        # Result bodies the outbox could not commit (a lock, a full or read-only card), oldest
        # first: tried again every UNSAVED_RETRY_S, never shown as kept until they are.
        self.unsaved: list[dict[str, Any]] = []
        self.unsaved_retry_at = 0.0
        # A tournament round's lineup from the hub, and the one this game is played under.
        self.names = config.players  # the names of a game without a lineup
        self.lineup = self._load_lineup()
        self.game_lineup: Lineup | None = None

    # --- the game's life ----------------------------------------------------------------

    @property
    def game(self) -> g.Game:
        return self.replay.table.game

    def start(self, now: float) -> float:
        """Recover the journalled game, or begin a new one; returns the table clock's offset.

        The table's clock continues from the journal's last moment, so a game recovered after
        a reboot (when the monotonic clock starts again from zero) keeps its time left. The
        recovery settles what the journal holds, lets every button go and pauses a running
        clock (``klik.core.table.recover``); it is journalled too, so that a second power cut
        replays it exactly.
        """
        self._restore_results()
        recovered = None if self.journal is None else j.read(self.journal.path)
        if recovered is None or not self._replay_journal(recovered):
            self._new_game(now, self._next_game_no())
            return 0.0
        last = self.replay.now
        if self.journal is not None:
            self.journal.append(j.Recovery(last))
        before = len(self.replay.commands)
        self.replay.recover(last)
        self._carry_out(self.replay.commands[before:])
        if self.game.paused_by == g.RECOVERY:
            log.warning(
                "stół %s: gra %d wznowiona po awarii: pauza, ruch %s, zostało %.1f s",
                self.info.table,
                self.info.game_no,
                self.game.mover,
                self.game.left_s or 0.0,
            )
        self._find_result(last)
        self.refresh(last)
        return last - now

    def _find_result(self, now: float) -> None:
        """After a restart: the outbox's seq of a finished game's result, kept now if a power
        cut came between the journal's last line and the outbox's commit."""
        game = self.game
        if self.outbox is None or game.phase is not g.Phase.DONE or game.result is None:
            return
        try:
            self.result_seq = self.outbox.seq_of_game(self.info.game_no)
        except KlikError as error:
            log.error("wynik: the outbox cannot be read (%s)", error)
            return
        if self.result_seq is None:
            log.warning("stół %s: wynik gry %d trafia do skrzynki po awarii",
                        self.info.table, self.info.game_no)  # fmt: skip
            body = self._kept_body(self.info.game_no)  # the bytes fixed at the game's end
            self._commit(body or self._result_body(g.ResultReady(now, game.result)), now)
            return
        self.info = replace(self.info, waiting=self.outbox.waiting())

    def _kept_body(self, game_no: int) -> dict[str, Any] | None:
        """The result body written with game ``game_no``'s result file, if there is one."""
        if self.results_dir is None:
            return None
        try:
            record = json.loads((self.results_dir / f"result-{game_no}.json").read_bytes())
        except (OSError, ValueError):
            return None
        body = record.get("body") if isinstance(record, dict) else None
        return body if isinstance(body, dict) and body.get("game") == game_no else None

    def _restore_results(self) -> None:
        """At start: every finished game whose result file is on the card but whose result
        the outbox lacks (a lost WAL, a damaged outbox started anew) goes back into it, with
        the very body written at the game's end, oldest first; a result the hub already has
        comes back to it as a duplicate of itself."""
        if self.outbox is None or self.results_dir is None:
            return
        try:
            names = [p.name for p in self.results_dir.iterdir()]
        except OSError:
            return
        games = sorted({int(m.group(1)) for name in names if (m := RESULT_NAME.match(name))})
        for game_no in games:
            body = self._kept_body(game_no)
            try:
                if body is None or self.outbox.seq_of_game(game_no) is not None:
                    continue
                self.outbox.keep(body)
            except KlikError as error:
                log.error("wynik gry %d: the outbox cannot take it back (%s)", game_no, error)
                if body is not None:
                    self.unsaved.append(body)
                continue
            log.warning("stół %s: wynik gry %d wraca do skrzynki (z pliku wyniku)",
                        self.info.table, game_no)  # fmt: skip

    def _replay_journal(self, recovered: j.Recovered) -> bool:
        """Replay a journal that ``j.read`` checked; False if it is not this table's game."""
        header = recovered.header
        lineup = None
        if "lineup" in header:
            lineup = parse_lineup(header["lineup"], self.config.seat_letters)  # checked by j.read
        seats = list(self.settings.seats if lineup is None else lineup.seats)
        if header["seats"] != seats:
            log.error(
                "journal: seats %s differ from the config's %s; new game",
                ", ".join(recovered.header["seats"]),
                ", ".join(seats),
            )
            return False
        game_no = recovered.game_no
        if self.counter is not None and self.counter.last() < game_no:
            self.counter.begin(game_no)
        self.info = replace(self.info, game_no=game_no)
        if lineup is None:
            starter = header.get("starter") or g.starter_of(self.settings, game_no)
            settings = replace(self.settings, starter=starter)
        else:
            settings = lineup.settings(self.settings)
            self.info = replace(self.info, names=lineup.names)
        self.game_lineup = lineup
        if lineup is not None:
            self._catch_up_lineup(lineup)
        table, last = j.replay_entries(t.new_table(settings), recovered.entries)
        self.replay = r.Replay(table, max(last, recovered.at))
        return True

    def _catch_up_lineup(self, began: Lineup) -> None:
        """The journal's game began as the round's game ``began.begun + 1``: if lineup.json
        does not count it yet (a cut came between the new journal and the lineup's write),
        count it now."""
        kept = self.lineup
        if kept is None:
            return
        same_round = replace(kept, begun=began.begun, drawn=began.drawn) == began
        if same_round and kept.begun <= began.begun:
            log.warning("stół %s: skład rundy liczy grę %d (po awarii)",
                        self.info.table, began.begun + 1)  # fmt: skip
            self._keep_lineup(replace(kept, begun=began.begun + 1, drawn=began.drawn))

    def _next_game_no(self) -> int:
        """Game numbers never go back: one more than any game this table has begun."""
        counted = 0 if self.counter is None else self.counter.last()
        return max(counted, self.info.game_no if self.game_started else 0) + 1

    def _new_game(self, now: float, game_no: int) -> None:
        lineup = self.lineup
        if lineup is not None and not lineup.spent:
            # A round's game: its seats, rules and move time; seat A starts its first game.
            settings = lineup.settings(self.settings)
            self.game_lineup = lineup
            self.info = replace(self.info, names=lineup.names)
        else:
            # Game 1 is started by the configured starter, game 2 by the next seat, ... (000 f).
            settings = replace(self.settings, starter=g.starter_of(self.settings, game_no))
            self.game_lineup = None
            self.info = replace(self.info, names=self.names)
        if self.counter is not None:
            self.counter.begin(game_no)
        self.game_started = True
        self.replay = r.Replay(t.new_table(settings), now)
        self.info = replace(self.info, game_no=game_no, delivery=Delivery.KEPT, receipt=None)
        self.result_seq = None
        self.sounds = ()
        self.next_checkpoint = None
        if self.journal is not None:
            header: dict[str, Any] = {
                "table": self.info.table,
                "game_no": game_no,
                "seats": list(settings.seats),
                "starter": settings.starter,
                "at": now,
            }
            if self.game_lineup is not None:
                header["lineup"] = self.game_lineup.json()
            self.journal.start(header)
        # The new journal, with the lineup as this game began, is the step from one game to
        # the next; the round's count in lineup.json follows it. A cut in between is mended at
        # the restart from the journal (``_catch_up_lineup``): never a round's game played as
        # an ordinary one.
        if self.game_lineup is not None:
            kill_point("round-game-journalled")
            self._keep_lineup(replace(self.game_lineup, begun=self.game_lineup.begun + 1))
            kill_point("round-game-counted")
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
            self._new_game(edge.at, self._next_game_no())
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
        self._new_game(now, self._next_game_no())
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
        running = self.game.phase is g.Phase.MOVE
        # A checkpoint when time decided something (a tap recognised, a timeout), so that a
        # recovery replays up to that moment and not just to the last edge; and at least
        # every checkpoint_s while the clock runs. It is taken a little early, so that it
        # rides on the redraw of the seconds instead of waking the engine a second time.
        interval = self.config.table.checkpoint_s
        due = self.next_checkpoint is None or now >= self.next_checkpoint - 0.1 * interval
        if self.journal is not None and (self.game is not game or (running and due)):
            self.journal.append(j.Checkpoint(now))
            self.next_checkpoint = now + interval if running else None
        elif not running:
            self.next_checkpoint = None
        if self.unsaved:
            self._commit_unsaved(now)
        if self.screens is not None:
            self.screens.retry(now)
        self.refresh(now)

    def next_wake(self, now: float) -> float | None:
        """The next moment the engine has something to do without a new item."""
        game = self.game
        redraw = next_view_change(game, now, self.pressed())
        due = [
            t.next_due(self.replay.table),
            redraw,
            signals.next_change(game, now, self.sounds, self.config.hardware.sound),
            self.next_checkpoint,
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
                if command.kind is g.NoteKind.STARTER_DRAWN and command.seat is not None:
                    self._starter_drawn(command.seat)
            elif isinstance(command, g.ResultReady):
                self._keep_result(command)

    def _starter_drawn(self, seat: str) -> None:
        """The round's first starter was drawn: kept with the lineup, so the round's next
        games go on from the next seat after it (and a restart knows it)."""
        played, kept = self.game_lineup, self.lineup
        if played is None or played.first_starter != "draw":
            return
        self.game_lineup = replace(played, drawn=seat)
        if kept is not None and replace(kept, begun=0, drawn=None) == replace(
            played, begun=0, drawn=None
        ):
            self._keep_lineup(replace(kept, drawn=seat))

    def _keep_result(self, ready: g.ResultReady) -> None:
        """Keep the finished result next to the journal, durably; step 3 sends it to the hub.

        Written whole or not at all and fsynced, and never over another game's result.
        """
        body = self._result_body(ready)  # fixed now: the same bytes whatever is rebuilt later
        record = {
            "table": self.info.table,
            "game_no": self.info.game_no,
            "result": r.result_json(ready.result),
        }
        log.info("stół %s: wynik gry %d: %s", self.info.table, self.info.game_no, record)
        self._commit(body, ready.at)
        if self.results_dir is None:
            return
        record["body"] = body
        path = self.results_dir / f"result-{self.info.game_no}.json"
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        try:
            written = write_atomic(path, data, replace=False)
        except OSError as error:
            log.error("wynik: cannot write %s (%s); it stays in the journal", path, error)
            return
        if written != path:
            log.error("wynik: %s was already there; this result is kept as %s", path, written)

    def _result_body(self, ready: g.ResultReady) -> dict[str, Any]:
        """The body of this game's result as the hub takes it (``klik.link.results``)."""
        game = self.game
        first = game.moves[0].start if game.moves else ready.at
        lineup = self.game_lineup
        return make_result(
            table=self.config.hub.table,
            game=self.info.game_no,
            rules=game.settings.rules.name,
            result=ready.result,
            names=dict(self.info.names),
            opened=game.opened,
            moves=game.moves,
            duration_ms=round((ready.at - first) * 1000),
            finished_at=self.wall_clock(),
            tournament=None if lineup is None else lineup.tournament,
            round_no=None if lineup is None else lineup.round_no,
            players=None if lineup is None else dict(lineup.players),
            # the lineup as this game began: ``begun`` counts the round's games before it
            round_game=None if lineup is None else lineup.begun + 1,
            ended_by=game.exhausted_by,
        )

    def _commit(self, body: dict[str, Any], now: float) -> bool:
        """Commit ``body`` to the outbox (before any screen says it is kept) and wake the
        courier. If the outbox cannot, the screens say the result is not saved yet and it is
        tried again (``tick``) until it is; False then."""
        if self.outbox is None:
            return True
        this_game = body.get("game") == self.info.game_no
        try:
            seq = self.outbox.keep(body)
        except KlikError as error:
            if not self.unsaved:
                log.error("wynik gry %s: the outbox cannot keep it (%s); trying again every "
                          "%.0f s", body.get("game"), error, UNSAVED_RETRY_S)  # fmt: skip
            if body not in self.unsaved:
                self.unsaved.append(body)
            self.unsaved_retry_at = now + UNSAVED_RETRY_S
            if this_game:
                self.info = replace(self.info, delivery=Delivery.UNSAVED)
            return False
        if this_game:
            self.result_seq = seq
            self.info = replace(self.info, delivery=Delivery.KEPT)
        self.info = replace(self.info, waiting=self.outbox.waiting())
        if self.on_kept is not None:
            self.on_kept()
        return True

    def _commit_unsaved(self, now: float) -> None:
        """Try the results not yet committed again, oldest first, while the outbox takes them."""
        while self.unsaved and now >= self.unsaved_retry_at:
            body = self.unsaved.pop(0)
            if not self._commit(body, now):
                self.unsaved.remove(body)
                self.unsaved.insert(0, body)
                return
            log.warning("wynik gry %s: kept in the outbox after all", body.get("game"))

    def delivered(self, news: c.Delivery, now: float) -> None:
        """The courier's news (on the engine thread): this game's result sent, or how many wait."""
        info = replace(self.info, waiting=news.waiting)
        if news.seq is not None and news.seq == self.result_seq:
            receipt = None if news.receipt is None else f"R-{news.receipt}"
            info = replace(info, delivery=Delivery(news.state.value), receipt=receipt)
        self.info = info
        self.refresh(now)

    def command(self, command: c.Command, now: float) -> None:
        """A hub → table command (on the engine thread), carried out once by the courier's word."""
        if command.kind == CommandKind.PLAYERS:
            names = {s: n for s, n in command.args.items() if s in self.settings.seats}
            if all(isinstance(n, str) for n in names.values()):
                merged = {**dict(self.names), **{s: str(n)[:40] for s, n in names.items()}}
                self.names = tuple(sorted(merged.items()))
                if self.game_lineup is None:
                    self.info = replace(self.info, names=self.names)
                log.info("stół %s: gracze od huba: %s", self.info.table, merged)
        elif command.kind == CommandKind.GAME:
            self._take_lineup(command.args, now)
        elif command.kind in ORDERS:  # the hub's (and the virtual table's) orders
            self._do(g.Order(g.Action(command.kind), now, by="hub"))
        else:
            log.warning("stół %s: nieznane polecenie huba %r", self.info.table, command.kind)
        self.refresh(max(now, self.replay.now))

    # --- a tournament round's lineup ------------------------------------------------------

    def _take_lineup(self, args: Any, now: float) -> None:
        """The hub's lineup for a round: kept, and played from the next game on. A game that
        has not started yet (or is over) gives way to the round's first game at once."""
        try:
            lineup = parse_lineup(args, self.config.seat_letters)
        except LineupError as error:
            log.error("stół %s: skład od huba odrzucony: %s", self.info.table, error)
            return
        kept = self.lineup
        if kept is not None and replace(kept, begun=0, names=lineup.names, drawn=None) == lineup:
            # The same round's lineup again (the judge sent it twice, or a start sent it
            # once more): the round's games played so far stay played; a name the judge
            # corrected meanwhile is taken.
            self._keep_lineup(replace(lineup, begun=kept.begun, drawn=kept.drawn))
            log.info(
                "stół %s: turniej %s, runda %d: ten sam skład, zagrane gry %d z %d",
                self.info.table,
                lineup.tournament,
                lineup.round_no,
                kept.begun,
                kept.games,
            )
            return
        lineup = replace(lineup, begun=0)
        self._keep_lineup(lineup)
        log.info(
            "stół %s: turniej %s, runda %d: %s",
            self.info.table,
            lineup.tournament,
            lineup.round_no,
            ", ".join(f"{s} {n}" for s, n in lineup.names),
        )
        phase = self.game.phase
        if phase is g.Phase.READY:
            self._new_game(now, self.info.game_no)  # nothing was played: the same number
        elif phase is g.Phase.DONE:
            self._new_game(now, self._next_game_no())

    def _keep_lineup(self, lineup: Lineup) -> None:
        self.lineup = lineup
        if self.results_dir is None:
            return
        data = (json.dumps(lineup.json(), ensure_ascii=False) + "\n").encode()
        try:
            write_atomic(self.results_dir / LINEUP_FILE, data)
        except OSError as error:
            log.error("skład: cannot write %s (%s)", self.results_dir / LINEUP_FILE, error)

    def _load_lineup(self) -> Lineup | None:
        if self.results_dir is None:
            return None
        path = self.results_dir / LINEUP_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            log.error("skład: cannot read %s (%s); no round lineup", path, error)
            return None
        try:
            return parse_lineup(json.loads(text), self.config.seat_letters)
        except (ValueError, RecursionError) as error:
            log.error("skład: %s: %s; no round lineup", path, error)
            return None

    def status(self, now: float) -> Heartbeat:
        """The heartbeat's state of the table (read from another thread: games never change);
        the courier adds its outbox's part."""
        game = self.game
        left = game.time_left(now)
        return Heartbeat(
            game=self.info.game_no,
            state=game.phase.value,
            mover=game.mover,
            left_ms=None if left is None else max(0, round(left * 1000)),
            draw_tiles=game.pile.tiles_left,
            # a seat's call: waiting for the move's end (called_by), or the clock stopped for it
            judge=game.called_by is not None
            or (game.phase is g.Phase.PAUSED and game.paused_by in self.settings.seats),
            paused_by=game.paused_by,
            called_by=game.called_by,
            # who sits where, so the judge's console names the mover and a caller
            names={s: n for s, n in self.info.names if s in game.settings.seats},
        )

    # --- outputs -----------------------------------------------------------------------------

    def pressed(self) -> dict[str, float]:
        """When each seat button that is down now was pressed (settled, bounce gone)."""
        buttons = self.replay.table.buttons
        return {b.seat: b.pressed_at for b in buttons if b.down and b.pressed_at is not None}

    def refresh(self, now: float) -> None:
        """Redraw the seats whose view changed and set the LEDs and buzzer for ``now``."""
        if self.screens is not None and self.screens.out != self.info.panels_out:
            self.info = replace(self.info, panels_out=self.screens.out)
        changed = False
        for view in seat_views(self.game, now, self.info, self.pressed()):
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
                record, dict(self.images), dict(self.views), dict(self.frames), self.game
            )

    def snapshot(self) -> Snapshot:
        """The latest published state (``publishing`` must be on: the virtual table's)."""
        with self._lock:
            return self._snapshot
