"""People across tournaments: which person each enrolment is, and the judge's link of an
enrolment to a known person.

Every enrolment is a person from the start: the one its list's ``id`` names (a federation or
ranking number), or a new one of the hub's own. The hub never merges two people by their
name: it suggests the people an enrolment may be (the same name; the same club first) and the
judge links it, logged as ``link_person`` in the tournament's log.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from klik.words import words
from klik_hub import sql
from klik_hub.office.errors import NotFoundError
from klik_hub.office.players import enrolled, player_json
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso


def folded(name: str) -> str:
    """A name as a suggestion compares it: no case, no accents ("Łucja Żak" ~ "lucja zak")."""
    plain = unicodedata.normalize("NFKD", name.replace("ł", "l").replace("Ł", "L"))
    return " ".join("".join(c for c in plain if not unicodedata.combining(c)).casefold().split())


def suggestions(store: Store, tid: int, player_no: int) -> list[dict[str, Any]]:
    """The people enrolment (``tid``, ``player_no``) may be, best first: the same name and
    club, then the same name; never the person it is now."""
    with store.reading() as db:
        tournament(db, tid)
        row = enrolled(db, tid, player_no)
        names = {x.id: x for x in sql.people.every(db)}
        titles = {x.id: x.name for x in sql.tournaments.newest_first(db)}
        found = []
        for person in names.values():
            if person.id == row.person_id or folded(person.name) != folded(row.name):
                continue
            played = sql.people.enrolments(db, person.id)
            found.append({
                "person": person.id,
                "name": person.name,
                "club": person.club,
                "federation_id": person.federation_id,
                "same_club": folded(person.club) == folded(row.club) and bool(row.club),
                "tournaments": [titles.get(t, str(t)) for t, *_ in played],
            })  # fmt: skip
    return sorted(found, key=lambda x: (not x["same_club"], x["person"]))


def link(
    store: Store, tid: int, player_no: int, person: int, *, reason: str, by: str
) -> dict[str, Any]:
    """Enrolment (``tid``, ``player_no``) is ``person`` from now on; logged. Its ratings and
    seasons count under that person at once (they are worked out from the games)."""
    with store.writing() as db:
        tournament(db, tid, lock=True)
        row = enrolled(db, tid, player_no)
        if sql.people.one(db, person) is None:
            raise NotFoundError(words("no person {person}", person=person))
        sql.people.link(db, tid, player_no, person)
        sql.events.log(
            db, tid, "link_person", player_no=player_no,
            args={"person": person, "was": row.person_id}, reason=reason, by=by,
            at=utc_iso(store.now_ms()),
        )  # fmt: skip
        return player_json(sql.players.one(db, tid, player_no))
