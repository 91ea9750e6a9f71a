"""The standings: the final classification, or one stage's, of the results that count
(``counting``) and the deductions, in the tournament's rule set; ranked by the pure core
(``tournament.standings``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import Connection

from klik.core.scoring import RULE_SETS, RuleSet
from klik.words import words
from klik_hub import sql
from klik_hub.office import counting
from klik_hub.office.errors import TournamentError
from klik_hub.office.tournaments import tournament
from klik_hub.sql.rounds import Round
from klik_hub.storage.store import Store
from klik_hub.tournament import formats as f
from klik_hub.tournament import standings as st
from klik_hub.tournament.standings import Row, Score, TieBreak


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
    late = {x.player_no: x.from_round for x in sql.players.enrolled(db, tid) if x.from_round > 1}
    rules = RULE_SETS[row.rules]
    return [
        replace(x, excluded=x.player in out, from_round=late.get(x.player))
        for x in _rank(fmt, rules, names=names, drawn=drawn, scores=scores, stage=stage)
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
