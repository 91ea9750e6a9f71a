"""Results that travel: a finished tournament written as a documented, versioned JSON file
(``"format": "klik-results", "version": 1``, README *Results that travel*), or a CSV a national
ranking can ingest, and such a file taken in by another hub as a finished tournament (a
league whose meetings ran on different laptops).

The file holds what the tournament decided, not how it got there: its rule set (every key),
its people and players, its rounds' tables, every game that counts with its racks and points
as corrected, the sanctions (without the judge's reasons, which are never public) and the
final classification. An import is checked whole before anything is kept: a file that breaks
the format, a game whose points do not recompute under its rule set, or a classification the
hub does not reach from the games, is refused in one line, in one transaction that keeps
nothing. Exporting an imported tournament gives the same file but for its ids and its time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from klik import rules as r
from klik.core.scoring import Ending, SeatRack, score
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.errors import TournamentError
from klik_hub.office.players import new_code
from klik_hub.office.standings import ranked_in, status
from klik_hub.office.tournaments import tournament
from klik_hub.storage.store import Store, utc_iso
from klik_hub.tournament import formats as f
from klik_hub.tournament.standings import Row, Status

FORMAT, VERSION = "klik-results", 1
DEVICE = "import"  # the device an imported game is kept as coming from: no table's
SEATS = "ABCD"


class ExchangeError(TournamentError):
    """A results file the hub cannot take; ``str()`` names what and where."""


def export(store: Store, tid: int) -> dict[str, Any]:
    """Tournament ``tid`` as a results file (see the module's docstring)."""
    with store.reading() as db:
        return _export(db, store, tid)


def _export(db: Connection, store: Store, tid: int) -> dict[str, Any]:
    row = tournament(db, tid)
    rules = r.RULE_SETS[row.rules]
    enrolled = sql.players.by_number(db, tid)
    people = {x.id: x for x in sql.people.every(db)}
    drawn = sql.rounds.drawn(db, tid)
    stage_of = {x.round_no: x.stage for x in drawn}
    names = sql.players.names(db, tid)
    listed = counting.counted(db, tid, names, drawn)
    games = []
    for x in listed:
        if not x.now.counts or x.placed.slot is None:
            continue
        slot = x.placed.slot
        merit = {s: rules.winner_sign * p for s, p in x.now.small.items()}
        games.append({
            "round": slot.round_no, "table": slot.table, "game": slot.game,
            "stage": stage_of[slot.round_no], "ending": x.body["ending"],
            "ended_by": x.body.get("ended_by"), "winners": list(x.now.winners),
            "seats": {s: {
                "player": x.credit.get(s) or x.now.players.get(s), "rack": x.now.rack[s],
                "opened": bool(x.body["seats"][s].get("opened", True)),
                "small": x.now.small[s], "big": x.now.big[s],
                "place": 1 + sum(o > m for o in merit.values()),
            } for s, m in merit.items()},
        })  # fmt: skip
    games.sort(key=lambda g: (g["round"], g["table"], g["game"]))
    given = [
        {"player": s["player"], "kind": s["kind"], "big": s["big"], "stage": s["stage"]}
        for s in _sanctions(db, tid)
    ]
    ranked = ranked_in(db, tid, listed=listed)
    persons = sorted({x.person_id for x in enrolled if x.person_id is not None})
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": utc_iso(store.now_ms()),
        "tournament": {
            "id": tid,
            "name": row.name,
            "format": row.format,
            "rules": rules.name,
            "rules_version": rules.version,
            "rule_set": r.to_data(rules),
            "move_time_s": row.move_time_s,
            "created_at": row.created_at,
        },
        "people": [
            {
                "id": p,
                "federation_id": people[p].federation_id,
                "name": people[p].name,
                "club": people[p].club,
            }
            for p in persons
        ],
        "players": [
            {
                "player": x.player_no,
                "person": x.person_id,
                "name": x.name,
                "club": x.club,
                "active": bool(x.active),
                "from_round": x.from_round,
            }
            for x in enrolled
        ],
        "rounds": [
            {
                "round": x.round_no,
                "stage": x.stage,
                "games": x.games,
                "tables": [dict(zip(SEATS, t, strict=False)) for t in x.tables],
            }
            for x in drawn
        ],
        "games": games,
        "sanctions": given,
        "classification": classified(ranked),
    }


