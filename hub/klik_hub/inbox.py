"""What the hub does with one envelope from a table, whichever link brought it.

HTTP (``app``) and the serial channel (``serial``) both hand the envelope's bytes to
``take``; the answer is a status code (HTTP's) and a JSON body that carries an ``ack``
envelope signed with the table's key. The order of the checks is the contract's
(``docs/protocol.md``): the envelope's shape (422), who signed it (401), the result's schema
(422), then whether the device may speak for that table (401).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from klik.link import protocol as p
from klik.link import results as r
from klik_hub.store import Device, Outcome, RefusedError, Store

STATUS_CODES = {Outcome.STORED: 201, Outcome.DUPLICATE: 200, Outcome.CONFLICT: 409}


class TooLargeError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: dict[str, Any]
    device: Device | None = None  # the paired device that signed it, when it was believed


def take(store: Store, data: bytes, expected: str | None = None) -> Answer:
    """Check and keep one envelope; ``expected`` is the type the HTTP path takes."""
    try:
        if len(data) > p.MAX_BODY:
            raise TooLargeError(f"(envelope): over {p.MAX_BODY} bytes")
        envelope, mac = p.open_envelope(data)
        if expected is not None and envelope.type != expected:
            raise p.ProtocolError("type", f"must be {expected} here")
        if envelope.type == "ack":
            raise p.ProtocolError("type", "the hub sends acks; it does not take them")
        device = store.believe(envelope, mac)
        if envelope.type == "result":
            r.check_result(envelope.body)
            stored = store.keep_result(envelope, device)
            answer: dict[str, Any] = {"status": stored.outcome.value, "receipt": stored.receipt}
            status = STATUS_CODES[stored.outcome]
        else:
            answer = {"status": "ok", "commands": store.heartbeat(envelope, device)}
            status = 200
    except RefusedError as error:
        return Answer(401, {"status": "refused", "error": str(error)})
    except TooLargeError as error:
        return Answer(413, {"status": "invalid", "error": str(error)})
    except p.ProtocolError as error:
        return Answer(422, {"status": "invalid", "error": str(error)})
    ack = p.Envelope("ack", device.device, envelope.seq, {"of": envelope.type, **answer})
    return Answer(status, {**answer, "ack": ack.signed(device.key)}, device)
