"""Pairing at the table over a serial link: the join exchange's frames (pure, no I/O).

The three steps of ``protocol.pairing`` (``docs/protocol.md``, "Pairing at the table") go
over the serial channel as plain frames (a body, a space, its CRC-32 in 8 hex digits, a
newline: ``frame``), not as envelopes: the table has no key yet, so nothing is signed, as
nothing is over HTTP. A body is a word and its fields, one space apart, ASCII:

======================  =======================================  ==========================
step                    table → hub                              hub → table
======================  =======================================  ==========================
1 hello                 ``join T``                               ``join-commit TAG ID H C``
1 hello, paired before  ``join-again T D M``                     ``join-commit TAG ID H C``
2 nonces                ``join-nonce ID Nt``                     ``join-reveal ID Nh``
3 asked every ``poll``  ``join-ask ID``                          ``join-asking ID``, or
                                                                 ``join-accepted ID N S``
any step, refused                                                ``join-ended TAG WHY``
======================  =======================================  ==========================

``T``, ``H``, ``C``, ``M``: 64 lower-case hex digits (``M``: the re-pair proof, ``D`` the
old pairing's device id: ``docs/protocol.md``, "The re-pair proof"); ``Nt``, ``Nh``: 32;
``ID``: the request's 16; ``TAG``: 16 hex digits naming the request on a shared channel
(the first 16 of ``T`` before the hub has given an id, the ``ID`` after); ``N``: the
table's number, 1 to 999; ``S``: the sealed answer in hex; ``WHY``: a ``Why``. A request's
body is at most ``MAX_REQUEST`` bytes, an answer's ``MAX_ANSWER``; both are checked before
anything else is read.

Who calls it: the table's ``klik.link.serial_join`` and the hub's ``klik_hub.serial.hub``.
``parse_request`` and ``parse_answer`` raise ``JoinFrameError`` (a ``ProtocolError``) naming
what is wrong; ``word_of`` tells a join frame from the channel's other traffic.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from dataclasses import astuple, dataclass
from enum import Enum
from typing import Any

from klik.link.protocol.envelope import DEVICE, ProtocolError
from klik.link.protocol.pairing import (
    HEX_KEY,
    HEX_NONCE,
    MAX_SEALED_HEX,
    REQUEST_ID,
)

MAX_REQUEST = 256  # bytes of a table's join frame body; the longest, ``join-again``, is 205
MAX_ANSWER = 1024  # bytes of a hub's; ``join-accepted`` with a TLS pin is some 500
TAG_HEX = 16
TAG = re.compile(r"[0-9a-f]{16}")
TABLE = re.compile(r"[1-9][0-9]{0,2}")
SEALED = re.compile(r"(?:[0-9a-f]{2})+")
_WORD = re.compile(rb"join(?:-[a-z]+)?")


class JoinFrameError(ProtocolError):
    """A join frame that is not one: too long, an unknown word, a field missing or wrong."""


class Why(Enum):
    """Why the hub ended a request (``join-ended``): the table asks again with a new key."""

    FULL = "full"  # too many tables are asking at once
    UNKNOWN = "unknown"  # no such request, or it expired
    STATE = "state"  # not at the step asked for (another nonce for the same request)
    REFUSED = "refused"  # the judge refused it


# --- table → hub ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Step 1: the table's fresh X25519 public key."""

    table_key: str

    @property
    def tag(self) -> str:
        return self.table_key[:TAG_HEX]


@dataclass(frozen=True, slots=True)
class Again:
    """Step 1 of a table paired before: its fresh key and the proof of its old pairing."""

    table_key: str
    device_id: str
    mac: str

    @property
    def tag(self) -> str:
        return self.table_key[:TAG_HEX]


@dataclass(frozen=True, slots=True)
class TableNonce:
    """Step 2: the table's nonce; the hub answers with its own (``Reveal``)."""

    request_id: str
    nonce: str

    @property
    def tag(self) -> str:
        return self.request_id


@dataclass(frozen=True, slots=True)
class Ask:
    """Step 3, again every poll: has the judge answered?"""

    request_id: str

    @property
    def tag(self) -> str:
        return self.request_id


# --- hub → table ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Commit:
    """The answer to ``Hello``: the request's id, the hub's key and its commitment."""

    tag: str  # the first 16 hex digits of the table's key
    request_id: str
    hub_key: str
    commit: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """The answer to ``TableNonce``: the hub's nonce, which the table checks."""

    request_id: str
    nonce: str

    @property
    def tag(self) -> str:
        return self.request_id


@dataclass(frozen=True, slots=True)
class Asking:
    """The answer to ``Ask`` while the judge has not answered."""

    request_id: str

    @property
    def tag(self) -> str:
        return self.request_id


