"""The one validator of a document a person wrote, key by key: pure, no I/O, no clock.

Six readers take a document someone wrote (or a file the table wrote and now reads back
trusting nothing): the table's config (``klik.table.config``), the hub's tournament formats
(``klik_hub.tournament.formats``), score sheets (``klik.scorefile``), game scripts
(``klik.script``), a round's lineup (``klik.link.protocol.lineup``) and the journal
(``klik.table.game.journal``). Each asks the same questions, here:

- ``known``: is every key one the reader knows? If not, the one "did you mean" (``klik.suggest``);
- ``required``: is a key the reader needs there?
- ``check``: is a value allowed? Of the right kind (``Is``: ``TRUE_FALSE``, ``WHOLE``,
  ``NUMBER``, ``TEXT``, ``OBJECT``), a number in its range (``Number``), text of a length
  (``Text``), one of a few words (``Choice``, with a "did you mean" too), or anything else
  with ``allows`` and words for what it allows (the config's ``Range``, ``Pattern``, ``Url``);
- ``take``: ``required`` and then ``check``; ``refused``: the refusal of a rule of the
  reader's own.

A refusal is the reader's own error, one line: where, what, and what is allowed. Each reader
says it in its own words (``[game] warn_s`` in a config, ``seats.A.rack`` on a score sheet,
``header game_no`` in a journal), so each has a ``Voice``: its error and a sentence for each
fault, ``str.format`` templates over these fields::

    {where}   the document, e.g. its file name (the voice's own ``where``)
    {at}      the key's path in it: ``path`` and the key joined by the voice's ``joiner``
    {key}     the key alone (``known`` and ``required`` only)
    {value}   the value as the voice shows it (``shown``: ``repr``, JSON, TOML)
    {got}     the value's kind in the voice's words (``kinds``): "a list", "true/false"
    {allowed} what is allowed, in words
    {hint}    ``near`` around "did you mean X?", or ``far`` around the allowed words

Only the templates, never a value, are formatted: a key or value with braces in it is safe.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from klik.errors import KlikError
from klik.suggest import did_you_mean


class Kind(Enum):
    """What a value read from JSON or TOML is, by the formats' own names."""

    BOOLEAN = "boolean"
    INTEGER = "integer"
    FLOAT = "float"
    STRING = "string"
    TABLE = "table"  # a JSON object, a TOML table
    ARRAY = "array"
    NULL = "null"
    OTHER = "other"  # a TOML date or time; nothing JSON has

    @classmethod
    def of(cls, value: object) -> Kind:
        # bool first: True is an int to Python, never a number to a person.
        if isinstance(value, bool):
            return cls.BOOLEAN
        if isinstance(value, int):
            return cls.INTEGER
        if isinstance(value, float):
            return cls.FLOAT
        if isinstance(value, str):
            return cls.STRING
        if isinstance(value, Mapping):
            return cls.TABLE
        if isinstance(value, list):
            return cls.ARRAY
        return cls.NULL if value is None else cls.OTHER


def kind_words(value: object, words: Mapping[Kind, str]) -> str:
    """``value``'s kind in ``words``; a kind they leave out by its Python type's name."""
    return words.get(Kind.of(value)) or type(value).__name__


class Allowed(Protocol):
    """What a value may be: ``allows`` it or not, and ``str()`` says what is allowed."""

    def allows(self, value: Any) -> bool: ...


@dataclass(frozen=True, slots=True)
class Is:
    """A value of one of ``kinds``, whatever it holds."""

    kinds: frozenset[Kind]
    words: str

    def allows(self, value: object) -> bool:
        return Kind.of(value) in self.kinds

    def __str__(self) -> str:
        return self.words


TRUE_FALSE = Is(frozenset({Kind.BOOLEAN}), "true or false")
WHOLE = Is(frozenset({Kind.INTEGER}), "a whole number")
NUMBER = Is(frozenset({Kind.INTEGER, Kind.FLOAT}), "a number")  # a whole number too
TEXT = Is(frozenset({Kind.STRING}), "text")
OBJECT = Is(frozenset({Kind.TABLE}), "an object")