def classified(ranked: Iterable[Row]) -> list[dict[str, Any]]:
    """The classification as the file writes it, and as an import must reach it again."""
    return [
        {
            "place": None if status(x) is not Status.CLASSIFIED else x.place,
            "player": x.player,
            "big": x.big,
            "small": x.small,
            "games": x.games,
            "stage": x.stage or None,
            "status": status(x).value,
        }
        for x in ranked
    ]


def dumps(exported: Mapping[str, Any]) -> bytes:
    """The file's bytes: UTF-8 JSON, keys in the order written, two-space indents."""
    return (json.dumps(exported, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _sanctions(db: Connection, tid: int) -> list[dict[str, Any]]:
    from klik_hub.office import sanctions  # noqa: PLC0415 (the office's, read as it gives them)

    return sanctions.given(db, tid)


# --- import -----------------------------------------------------------------------------


def take(store: Store, data: Any, season: int | None = None) -> int:
    """A results file taken in as a finished tournament (and a meeting of ``season``); its
    new id. ExchangeError, one line, keeping nothing, for a file the hub cannot take."""
    checked = _checked(data)
    rules = checked["rules"]
    own = rules.name not in r.shipped()
    if not own and r.shipped()[rules.name] != rules:
        raise ExchangeError(words(
            "tournament.rule_set: {name} is Klik's own set, and the file's differs from it",
            name=rules.name,
        ))  # fmt: skip
    before = r.added()
    if own:
        r.add(rules)  # the games are scored by it below; forgotten again if the file is refused
    try:
        return _take(store, data, season, rules, checked["rule_text"])
    except BaseException:
        r.restore(before)
        raise


def _take(store: Store, data: Any, season: int | None, rules: Any, text: str) -> int:
    with store.writing() as db:
        if season is not None and sql.seasons.one(db, season) is None:
            raise ExchangeError(words("no season {sid}", sid=season))
        if rules.name not in r.shipped():
            _keep_rule_set(db, store, rules, text)
        tid = _keep(db, store, data, rules)
        got = classified(ranked_in(db, tid))
        said = data["classification"]
        if got != said:
            first = next(i for i in range(max(len(got), len(said)))
                         if got[i:i + 1] != said[i:i + 1])  # fmt: skip
            raise ExchangeError(words(
                "classification[{i}]: the games give {got}, the file {said}", i=first,
                got=json.dumps(got[first:first + 1]), said=json.dumps(said[first:first + 1]),
            ))  # fmt: skip
        if season is not None:
            sql.seasons.add_meeting(db, season, tid)
    return tid


def _keep_rule_set(db: Connection, store: Store, rules: Any, text: str) -> None:
    kept = sql.rule_sets.text_of(db, rules.name, rules.version)
    if kept is None:
        sql.rule_sets.add(db, rules.name, rules.version, text, utc_iso(store.now_ms()))
    elif r.parse(kept, "kept") != rules:
        raise ExchangeError(words(
            "tournament.rule_set: {name} version {version} is kept here with other rules",
            name=rules.name, version=rules.version,
        ))  # fmt: skip


def _keep(db: Connection, store: Store, data: Mapping[str, Any], rules: Any) -> int:
    t = data["tournament"]
    at = utc_iso(store.now_ms())
    fmt = f.load_format(t["format"])
    tid = sql.tournaments.create(
        db, name=t["name"], rules=rules.name, format_name=t["format"],
        move_time_s=t["move_time_s"], created_at=t["created_at"], round_time_s=fmt.round_time_s,
        release_together=False,
    )  # fmt: skip
    person_of: dict[int, int] = {}
    for p in data["people"]:
        known = p["federation_id"] and sql.people.by_federation_id(db, p["federation_id"])
        person_of[p["id"]] = known or sql.people.add(db, p["name"], p["club"],
                                                    p["federation_id"], at)  # fmt: skip
    sql.players.enrol(db, [
        {"tournament_id": tid, "player_no": x["player"], "name": x["name"], "club": x["club"],
         "code": new_code(), "from_round": x["from_round"], "checked_in": False,
         "person_id": person_of.get(x["person"])}
        for x in data["players"]
    ])  # fmt: skip
    for x in data["players"]:
        if not x["active"]:
            sql.players.change(db, tid, x["player"], {"active": False})
    for x in data["rounds"]:
        seats = [(k, s, p) for k, t in enumerate(x["tables"], start=1) for s, p in t.items()]
        kept = sql.rounds.Round(x["round"], x["stage"], x["games"], 0, (), at)
        sql.rounds.keep(db, tid, kept, override=False, seats=seats)
    for k, g in enumerate(data["games"], start=1):
        _keep_game(db, store, tid, g, k=k, rules=rules, at=at)
    for s in data["sanctions"]:
        sql.events.log(db, tid, s["kind"], player_no=s["player"],
                       args={"stage": s["stage"], "big": s["big"]}, reason="import",
                       by="import", at=at)  # fmt: skip
    return tid


def _keep_game(
    db: Connection, store: Store, tid: int, g: Mapping[str, Any], *, k: int, rules: Any, at: str
) -> None:
    seats = g["seats"]
    body = {
        "tournament": str(tid), "round": g["round"], "round_game": g["game"],
        "table": g["table"], "game": k, "rules": rules.name, "rules_version": rules.version,
        "ending": g["ending"], "ended_by": g["ended_by"], "winners": g["winners"],
        "seats": {s: {"name": "", "player": str(e["player"]), "rack": e["rack"],
                      "opened": e["opened"], "small": e["small"], "big": e["big"]}
                  for s, e in seats.items()},
        "moves": 0, "timeouts": 0, "duration_ms": 0, "finished_at": None,
    }  # fmt: skip
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    sql.results.add(db, store.upserts, {
        "device": f"{DEVICE}:{tid}", "seq": k, "digest": digest, "table_no": g["table"],
        "tournament": str(tid), "named": tid, "round_no": g["round"], "game": k,
        "body": text, "receipt": digest[:5].upper(), "points_check": "ok", "conflict": False,
        "received_at": at,
    })  # fmt: skip


def _checked(data: Any) -> dict[str, Any]:
    """The file's rule set, once the file is a results file whose every game recomputes;
    ExchangeError naming the first fault."""

    def need(ok: bool, where: str, what: str) -> None:
        if not ok:
            raise ExchangeError(words("{where}: {what}", where=where, what=what))

    need(isinstance(data, dict), "file", "must be a JSON object")
    need(data.get("format") == FORMAT, "format", f'must be "{FORMAT}"')
    need(data.get("version") == VERSION, "version", f"must be {VERSION}")
    keys = ("tournament", "people", "players", "rounds", "games", "sanctions", "classification")
    for key in keys:
        need(key in data, key, "is missing")
    t = data["tournament"]
    need(isinstance(t, dict), "tournament", "must be an object")
    try:
        rules = r.from_data(t.get("rule_set"), "tournament.rule_set")
    except (r.RulesError, AttributeError, TypeError) as error:
        raise ExchangeError(str(error)) from None
    need(t.get("rules") == rules.name and t.get("rules_version") == rules.version,
         "tournament.rules", "must name its rule_set and its version")  # fmt: skip
    need(t.get("format") in f.preset_names(), "tournament.format",
         f"must be one of {', '.join(f.preset_names())}")  # fmt: skip
    for key, kind in (("name", str), ("created_at", str), ("move_time_s", int)):
        need(isinstance(t.get(key), kind), f"tournament.{key}", f"must be {kind.__name__}")
    players = {x.get("player") for x in data["players"] if isinstance(x, dict)}
    for i, g in enumerate(data["games"]):
        where = f"games[{i}]"
        try:
            ending = Ending(g["ending"])
            racks = {s: SeatRack(e["rack"], e["opened"]) for s, e in g["seats"].items()}
            winner = g["winners"][0] if ending is Ending.RUMMIKUB else None
            got = score(rules, ending, racks, winner)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ExchangeError(words("{where}: not a game ({error})", where=where,
                                      error=str(error))) from None  # fmt: skip
        for s, e in g["seats"].items():
            need(
                e.get("player") in players,
                f"{where}.seats.{s}.player",
                "must be a player of the file",
            )
            need((e.get("small"), e.get("big")) == (got.small[s], got.big[s]), f"{where}.seats.{s}",
                 f"small {e.get('small')} and big {e.get('big')} do not recompute under "
                 f"{rules.name}: {got.small[s]} and {got.big[s]}")  # fmt: skip
    return {"rules": rules, "rule_text": r.to_toml(rules)}
