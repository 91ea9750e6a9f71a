"""Canonical JSON, signed envelopes, serial frames and receipts (``docs/protocol.md``).

- **Canonical JSON** is ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
  ensure_ascii=True)``. Signed objects hold no floats (times are whole milliseconds), so
  every implementation writes the same bytes for the same object; no text holds NUL or a
  lone surrogate, and arrays and objects nest at most ``MAX_DEPTH`` deep (see ``canonical``).
- **Envelope**: ``{"v": 1, "type": T, "device": D, "seq": N, "body": {...}, "mac": HEX}``,
  where ``mac`` is HMAC-SHA256 over the canonical JSON of the envelope without ``mac``,
  keyed with the bytes the pairing key's 64 hex digits stand for (32 bytes).
- **Serial frame**: the envelope's canonical JSON, a space, the CRC-32 of that JSON as 8
  lower-case hex digits, and ``\\n``. At most ``MAX_FRAME`` bytes with the newline.
- **Receipt**: five characters of an alphabet without 0, O, 1 and I, taken from the
  SHA-256 of the stored record; the screens show it as ``R-XXXXX``, short enough for a
  player to read it off a screen to a judge.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from klik.errors import KlikError
from klik.link.protocol.words import TYPES
from klik.words import N_

VERSION = 1


MAX_FRAME = 2048  # bytes of one serial frame, newline included
MAX_BODY = 16 * 1024  # bytes of one HTTP envelope
KEY_HEX = re.compile(r"^[0-9a-f]{64}$")
DEVICE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
RECEIPT_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # 32 signs: no 0/O, no 1/I
RECEIPT_LENGTH = 5
# Arrays and objects nested in a body or a command's args, the outermost counted: a lineup
# needs 3. Far below any parser's recursion limit, so nesting is refused before a parser (or
# a walk over the parsed object) could blow its stack.
MAX_DEPTH = 16
# An envelope holds its body one level down; an ack's body holds command args three more
# (``commands``, a command, ``args``).
ENVELOPE_DEPTH = MAX_DEPTH + 4
# Text no database of the hub can keep: PostgreSQL refuses NUL in text, and a lone surrogate
# (JSON's "\ud800") has no UTF-8 at all. Both are refused wherever text comes in.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
NOT_STORABLE = N_("must not hold NUL (U+0000) or a lone surrogate (U+D800 to U+DFFF)")
KEY_NOT_STORABLE = N_("a key must not hold NUL (U+0000) or a lone surrogate (U+D800 to U+DFFF)")
NO_FLOATS = N_("floats are not allowed in signed objects")
TOO_DEEP = N_("arrays and objects nest deeper than {levels} levels")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
# In JSON written or read as ASCII, NUL and surrogates (a lone one, or half of a pair) can
# only be the escapes \u0000 and \ud800 to \udfff. A match only means "walk it to be sure"
# (an escaped backslash before "u0000" matches too), so the pattern stays simple and fast.
_SUSPECT = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
# Read from bytes, a surrogate may also come raw: json.loads decodes with "surrogatepass".
_SUSPECT_BYTES = re.compile(_SUSPECT.pattern.encode() + rb"|\xed[\xa0-\xbf]")
_NESTED = (dict, list, tuple)
_BRACKET = re.compile(rb"[][{}]")

Json = dict[str, Any]


class ProtocolError(KlikError, ValueError):
    """An envelope or frame that breaks the contract; ``str()`` names the field."""

    def __init__(self, field_name: str, why: str, **names: object) -> None:
        super().__init__(f"{field_name}: {why.format(**names) if names else why}")
        self.field = field_name
        self.why = why  # the message before its names are filled in: a catalogue's msgid
        self.names = names


def canonical(obj: Any, *, max_depth: int = MAX_DEPTH) -> bytes:
    """The one byte string every implementation writes for ``obj``.

    ProtocolError (naming the field) for a float, a key that is not text, text with NUL or a
    lone surrogate (``UNSTORABLE``), or arrays and objects nested deeper than ``max_depth``
    (``obj`` itself counted): the hub checks a command's args with it (``MAX_DEPTH``), and
    signing an envelope allows the envelope's own levels (``ENVELOPE_DEPTH``).
    """
    try:
        text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    except (TypeError, ValueError):
        text = None
    # The fast way for every envelope: the text checked in the written bytes, the rest in a
    # walk that builds no field names; only a suspect object is walked again, slowly, for
    # the name of the field at fault (or to find a surrogate escape is a pair: fine).
    if text is None or _SUSPECT.search(text) or not _plain(obj, 1, max_depth, floats=False):
        _check_signable(obj, "", 1, max_depth, floats=False)
        if text is None:
            raise ProtocolError("(top)", "cannot be written as JSON")
    return text.encode("ascii")


def _plain(obj: Any, depth: int, max_depth: int, *, floats: bool) -> bool:
    """Whether ``obj`` has only text keys, no float (unless ``floats``) and nests at most
    ``max_depth`` deep: ``_check_signable`` without text or field names, for speed."""
    if isinstance(obj, dict):
        if depth > max_depth:
            return False
        for key in obj:
            if type(key) is not str:
                return False
        values: Any = obj.values()
    elif isinstance(obj, list | tuple):
        if depth > max_depth:
            return False
        values = obj
    else:
        return floats or type(obj) is not float
    for value in values:
        kind = type(value)
        if kind is float and not floats:
            return False
        if kind in _NESTED and not _plain(value, depth + 1, max_depth, floats=floats):
            return False
    return True


def _check_signable(
    obj: Any, where: str, depth: int, max_depth: int, *, floats: bool, field: str = ""
) -> None:
    """Walk ``obj`` (at ``depth``, 1 for the outermost) for what ``canonical`` refuses;
    ``floats`` lets floats through (``verify`` refuses them, as a MAC that cannot match).
    Nesting too deep is named by ``field``, the outermost field that holds it: the whole
    path would be as long as the nesting."""
    if isinstance(obj, str):
        if UNSTORABLE.search(obj):
            raise ProtocolError(where or "(top)", NOT_STORABLE)
        return
    if isinstance(obj, float) and not floats:
        raise ProtocolError(where or "(top)", NO_FLOATS)
    if not isinstance(obj, dict | list | tuple):
        return
    if depth > max_depth:
        raise ProtocolError(field or where or "(top)", TOO_DEEP, levels=max_depth)
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not isinstance(key, str):
                raise ProtocolError(where or "(top)", "object keys must be text")
            if UNSTORABLE.search(key):  # named by its object: the key cannot be shown
                raise ProtocolError(where or "(top)", KEY_NOT_STORABLE)
            inner = f"{where}.{key}" if where else key
            _check_signable(value, inner, depth + 1, max_depth, floats=floats,
                            field=field or inner)  # fmt: skip
    else:
        for i, value in enumerate(obj):
            inner = f"{where}[{i}]"
            _check_signable(value, inner, depth + 1, max_depth, floats=floats,
                            field=field or inner)  # fmt: skip


def deeper_than(data: bytes, limit: int) -> bool:
    """Whether JSON text ``data`` nests arrays and objects more than ``limit`` deep, read from
    its bytes before any parser recurses into them (brackets inside strings do not count).

    Cheap for what a table sends: text with no more brackets than ``limit`` cannot nest
    deeper, and is let through after two counts at C speed.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", data)):
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def key_bytes(key_hex: str) -> bytes:
    """The HMAC key: the 32 bytes a pairing key's 64 lower-case hex digits stand for."""
    if not KEY_HEX.fullmatch(key_hex):
        raise ProtocolError("key", "must be 64 lower-case hex digits (256 bits)")
    return bytes.fromhex(key_hex)