@dataclass(frozen=True, slots=True)
class Number:
    """A number from ``lo`` to ``hi``, both allowed: whole only if ``whole``; never true or
    false, never NaN (it fails every comparison)."""

    lo: float
    hi: float
    whole: bool = True
    noun: str = ""  # "a number of seconds"; by default "a whole number" or "a number"
    note: str = ""  # said after the range: " (every tile of the set)"

    def allows(self, value: object) -> bool:
        kinds = WHOLE if self.whole else NUMBER
        # (The isinstance only tells the type checker what ``kinds`` already made sure of.)
        if not kinds.allows(value) or not isinstance(value, int | float):
            return False
        return self.lo <= value <= self.hi

    def __str__(self) -> str:
        noun = self.noun or ("a whole number" if self.whole else "a number")
        return f"{noun} from {_end(self.lo)} to {_end(self.hi)}{self.note}"


def _end(value: float) -> str:
    # A whole bound as written (1000000000), any other as :g writes it (1e+09).
    return str(value) if isinstance(value, int) else f"{value:g}"


@dataclass(frozen=True, slots=True)
class Text:
    """Text of ``lo`` to ``hi`` characters (``hi`` None: any length); not all spaces unless
    ``blank``."""

    lo: int = 0
    hi: int | None = None
    blank: bool = True

    def allows(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        long_enough = self.lo <= len(value) and (self.hi is None or len(value) <= self.hi)
        return long_enough and (self.blank or bool(value.strip()))

    def __str__(self) -> str:
        if self.hi is None:
            size = f" of at least {self.lo} characters" if self.lo else ""
        else:
            size = f" of {self.lo} to {self.hi} characters" if self.lo else ""
            size = size or f" of at most {self.hi} characters"
        return f"text{size}" + ("" if self.blank else ", not all spaces")


@dataclass(frozen=True, slots=True)
class Choice:
    """One of a few ``words``, exactly; ``str()`` lists them as ``show`` writes each."""

    words: Collection[str]
    show: Callable[[str], str] = str

    def allows(self, value: object) -> bool:
        # A list or object is never one of the words (and never asked: it is unhashable).
        return isinstance(value, str) and value in self.words

    def __str__(self) -> str:
        return ", ".join(map(self.show, self.words))


@dataclass(frozen=True, slots=True)
class Each:
    """A list whose every item ``of`` allows (an empty one too)."""

    of: Allowed

    def allows(self, value: object) -> bool:
        return isinstance(value, list) and all(map(self.of.allows, value))

    def __str__(self) -> str:
        return f"a list of {self.of}"


class _Absent:
    """No value: a missing key's template has none to show."""


ABSENT: Any = _Absent()


@dataclass(frozen=True, slots=True)
class Voice:
    """How one reader says what it refuses: its error and a template for each fault.

    ``error(at, line)`` makes the reader's error from where the fault is (``at``) and the
    filled-in template: ``ProtocolError`` itself (its templates leave ``{at}`` to it), or a
    function such as ``lambda at, line: ConfigError(line)``.
    """

    error: Callable[[str, str], KlikError]
    wrong: str = "{at} = {value}: allowed are {allowed}"  # a value not allowed
    unknown: str = "{at}: unknown{hint}; allowed: {allowed}"  # a key the reader does not know
    missing: str = "{at}: missing"  # a key the reader needs is not there
    kind: str = ""  # a value of the wrong kind (``Is``); by default ``wrong``'s
    choice: str = ""  # a word not among the allowed (``Choice``); by default ``wrong``'s
    where: str = ""  # the document, for ``{where}``: a file's name
    joiner: str = "."  # a key's path and the key: "seats.A" "." "rack", "[game]" " " "warn_s"
    near: str = " ({})"  # {hint} when an allowed word is close: "did you mean X?" goes in {}
    far: str = ""  # {hint} when none is: the allowed words go in {}
    word: Callable[[str], str] = str  # how "did you mean" writes the word: repr quotes it
    shown: Callable[[Any], str] = repr  # how a value is shown
    kinds: Mapping[Kind, str] = field(default_factory=dict)  # {got}'s words

    def at(self, path: str, key: str) -> str:
        """Where ``key`` of the table at ``path`` is, as this voice says it."""
        return f"{path}{self.joiner}{key}" if path else key

    def hint(self, word: str, allowed: Iterable[str]) -> str:
        """``{hint}``: the allowed word close to ``word`` (``near``), or else the allowed
        words (``far``)."""
        allowed = list(allowed)
        close = did_you_mean(word, allowed, self.word)
        return self.near.format(close) if close else self.far.format(", ".join(allowed))

    def refuse(
        self,
        says: str,
        at: str,
        *,
        key: str = "",
        value: Any = ABSENT,
        allowed: object = "",
        hint: str = "",
        shown: Callable[[Any], str] | None = None,
    ) -> KlikError:
        """The reader's error with ``says`` filled in (see the module's fields); the caller
        raises it."""
        show = shown or self.shown
        line = says.format(
            where=self.where,
            at=at,
            key=key,
            value="" if value is ABSENT else show(value),
            got="" if value is ABSENT else kind_words(value, self.kinds),
            allowed=allowed,
            hint=hint,
        )
        return self.error(at, line)


def known(
    keys: Iterable[str],
    allowed: Sequence[str],
    voice: Voice,
    path: str = "",
    *,
    says: str = "",
) -> None:
    """Refuse the first of ``keys`` (in their order) that is not ``allowed``."""
    for key in keys:
        if key not in allowed:
            raise voice.refuse(
                says or voice.unknown,
                voice.at(path, key),
                key=key,
                value=key,
                allowed=", ".join(allowed),
                hint=voice.hint(key, allowed),
            )


def required(
    table: Mapping[str, Any], key: str, voice: Voice, path: str = "", *, allowed: object = ""
) -> Any:
    """``table[key]``; refused as missing (``allowed`` says what it may be) if it is not there."""
    if key not in table:
        raise voice.refuse(voice.missing, voice.at(path, key), key=key, allowed=allowed)
    return table[key]


def check(
    value: Any,
    allowed: Allowed,
    voice: Voice,
    at: str,
    *,
    words: object = None,
    says: str = "",
    shown: Callable[[Any], str] | None = None,
) -> Any:
    """``value`` if ``allowed`` allows it (its type is then the caller's to say); refused
    otherwise, by the voice's template for the fault (``kind`` for an ``Is``, ``choice`` for
    a ``Choice``, else ``wrong``) or by ``says``. ``words`` say what is allowed instead of
    ``str(allowed)``; ``shown`` shows the value instead of the voice."""
    if allowed.allows(value):
        return value
    if not says:
        if isinstance(allowed, Is):
            says = voice.kind or voice.wrong
        elif isinstance(allowed, Choice):
            says = voice.choice or voice.wrong
        else:
            says = voice.wrong
    hint = ""
    if isinstance(allowed, Choice) and isinstance(value, str):
        hint = voice.hint(value, allowed.words)
    raise voice.refuse(
        says,
        at,
        value=value,
        allowed=allowed if words is None else words,
        hint=hint,
        shown=shown,
    )


def refused(
    table: Mapping[str, Any], key: str, voice: Voice, path: str = "", *, allowed: object
) -> KlikError:
    """The voice's ``wrong`` for ``table[key]``, to raise where a rule has no ``Allowed`` of
    its own (a list whose items must differ, two keys that must agree)."""
    return voice.refuse(voice.wrong, voice.at(path, key), value=table[key], allowed=allowed)


def take(
    table: Mapping[str, Any],
    key: str,
    allowed: Allowed,
    voice: Voice,
    path: str = "",
    *,
    words: object = None,
    says: str = "",
    shown: Callable[[Any], str] | None = None,
) -> Any:
    """``table[key]``, ``required`` and then ``check``ed: a missing key says ``words`` too."""
    value = required(table, key, voice, path, allowed=allowed if words is None else words)
    return check(value, allowed, voice, voice.at(path, key), words=words, says=says, shown=shown)
