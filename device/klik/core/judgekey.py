"""What the judge key's gesture means, in the game's phase: the table's one decision table for it.

A tap (let go before ``long_hold_s``) does the obvious next thing: start a game that is ready,
pause a running one, resume a paused one, begin the next game once one is done. A hold of
``long_hold_s`` (3 s) or more takes the last hand-over back (undo) — in every phase but one:

* **Re-pair** is a hold of ``REPAIR_HOLD_S`` (5 s) or more while the game is *ready*: no game
  under way, no hand-over to take back, nobody's clock running. During a game, and after it
  (``done``, where undo still has work), any hold is undo however long it lasts, so a judge
  who holds the key too long under pressure gets the undo they meant, never a re-pair. To
  re-pair a table after a game, the judge taps (the next game is ready) and holds 5 s.

The gesture is known only at the release (``klik.core.gestures.judge_edge``), and re-pairing
itself is harmless: the table asks the hub to join in the background and keeps its pairing
until the judge's accept replaces it (``klik.table.service.daemon``).

Pure: no clock, no I/O; the phase and the gesture's times are passed in.
"""

from __future__ import annotations

from enum import Enum

from klik.core.game import Phase
from klik.core.gestures import JudgeGesture, JudgeHold

REPAIR_HOLD_S = 5.0  # seconds the judge key is held, on a ready game, to re-pair the table


class JudgeMeaning(Enum):
    START = "start"  # a ready game: the starter's clock runs
    PAUSE = "pause"  # a running game (a move, a timeout, scoring): stop the clock
    RESUME = "resume"  # a paused game
    NEXT_GAME = "next_game"  # a finished game: the next one, ready
    UNDO = "undo"  # take the last hand-over back
    REPAIR = "repair"  # ask the hub to join again, keeping the pairing until accepted


def meaning(gesture: JudgeGesture, phase: Phase) -> JudgeMeaning:
    """What ``gesture`` means while the game is in ``phase``."""
    if isinstance(gesture, JudgeHold):
        held = gesture.at - gesture.pressed_at
        if phase is Phase.READY and held >= REPAIR_HOLD_S:
            return JudgeMeaning.REPAIR
        return JudgeMeaning.UNDO
    if phase is Phase.DONE:
        return JudgeMeaning.NEXT_GAME
    if phase is Phase.READY:
        return JudgeMeaning.START
    if phase is Phase.PAUSED:
        return JudgeMeaning.RESUME
    return JudgeMeaning.PAUSE
