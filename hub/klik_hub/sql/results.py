"""The tables' results (``results``) and the claims that keep one result a send and a game
(``claims``).

A result is never changed once kept (the judge's corrections are rows of their own). A resend
meets the unique constraint on (device, seq, digest) and a second result for one send or one
game meets a taken ``claims`` row: the database decides, on any number of hub processes
(``Upserts``). The statements of the results' path are built once: building a statement and
its cache key costs more Python than SQLite takes to run it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, bindparam, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.expression import Executable

from klik.link import protocol as p
from klik_hub.sql import corrections
from klik_hub.sql.schema import claims, results, tournaments
from klik_hub.sql.schema import corrections as fixes
from klik_hub.tournament.corrections import Kind

CLAIM_LENGTH: int = claims.c.claim.type.length  # type: ignore[attr-defined]
LARGEST_ID = 2**31 - 1  # an INTEGER column's

# The tournament a result names, if it is one of the hub's; NULL otherwise (a table on its own
# names its tournament as it likes), so the reference always holds and no result is refused.
NAMED_TOURNAMENT = (
    select(tournaments.c.id).where(tournaments.c.id == bindparam("named")).scalar_subquery()
)

RECEIPT_OF_SEND = select(results.c.receipt).where(
    results.c.device == bindparam("device"),
    results.c.seq == bindparam("seq"),
    results.c.digest == bindparam("digest"),
)
HOLDER = (
    select(results.c.id, results.c.digest, results.c.receipt)
    .join(claims, claims.c.result_id == results.c.id)
    .where(claims.c.claim == bindparam("claim"))
)
LAST_RESULT = select(func.max(results.c.seq)).where(results.c.device == bindparam("device"))


@dataclass(frozen=True, slots=True)
class Upserts:
    """The statements that meet a unique constraint, in the dialect's ``ON CONFLICT``."""

    result: Executable  # a new result's id, or no row when (device, seq, digest) is there
    claim: Executable  # the claim, or no row when another result holds it

    @classmethod
    def of(cls, dialect: str) -> Upserts:
        insert_of = postgresql.insert if dialect == "postgresql" else sqlite.insert
        return cls(
            insert_of(results)
            .values(tournament_id=NAMED_TOURNAMENT)
            .on_conflict_do_nothing(index_elements=["device", "seq", "digest"])
            .returning(results.c.id),
            insert_of(claims)
            .on_conflict_do_nothing(index_elements=["claim"])
            .returning(claims.c.claim),
        )


@dataclass(frozen=True, slots=True)
class Stored:
    """A result kept: ``stored``, ``duplicate`` (the same receipt again) or ``conflict``
    (both kept and flagged for the judge)."""

    outcome: p.Status
    receipt: str


def claim_of(key: str) -> str:
    """``key`` as a ``claims`` row holds it: itself, or when longer than the column, ``sha256:``
    and its SHA-256 in hex. Any result the protocol allows has a claim that fits: a tournament
    of 200 letters such as "ż", each written ``\\u017c``, makes a key of over 1,200.

    Keys that fit are kept as they were, so the claims of results stored before are still
    met; no key of its own starts with ``sha256:`` (each starts ``send:`` or ``game:``).
    """
    if len(key) <= CLAIM_LENGTH:
        return key
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def id_of(text: object) -> int | None:
    """The id ``text`` names as the hub writes ids onto the wire (a lineup's ``tournament``
    and seats' ``player``): ASCII decimal with no sign, space or leading zero ("7", never "07",
    "+7", " 7" nor "٧"), from 1 to what an INTEGER column holds; None for anything else.

    The one reading of an id from a table's text, for tournaments (``named``) and players
    (``office.counting.player_id``) alike."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit():
        return None
    if text != str(int(text)) or not 1 <= int(text) <= LARGEST_ID:
        return None
    return int(text)


def named(tournament: object) -> int | None:
    """The tournament id a result's ``tournament`` may name (``id_of``), if any."""
    return id_of(tournament)


# --- keeping a result, in the transaction that took its envelope ----------------------------


def add(db: Connection, upserts: Upserts, row: dict[str, Any]) -> int | None:
    """Keep the result ``row``; its new id, or None if this (device, seq, digest) is kept.
    ``row["named"]`` is ``named(tournament)``: the hub's tournament it refers to, if any."""
    new_id = db.execute(upserts.result, row).scalar()
    return None if new_id is None else int(new_id)


def receipt_of_send(db: Connection, row: dict[str, Any]) -> str:
    """The receipt of the result kept for ``row``'s (device, seq, digest)."""
    return str(db.execute(RECEIPT_OF_SEND, row).scalar_one())


def claim(db: Connection, upserts: Upserts, key: str, result_id: int) -> bool:
    """Claim ``key`` for result ``result_id``; False if another result holds it."""
    return db.execute(upserts.claim, {"claim": key, "result_id": result_id}).first() is not None


