"""The tournaments: created, listed, shown, and the one in play (the projector's and the
console's). ``tournament`` is how every use case of the office finds its tournament."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from klik.rules import RULE_SETS, canonical
from klik.words import words
from klik_hub import sql
from klik_hub.office.errors import NotFoundError, TournamentError
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import formats as f

IN_PLAY = sql.settings.IN_PLAY  # the hub's setting: the id of the tournament in play


def tournament(db: Connection, tid: int, *, lock: bool = False) -> Any:
    """Tournament ``tid``'s row; NotFoundError if there is none. ``lock`` (in a write
    transaction): the row stays locked until it ends, so a tournament's draws, enrolments,
    changes and corrections are decided one at a time (PostgreSQL; SQLite's writer lock does
    the same)."""
    row = sql.tournaments.of(db, tid, lock=lock)
    if row is None:
        raise NotFoundError(words("no tournament {tid}", tid=tid))
    return row


def drawn_round(db: Connection, tid: int, round_no: int) -> tuple[list[Round], Round]:
    """Tournament ``tid``'s drawn rounds and round ``round_no`` among them; NotFoundError if
    it has not been drawn."""
    drawn = sql.rounds.drawn(db, tid)
    found = [x for x in drawn if x.round_no == round_no]
    if not found:
        raise NotFoundError(words("tournament {tid} has no round {round}", tid=tid, round=round_no))
    return drawn, found[0]


def create(
    store: Store,
    name: str,
    rules: str | None,
    format_name: str,
    move_time_s: int | None,
    *,
    round_time_s: int | None = None,
    release_together: bool = False,
) -> int:
    """A new tournament; ``rules`` None plays it under its format's rule set, ``move_time_s``
    None with the set's move time. A rule set
    the format is not played under is a TournamentError: one rule set scores, ranks and
    seeds a tournament, and a format's seeding is made for its own. ``round_time_s``: None
    for the format's round time, 0 for none; ``release_together``: the public pages show a
    round's results once every table of it has reported."""
    fmt = f.load_format(format_name)  # FormatError if there is no such preset
    rules = fmt.rules[0] if rules is None else canonical(rules)
    try:
        fmt.check_rules(rules)
    except f.FormatError as error:
        raise TournamentError(error.message) from None
    if move_time_s is None:  # the rule set's: 60 s in pl-turniej, 40 in wrc
        move_time_s = RULE_SETS[rules].move_time_s
    with store.writing() as db:
        return sql.tournaments.create(
            db,
            name=name,
            rules=rules,
            format_name=format_name,
            move_time_s=move_time_s,
            created_at=utc_iso(store.now_ms()),
            round_time_s=fmt.round_time_s if round_time_s is None else (round_time_s or None),
            release_together=release_together,
        )


def listed(store: Store) -> list[dict[str, Any]]:
    """Every tournament, newest first: ``{"id", "name", "rules", "format", "move_time_s",
    "round_time_s", "release_together", "in_play"}``."""
    with store.reading() as db:
        found = sql.tournaments.newest_first(db)
    playing = in_play(store)
    return [
        {"id": x.id, "name": x.name, "rules": x.rules, "format": x.format,
         "move_time_s": x.move_time_s, "round_time_s": x.round_time_s,
         "release_together": x.release_together, "in_play": x.id == playing}
        for x in found
    ]  # fmt: skip


def get(store: Store, tid: int) -> dict[str, Any]:
    """The tournament: its settings, how many players, the rounds drawn."""
    with store.reading() as db:
        row = tournament(db, tid)
        enrolled = sql.players.count(db, tid)
        drawn = sql.rounds.listed(db, tid)
    return {
        "id": row.id,
        "name": row.name,
        "rules": row.rules,
        "format": row.format,
        "move_time_s": row.move_time_s,
        "round_time_s": row.round_time_s,
        "release_together": row.release_together,
        "in_play": row.id == in_play(store),
        "players": enrolled,
        "rounds": [
            {"round": x.round_no, "stage": x.stage, "games": x.games, "seed": x.seed} for x in drawn
        ],
        "stages": stages_of(row.format),
    }


def stages_of(format_name: str) -> list[dict[str, str]]:
    """A format's stages, in the order played, each ``{"name", "title_en"}``: the pages'
    names of a stage in either language."""
    return [
        {"name": s.name, "title_en": s.title(english=True)}
        for s in f.load_format(format_name).stages
    ]


def in_play(store: Store) -> int | None:
    """The tournament the judge marked in play (the projector's and console's)."""
    kept = store.setting(IN_PLAY)
    return int(kept) if kept is not None and kept.isdigit() else None


def play(store: Store, tid: int) -> None:
    """Mark ``tid`` the tournament in play: the projector and the console follow it."""
    with store.reading() as db:
        tournament(db, tid)
    store.set_setting(IN_PLAY, str(tid))