@dataclass(frozen=True, slots=True)
class Accepted:
    """The answer to ``Ask`` once the judge accepted: the table's number, the sealed answer."""

    request_id: str
    table: int
    sealed: str

    @property
    def tag(self) -> str:
        return self.request_id


@dataclass(frozen=True, slots=True)
class Ended:
    """The answer to any step that the hub refuses: the request is over."""

    tag: str
    why: Why


Request = Hello | Again | TableNonce | Ask
Answer = Commit | Reveal | Asking | Accepted | Ended
Message = Request | Answer

_Field = tuple[re.Pattern[str], Callable[[str], Any]]
_HEX = (HEX_KEY, str)
#: Each word: its message and its fields, in order, with the pattern each must match whole
#: and what makes the value of it.
_SHAPES: dict[str, tuple[type, tuple[_Field, ...]]] = {
    "join": (Hello, (_HEX,)),
    "join-again": (Again, (_HEX, (DEVICE, str), _HEX)),
    "join-nonce": (TableNonce, ((REQUEST_ID, str), (HEX_NONCE, str))),
    "join-ask": (Ask, ((REQUEST_ID, str),)),
    "join-commit": (Commit, ((TAG, str), (REQUEST_ID, str), _HEX, _HEX)),
    "join-reveal": (Reveal, ((REQUEST_ID, str), (HEX_NONCE, str))),
    "join-asking": (Asking, ((REQUEST_ID, str),)),
    "join-accepted": (Accepted, ((REQUEST_ID, str), (TABLE, int), (SEALED, str))),
    "join-ended": (Ended, ((TAG, str), (re.compile("|".join(w.value for w in Why)), Why))),
}
_WORDS = {kind: word for word, (kind, _) in _SHAPES.items()}
REQUEST_WORDS = frozenset({"join", "join-again", "join-nonce", "join-ask"})
ANSWER_WORDS = frozenset(_SHAPES) - REQUEST_WORDS


def word_of(body: bytes) -> str | None:
    """The word of a join frame's body (``join-ask``), or None for any other frame (an
    envelope, a poll); it says nothing of the rest of the body."""
    match = _WORD.match(body)
    if match is None or (match.end() < len(body) and body[match.end()] != ord(" ")):
        return None
    return match.group().decode("ascii")


def body_of(message: Message) -> bytes:
    """A message's frame body: its word and its fields."""
    values = (v.value if isinstance(v, Why) else str(v) for v in astuple(message))
    return " ".join((_WORDS[type(message)], *values)).encode("ascii")


def frame(message: Message) -> bytes:
    """A message's frame: its body, a space, the body's CRC-32 in 8 hex digits, a newline."""
    body = body_of(message)
    return body + b" " + f"{zlib.crc32(body):08x}".encode("ascii") + b"\n"


def parse_request(body: bytes) -> Request:
    """A table's join frame body (the hub's side); JoinFrameError for anything else."""
    message = _parse(body, MAX_REQUEST, REQUEST_WORDS, "a table's join frame")
    assert isinstance(message, Hello | Again | TableNonce | Ask)
    return message


def parse_answer(body: bytes) -> Answer:
    """A hub's join frame body (the table's side); JoinFrameError for anything else."""
    message = _parse(body, MAX_ANSWER, ANSWER_WORDS, "the hub's join frame")
    assert isinstance(message, Commit | Reveal | Asking | Accepted | Ended)
    if isinstance(message, Accepted) and len(message.sealed) > MAX_SEALED_HEX:
        raise JoinFrameError("join-accepted", f"the sealed answer is over {MAX_SEALED_HEX} digits")
    return message


def _parse(body: bytes, limit: int, words: frozenset[str], what: str) -> Message:
    if len(body) > limit:  # before anything is read of it
        raise JoinFrameError("(join)", f"{what} of {len(body)} bytes; at most {limit}")
    word = word_of(body)
    if word is None or word not in words:
        shown = body[:16].decode("ascii", "replace")
        raise JoinFrameError("(join)", f"{what} with an unknown word ({shown!r})")
    kind, shape = _SHAPES[word]
    try:
        fields = body.decode("ascii").split(" ")[1:]
    except UnicodeDecodeError:
        raise JoinFrameError(word, "not ASCII") from None
    if len(fields) != len(shape):
        raise JoinFrameError(word, f"{len(fields)} fields; it has {len(shape)}")
    values = []
    for place, (text, (pattern, make)) in enumerate(zip(fields, shape, strict=True), 1):
        if not pattern.fullmatch(text):
            raise JoinFrameError(word, f"field {place} ({text[:16]!r}) is not {pattern.pattern}")
        values.append(make(text))
    message: Message = kind(*values)
    return message
