"""The engine: one thread's worth of work between the queue and the table's outputs.

It is where the table's parts are put together, each with its collaborators passed in:

- the session (``klik.table.game.session``): the game's life, the journal and its replay, game
  numbers, the judge key, a round's lineup (``klik.table.game.rounds``);
- the keeper (``klik.table.game.keeper``): each finished game's result file and the outbox;
- the presenter (``klik.table.screens.presenter``): the screens, LEDs and buzzer, the snapshot.

The daemon (``klik.table.service.daemon``), the virtual table and ``klik replay --frames``
(``klik.table.sim.frames``) call only the engine. Everything here runs on the engine thread, so
nothing needs a lock except the snapshot the virtual table's web server reads. Time comes in
as numbers (``now``, the table's clock), so tests drive it without sleeping;
``klik.table.service.daemon`` owns the real clock and the threads.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from klik.core import game as g
from klik.link import courier as c
from klik.link.protocol import Heartbeat, RoundClock
from klik.table.config import Config
from klik.table.game import journal as j
from klik.table.game.card import Card
from klik.table.game.durable import GameCounter
from klik.table.game.keeper import Keeper, Outbox
from klik.table.game.lineup import Lineup
from klik.table.game.rounds import Rounds
from klik.table.game.session import Item, Session
from klik.table.hardware import signals
from klik.table.record.driver import Driver
from klik.table.screens.presenter import Presenter, Screens, Snapshot
from klik.table.screens.render import render as render_screen
from klik.table.screens.view import SeatView, TableInfo

__all__ = ["Engine", "Item", "Outbox", "Screens", "Snapshot"]


class Engine:
    """One table's session, keeper and presenter, built from the config and the hardware.

    ``journal`` None keeps nothing on the card (no journal, no result files, no game counter);
    ``screens`` None draws the views without panels. ``outbox`` (with ``on_kept``, which wakes
    the courier) links the table to the hub; ``wall_clock`` dates a result in UTC when the
    clock is synchronised. ``settings`` overrides the config's game settings (a script's).
    ``on_repair`` is called (on the engine thread) when the judge key asks to re-pair.
    """

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
        outbox: Outbox | None = None,
        on_kept: Callable[[], None] | None = None,
        wall_clock: Callable[[], str | None] = lambda: None,
        publishing: bool = False,
        on_repair: Callable[[], None] | None = None,
    ) -> None:
        folder = None if journal is None else journal.path.parent
        self.card = Card() if journal is None else journal.card  # every write to the card tells it
        self.keeper = Keeper(
            config, folder, outbox=outbox, on_kept=on_kept, wall_clock=wall_clock, card=self.card
        )
        self.presenter = Presenter(
            config,
            screens,
            render=render,
            set_outputs=set_outputs,
            on_frame=on_frame,
            publishing=publishing,
        )
        self.session = Session(
            config,
            config.settings() if settings is None else settings,
            journal,
            counter=None if folder is None else GameCounter(folder, self.card),
            rounds=Rounds(folder, config.seat_letters, config.table.name, self.card),
            keeper=self.keeper,
            presenter=self.presenter,
            on_repair=on_repair,
        )

    # --- what the daemon, the virtual table and the frames call ---------------------------

    def start(self, now: float) -> float:
        """Recover the journalled game, or begin a new one; returns the table clock's offset
        (``Session.start``)."""
        return self.session.start(now)

    def handle(self, item: Item, now: float) -> None:
        """One item from the queue; ``now`` is the table clock when it was taken off."""
        self.session.handle(item, now)

    def tick(self, now: float) -> None:
        """Time has reached ``now``: due work, the checkpoint, the retries, the redraw."""
        self.session.tick(now)

    def next_wake(self, now: float) -> float | None:
        """The next moment the engine has something to do without a new item."""
        return self.session.next_wake(now)

    def power_fail(self, now: float) -> None:
        """The supply is failing (the HAT's line): the game made durable, every seat told;
        the daemon stops next (``Session.power_fail``)."""
        self.session.power_fail(now)

    def new_game(self, now: float) -> bool:
        """The next game at this table (the virtual table), once this one is done."""
        return self.session.new_game(now)

    def command(self, command: c.Command, now: float) -> None:
        """A hub → table command (on the engine thread), carried out once by the courier's word."""
        self.session.command(command, now)

    def round_clock(self, said: RoundClock | None, heard: float, now: float) -> None:
        """The courier's news (on the engine thread): the hub's round clock in its answer to a
        heartbeat heard at ``heard`` on the table clock, or None (it runs none for this table)."""
        self.session.round_clock(said, heard, now)

    def pairing(
        self, digits: str | None, paired: Config | None, now: float, outbox: Outbox | None = None
    ) -> None:
        """Pairing at the table (on the engine thread): the digits to show on seat A while
        it asks the hub to join, or, once the judge accepted it, the config with what pairing
        gave (the table's number, its device id) and the ``outbox`` its results go to from
        now on, carrying that number (with the games finished while it asked: ``adopt``)."""
        if paired is not None:
            self.keeper.config = self.presenter.config = paired
            if self.keeper.outbox is None and outbox is not None:
                self.session.adopt(outbox, now)
            self.session.rounds.table = paired.table.name
        self.session.pairing(digits, paired, now)

    def seeking(self, on: bool, now: float) -> None:
        """The table asks to join (on the engine thread): seat A says it looks for the hub
        until the digits come, or (``on`` False) it no longer asks."""
        self.session.seeking(on, now)

    def renumbered(self, config: Config, now: float) -> None:
        """The hub's ``renumber`` command, carried out (on the engine thread): ``config``
        names the table's new number, which its screens and next results carry."""
        self.keeper.config = self.presenter.config = config
        self.session.rounds.table = config.table.name
        self.session.renumbered(config, now)

    def delivered(self, news: c.Tracking, now: float) -> None:
        """The courier's news (on the engine thread): this game's result sent, or how many wait."""
        self.session.delivered(news, now)

    def status(self, now: float) -> Heartbeat:
        """The heartbeat's state of the table (the courier's thread reads it)."""
        return self.session.status(now)

    def snapshot(self) -> Snapshot:
        """The latest published state (``publishing`` must be on: the virtual table's)."""
        return self.presenter.snapshot()

    # --- what they and the tests read ---------------------------------------------------------

    @property
    def game(self) -> g.Game:
        return self.session.game

    @property
    def driver(self) -> Driver:
        """The live driver of this game: its tabletop, its clock and every effect it gave."""
        return self.session.driver

    @property
    def info(self) -> TableInfo:
        """What the screens show besides the game (the virtual table's page reads it)."""
        return self.session.info()

    @property
    def views(self) -> dict[str, SeatView]:
        """Each seat's view as last drawn."""
        return self.presenter.views

    @property
    def lineup(self) -> Lineup | None:
        """The round's lineup this table keeps (lineup.json), if any."""
        return self.session.rounds.lineup

    @property
    def game_lineup(self) -> Lineup | None:
        """The round's lineup this game is played under, if any."""
        return self.session.game_lineup

    @property
    def result_seq(self) -> int | None:
        """The outbox's seq of this game's result, once it is committed."""
        return self.keeper.result_seq

    @property
    def journal(self) -> j.Journal | None:
        return self.session.journal

    @property
    def screens(self) -> Screens | None:
        return self.presenter.screens