def holder(db: Connection, key: str) -> Any:
    """The result holding the claim ``key``: its ``id``, ``digest`` and ``receipt``."""
    return db.execute(HOLDER, {"claim": key}).one()


def flag_conflict(db: Connection, ids: list[int]) -> None:
    db.execute(update(results).where(results.c.id.in_(ids)).values(conflict=True))


#: The judge's corrections that settle a conflict: one result taken, one left out, or one
#: placed (a result of no tournament can only be assigned).
SETTLING = (Kind.ACCEPT.value, Kind.EXCLUDE.value, Kind.ASSIGN.value)


def settled(db: Connection, device: str, seqs: list[int]) -> list[int]:
    """Of ``device``'s results ``seqs`` that the hub acknowledged as a conflict, those the
    judge has settled: a result of its conflict (the same send, or the same game) accepted,
    excluded or assigned. A seq the hub holds no conflict for is settled too: nothing waits
    on it."""
    if not seqs:
        return []
    mine = results.alias("mine")
    rival = results.alias("rival")
    same_game = and_(
        rival.c.tournament.is_not_distinct_from(mine.c.tournament),
        rival.c.round_no.is_not_distinct_from(mine.c.round_no),
        rival.c.table_no == mine.c.table_no,
        rival.c.game == mine.c.game,
    )
    same_send = and_(rival.c.device == mine.c.device, rival.c.seq == mine.c.seq)
    decided = (
        select(fixes.c.id)
        .join(rival, rival.c.id == fixes.c.result_id)
        .where(
            fixes.c.kind.in_(SETTLING),
            rival.c.conflict,
            or_(same_game, same_send),
        )
        .exists()
    )
    waiting = select(mine.c.seq).where(
        mine.c.device == device, mine.c.seq.in_(seqs), mine.c.conflict, ~decided
    )
    still = {int(seq) for seq in db.execute(waiting).scalars()}
    return [seq for seq in seqs if seq not in still]


def last_seq(db: Connection, device: str) -> int:
    """The highest seq of the results kept from ``device`` (0 if none)."""
    found = db.execute(LAST_RESULT, {"device": device}).scalar()
    return 0 if found is None else int(found)


def last_seqs(db: Connection) -> dict[str, int]:
    """The highest seq of the results kept from each device that sent any."""
    found = select(results.c.device, func.max(results.c.seq)).group_by(results.c.device)
    return {str(device): int(seq) for device, seq in db.execute(found)}


# --- reading them ------------------------------------------------------------------------


def newest(db: Connection, *, table_no: int | None, limit: int) -> Sequence[Any]:
    """The kept results, newest first, of one table or all."""
    query = select(results).order_by(results.c.id.desc()).limit(limit)
    if table_no is not None:
        query = query.where(results.c.table_no == table_no)
    return db.execute(query).all()


def of_tournament(db: Connection, tid: int) -> Sequence[Any]:
    """Tournament ``tid``'s results and those the judge assigned to it (naming none), oldest
    first: all but the device, seq and digest."""
    return db.execute(
        select(
            results.c.id,
            results.c.round_no,
            results.c.table_no,
            results.c.game,
            results.c.receipt,
            results.c.body,
            results.c.conflict,
            results.c.points_check,
            results.c.received_at,
            results.c.tournament,
            results.c.tournament_id,
        )
        .where(
            or_(
                results.c.tournament_id == tid,
                and_(results.c.tournament.is_(None), results.c.id.in_(corrections.assigned(tid))),
            )
        )
        .order_by(results.c.id)
    ).all()


def strays(db: Connection, *, tables: int, since: str, until: str | None) -> Sequence[Any]:
    """Results that name no tournament and no tournament was assigned, from tables 1 to
    ``tables``, received from ``since`` until before ``until`` (ISO times), oldest first."""
    query = select(results).where(
        results.c.tournament.is_(None),
        results.c.table_no.between(1, tables),
        results.c.received_at >= since,
        results.c.id.not_in(corrections.assigned()),
    )
    if until is not None:
        query = query.where(results.c.received_at < until)
    return db.execute(query.order_by(results.c.id)).all()


def reported_tables(db: Connection, tid: int, round_no: int) -> set[int]:
    """The tables that sent a result for round ``round_no`` of tournament ``tid``."""
    return set(
        db.execute(
            select(results.c.table_no).where(
                results.c.tournament_id == tid, results.c.round_no == round_no
            )
        ).scalars()
    )


def body_of(db: Connection, result_id: int) -> Any:
    """Result ``result_id``'s ``body``, ``tournament`` (as the table named it) and
    ``tournament_id`` (the hub's it refers to), or None if there is none."""
    return db.execute(
        select(results.c.body, results.c.tournament, results.c.tournament_id).where(
            results.c.id == result_id
        )
    ).first()
