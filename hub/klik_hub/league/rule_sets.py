"""The judge's own rule sets: a TOML file sent from the console, checked as ``klik rules
check`` checks one, kept (each version), and known to the hub beside the shipped sets.

A tournament may then be played under it (a format that lists it, or the open format: any
set); the round's lineup carries it to the tables (``rounds._lineup``), which need not know
it. A set is never changed in place: a new version is a new row, and the results a table
played under the older one are held (``"rules"``) until the judge accepts them.
"""

from __future__ import annotations

from typing import Any

from klik import rules as r
from klik.words import pwords, words
from klik_hub import sql
from klik_hub.office.errors import ConflictError, TournamentError
from klik_hub.storage.store import Store, utc_iso

MAX_TEXT = 16 * 1024  # a set's file: a shipped one is about 1.5 KiB


def load(store: Store) -> None:
    """Know every set the judge added, at its newest version (the hub's start)."""
    with store.reading() as db:
        kept = sql.rule_sets.every(db)
    for name, version, text in kept:  # a name's versions in order: the newest stays
        r.add(r.parse(text, f"{name} v{version}"))


def add(store: Store, text: str) -> dict[str, Any]:
    """Keep the set in ``text`` and know it from now on: ``{"name", "version"}``.

    TournamentError (422) for a file ``klik rules check`` refuses, in its one line;
    ConflictError (409) for a shipped set's name, or a version the hub has with another
    text or below the newest it has. The same file again is taken again (a retry)."""
    try:
        found = r.parse(text, "rule set")
    except r.RulesError as error:
        # The line is English (``klik rules check`` says it so); a Polish reader is told the
        # key, and that the command says what is allowed.
        # ("{key:.0}" writes nothing: the English line names the key already; the Polish one
        # writes the key and its "{line:.0}" nothing, as the line is English.)
        said = pwords("rule set file", "{line}{key:.0}", line=str(error), key=error.key)
        raise TournamentError(said) from None
    if found.name in r.shipped() or found.name in r.ALIASES:
        raise ConflictError(
            words("rule set {name}: Klik ships a set of that name; choose another", name=found.name)
        )
    if found.aliases:
        raise TournamentError(words("aliases: only Klik's own sets have older names; leave it []"))
    with store.writing() as db:
        kept = sql.rule_sets.text_of(db, found.name, found.version)
        if kept is None:
            newest = max((v for n, v, _ in sql.rule_sets.every(db) if n == found.name), default=0)
            if found.version < newest:
                raise ConflictError(
                    words(
                        "rule set {name} is at version {newest}; send a higher one",
                        name=found.name,
                        newest=newest,
                    )
                )
            sql.rule_sets.add(db, found.name, found.version, text, utc_iso(store.now_ms()))
        elif kept != text:
            raise ConflictError(
                words(
                    "rule set {name} version {version} is kept with other rules; raise its version",
                    name=found.name,
                    version=found.version,
                )
            )
    r.add(found)
    return {"name": found.name, "version": found.version}


def listed() -> list[dict[str, Any]]:
    """Every set the hub knows, shipped first: what the console's choice shows."""
    shipped = r.shipped()
    return [
        {
            "name": s.name,
            "version": s.version,
            "title_pl": s.title_pl,
            "title_en": s.title_en,
            "source": s.source,
            "open": list(s.notes),
            "aliases": list(s.aliases),
            "move_time_s": s.move_time_s,
            "shipped": s.name in shipped,
        }
        for s in r.sets().values()
    ]
