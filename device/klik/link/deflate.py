"""Deflated serial frames: an envelope's canonical bytes, compressed, as one binary line.

A plain frame (``protocol.frame_signed``) is the envelope's canonical JSON, a space, its
CRC-32 in hex and ``\\n``. A deflated frame (``docs/protocol.md``, "Deflated frames") is:

- ``MARK`` (the byte 0x1e, never the first byte of a plain frame, which is ``{`` or ``?``),
- then, escaped, the raw deflate stream (RFC 1951, no zlib header, the preset dictionary
  ``ZDICT``) of the canonical bytes
  and the CRC-32 of those canonical (inflated) bytes, 4 bytes big-endian,
- then ``\\n``. Escaping keeps ``\\n`` for the frame's end: ``ESC`` (0x1b) is sent as
  ``ESC e`` and ``\\n`` as ``ESC n``; any other byte after ``ESC`` makes the frame bad.

The MAC stays in the envelope (its ``mac`` field), over the uncompressed canonical bytes as
ever: compression is the frame's business, so a deflated and a plain frame of the same
envelope carry the same signature and the hub keeps exactly the same envelopes either way.
Inflating stops at ``MAX_BODY`` bytes (``zlib.decompressobj`` with ``max_length``): a frame
that would inflate further (a decompression bomb) is dropped, never inflated whole. Pure.
"""

from __future__ import annotations

import zlib

from klik.link import protocol as p

MARK = 0x1E
#: The preset dictionary both ends deflate and inflate with (RFC 1951 allows one): the
#: envelopes' own words, so that even a short ack compresses. Part of the wire format:
#: changing it is a new protocol revision. The most frequent words come last.
ZDICT = (
    b'"called_by":null,"draw_tiles":null,"judge":false,"last_seq":0,"left_ms":null,'
    b'"move_time_ms":null,"mover":null,"moves":{},"names":{},"outbox":0,"paused_by":null,'
    b'"refused":[],"state":"done"},"type":"heartbeat",'
    b'{"body":{"duration_ms":,"ending":"rummikub","finished_at":null,"game":1,"moves":,'
    b'"round":null,"rules":"tournament","seats":{"A":{"big":1,"name":"","opened":true,'
    b'"player":null,"rack":0,"small":},"B":{"big":0,"name":"","opened":false,"player":null,'
    b'"rack":,"small":-},"table":,"timeouts":,"tournament":null,"winners":["A"]},'
    b'"type":"result","v":1}'
    b'{"body":{"acks":[],"commands":[],"of":"heartbeat","status":"ok"}'
    b'{"body":{"of":"result","receipt":"","status":"stored"},"device":"t","mac":"","seq":1,'
    b'"type":"ack","v":1}'
)
ESC = 0x1B
_ESCAPED = {ESC: b"\x1be", 0x0A: b"\x1bn"}
_UNESCAPED = {ord("e"): ESC, ord("n"): 0x0A}


def squeeze(body: bytes) -> bytes:
    """The deflated frame of ``body`` (an envelope's canonical bytes, as a plain frame holds
    them). ProtocolError when it would be over ``MAX_FRAME`` bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, zdict=ZDICT)
    packed = packer.compress(body) + packer.flush() + zlib.crc32(body).to_bytes(4, "big")
    line = bytes([MARK]) + escape(packed) + b"\n"
    if len(line) > p.MAX_FRAME:
        raise p.ProtocolError("(frame)", f"over {p.MAX_FRAME} bytes deflated")
    return line


def squeeze_line(line: bytes) -> bytes:
    """A plain frame (with its newline) as a deflated frame; ValueError if it is not one."""
    body = p.check_frame(line.rstrip(b"\n"))
    if body is None:
        raise ValueError("not a plain frame")
    return squeeze(body)


def check_line(line: bytes) -> bytes | None:
    """The envelope bytes of a frame without its newline, plain or deflated; None if it is
    damaged, or would inflate over ``MAX_BODY`` bytes. The ``Deframer``'s ``check``."""
    if not line or line[0] != MARK:
        return p.check_frame(line)
    packed = unescape(line[1:])
    if packed is None or len(packed) < 5:
        return None
    stream, crc = packed[:-4], packed[-4:]
    unpacker = zlib.decompressobj(-15, zdict=ZDICT)
    try:
        body = unpacker.decompress(stream, p.MAX_BODY)
    except zlib.error:
        return None
    if unpacker.unconsumed_tail or not unpacker.eof or unpacker.unused_data:
        return None  # over MAX_BODY (not inflated further), cut short, or trailing bytes
    if zlib.crc32(body).to_bytes(4, "big") != crc or not body.isascii():
        return None
    return body


def escape(data: bytes) -> bytes:
    """``data`` with ``ESC`` and ``\\n`` escaped, for the inside of a binary frame."""
    if ESC not in data and 0x0A not in data:
        return data
    return b"".join(_ESCAPED.get(byte, bytes((byte,))) for byte in data)


def unescape(data: bytes) -> bytes | None:
    """What ``escape`` was given; None for a bad escape."""
    if ESC not in data:
        return data
    out = bytearray()
    escaped = False
    for byte in data:
        if escaped:
            plain = _UNESCAPED.get(byte)
            if plain is None:
                return None
            out.append(plain)
            escaped = False
        elif byte == ESC:
            escaped = True
        else:
            out.append(byte)
    return None if escaped else bytes(out)


def deframer(dropped: dict[str, int] | None = None) -> p.Deframer:
    """A deframer that takes plain and deflated frames alike, counting into ``dropped``."""
    if dropped is None:
        return p.Deframer(check=check_line)
    return p.Deframer(dropped=dropped, check=check_line)
