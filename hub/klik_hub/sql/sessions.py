"""The judge's console sessions (``sessions``): each kept as its token's SHA-256 with the
digest of the password it was opened with (``klik_hub.door.judge`` says why)."""

from __future__ import annotations

from sqlalchemy import Connection, delete, insert, select

from klik_hub.sql.schema import sessions


def forget_expired(db: Connection, now_ms: int) -> None:
    """Delete every session expired at ``now_ms`` (ms since the epoch)."""
    db.execute(delete(sessions).where(sessions.c.expires_ms <= now_ms))


def keep(db: Connection, token_sha256: str, password_sha256: str, expires_ms: int) -> None:
    """Keep a new session until ``expires_ms``."""
    db.execute(
        insert(sessions).values(
            token_sha256=token_sha256,
            password_sha256=password_sha256,
            expires_ms=expires_ms,
        )
    )


def password_of(db: Connection, token_sha256: str, now_ms: int) -> str | None:
    """The password digest a session live at ``now_ms`` was opened with; None if none."""
    found = db.execute(
        select(sessions.c.password_sha256).where(
            sessions.c.token_sha256 == token_sha256,
            sessions.c.expires_ms > now_ms,
        )
    ).scalar()
    return None if found is None else str(found)


def close(db: Connection, token_sha256: str) -> None:
    db.execute(delete(sessions).where(sessions.c.token_sha256 == token_sha256))
