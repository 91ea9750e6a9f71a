"""Run a game script through the real table on a virtual clock and keep its record.

The clock jumps from one moment to the next (an event, or whatever the table says falls due),
so a whole game replays in milliseconds and never sleeps.
"""

from __future__ import annotations

from typing import Any

from klik.core import game as g
from klik.core import tabletop as t
from klik.core.scoring import Result
from klik.script import Script
from klik.table.record import notes
from klik.table.record.driver import Driver
from klik.words import DEFAULT, Language

Json = dict[str, Any]


def run(script: Script) -> Driver:
    """``klik replay``: the script's events through a table of its settings, to its end."""
    driver = Driver(t.new_tabletop(script.settings))
    for event in script.events:
        driver.apply(event)
    driver.advance(script.end)
    return driver


def record(driver: Driver, language: Language = DEFAULT) -> Json:
    """The game record ``klik replay`` prints; times in seconds, rounded to the millisecond,
    the log's lines in ``language`` (``klik.table.record.notes``).

    Also the virtual table's snapshot (``klik.table.screens.presenter``), from its live driver."""
    game, now = driver.tabletop.game, driver.now
    left = game.time_left(now)
    started = game.moves[0].start if game.moves else game.move_start
    return {
        "state": game.phase.value,
        "starter": game.settings.starter,
        "started_at": None if started is None else _ms(started),
        "mover": game.mover,
        "time_left_s": None if left is None else _ms(left),
        "draw_tiles_left": game.pile.tiles_left,
        "final_round": game.final_round,
        "opened": sorted(game.opened),
        "moves": [_move(m) for m in game.moves],
        "result": None if game.result is None else result_json(game.result),
        "ended_by": None if game.exhausted_by is None else game.exhausted_by.value,
        "paused_by": game.paused_by,
        "called_by": game.called_by,  # a seat called the judge: the clock stops after the move
        "racks": dict(game.racks) if game.phase is g.Phase.SCORING else None,
        "log": [_effect(e, language) for e in driver.effects if not isinstance(e, g.ResultReady)],
        "now": _ms(now),
    }


def result_json(result: Result) -> Json:
    return {
        "ending": result.ending.value,
        "winners": list(result.winners),
        "rack": dict(result.rack),
        "small": dict(result.small),
        "big": dict(result.big),
        "places": dict(result.places),
    }


def _move(move: g.Move) -> Json:
    return {
        "seat": move.seat,
        "start": _ms(move.start),
        "end": _ms(move.end),
        "ended_by": move.ended_by.value,
        "drew": move.drew,
    }


def _effect(effect: g.Effect, language: Language) -> Json:
    if isinstance(effect, g.Sound):
        return {"at": _ms(effect.at), "sound": effect.kind.value}
    assert isinstance(effect, g.Note)
    note: Json = {
        "at": _ms(effect.at),
        "note": effect.kind.value,
        "seat": effect.seat,
        "text": notes.said(effect, language),
    }
    if effect.order is not None:
        note |= {"order": effect.order.action.value, "by": effect.order.by}
    return note


def _ms(seconds: float) -> float:
    return round(seconds, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