def mac(unsigned: Json, key: bytes) -> str:
    signed = canonical(unsigned, max_depth=ENVELOPE_DEPTH)
    return hmac.new(key, signed, hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class Envelope:
    type: str
    device: str
    seq: int
    body: Json = field(default_factory=dict)
    v: int = VERSION

    def unsigned(self) -> Json:
        return {"v": self.v, "type": self.type, "device": self.device, "seq": self.seq,
                "body": self.body}  # fmt: skip

    def signed(self, key: bytes) -> Json:
        unsigned = self.unsigned()
        return {**unsigned, "mac": mac(unsigned, key)}


def seal(envelope: Envelope, key: bytes) -> bytes:
    """The envelope signed, as the canonical bytes of one HTTP body."""
    return canonical(envelope.signed(key), max_depth=ENVELOPE_DEPTH)


def open_envelope(data: Json | bytes) -> tuple[Envelope, str]:
    """Parse an envelope (not yet verified); returns it and its ``mac``.

    Raises ProtocolError naming the first field that breaks the contract: text in the body
    with NUL or a lone surrogate, and a body nested deeper than ``MAX_DEPTH`` (an ack's:
    three more, for its commands' args) too. The caller looks up the device's key and calls
    ``verify`` before believing anything in it.
    """
    raw = data
    if isinstance(data, bytes):
        if len(data) > MAX_BODY:
            raise ProtocolError("(envelope)", f"over {MAX_BODY} bytes")
        if deeper_than(data, ENVELOPE_DEPTH):
            why = f"arrays and objects nest deeper than {ENVELOPE_DEPTH} levels"
            raise ProtocolError("(envelope)", why)
        try:
            data = json.loads(data, parse_constant=_refuse_constant)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise ProtocolError("(envelope)", "not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("(envelope)", "must be a JSON object")
    if data.get("v") != VERSION or isinstance(data.get("v"), bool):
        raise ProtocolError("v", f"must be {VERSION}")
    if data.get("type") not in TYPES:
        raise ProtocolError("type", f"must be one of {', '.join(TYPES)}")
    device = data.get("device")
    if not isinstance(device, str) or not DEVICE.fullmatch(device):
        raise ProtocolError("device", "must be 1 to 64 letters, digits, - or _")
    seq = data.get("seq")
    first = 1 if data["type"] == "result" else 0  # a result's seq counts results, from 1
    if type(seq) is not int or not first <= seq < 2**53:
        raise ProtocolError("seq", f"must be a whole number from {first}")
    body = data.get("body")
    if not isinstance(body, dict):
        raise ProtocolError("body", "must be a JSON object")
    signature = data.get("mac")
    if not isinstance(signature, str) or not re.fullmatch(r"[0-9a-f]{64}", signature):
        raise ProtocolError("mac", "must be 64 lower-case hex digits")
    extra = set(data) - {"v", "type", "device", "seq", "body", "mac"}
    if extra:
        raise ProtocolError(sorted(extra)[0], "unknown envelope field")
    deepest = MAX_DEPTH + 3 if data["type"] == "ack" else MAX_DEPTH
    # Read from bytes, text can hold NUL or a surrogate only as an escape or a surrogate's
    # raw bytes: without either, only the nesting is left to check, quickly.
    clean = isinstance(raw, bytes) and not _SUSPECT_BYTES.search(raw)
    if not (clean and _plain(body, 1, deepest, floats=True)):
        _check_signable(body, "body", 1, deepest, floats=True)
    return Envelope(data["type"], device, seq, body), signature


def verify(envelope: Envelope, signature: str, key: bytes) -> bool:
    """Whether ``signature`` is the envelope's MAC under ``key`` (in constant time)."""
    try:
        expected = mac(envelope.unsigned(), key)
    except ProtocolError:
        return False  # a float somewhere: it cannot have been signed by a table of ours
    return hmac.compare_digest(expected, signature)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


# --- serial frames ----------------------------------------------------------------------


def frame(envelope: Envelope, key: bytes) -> bytes:
    """One serial frame: canonical JSON, a space, its CRC-32 in 8 hex digits, newline."""
    return frame_signed(envelope.signed(key))


def frame_signed(signed: Json) -> bytes:
    """The serial frame of an envelope someone has already signed (a dict with its ``mac``).

    The table's courier hands the serial link bytes it has sealed, and the hub's ``ack``
    comes out of ``klik_hub.hall.inbox`` already signed: framing them needs no key, and the MAC is
    not checked here. Raises ProtocolError when the frame would be over ``MAX_FRAME`` bytes.
    """
    body = canonical(signed, max_depth=ENVELOPE_DEPTH)
    line = body + b" " + f"{zlib.crc32(body):08x}".encode("ascii") + b"\n"
    if len(line) > MAX_FRAME:
        raise ProtocolError("(frame)", f"over {MAX_FRAME} bytes; send a smaller body")
    return line


@dataclass
class Deframer:
    """Serial bytes in, whole frames' envelope bytes out; what is dropped is counted.

    A frame over ``MAX_FRAME`` bytes, with a bad CRC or not ASCII is dropped; the bytes up to
    the next newline go with it, so one damaged frame never swallows the next one.
    """

    dropped: dict[str, int] = field(default_factory=lambda: {"oversize": 0, "crc": 0})
    #: a line (no newline) → its envelope bytes, or None if damaged: ``check_frame`` (None),
    #: or ``klik.link.deflate.check_line``, which takes deflated frames too
    check: Callable[[bytes], bytes | None] | None = None
    _buffer: bytearray = field(default_factory=bytearray)
    _skipping: bool = False  # inside an oversize frame: drop until its newline

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._buffer += data
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) >= MAX_FRAME:
                    if not self._skipping:
                        self.dropped["oversize"] += 1
                    self._skipping = True
                    self._buffer.clear()
                return
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._skipping:
                self._skipping = False
                continue
            if len(line) + 1 > MAX_FRAME:
                self.dropped["oversize"] += 1
                continue
            body = (self.check or check_frame)(line)
            if body is None:
                self.dropped["crc"] += 1
                continue
            yield body

    @property
    def partial(self) -> bool:
        """Whether a frame has begun and not yet ended."""
        return bool(self._buffer) or self._skipping

    def drop_partial(self) -> None:
        """Drop the start of a frame whose rest never came, counted as ``crc``.

        The serial link calls it when the line has been quiet in the middle of a frame: the
        frame's end was lost (garbled in a collision, a radio packet missing), and the next
        frame must not be glued onto its start and lost with it.
        """
        if self._buffer and not self._skipping:
            self.dropped["crc"] += 1
        self._buffer.clear()
        self._skipping = False


def check_frame(line: bytes) -> bytes | None:
    """The envelope bytes of a frame (without its newline), or None if its CRC is wrong."""
    body, space, crc = line.rpartition(b" ")
    if not space or len(crc) != 8 or not re.fullmatch(rb"[0-9a-f]{8}", crc):
        return None
    if f"{zlib.crc32(body):08x}".encode("ascii") != crc or not body.isascii():
        return None
    return body


# --- receipts ---------------------------------------------------------------------------


def receipt(record: Json) -> str:
    """The short code of a stored record (five signs; the screens show ``R-`` before it)."""
    stored = canonical(record, max_depth=ENVELOPE_DEPTH)
    digest = int.from_bytes(hashlib.sha256(stored).digest()[:8], "big")
    signs = []
    for _ in range(RECEIPT_LENGTH):
        digest, sign = divmod(digest, len(RECEIPT_ALPHABET))
        signs.append(RECEIPT_ALPHABET[sign])
    return "".join(signs)
