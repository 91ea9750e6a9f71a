"""The hub's TLS certificate: made once, kept beside the database, pinned by the tables.

A venue has no domain and no certificate authority, so the hub makes its own self-signed
certificate on first start (an ECDSA P-256 key, ten years) and keeps it: the tables pin its
SHA-256 (``klik pair`` writes ``[hub] tls_pin_sha256``), so a new certificate would cut every
table off. A SQLite hub keeps it in two files beside the database (``klik-hub-cert.pem``,
``klik-hub-key.pem``, the key readable by the hub's user only); a PostgreSQL hub keeps it in
the database's settings, so every hub process on one database shows the same certificate.
An organiser with a certificate of their own gives ``--tls-cert`` and ``--tls-key``.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from klik.errors import InputError
from klik_hub.storage import private
from klik_hub.storage.store import Store

CERT_FILE, KEY_FILE = "klik-hub-cert.pem", "klik-hub-key.pem"
CERT_SETTING, KEY_SETTING = "tls_cert", "tls_key"  # a PostgreSQL hub's certificate
VALID_DAYS = 3653  # ten years: a certificate that expires mid-season would stop every table


@dataclass(frozen=True, slots=True)
class Certificate:
    cert_file: Path
    key_file: Path
    sha256: str  # of the certificate's DER bytes, 64 hex digits: the tables' pin

    def pin(self) -> str:
        """As ``openssl x509 -fingerprint -sha256`` shows it, for a person to compare."""
        upper = self.sha256.upper()
        return ":".join(upper[i : i + 2] for i in range(0, len(upper), 2))


def fingerprint(pem: bytes) -> str:
    """The SHA-256 of the certificate in ``pem``, as ``tls_pin_sha256`` takes it."""
    der = x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)
    return hashlib.sha256(der).hexdigest()


def given(cert: str, key: str) -> Certificate:
    """``--tls-cert`` and ``--tls-key``: checked now, so a bad file is one line at start."""
    try:
        pem = Path(cert).read_bytes()
        Path(key).read_bytes()
        return Certificate(Path(cert), Path(key), fingerprint(pem))
    except FileNotFoundError as missing:
        raise InputError(f"{missing.filename}: no such file") from None
    except OSError as error:
        raise InputError(f"{error.filename}: cannot read ({error.strerror})") from None
    except ValueError:
        raise InputError(f"--tls-cert {cert}: not a PEM certificate") from None


def kept(store: Store, db_path: Path | None, names: list[str]) -> Certificate:
    """The hub's own certificate, made on first use: beside the SQLite file ``db_path``, or
    (``db_path`` None: PostgreSQL) in ``store``'s settings, written out to a private folder
    for the TLS library, which reads files."""
    if db_path is not None:
        cert_file, key_file = db_path.parent / CERT_FILE, db_path.parent / KEY_FILE
        if not cert_file.exists():
            cert_pem, key_pem = make(names)
            _write(key_file, key_pem, private.FILE_MODE)
            _write(cert_file, cert_pem, 0o644)
        private.told(private.tighten([key_file]))  # as an older hub, or a hand, left it
        return Certificate(cert_file, key_file, fingerprint(cert_file.read_bytes()))
    cert_text, key_text = store.setting(CERT_SETTING), store.setting(KEY_SETTING)
    if cert_text is None or key_text is None:
        cert_pem, key_pem = make(names)
        store.set_setting(KEY_SETTING, key_pem.decode())
        store.set_setting(CERT_SETTING, cert_pem.decode())
        cert_text, key_text = cert_pem.decode(), key_pem.decode()
    folder = Path(tempfile.mkdtemp(prefix="klik-hub-tls-"))  # 0700 by mkdtemp
    cert_file, key_file = folder / CERT_FILE, folder / KEY_FILE
    _write(key_file, key_text.encode(), 0o600)
    _write(cert_file, cert_text.encode(), 0o644)
    return Certificate(cert_file, key_file, fingerprint(cert_text.encode()))


def known(store: Store, db_path: Path | None) -> str | None:
    """The SHA-256 of the hub's own certificate if it has one yet (for ``klik pair``)."""
    if db_path is not None:
        cert_file = db_path.parent / CERT_FILE
        return fingerprint(cert_file.read_bytes()) if cert_file.exists() else None
    cert_text = store.setting(CERT_SETTING)
    return fingerprint(cert_text.encode()) if cert_text is not None else None


def make(names: list[str]) -> tuple[bytes, bytes]:
    """A new self-signed certificate for ``names`` (host names or addresses) and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Klik hub")])
    alternatives: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for name in dict.fromkeys(["127.0.0.1", "::1", *names]):
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))  # a table's clock a day behind
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def _write(path: Path, data: bytes, mode: int) -> None:
    """Atomically, fsynced, with ``mode`` from the start (the key is never world-readable).
    The part-file is always a new one: one left behind keeps its own mode when opened, and
    a link planted at its name would be written through."""
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)  # exactly ``mode``: the certificate 0644 under the hub's umask too
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(partial, path)
