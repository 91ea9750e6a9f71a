"""The table's log in words: each of the core's typed notes as one line in a language.

The core (``klik.core.game``) says what happened as data, a note's kind, why a press was not
acted on and the names the line needs; this module says it in the catalogue's words
(``klik.words``). ``klik replay``'s record and the virtual table's log read these lines.
"""

from __future__ import annotations

from collections.abc import Mapping

from klik.core import game as g
from klik.words import N_, Language, catalogue

#: Each kind's line; ``{seat}`` is the note's seat.
KINDS: Mapping[g.NoteKind, str] = {
    g.NoteKind.STUCK: N_("button {seat} stuck: left out until it is let go"),
    g.NoteKind.REDEAL: N_("{seat} asks for a re-deal"),
    g.NoteKind.STARTER_DRAWN: N_("{seat} starts: the highest tile"),
    g.NoteKind.LATE: N_("{seat}: penalty draw too late ({window_s:g} s)"),
    g.NoteKind.UNDONE: N_("undone: the move goes back to {seat}"),
    g.NoteKind.STOPPED_FOR_JUDGE: N_("the clock stops: waiting for the judge"),
    g.NoteKind.JUDGE_CALLED: N_("{seat} calls the judge: the clock stops after the move"),
    g.NoteKind.CALL_WITHDRAWN: N_("{seat} withdraws the call for the judge"),
    g.NoteKind.NOT_SEATED: N_("button {button!r} is not at this table"),
}

#: Why a press or order was ignored: the reason, inside "ignored (…)".
REASONS: Mapping[g.Why, str] = {
    g.Why.START_BELONGS_TO: N_("the start is {starter}'s"),
    g.Why.DRAW_FIRST: N_("first: whoever has the highest tile holds their button"),
    g.Why.BEFORE_MOVE_START: N_("pressed before the move started"),
    g.Why.NOT_YOUR_MOVE: N_("{mover} is on the move"),
    g.Why.HANDING_OVER: N_("time is up: {mover} hands over"),
    g.Why.PAUSED: N_("paused"),
    g.Why.START_AFTER_DRAW: N_("{by}: start once it is known who starts"),
    g.Why.FINAL_ROUND_ALREADY: N_("the final round is on already"),
    g.Why.NOT_NOW: N_("{by}: {action} is not possible in state {phase}"),
}

#: The reasons said as a line of their own, not inside "ignored (…)".
LINES: Mapping[g.Why, str] = {
    g.Why.CALLED_ALREADY: N_("{seat}: the judge is called already by {by}"),
    g.Why.UNCLEAR_PRESS: N_("{seat}: neither a tap nor a hold: the sum stays"),
    g.Why.OVER_THE_TOP: N_("{seat}: a sum over {top} (every tile) is impossible"),
    g.Why.EMPTY_RACK: N_("{seat}: 0 not confirmed: a rack that did not go out holds a tile"),
}

#: What an order did, after who gave it.
ORDERS: Mapping[g.Action, str] = {
    g.Action.START: N_("start of the game"),
    g.Action.PAUSE: N_("pause"),
    g.Action.RESUME: N_("resume"),
    g.Action.RESTART: N_("the move again, full time"),
    g.Action.UNDO: N_("the hand-over undone"),
    g.Action.ROUND_OVER: N_("round time over: the final round after this move"),
    g.Action.END: N_("end of the game"),
}


def said(note: g.Note, language: Language) -> str:
    """``note`` as one line of the table's log in ``language``."""
    say = catalogue(language)
    args = {"seat": note.seat or "", **note.args}
    if note.kind is g.NoteKind.ORDER:
        assert note.order is not None
        by = note.order.by
        who = say.pgettext("log", "judge") if by == "judge" else by
        return say.gettext("{who}: {what}").format(
            who=who, what=say.gettext(ORDERS[note.order.action])
        )
    if note.why is not None and note.why in LINES:
        return say.gettext(LINES[note.why]).format(**args)
    if note.why is not None:
        reason = say.gettext(REASONS[note.why]).format(**args)
        if note.seat:
            return say.gettext("{seat}: ignored ({reason})").format(seat=note.seat, reason=reason)
        return say.gettext("ignored ({reason})").format(reason=reason)
    return say.gettext(KINDS[note.kind]).format(**args)
