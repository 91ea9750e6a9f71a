"""The table ↔ hub protocol: its words (envelope types, paths, answer statuses with their
HTTP codes, command kinds: ``words``), canonical JSON, signed envelopes, serial frames and
receipts (``envelope``), the heartbeat (``messages``) and a round's lineup (``lineup``) as
typed messages, a table's health and the protocol's ``REVISION`` (``health``), a seat's
moves as a result and a heartbeat carry them (``moves``), the round's clock in the hub's
answer to a heartbeat (``roundclock``), and the ``Ack`` a table's link hands its courier for
an envelope (``ack``).

Both sides import this package, and nothing else defines these; ``docs/protocol.md`` is
the contract in prose (``tests/link/test_protocol_doc.py`` checks that each names what the
other does). Pure: no I/O, no clock (callers pass bytes and numbers in).
"""

from klik.link.protocol.ack import UNPAIRED_HTTP, Ack, Trouble, status_of
from klik.link.protocol.envelope import (
    DEVICE,
    ENVELOPE_DEPTH,
    KEY_HEX,
    MAX_BODY,
    MAX_DEPTH,
    MAX_FRAME,
    NOT_STORABLE,
    RECEIPT_ALPHABET,
    RECEIPT_LENGTH,
    UNSTORABLE,
    VERSION,
    Deframer,
    Envelope,
    Json,
    ProtocolError,
    canonical,
    check_frame,
    deeper_than,
    frame,
    frame_signed,
    key_bytes,
    mac,
    open_envelope,
    receipt,
    seal,
    verify,
)
from klik.link.protocol.health import REVISION, THROTTLE_FLAGS, Health, Throttled
from klik.link.protocol.lineup import FIRST_STARTERS, NEEDS, RoundLineup
from klik.link.protocol.messages import (
    MAX_COMMAND_ID,
    MAX_CONFLICTS,
    MAX_REFUSED,
    STATES,
    Conflict,
    Heartbeat,
    Refusal,
)
from klik.link.protocol.moves import MOVES_FIELDS, check_moves, check_seats_moves
from klik.link.protocol.roundclock import RoundClock
from klik.link.protocol.words import (
    COMMAND_KINDS,
    PATHS,
    REQUESTS,
    ROUND_KINDS,
    TAKEN,
    TYPE_OF_PATH,
    TYPES,
    CommandKind,
    EnvelopeType,
    Status,
)

__all__ = [
    "COMMAND_KINDS",
    "DEVICE",
    "ENVELOPE_DEPTH",
    "FIRST_STARTERS",
    "KEY_HEX",
    "MAX_BODY",
    "MAX_COMMAND_ID",
    "MAX_CONFLICTS",
    "MAX_DEPTH",
    "MAX_FRAME",
    "MAX_REFUSED",
    "MOVES_FIELDS",
    "NEEDS",
    "NOT_STORABLE",
    "PATHS",
    "RECEIPT_ALPHABET",
    "RECEIPT_LENGTH",
    "REQUESTS",
    "REVISION",
    "ROUND_KINDS",
    "STATES",
    "TAKEN",
    "THROTTLE_FLAGS",
    "TYPES",
    "TYPE_OF_PATH",
    "UNPAIRED_HTTP",
    "UNSTORABLE",
    "VERSION",
    "Ack",
    "CommandKind",
    "Conflict",
    "Deframer",
    "Envelope",
    "EnvelopeType",
    "Health",
    "Heartbeat",
    "Json",
    "ProtocolError",
    "Refusal",
    "RoundClock",
    "RoundLineup",
    "Status",
    "Throttled",
    "Trouble",
    "canonical",
    "check_frame",
    "check_moves",
    "check_seats_moves",
    "deeper_than",
    "frame",
    "frame_signed",
    "key_bytes",
    "mac",
    "open_envelope",
    "receipt",
    "seal",
    "status_of",
    "verify",
]  # fmt: skip
