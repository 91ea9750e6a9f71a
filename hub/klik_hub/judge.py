"""The head judge's password: read from a file once, kept only as a salted scrypt hash.

``klik hub --judge-password-file FILE`` reads the password (the file's first line) and stores
its hash in the hub's database, replacing an earlier one; without the option the stored hash
stays. Every route that changes the tournament or orders a table needs it, as HTTP Basic
with the user ``judge``; reading (standings, results, the projector) needs nothing. A table's
key opens nothing here: tables sign envelopes, they never log in.

scrypt is slow on purpose (about 50 ms), so a check that passed is remembered by the SHA-256
of the header that passed it, never by the password itself.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable
from pathlib import Path

from klik.errors import InputError

USER = "judge"
MIN_LENGTH = 8
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # OWASP's floor for scrypt
REALM = 'Basic realm="Klik hub", charset="UTF-8"'
CONSOLE_REALM = 'KlikJudge realm="Klik hub"'  # no browser prompt: the console asks itself


def read_password(path: str) -> str:
    """The password in ``path``'s first line; InputError in one line if it cannot be used."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--judge-password-file {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(f"--judge-password-file {path}: cannot read ({why})") from None
    lines = text.splitlines()
    password = lines[0].strip() if lines else ""
    if len(password) < MIN_LENGTH:
        raise InputError(
            f"--judge-password-file {path}: the password on its first line has "
            f"{len(password)} characters; at least {MIN_LENGTH}"
        )
    return password


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex), with a new random salt."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        found = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(found, bytes.fromhex(digest))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 << 20, dklen=32)


SETTING = "judge_password"  # the hub's settings row that holds the hash


class Gate:
    """Checks a request's ``Authorization`` header against the hash ``stored()`` reads from
    the database (None: no password was ever set, and the judge's routes are open, which
    ``klik hub`` allows on loopback only). Read each time, so a password set by another hub
    process on the same database counts at once."""

    def __init__(self, stored: Callable[[], str | None]) -> None:
        self.stored = stored
        self._passed: set[tuple[bytes, str]] = set()

    def allows(self, authorization: str | None) -> bool:
        stored = self.stored()
        if stored is None:
            return True
        if not authorization:
            return False
        seen = (hashlib.sha256(authorization.encode()).digest(), stored)
        if seen in self._passed:
            return True
        scheme, _, encoded = authorization.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        if user != USER or not verify(password, stored):
            return False
        self._passed.add(seen)
        return True
