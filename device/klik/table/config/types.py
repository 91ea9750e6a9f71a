"""What a config key may be, and how a message shows a value: pure, no I/O.

Every number and text key of the schema (``schema.py``) carries one of these next to it:
a number ``Range`` (``klik.core.limits``: the game's and the buttons' ranges are the
engine's own), a ``Text``, a ``OneOf``, a ``Pattern``, a ``Url`` or the pairing key's
``Secret``. Each says whether it ``allows`` a value, how a message ``shows`` one, and in
``str()`` what is allowed, so every refusal has one shape::

    table.toml: [buttons] storm_s = 0.0: allowed are 0.05 to 1 s

A message shows a value as TOML writes it, on one line (``as_toml``); the ``Secret`` never
shows it at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from klik import validate
from klik.core.limits import Range
from klik.errors import KlikError
from klik.link.protocol import KEY_HEX
from klik.rules import RULE_SETS
from klik.validate import Kind, kind_words


class ConfigError(KlikError, ValueError):
    """The table's config cannot be used; ``str()`` names the file, the key and what is allowed."""


class Allowed(validate.Allowed, Protocol):
    """What a key may be: a number ``Range``, a ``Text``, a ``OneOf``, a ``Pattern`` ...:
    what ``klik.validate`` checks, and how a message shows a value of the key."""

    def shown(self, value: Any) -> str: ...


@dataclass(frozen=True, slots=True)
class SeatList:
    """A list of distinct seats of ``seats`` (``[table] large``, ``[hardware] vibration``)."""

    seats: tuple[str, ...]

    def allows(self, value: object) -> bool:
        return (
            isinstance(value, list)
            and all(isinstance(s, str) and s in self.seats for s in value)
            and len(set(value)) == len(value)
        )

    def shown(self, value: Any) -> str:
        return as_toml(value)

    def __str__(self) -> str:
        return "a list of distinct seats of " + ", ".join(map(as_toml, self.seats))


@dataclass(frozen=True, slots=True)
class Text:
    """``lo`` to ``hi`` printable characters (no control characters), not all spaces."""

    lo: int
    hi: int
    spaces: bool = True  # False: a host name, where a space is always a typo

    def allows(self, value: str) -> bool:
        return (
            self.lo <= len(value) <= self.hi
            and value.isprintable()
            and bool(value.strip())
            and (self.spaces or " " not in value)
        )

    def shown(self, value: str) -> str:
        return short(value)

    def __str__(self) -> str:
        rule = "not all spaces" if self.spaces else "no spaces"
        return f"{self.lo} to {self.hi} printable characters, {rule}"


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of a few numbers, e.g. a panel's half turns."""

    values: tuple[int, ...]
    note: str = ""

    def allows(self, value: int) -> bool:
        return value in self.values

    def shown(self, value: int) -> str:
        return repr(value)

    def __str__(self) -> str:
        *rest, last = (str(v) for v in self.values)
        return f"{', '.join(rest)} and {last}" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True, slots=True)
class Pattern:
    """Text matching ``regex`` whole, or ``""`` when ``empty`` says what leaving it out means."""

    regex: re.Pattern[str]
    rule: str  # what the pattern allows, in words
    empty: str = ""  # what "" stands for ("not paired"); "" itself is allowed only if this is set

    def allows(self, value: str) -> bool:
        # fullmatch, never match: "$" would let a trailing newline through.
        return (bool(self.empty) and value == "") or self.regex.fullmatch(value) is not None

    def shown(self, value: str) -> str:
        return short(value)

    def __str__(self) -> str:
        return f'"" ({self.empty}) or {self.rule}' if self.empty else self.rule


@dataclass(frozen=True, slots=True)
class Url:
    """``""`` (not set) or an ``http://`` or ``https://`` address with a host: the hub's base."""

    def allows(self, value: str) -> bool:
        if value == "":
            return True
        if len(value) > 2048 or not value.isprintable() or " " in value:
            return False
        if not value.startswith(("http://", "https://")):
            return False
        try:
            parts = urlsplit(value)
            _ = parts.port  # a port that is no number or out of range raises here
        except ValueError:
            return False
        # The link adds /api/v1/... to this base: a query or a fragment would end up inside it.
        return bool(parts.hostname) and not parts.query and not parts.fragment

    def shown(self, value: str) -> str:
        return short(value)

    def __str__(self) -> str:
        return '"" or an address starting with http:// or https://, e.g. "http://10.0.0.5:8000"'


HIDDEN = "<hidden>"  # what `klik config` prints in place of a secret


@dataclass(frozen=True, slots=True)
class Secret:
    """The pairing key: ``""`` (not paired) or 64 lower-case hex digits (256 bits).

    Its value is never shown: not in a message (the schema asks ``why`` instead), not by
    ``klik config`` (``HIDDEN``), not in the section's ``repr``.
    """

    def allows(self, value: str) -> bool:
        return value == "" or KEY_HEX.fullmatch(value) is not None

    def shown(self, value: Any) -> str:
        return as_toml(HIDDEN)

    def why(self, value: Any) -> str:
        """What is wrong with ``value``, in words that give nothing of it away but its length."""
        if not isinstance(value, str):
            return f"must be text, got {kind(value)}"
        if value == HIDDEN:
            return (
                f'"{HIDDEN}" is what klik config prints in place of the key; '
                "put the key from pairing here (run klik pair)"
            )
        if len(value) == 64:
            return "must be 64 lower-case hex digits (got 64 characters, not all 0-9 or a-f)"
        return f"must be 64 lower-case hex digits (got {len(value)} characters)"

    def __str__(self) -> str:
        return '"" (not paired) or 64 lower-case hex digits'


@dataclass(frozen=True, slots=True)
class RuleSetName:
    """A rule set Klik knows by name (``klik.rules``), or the path of a rule set file."""

    def allows(self, value: str) -> bool:
        if value in RULE_SETS:
            return True
        return value.startswith("/") and value.endswith(".toml") and value.isprintable()

    def shown(self, value: str) -> str:
        return short(value)

    def __str__(self) -> str:
        return f"{', '.join(RULE_SETS)}, or a rule set file's full path ending .toml"


GPIO = Range(0, 27, label="GPIO ")  # BCM numbers of the 40-pin header
PORT = Range(1, 65535)  # TCP
PLAYER = Text(1, 24)  # a player's name, as the seat screens show it


# --- how a message shows a value ---------------------------------------------------------


def short(value: str) -> str:
    """A text as a message shows it, on one line: a 5,000-character one by its start and length."""
    if len(value) > 40:
        return f"{as_toml(value[:20] + '…')} ({len(value)} characters)"
    return as_toml(value)


#: What a value read from TOML is, in a config's words (a date by its Python name).
KINDS = {
    Kind.BOOLEAN: "true/false",
    Kind.STRING: "text",
    Kind.INTEGER: "a whole number",
    Kind.FLOAT: "a number",
    Kind.TABLE: "a section",
    Kind.ARRAY: "a list",
}


def kind(value: Any) -> str:
    """What a value read from TOML is, in words: ``text``, ``a whole number``, ``a list`` ..."""
    return kind_words(value, KINDS)


def as_toml(value: Any) -> str:
    """A value as a message shows it: as TOML writes it, with every character that does not
    print escaped (a tab too), so a line that shows a bad value stays one printable line.

    Only messages use this; ``klik config`` writes its TOML with tomli-w.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + "".join(_ESCAPES.get(c) or _escaped(c) for c in value) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(as_toml, value)) + "]"
    return repr(value)


_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _escaped(char: str) -> str:
    if char.isprintable():
        return char
    return f"\\u{ord(char):04X}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08X}"
