"""What a free text a person reads may hold: a player's name, club or family, a tournament's
name, a reason the judge gives, who gave it (issue 36). The one rule for every such text, used
by the request bodies' type (``api.deps.FreeText``) and by the player lists (``roster``).

A text is shown on the projector, the seats' screens, the players' phones and the printed
sheets, beside others. So it may hold:

- no control or format character (Unicode's C categories) nor a line or paragraph separator:
  a bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069) or mark (U+200E,
  U+200F, U+061C) turns the text after it around, so "Kowalski" reads as another name and a
  list's columns run backwards; a zero-width one hides one name behind another;
- something visible: a letter or a digit, not only blanks, fillers that are letters to Unicode
  but draw nothing (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0) or the braille blank
  (U+2800), nor only punctuation;
- at most ``MAX_MARKS`` combining marks on one letter (after NFC, so "é" typed as "e" and an
  accent is one letter with none): Vietnamese needs two, a Devanagari cluster three; a letter
  under 99 accents smears over the lines above and below it.

Every script's letters are welcome: Arabic and Hebrew run right to left by themselves, with no
mark needed. Pure: no I/O, nothing of the web's.
"""

from __future__ import annotations

import unicodedata
from enum import Enum

from klik.words import N_

MAX_MARKS = 4  # combining marks on one letter
#: Letters to Unicode (category Lo) that draw nothing: they do not make a text visible.
FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
#: Not C but lines of their own: a name never breaks a line.
SEPARATORS = frozenset({"Zl", "Zp"})


class Fault(Enum):
    """What is wrong with a text; the value is the message (``klik.words``), said after the
    field's name ("body.reason: holds a control character")."""

    CONTROL = N_("holds a control character")
    INVISIBLE = N_("holds no visible letter or digit")
    MARKS = N_("a letter carries more than {most} combining marks")


def fault(text: str) -> Fault | None:
    """The first rule ``text`` breaks (the module's docstring), or None. An empty text or
    one of blanks breaks ``INVISIBLE``: a field that may be empty checks that first."""
    shown = unicodedata.normalize("NFC", text)
    if any(_hidden(unicodedata.category(ch)) for ch in shown):
        return Fault.CONTROL
    if not any(_visible(ch) for ch in shown):
        return Fault.INVISIBLE
    marks = 0
    for ch in shown:
        marks = marks + 1 if unicodedata.category(ch).startswith("M") else 0
        if marks > MAX_MARKS:
            return Fault.MARKS
    return None


def _hidden(category: str) -> bool:
    return category.startswith("C") or category in SEPARATORS


def _visible(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN" and ch not in FILLERS
