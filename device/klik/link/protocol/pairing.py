"""Pairing at the table: the numeric-comparison exchange both sides compute (pure, no I/O).

A table that has no device id and key asks the hub to join; the judge compares six digits on
seat A's screen with the ones the console lists and accepts. The exchange is Bluetooth LE
Secure Connections' numeric comparison with X25519 (``docs/protocol.md``, "Pairing"):

1. The table sends its ephemeral public key ``T``. The hub answers with its long-term public
   key ``H`` and a commitment ``C = SHA-256("klik-pair-commit-v1" ‖ H ‖ T ‖ Nh)`` to a
   16-byte nonce ``Nh`` it keeps to itself for now.
2. The table sends its nonce ``Nt``; only then does the hub reveal ``Nh``, and the table
   checks it against ``C``.
3. Both show ``digits(T, H, Nt, Nh)``: a hash of both keys and both nonces, mod 10⁶.

A man in the middle who swaps the keys must fix one side's nonce before he learns the other
side's (the commitment on the hub's side, the table's nonce sent first on the other), so he
can make the two sides' digits agree only by a one-in-a-million guess; the judge sees two
different numbers and refuses. The hub's answer (device id, key, table, TLS pin) travels
sealed with AES-256-GCM under ``seal_key``: HKDF-SHA-256 of the X25519 shared secret, salted
with both nonces and bound to both public keys and the request's id.

Who calls it: the hub's ``klik_hub.hall.pairing`` and the table's ``klik.link.joining``.
Raises ``PairingError`` (a ``ProtocolError``) for anything that does not check out.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from klik.link.protocol.envelope import ProtocolError

KEY_BYTES = 32  # an X25519 public key
NONCE_BYTES = 16
GCM_NONCE_BYTES = 12
DIGITS = 6
HEX_KEY = re.compile(r"[0-9a-f]{64}")
HEX_NONCE = re.compile(r"[0-9a-f]{32}")
REQUEST_ID = re.compile(r"[0-9a-f]{16}")
DIGITS_RE = re.compile(r"[0-9]{6}")
MAX_SEALED_HEX = 2048  # the sealed answer is a few hundred bytes
COMMIT_LABEL = b"klik-pair-commit-v1"
DIGITS_LABEL = b"klik-pair-digits-v1"
SEAL_LABEL = b"klik-pair-seal-v1"


class PairingError(ProtocolError):
    """A pairing message that does not check out: a malformed key or nonce, a commitment that
    does not match the nonce revealed, a sealed answer that does not open."""


def new_private() -> X25519PrivateKey:
    return X25519PrivateKey.generate()


# Encoding.Raw rather than public_bytes_raw(): Raspberry Pi OS's python3-cryptography is 38.
def public_hex(private: X25519PrivateKey) -> str:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def private_hex(private: X25519PrivateKey) -> str:
    return private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()


def private_of(hex_key: str) -> X25519PrivateKey:
    return X25519PrivateKey.from_private_bytes(bytes.fromhex(hex_key))


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def new_request_id() -> str:
    return secrets.token_hex(8)


def key_of(value: object, what: str = "table_key") -> str:
    """``value`` as an X25519 public key in hex (64 lower-case hex digits), else PairingError."""
    if not isinstance(value, str) or not HEX_KEY.fullmatch(value):
        raise PairingError(what, "must be 64 lower-case hex digits (an X25519 public key)")
    return value


def nonce_of(value: object, what: str = "nonce") -> str:
    if not isinstance(value, str) or not HEX_NONCE.fullmatch(value):
        raise PairingError(what, "must be 32 lower-case hex digits")
    return value


def commitment(hub_key: str, table_key: str, hub_nonce: str) -> str:
    """The hub's commitment to its nonce, sent before it sees the table's."""
    data = COMMIT_LABEL + bytes.fromhex(hub_key + table_key + hub_nonce)
    return hashlib.sha256(data).hexdigest()


def check_commitment(commit: str, hub_key: str, table_key: str, hub_nonce: str) -> None:
    """The table's check of the nonce the hub revealed; PairingError if it is not the one
    committed to (a man in the middle who chose it after seeing the table's)."""
    if not hmac.compare_digest(commit, commitment(hub_key, table_key, hub_nonce)):
        raise PairingError("nonce", "the hub's nonce does not match its commitment")


REPAIR_LABEL = b"klik re-pair v1\n"


def repair_proof(old_key_hex: str, table_key: str) -> str:
    """A re-pairing table's proof of its old pairing: HMAC-SHA256 under the key the hub gave
    it then, over this request's table key (so it proves nothing for another request)."""
    data = REPAIR_LABEL + table_key.encode("ascii")
    return hmac.new(bytes.fromhex(old_key_hex), data, hashlib.sha256).hexdigest()


def digits(table_key: str, hub_key: str, table_nonce: str, hub_nonce: str) -> str:
    """The six digits both sides show: SHA-256 over both keys and both nonces, mod 10⁶."""
    data = DIGITS_LABEL + bytes.fromhex(table_key + hub_key + table_nonce + hub_nonce)
    value = int.from_bytes(hashlib.sha256(data).digest()[:8], "big") % 10**DIGITS
    return f"{value:0{DIGITS}d}"


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request's public values, as both sides hold them once the nonces are out."""

    request_id: str
    table_key: str
    hub_key: str
    table_nonce: str
    hub_nonce: str

    @property
    def digits(self) -> str:
        return digits(self.table_key, self.hub_key, self.table_nonce, self.hub_nonce)

    def seal_key(self, own: X25519PrivateKey, their_key: str) -> bytes:
        """The AES-256 key of the sealed answer: HKDF over the X25519 shared secret."""
        shared = own.exchange(X25519PublicKey.from_public_bytes(bytes.fromhex(their_key)))
        return HKDF(
            algorithm=hashes.SHA256(),
            length=32,
            salt=bytes.fromhex(self.table_nonce + self.hub_nonce),
            info=SEAL_LABEL + bytes.fromhex(self.table_key + self.hub_key),
        ).derive(shared)

    def seal(self, own: X25519PrivateKey, answer: dict[str, Any]) -> str:
        """The hub's answer, sealed for the table (hex: a 12-byte GCM nonce, then the text)."""
        key = self.seal_key(own, self.table_key)
        nonce = secrets.token_bytes(GCM_NONCE_BYTES)
        text = json.dumps(answer, sort_keys=True, separators=(",", ":")).encode()
        return (nonce + AESGCM(key).encrypt(nonce, text, self.request_id.encode())).hex()

    def open(self, own: X25519PrivateKey, sealed: object) -> dict[str, Any]:
        """The table's side of ``seal``; PairingError for anything that does not open."""
        if not isinstance(sealed, str) or len(sealed) > MAX_SEALED_HEX:
            raise PairingError("sealed", "must be hex, at most 2048 digits")
        try:
            data = bytes.fromhex(sealed)
            key = self.seal_key(own, self.hub_key)
            nonce, text = data[:GCM_NONCE_BYTES], data[GCM_NONCE_BYTES:]
            value = json.loads(AESGCM(key).decrypt(nonce, text, self.request_id.encode()))
        except (ValueError, InvalidTag):
            raise PairingError("sealed", "does not open with the agreed key") from None
        if not isinstance(value, dict):
            raise PairingError("sealed", "not a JSON object")
        return value
