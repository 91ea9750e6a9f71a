"""The game's session: the table's games one after the other, from the queue's items.

The engine (``klik.table.game.engine``) makes one and hands it every item, tick and hub command on
the engine thread. For every item: journal it (fsynced) → step the core through the driver →
carry out its effects (a sound to the presenter, a note to the log, a finished result to the
keeper) → redraw through the presenter.

The session owns the game's life: it recovers the journalled game at start (or begins a new
one), numbers the games (``klik.table.game.durable.GameCounter``: numbers never go back), begins
each game's journal, checkpoints a running clock, turns the judge key's taps and holds
(``klik.core.gestures.judge_edge``) into orders, plays a tournament round's games with its
lineup (``klik.table.game.rounds``) and keeps the round's clock
(``klik.table.game.roundclock``): at its zero it takes the round-over itself. Time comes in
as numbers (``now``, the table's clock).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from klik.core import game as g
from klik.core import gestures as gs
from klik.core import judgekey as jk
from klik.core import tabletop as t
from klik.core.haptics import Pulse
from klik.core.pace import pace
from klik.faults import kill_point
from klik.link import courier as c
from klik.link.protocol import CommandKind, Heartbeat, RoundClock
from klik.table.config import Config
from klik.table.game import journal as j
from klik.table.game.durable import GameCounter
from klik.table.game.keeper import Keeper, Outbox, Played
from klik.table.game.lineup import Lineup
from klik.table.game.lineup import parse as parse_lineup
from klik.table.game.roundclock import RoundTime
from klik.table.game.rounds import Rounds, same_round
from klik.table.hardware.gpio import JudgeEdge
from klik.table.record import notes
from klik.table.record.driver import Driver
from klik.table.screens.presenter import Presenter
from klik.table.screens.view import PausedBy, TableInfo
from klik.words import DEFAULT, Language

log = logging.getLogger("klik.table.game.engine")  # the engine's parts log under its name

Item = t.Edge | JudgeEdge | g.Order
ORDERS = frozenset(action.value for action in g.Action)  # what a command may order the clock
#: The judge key's meanings that are orders to the clock.
JUDGE_ORDERS = {
    jk.JudgeMeaning.START: g.Action.START,
    jk.JudgeMeaning.PAUSE: g.Action.PAUSE,
    jk.JudgeMeaning.RESUME: g.Action.RESUME,
    jk.JudgeMeaning.UNDO: g.Action.UNDO,
}
#: The phases in which a game takes the round-over (before its start too: 000 o).
ROUND_OVER_IN = frozenset((g.Phase.READY, g.Phase.MOVE, g.Phase.TIMED_OUT, g.Phase.PAUSED))


class Session:
    """This table's games, on the engine thread only (``status`` excepted: it reads)."""

    def __init__(
        self,
        config: Config,
        settings: g.Settings,
        journal: j.Journal | None,
        *,
        counter: GameCounter | None,
        rounds: Rounds,
        keeper: Keeper,
        presenter: Presenter,
        on_repair: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        # the judge key's re-pair (on the engine thread): the daemon asks the hub to join again
        self.on_repair = on_repair
        self.settings = settings  # the table's own: a round's lineup changes a game's
        self.journal = journal  # None: nothing survives a restart (a script's frames)
        self.counter = counter  # None: game numbers start from 1 at every start
        self.rounds = rounds
        self.keeper = keeper
        self.presenter = presenter
        self.driver = Driver(t.new_tabletop(settings))
        self.game_no = 1
        self.game_started = False  # game_no is a game of this table (not the default)
        self.names = config.players  # the names of a game without a lineup
        self.shown_names = config.players  # this game's names: those, or the lineup's
        self.game_lineup: Lineup | None = None  # the lineup this game is played under
        self.stuck: frozenset[str] = frozenset()  # seats whose button is held past stuck_s
        self.judge = gs.JudgeKey()
        self.next_checkpoint: float | None = None
        self.round_time = RoundTime(config.table.name)  # the hub's round clock, as last heard
        self.pairing_digits: str | None = None  # while it asks the hub to join
        self.paired = False  # the judge accepted it since the start
        self.seeking_hub = False  # it asks to join, and no hub has answered yet
        self.power_failing = False  # the HAT said the supply is failing: the table stops

    @property
    def game(self) -> g.Game:
        return self.driver.tabletop.game

    def info(self) -> TableInfo:
        """What the screens show besides the game, from the session and its collaborators."""
        return TableInfo(
            table=self.config.table.name,
            game_no=self.game_no,
            names=self.shown_names,
            language=Language(self.config.table.language),
            stuck=self.stuck,
            panels_out=self.presenter.panels_out,
            delivery=self.keeper.delivery,
            receipt=self.keeper.receipt,
            waiting=self.keeper.waiting,
            seats=self.settings.seats,
            round_ends=self.round_time.ends(self.game_lineup),
            pairing_digits=self.pairing_digits,
            paired=self.paired,
            seeking_hub=self.seeking_hub and self.pairing_digits is None,
            card=self.keeper.card.state.value,
            power_failing=self.power_failing,
            **self.seat_setup(),
        )

    def seat_setup(self) -> dict[str, Any]:
        """How this game's seats are set up for their players (issue 40): the seats in large
        type (``[table] large``, and a round's players who need it), the seats whose motors
        pulse (``[hardware] vibration``: every fitted seat, but in a round's game only those
        whose player needs it), and whether the buzzer keeps quiet (a round's player needs
        quiet: the buzzer is the whole table's)."""
        fitted = frozenset(self.config.hardware.vibration)
        lineup = self.game_lineup
        if lineup is None:
            return {"large": frozenset(self.config.table.large), "felt": fitted, "quiet": False}
        needing = {need: frozenset(s for s, n in lineup.needs if need in n)
                   for need in ("large", "vibration", "quiet")}  # fmt: skip
        return {
            "large": frozenset(self.config.table.large) | needing["large"],
            "felt": fitted & needing["vibration"],
            "quiet": bool(needing["quiet"]),
        }

    def _unfitted(self, lineup: Lineup) -> None:
        """A round's player who needs vibration at a seat without a motor: one line, so the
        judge can seat them where one is (the game goes on; the LED and screen still tell)."""
        fitted = self.config.hardware.vibration
        for seat, needs in lineup.needs:
            if "vibration" in needs and seat not in fitted:
                log.warning(
                    "stół %s: gracz miejsca %s potrzebuje wibracji, a to miejsce nie ma silnika"
                    " (silniki: %s, [hardware] vibration)",
                    self.config.table.name, seat, ", ".join(fitted) or "brak",
                )  # fmt: skip

    def played(self) -> Played:
        return Played(self.game_no, self.shown_names, self.game_lineup)

    # --- the game's life ----------------------------------------------------------------

    def start(self, now: float) -> float:
        """Recover the journalled game, or begin a new one; returns the table clock's offset.

        The table's clock continues from the journal's last moment, so a game recovered after
        a reboot (when the monotonic clock starts again from zero) keeps its time left. The
        recovery settles what the journal holds, lets every button go and pauses a running
        clock (``klik.core.tabletop.recover``); it is journalled too, so that a second power cut
        replays it exactly.
        """
        self.keeper.restore()
        journal = self.journal
        taken = journal is not None and j.begun(journal.path)  # before read moves it aside
        recovered = None if journal is None else j.read(journal.path)
        if recovered is None or not self._replay_journal(recovered):
            self._new_game(now, self._first_game_no(taken=taken))
            return 0.0
        last = self.driver.now
        if self.journal is not None:
            self.journal.append(j.Recovery(last))
        before, felt = len(self.driver.effects), len(self.driver.pulses)
        self.driver.recover(last)
        self._carry_out(self.driver.effects[before:], self.driver.pulses[felt:])
        if self.game.paused_by == PausedBy.RECOVERY:
            log.warning(
                "stół %s: gra %d wznowiona po awarii: pauza, ruch %s, zostało %.1f s",
                self.config.table.name,
                self.game_no,
                self.game.mover,
                self.game.left_s or 0.0,
            )
        self.keeper.find(self.game, self.played(), last)
        round_ = self.rounds.lineup
        if (
            self.game.phase is g.Phase.READY
            and round_ is not None
            and not round_.spent
            and (self.game_lineup is None or not same_round(self.game_lineup, round_))
        ):
            # The round's lineup reached the card, its game did not (a cut in between): the
            # game not yet played gives way to the round's, as when the lineup came.
            log.warning(
                "stół %s: gra %d gotowa w składzie rundy %d (po awarii)",
                self.config.table.name,
                self.game_no,
                round_.round_no,
            )
            self._new_game(last, self.game_no)
        begun = 0 if self.counter is None else self.counter.counted()
        if self.game.phase is g.Phase.DONE and begun > self._highest_traced():
            # The judge's next-game tap was cut between the counter and the new journal: the
            # game it began stands ready (this one's result is kept above), with its number.
            log.warning(
                "stół %s: gra %d rozpoczęta przed awarią: gotowa od nowa",
                self.config.table.name,
                begun,
            )
            self._new_game(last, begun)
        self.refresh(last)
        return last - now

    def _first_game_no(self, *, taken: bool) -> int:
        """The game at a start with no journal to replay: the one the counter says was begun,
        if no result of it was kept (a cut between the counter and its journal, or a journal
        lost); one past every number used if a journal was there but could not be taken
        (``taken``: damaged, another table's), since its game may have been played."""
        begun = 0 if self.counter is None else self.counter.counted()
        kept, archived = self._kept_and_archived()
        if begun > kept and begun >= archived and not taken:
            log.warning(
                "stół %s: brak dziennika gry %d (awaria w chwili jej rozpoczęcia?); "
                "gra %d od początku",
                self.config.table.name,
                begun,
                begun,
            )
            return begun
        return max(begun, kept, archived) + 1

    def _kept_and_archived(self) -> tuple[int, int]:
        """The highest game number of a kept result (a file or in the outbox), and of a
        finished game's journal kept aside."""
        kept = self.keeper.last_game()
        if self.counter is None:
            return kept, 0
        return max(kept, self.counter.kept()), self.counter.archived()

    def _highest_traced(self) -> int:
        """The highest game number the card holds a trace of: a kept result, a finished
        game's journal, or the journal of the game in play."""
        return max(*self._kept_and_archived(), self.game_no if self.game_started else 0)

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
        if self.counter is not None and self.counter.counted() < game_no:
            self.counter.begin(game_no)
        self.game_no = game_no
        self.game_started = True
        if lineup is None:
            starter = header.get("starter") or g.starter_of(self.settings, game_no)
            settings = replace(self.settings, starter=starter)
        else:
            settings = lineup.settings(self.settings)
            self.shown_names = lineup.names
        self.game_lineup = lineup
        if lineup is not None:
            self.rounds.catch_up(lineup)
        tabletop, last = j.replay_entries(t.new_tabletop(settings), recovered.entries)
        self.driver = Driver(tabletop, max(last, recovered.at))
        return True

    def _next_game_no(self) -> int:
        """Game numbers never go back and never repeat: one more than any game this table has
        begun (the counter) or holds a trace of."""
        begun = 0 if self.counter is None else self.counter.counted()
        return max(begun, self._highest_traced()) + 1

    def power_fail(self, now: float) -> None:
        """The supply is failing: a checkpoint of the clock journalled (fsynced, as every line)
        so a restart comes back at this moment, and every seat says so before the daemon
        stops."""
        if self.journal is not None:
            self.journal.append(j.Checkpoint(max(now, self.driver.now)))
        self.power_failing = True
        self.presenter.keep_shown()  # "Zasilanie!" stays on the seats after the stop
        log.warning(
            "stół %s: zasilanie zanika (linia zasilacza): gra %d zapisana, stół się zatrzymuje",
            self.config.table.name,
            self.game_no,
        )
        self.refresh(max(now, self.driver.now))

    def new_game(self, now: float) -> bool:
        """The next game at this table (judge key or the virtual table), once this one is done."""
        if self.game.phase is not g.Phase.DONE:
            return False
        self._new_game(now, self._next_game_no())
        self._round_over_due(now)  # a game of the round begun after its zero
        self.refresh(now)
        return True

    def _new_game(self, now: float, game_no: int) -> None:
        lineup = self.rounds.lineup
        if lineup is not None and not lineup.spent:
            # A round's game: its seats, rules and move time; seat A starts its first game.
            settings = lineup.settings(self.settings)
            self.game_lineup = lineup
            self.shown_names = lineup.names
            self._unfitted(lineup)
        else:
            # Game 1 is started by the configured starter, game 2 by the next seat, ... (000 f).
            settings = replace(self.settings, starter=g.starter_of(self.settings, game_no))
            self.game_lineup = None
            self.shown_names = self.names
        if self.counter is not None:
            self.counter.begin(game_no)
            kill_point("next-game-counted")
        self.game_started = True
        self.driver = Driver(t.new_tabletop(settings), now)
        self.game_no = game_no
        self.keeper.new_game()
        self.presenter.silence()
        self.next_checkpoint = None
        if self.journal is not None:
            header: dict[str, Any] = {
                "table": self.config.table.name,
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
        # the restart from the journal (``Rounds.catch_up``): never a round's game played as
        # an ordinary one.
        if self.game_lineup is not None:
            kill_point("round-game-journalled")
            self.rounds.keep(replace(self.game_lineup, begun=self.game_lineup.begun + 1))
            kill_point("round-game-counted")
        log.info("stół %s: gra %d gotowa", self.config.table.name, game_no)
        self.refresh(now)

    # --- items from the queue -------------------------------------------------------------

    def handle(self, item: Item, now: float) -> None:
        """One item from the queue; ``now`` is the table clock when it was taken off."""
        self._round_over_due(item.at)  # the round's zero came first: its round-over too
        if isinstance(item, JudgeEdge):
            self._judge(item)
        elif isinstance(item, t.Edge):
            if not item.pressed and item.seat in self.stuck:
                self.stuck = self.stuck - {item.seat}
            self._do(item)
        else:
            self._do(item)
        self._round_over_due(now)  # a new game of the round, begun after its zero
        self.refresh(max(now, self.driver.now))

    def _judge(self, edge: JudgeEdge) -> None:
        """The judge key (``klik.core.judgekey``): tap = start / pause / resume / next game;
        hold = undo a hand-over; a 5 s hold on a ready game = re-pair (``on_repair``)."""
        self.judge, gesture = gs.judge_edge(self.judge, edge.pressed, edge.at, self.config.buttons)
        if gesture is None:
            return
        meant = jk.meaning(gesture, self.game.phase)
        if meant is jk.JudgeMeaning.REPAIR:
            log.info("stół %s: klucz sędziego: parowanie ponowne", self.config.table.name)
            if self.on_repair is not None:
                self.on_repair()
        elif meant is jk.JudgeMeaning.NEXT_GAME:
            self._new_game(gesture.at, self._next_game_no())
        else:
            self._do(g.Order(JUDGE_ORDERS[meant], gesture.at))

    def _do(self, event: t.Edge | g.Order) -> None:
        if self.journal is not None:
            self.journal.append(event)
        before, felt = len(self.driver.effects), len(self.driver.pulses)
        self.driver.apply(event)
        self._carry_out(self.driver.effects[before:], self.driver.pulses[felt:])

    def tick(self, now: float) -> None:
        """Time has reached ``now``: due work, the checkpoint, the retries, the redraw."""
        self._round_over_due(now)
        before, felt, game = len(self.driver.effects), len(self.driver.pulses), self.game
        self.driver.advance(max(now, self.driver.now))
        self._carry_out(self.driver.effects[before:], self.driver.pulses[felt:])
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
        self.keeper.retry(now, self.game_no)
        self.presenter.retry(now)
        self.refresh(now)

    def next_wake(self, now: float) -> float | None:
        """The next moment the session has something to do without a new item."""
        due = [t.next_due(self.driver.tabletop), self.next_checkpoint, self._round_zero()]
        times = [d for d in due if d is not None]
        ends = self.round_time.ends(self.game_lineup)
        times += self.presenter.next_wake(self.game, now, self.pressed(), round_ends=ends)
        return min(times) if times else None

    def _round_zero(self) -> float | None:
        """When this game takes the round-over (the round's zero), if it will."""
        game = self.game
        if game.final_round or game.round_over or game.phase not in ROUND_OVER_IN:
            return None
        return self.round_time.ends(self.game_lineup)

    def _round_over_due(self, now: float) -> None:
        """The round's time is up by ``now`` and this game is of that round, not yet in its
        final round: take the round-over as if the hub's command had come (journalled the
        same way, so a restart replays it), at the zero unless the game began after it."""
        zero = self._round_zero()
        if zero is None or zero > now:
            return
        log.info("stół %s: czas rundy minął (własny zegar)", self.config.table.name)
        self._do(g.Order(g.Action.ROUND_OVER, max(zero, self.driver.now), by="hub"))

    def _carry_out(self, effects: list[g.Effect], pulses: list[Pulse]) -> None:
        for pulse in pulses:
            self.presenter.pulse(pulse)
        for effect in effects:
            if isinstance(effect, g.Sound):
                self.presenter.sound(effect)
            elif isinstance(effect, g.Note):
                log.info("stół %s: %s", self.config.table.name, notes.said(effect, DEFAULT))
                if effect.kind is g.NoteKind.STUCK and effect.seat is not None:
                    self.stuck = self.stuck | {effect.seat}
                if effect.kind is g.NoteKind.STARTER_DRAWN and effect.seat is not None:
                    self._starter_drawn(effect.seat)
            elif isinstance(effect, g.ResultReady):
                self.keeper.keep(effect, self.game, self.played())

    def _starter_drawn(self, seat: str) -> None:
        """The round's first starter was drawn: kept with the lineup, so the round's next
        games go on from the next seat after it (and a restart knows it)."""
        played = self.game_lineup
        if played is None or played.first_starter != "draw":
            return
        self.game_lineup = replace(played, drawn=seat)
        self.rounds.drawn(played, seat)

    # --- the hub ------------------------------------------------------------------------------

    def command(self, command: c.Command, now: float) -> None:
        """A hub → table command, carried out once by the courier's word."""
        if command.kind == CommandKind.PLAYERS:
            names = {s: n for s, n in command.args.items() if s in self.settings.seats}
            if all(isinstance(n, str) for n in names.values()):
                merged = {**dict(self.names), **{s: str(n)[:40] for s, n in names.items()}}
                self.names = tuple(sorted(merged.items()))
                if self.game_lineup is None:
                    self.shown_names = self.names
                log.info("stół %s: gracze od huba: %s", self.config.table.name, merged)
        elif command.kind == CommandKind.GAME:
            self._take_lineup(command.args, now)
        elif command.kind in ORDERS:  # the hub's (and the virtual table's) orders
            self._do(g.Order(g.Action(command.kind), now, by="hub"))
        else:
            log.warning("stół %s: nieznane polecenie huba %r", self.config.table.name, command.kind)
        self._round_over_due(now)  # the round's first game, begun after its zero
        self.refresh(max(now, self.driver.now))

    def round_clock(self, said: RoundClock | None, heard: float, now: float) -> None:
        """The hub's round clock, in its answer to a heartbeat heard at ``heard`` (the table
        clock): kept as this table's round's zero (None: the hub runs none for this table)."""
        self.round_time.heard(said, heard, self.rounds.lineup)
        self._round_over_due(now)
        self.refresh(max(now, self.driver.now))

    def _take_lineup(self, args: Any, now: float) -> None:
        """The hub's lineup for a round: kept, and played from the next game on. A game that
        has not started yet (or is over) gives way to the round's first game at once."""
        if self.rounds.take(args) is None:
            return
        phase = self.game.phase
        if phase is g.Phase.READY:
            self._new_game(now, self.game_no)  # nothing was played: the same number
        elif phase is g.Phase.DONE:
            self._new_game(now, self._next_game_no())

    def pairing(self, digits: str | None, paired: Config | None, now: float) -> None:
        """Pairing at the table: the digits seat A shows while it asks (None: none now), or
        the config with what pairing gave, once the judge accepted it."""
        self.pairing_digits = digits
        if paired is not None:
            self.config, self.paired, self.seeking_hub = paired, True, False
            self.round_time = RoundTime(paired.table.name)
        self.refresh(max(now, self.driver.now))

    def adopt(self, outbox: Outbox, now: float) -> None:
        """The judge accepted the table: results go to ``outbox`` from now on, the games
        finished while it asked first (``Keeper.adopt``)."""
        self.keeper.adopt(outbox, self.game, self.played(), now)

    def seeking(self, on: bool, now: float) -> None:
        """Whether the table asks to join: seat A says it looks for the hub until a hub's
        digits come (``pairing``)."""
        self.seeking_hub = on
        self.refresh(max(now, self.driver.now))

    def renumbered(self, config: Config, now: float) -> None:
        """The hub gave this table another number (its ``renumber`` command): ``config``
        names it; the screens show it from now on, and the next results carry it."""
        self.config = config
        self.round_time.table = config.table.name
        log.info("stół %s: nowy numer od huba", config.table.name)
        self.refresh(max(now, self.driver.now))

    def delivered(self, news: c.Tracking, now: float) -> None:
        """The courier's news: this game's result sent, or how many wait."""
        self.keeper.delivered(news)
        self.refresh(now)

    def status(self, now: float) -> Heartbeat:
        """The heartbeat's state of the table (read from another thread: games never change);
        the courier adds its outbox's part."""
        game = self.game
        left = game.time_left(now)
        return Heartbeat(
            game=self.game_no,
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
            names={s: n for s, n in self.shown_names if s in game.settings.seats},
            # how each seat has moved so far: the console shows slow movers and timeouts
            move_time_ms=round(game.settings.move_time_s * 1000),
            moves={s: f.json() for s, f in pace(game.moves, game.settings.seats).items()},
        )

    # --- outputs -----------------------------------------------------------------------------

    def pressed(self) -> dict[str, float]:
        """When each seat button that is down now was pressed (settled, bounce gone)."""
        buttons = self.driver.tabletop.buttons
        return {b.seat: b.pressed_at for b in buttons if b.down and b.pressed_at is not None}

    def refresh(self, now: float) -> None:
        """Redraw the seats whose view changed and set the LEDs and buzzer for ``now``."""
        self.presenter.refresh(self.driver, self.info(), self.pressed(), now)
