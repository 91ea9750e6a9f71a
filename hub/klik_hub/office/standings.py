"""The standings: the final classification, or one stage's, of the results that count
(``counting``) and the deductions, in the tournament's rule set; ranked by the pure core
(``tournament.standings``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection

from klik.core.scoring import RuleSet
from klik.rules import RULE_SETS
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.errors import TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store
from klik_hub.tournament import formats as f
from klik_hub.tournament import standings as st
from klik_hub.tournament.standings import Row, Score, Status, TieBreak


def ranked(store: Store, tid: int, stage: str | None = None) -> list[Row]:
    """The final classification (by the last stage reached, as the format says), or with
    ``stage`` that stage's standings of its own players: big, then small points (the
    format's tie-breaks) of the results that count, in the tournament's rule set."""
    with store.reading() as db:
        return ranked_in(db, tid, stage)


def ranked_in(
    db: Connection,
    tid: int,
    stage: str | None = None,
    listed: Sequence[counting.Counted] | None = None,
) -> list[Row]:
    """``ranked``, read in the caller's transaction (``listed``: what every result counts
    for, if the caller has it already). A late arrival's row says the round they were
    drawn from (``from_round``; None for everyone who was there from round 1)."""
    row = tournament(db, tid)
    fmt = f.load_format(row.format)
    if stage is not None and stage not in [s.name for s in fmt.stages]:
        allowed = ", ".join(s.name for s in fmt.stages)
        said = words("stage {stage!r}: allowed are {stages}", stage=stage, stages=allowed)
        raise TournamentError(said)
    names = sql.players.names(db, tid)
    drawn = sql.rounds.drawn(db, tid)
    scores = counting.scores(db, tid, names, drawn, listed)
    out = sql.events.excluded(db, tid)
    enrolled = sql.players.enrolled(db, tid)
    late = {x.player_no: x.from_round for x in enrolled if x.from_round > 1}
    withdrawn = {x.player_no for x in enrolled if not x.active}
    rules = RULE_SETS[row.rules]
    return [
        replace(
            x,
            excluded=x.player in out,
            withdrawn=x.player in withdrawn,
            from_round=late.get(x.player),
        )
        for x in _rank(fmt, rules, names=names, drawn=drawn, scores=scores, stage=stage)
    ]


def status(x: Row) -> Status:
    """What row ``x``'s place is: the judge's exclusion or withdrawal over all, else whether
    a game of the player's counts (the core's word)."""
    return Status.EXCLUDED if x.excluded else Status.WITHDRAWN if x.withdrawn else x.status


def shown(x: Row, club: str) -> dict[str, Any]:
    """Row ``x`` as the API, the board and the pages show it (``answers.StandingRow``): a row
    without a game has no place (null), its status says why."""
    return {
        "place": x.place if x.placed else None,
        "player": x.player,
        "name": x.name,
        "club": club,
        "big": x.big,
        "small": x.small,
        "games": x.games,
        "stage": x.stage or None,
        "status": status(x).value,
        "excluded": x.excluded,
        "deductions": [{"stage": d.stage or None, "big": d.big} for d in x.deductions],
        "from_round": x.from_round,
        "reserve_games": x.reserve_games,
    }


def separated(rows: Sequence[dict[str, Any]]) -> list[tuple[bool, dict[str, Any]]]:
    """Each of ``rows`` (``shown``) with whether a separator naming its group comes before it:
    the group is the row's stage, or no place at all; separators only where there is more
    than one group, and none before a group without a stage (a format that ranks every
    round together). The pages' ``standings.js`` does the same."""
    group = [None if r["place"] is None else r["stage"] or "" for r in rows]
    many = len(set(group)) > 1
    return [
        (many and group[k] != "" and (k == 0 or group[k - 1] != group[k]), r)
        for k, r in enumerate(rows)
    ]


def _rank(
    fmt: f.Format,
    rules: RuleSet,
    *,
    names: dict[int, str],
    drawn: Sequence[Round],
    scores: Sequence[Score],
    stage: str | None,
) -> list[Row]:
    everyone = seated(drawn)
    if stage is not None:
        ranked = of_stage(names, scores, everyone, stage, rules=rules, tie_breaks=fmt.tie_breaks)
        return [replace(x, stage=stage) for x in ranked]
    if fmt.classification is f.Classification.ALL_ROUNDS:
        return st.standings(names, scores, rules=rules, tie_breaks=fmt.tie_breaks)
    return st.classification(
        names,
        scores,
        rules=rules,
        tie_breaks=fmt.tie_breaks,
        stages=[s.name for s in fmt.stages],
        seated=everyone,
    )


def of_stage(
    names: dict[int, str],
    scores: Sequence[Score],
    seated: dict[str, set[int]],
    stage: str,
    *,
    rules: RuleSet,
    tie_breaks: Sequence[TieBreak],
) -> list[Row]:
    """One stage's standings, of the players who played it only."""
    own = st.stage_players(stage, seated, scores)
    return st.standings(
        {p: n for p, n in names.items() if p in own},
        [x for x in scores if x.player in own],
        rules=rules,
        tie_breaks=tie_breaks,
        stages=(stage,),
    )


def seated(drawn: Sequence[Round]) -> dict[str, set[int]]:
    """Who sat at a round of each stage."""
    by_stage: dict[str, set[int]] = {}
    for x in drawn:
        by_stage.setdefault(x.stage, set()).update(p for table in x.tables for p in table)
    return by_stage
