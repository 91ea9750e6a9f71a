"""The judge's own rule sets (``rule_sets``): each version's TOML as it was sent."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, insert, select

from klik_hub.sql.schema import rule_sets


def text_of(db: Connection, name: str, version: int) -> str | None:
    """The TOML of ``name`` at ``version``; None if the hub has no such version."""
    found = db.execute(
        select(rule_sets.c.text).where(rule_sets.c.name == name, rule_sets.c.version == version)
    ).scalar()
    return None if found is None else str(found)


def add(db: Connection, name: str, version: int, text: str, at: str) -> None:
    db.execute(insert(rule_sets).values(name=name, version=version, text=text, added_at=at))


def every(db: Connection) -> Sequence[tuple[str, int, str]]:
    """Every set's every version: (name, version, text), a name's versions in order."""
    rows = db.execute(
        select(rule_sets.c.name, rule_sets.c.version, rule_sets.c.text).order_by(
            rule_sets.c.name, rule_sets.c.version
        )
    )
    return [(str(n), int(v), str(t)) for n, v, t in rows]
