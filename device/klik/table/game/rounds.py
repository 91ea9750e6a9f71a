"""The tournament round this table plays: the hub's lineup, kept in the state folder.

The hub's ``game`` command brings a round's lineup (``klik.table.game.lineup``); the table's
session (``klik.table.game.session``) plays the round's games with it, one after the other, and
counts each game it begins in ``begun``. What is kept here, in ``lineup.json`` (written
atomically), is the lineup with that count and the drawn starter, so a restart goes on with
the round's next game. The lineup each game began with is in that game's journal header too;
the session mends the count from it after a power cut (``catch_up``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from klik.table.game.card import Card
from klik.table.game.durable import write_atomic
from klik.table.game.lineup import Lineup, LineupError
from klik.table.game.lineup import parse as parse_lineup

log = logging.getLogger("klik.table.game.engine")  # the engine's parts log under its name

LINEUP_FILE = "lineup.json"  # the hub's lineup for the round, in the state folder


def same_round(one: Lineup, other: Lineup) -> bool:
    """Whether two lineups are of the same round at this table (counts, names, needs and the
    drawn starter aside: those change as the round is played and corrected)."""
    return replace(one, begun=0, names=(), needs=(), drawn=None) == replace(
        other, begun=0, names=(), needs=(), drawn=None
    )


class Rounds:
    """The round's lineup as this table keeps it (``lineup``, None without a round); on the
    engine thread only."""

    def __init__(
        self, folder: Path | None, seat_letters: tuple[str, ...], table: str, card: Card
    ) -> None:
        self.folder = folder  # the state folder; None: nothing is read or written
        self.card = card  # how the card takes lineup.json
        self.seat_letters = seat_letters  # the table's seats, which a lineup must fit
        self.table = table  # the table's name, for the log
        self.lineup = self._load()

    def keep(self, lineup: Lineup) -> None:
        """``lineup`` is the round's from now on, in lineup.json too (a failed write is
        logged: the lineup still holds until the table restarts)."""
        self.lineup = lineup
        if self.folder is None:
            return
        data = (json.dumps(lineup.json(), ensure_ascii=False) + "\n").encode()
        path = self.folder / LINEUP_FILE
        try:
            self.card.attempt(lambda: write_atomic(path, data))
        except OSError as error:
            log.error("skład: cannot write %s (%s)", path, error)
            self.card.failed(error, "the round's lineup")
            return
        self.card.wrote()

    def take(self, args: Any) -> Lineup | None:
        """The hub's lineup for a round, kept; returns it if it is a new round to play from
        the next game on, None if it was refused or is the round already kept."""
        try:
            lineup = parse_lineup(args, self.seat_letters)
        except LineupError as error:
            log.error("stół %s: skład od huba odrzucony: %s", self.table, error)
            return None
        kept = self.lineup
        if kept is not None and same_round(kept, lineup):
            # The same round's lineup again (the judge sent it twice, or a start sent it
            # once more): the round's games played so far stay played; a name or a need the
            # judge corrected meanwhile is taken (from the next game the table begins).
            self.keep(replace(lineup, begun=kept.begun, drawn=kept.drawn))
            log.info(
                "stół %s: turniej %s, runda %d: ten sam skład, zagrane gry %d z %d",
                self.table,
                lineup.tournament,
                lineup.round_no,
                kept.begun,
                kept.games,
            )
            return None
        lineup = replace(lineup, begun=0)
        self.keep(lineup)
        log.info(
            "stół %s: turniej %s, runda %d: %s",
            self.table,
            lineup.tournament,
            lineup.round_no,
            ", ".join(f"{s} {n}" for s, n in lineup.names),
        )
        return lineup

    def catch_up(self, began: Lineup) -> None:
        """The journal's game began as the round's game ``began.begun + 1``: if lineup.json
        does not count it yet (a cut came between the new journal and the lineup's write),
        count it now."""
        kept = self.lineup
        if kept is None:
            return
        same_round = replace(kept, begun=began.begun, drawn=began.drawn) == began
        if same_round and kept.begun <= began.begun:
            log.warning("stół %s: skład rundy liczy grę %d (po awarii)",
                        self.table, began.begun + 1)  # fmt: skip
            self.keep(replace(kept, begun=began.begun + 1, drawn=began.drawn))

    def drawn(self, played: Lineup, seat: str) -> None:
        """The round's first starter, ``seat``, was drawn in a game played with ``played``:
        kept with the round's lineup, so its next games go on from the next seat after it."""
        kept = self.lineup
        if kept is not None and replace(kept, begun=0, drawn=None) == replace(
            played, begun=0, drawn=None
        ):
            self.keep(replace(kept, drawn=seat))

    def _load(self) -> Lineup | None:
        """lineup.json as the last start or command left it; None if there is none, or it
        cannot be read (logged)."""
        if self.folder is None:
            return None
        path = self.folder / LINEUP_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            log.error("skład: cannot read %s (%s); no round lineup", path, error)
            return None
        try:
            return parse_lineup(json.loads(text), self.seat_letters)
        except (ValueError, RecursionError) as error:
            log.error("skład: %s: %s; no round lineup", path, error)
            return None
