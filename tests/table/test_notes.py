"""The table's log in words: every typed note of the core has its line, in either language."""

from __future__ import annotations

import pytest

from klik.core import game as g
from klik.table.record import notes
from klik.words import Language


def test_every_note_the_core_can_make_has_its_words() -> None:
    spoken = {g.NoteKind.IGNORED, g.NoteKind.ORDER}  # said by their reason or their order
    assert set(notes.KINDS) == set(g.NoteKind) - spoken
    assert set(notes.REASONS) | set(notes.LINES) == set(g.Why)
    assert not set(notes.REASONS) & set(notes.LINES)
    assert set(notes.ORDERS) == set(g.Action)


# Each row: a note as the core makes it, and the line in Polish and in English.
@pytest.mark.parametrize(
    ("note", "polish", "english"),
    [
        (
            g.Note(1.0, g.NoteKind.JUDGE_CALLED, "C"),
            "C wzywa sędziego: zegar stanie po ruchu",
            "C calls the judge: the clock stops after the move",
        ),
        (
            g.Note(1.0, g.NoteKind.IGNORED, "A", g.Why.NOT_YOUR_MOVE, {"mover": "B"}),
            "A: pominięto (ruch ma B)",
            "A: ignored (B is on the move)",
        ),
        (
            g.Note(1.0, g.NoteKind.IGNORED, None, g.Why.FINAL_ROUND_ALREADY),
            "pominięto (ostatnia runda już trwa)",
            "ignored (the final round is on already)",
        ),
        (
            g.Note(1.0, g.NoteKind.IGNORED, "D", g.Why.OVER_THE_TOP, {"top": 828}),
            "D: suma ponad 828 (wszystkie kostki) niemożliwa",
            "D: a sum over 828 (every tile) is impossible",
        ),
        (
            g.Note(1.0, g.NoteKind.LATE, "B", args={"window_s": 2.0}),
            "B: dobranie kary po czasie (2 s)",
            "B: penalty draw too late (2 s)",
        ),
        (
            g.Note(1.0, g.NoteKind.ORDER, None, order=g.Order(g.Action.PAUSE, 1.0, "judge")),
            "sędzia: pauza",
            "judge: pause",
        ),
        (
            g.Note(1.0, g.NoteKind.NOT_SEATED, None, args={"button": "E"}),
            "przycisk 'E' poza stołem",
            "button 'E' is not at this table",
        ),
    ],
)
def test_a_note_is_said_in_the_table_s_language(note: g.Note, polish: str, english: str) -> None:
    assert notes.said(note, Language.PL) == polish
    assert notes.said(note, Language.EN) == english
