"""The result keeper: each finished game's result on the card and in the outbox to the hub.

The table's session (``klik.table.game.session``) calls ``keep`` when the core says a result is
ready, ``restore`` and ``find`` at start, ``retry`` on every tick and ``new_game`` when the
next game begins; the engine hands it the courier's news (``delivered``). The keeper writes
``result-<game>.json`` next to the journal (fsynced, whole or not at all, never over another
game's) and commits the body the hub takes to the outbox before any screen says the result is
kept; what it knows of the result's way to the hub (``delivery``, ``receipt``, ``waiting``)
the screens show. With no outbox (``[hub] link = "off"``, a script's frames) only the file is
written.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from klik.core import game as g
from klik.errors import KlikError
from klik.link import courier as c
from klik.link.results import make_result
from klik.table.config import Config
from klik.table.game.card import Card
from klik.table.game.durable import RESULT as RESULT_NAME
from klik.table.game.durable import write_atomic
from klik.table.game.lineup import Lineup
from klik.table.record import replay as r
from klik.table.screens.view import Delivery

log = logging.getLogger("klik.table.game.engine")  # the engine's parts log under its name

UNSAVED_RETRY_S = 2.0  # a result the outbox could not commit is tried again this often


class Outbox(Protocol):
    """Where finished results wait for the hub (``klik.link.outbox.Outbox``)."""

    def keep(self, body: dict[str, Any]) -> int: ...
    def waiting(self) -> int: ...
    def seq_of_game(self, game: int) -> int | None: ...
    def last_game(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Played:
    """The game a result is of, as the session knows it (``Session.played``)."""

    game_no: int
    names: tuple[tuple[str, str], ...]  # (seat, player name), as the screens show them
    lineup: Lineup | None  # the round's lineup as this game began, or None


class Keeper:
    """The results' files and the outbox; on the engine thread only."""

    def __init__(
        self,
        config: Config,
        folder: Path | None,
        *,
        outbox: Outbox | None = None,
        on_kept: Callable[[], None] | None = None,
        wall_clock: Callable[[], str | None] = lambda: None,
        card: Card | None = None,
    ) -> None:
        self.config = config
        self.card = card or Card()  # how the card takes the result files
        self.folder = folder  # the state folder, next to the journal; None: no files
        self.outbox = outbox  # None: no link to the hub
        self.on_kept = on_kept  # wakes the courier once a result is committed
        self.wall_clock = wall_clock  # UTC for ``finished_at``, when synchronised
        self.result_seq: int | None = None  # the outbox's seq of this game's result
        self.delivery = Delivery.KEPT  # where this game's result is on its way to the hub
        self.receipt: str | None = None  # the hub's receipt for it, e.g. "R-7KQ2M"
        self.waiting = 0  # results in the outbox that the hub has not acknowledged yet
        # Result bodies the outbox could not commit (a lock, a full or read-only card), oldest
        # first: tried again every UNSAVED_RETRY_S, never shown as kept until they are.
        self.unsaved: list[dict[str, Any]] = []
        self.unsaved_retry_at = 0.0

    @property
    def table(self) -> str:
        return self.config.table.name

    def last_game(self) -> int:
        """The highest game number the outbox holds a result of (0 if none, or unreadable)."""
        if self.outbox is None:
            return 0
        try:
            return self.outbox.last_game()
        except KlikError as error:
            log.error("wyniki: the outbox cannot be read (%s)", error)
            return 0

    def new_game(self) -> None:
        """The next game began: nothing of its result is known yet."""
        self.delivery, self.receipt, self.result_seq = Delivery.KEPT, None, None

    def adopt(self, outbox: Outbox, game: g.Game, played: Played, now: float) -> None:
        """The judge accepted the table: its results go to ``outbox`` from now on, and the
        games it finished while it asked to join, kept in their files only, go first, oldest
        first, carrying the number pairing gave (``_numbered``): a round played at a table
        the judge had not paired yet reaches the hub's unplaced results, not a paper slip."""
        self.outbox = outbox
        self.restore(went="idzie do skrzynki po parowaniu")
        self.find(game, played, now)
        try:
            self.waiting = outbox.waiting()
        except KlikError as error:
            log.error("wyniki: the outbox cannot be read (%s)", error)
            return
        if self.waiting and self.on_kept is not None:
            self.on_kept()  # the courier may have looked before they were in

    def restore(self, went: str = "wraca do skrzynki") -> None:
        """At start: every finished game whose result file is on the card but whose result
        the outbox lacks (a lost WAL, a damaged outbox started anew) goes back into it, with
        the very body written at the game's end, oldest first; a result the hub already has
        comes back to it as a duplicate of itself. ``went`` is the log's word for it."""
        if self.outbox is None or self.folder is None:
            return
        try:
            names = [p.name for p in self.folder.iterdir()]
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
            log.warning("stół %s: wynik gry %d %s (z pliku wyniku)",
                        self.table, game_no, went)  # fmt: skip

    def find(self, game: g.Game, played: Played, now: float) -> None:
        """After a restart: the outbox's seq of a finished game's result, kept now if a power
        cut came between the journal's last line and the outbox's commit."""
        if self.outbox is None or game.phase is not g.Phase.DONE or game.result is None:
            return
        try:
            self.result_seq = self.outbox.seq_of_game(played.game_no)
        except KlikError as error:
            log.error("wynik: the outbox cannot be read (%s)", error)
            return
        if self.result_seq is None:
            log.warning("stół %s: wynik gry %d trafia do skrzynki po awarii",
                        self.table, played.game_no)  # fmt: skip
            body = self._kept_body(played.game_no)  # the bytes fixed at the game's end
            ready = g.ResultReady(now, game.result)
            self._commit(body or self._body(ready, game, played), now, played.game_no)
            return
        self.waiting = self.outbox.waiting()

    def keep(self, ready: g.ResultReady, game: g.Game, played: Played) -> None:
        """Keep the finished result next to the journal, durably, and in the outbox.

        Written whole or not at all and fsynced, and never over another game's result.
        """
        body = self._body(ready, game, played)  # fixed now: the same bytes whatever comes
        record = {
            "table": self.table,
            "game_no": played.game_no,
            "result": r.result_json(ready.result),
        }
        log.info("stół %s: wynik gry %d: %s", self.table, played.game_no, record)
        self._commit(body, ready.at, played.game_no)
        if self.folder is None:
            return
        record["body"] = body
        path = self.folder / f"result-{played.game_no}.json"
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        try:
            written = self.card.attempt(lambda: write_atomic(path, data, replace=False))
        except OSError as error:
            log.error("wynik: cannot write %s (%s)", path, error.strerror or error)
            self.card.failed(error, f"game {played.game_no}'s result file")
            return
        self.card.wrote()
        if written != path:
            log.error("wynik: %s was already there; this result is kept as %s", path, written)

    def retry(self, now: float, game_no: int) -> None:
        """Time has reached ``now``: the results not yet committed are tried again, oldest
        first, while the outbox takes them; ``game_no`` is the game being played."""
        while self.unsaved and now >= self.unsaved_retry_at:
            body = self.unsaved.pop(0)
            if not self._commit(body, now, game_no):
                self.unsaved.remove(body)
                self.unsaved.insert(0, body)
                return
            log.warning("wynik gry %s: kept in the outbox after all", body.get("game"))

    def delivered(self, news: c.Tracking) -> None:
        """The courier's news: this game's result sent (and its receipt), or how many wait."""
        self.waiting = news.waiting
        if news.seq is not None and news.seq == self.result_seq:
            self.delivery = Delivery(news.state.value)
            self.receipt = None if news.receipt is None else f"R-{news.receipt}"

    def _kept_body(self, game_no: int) -> dict[str, Any] | None:
        """The result body written with game ``game_no``'s result file, if there is one."""
        if self.folder is None:
            return None
        try:
            record = json.loads((self.folder / f"result-{game_no}.json").read_bytes())
        except (OSError, ValueError):
            return None
        body = record.get("body") if isinstance(record, dict) else None
        if not isinstance(body, dict) or body.get("game") != game_no:
            return None
        return self._numbered(body)

    def _numbered(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` as the outbox takes it: a result kept before the table had a number
        (``table`` 0, while it asked to join) carries the number pairing gave, which the hub
        checks against the device's. Nothing else changes, and the same number gives the
        same bytes at every restart, so a result sent again is a duplicate of itself."""
        number = self.config.hub.table
        return {**body, "table": number} if body.get("table") == 0 and number else body

    def _body(self, ready: g.ResultReady, game: g.Game, played: Played) -> dict[str, Any]:
        """The body of this game's result as the hub takes it (``klik.link.results``)."""
        first = game.moves[0].start if game.moves else ready.at
        lineup = played.lineup
        return make_result(
            table=self.config.hub.table,
            game=played.game_no,
            rules=game.settings.rules.name,
            rules_version=game.settings.rules.version,
            result=ready.result,
            names=dict(played.names),
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

    def _commit(self, body: dict[str, Any], now: float, game_no: int) -> bool:
        """Commit ``body`` to the outbox (before any screen says it is kept) and wake the
        courier. If the outbox cannot, the screens say the result is not saved yet and it is
        tried again (``retry``) until it is; False then."""
        if self.outbox is None:
            return True
        this_game = body.get("game") == game_no
        outbox = self.outbox
        try:
            seq = self.card.attempt(lambda: outbox.keep(body))
        except KlikError as error:
            if isinstance(error, OSError):  # the card's trouble (full, read-only), if known
                self.card.failed(error, f"game {body.get('game')}'s result")
            if not self.unsaved:
                log.error("wynik gry %s: the outbox cannot keep it (%s); trying again every "
                          "%.0f s", body.get("game"), error, UNSAVED_RETRY_S)  # fmt: skip
            if body not in self.unsaved:
                self.unsaved.append(body)
            self.unsaved_retry_at = now + UNSAVED_RETRY_S
            if this_game:
                self.delivery = Delivery.UNSAVED
            return False
        self.card.wrote()
        if this_game:
            self.result_seq = seq
            self.delivery = Delivery.KEPT
        self.waiting = self.outbox.waiting()
        if self.on_kept is not None:
            self.on_kept()
        return True
