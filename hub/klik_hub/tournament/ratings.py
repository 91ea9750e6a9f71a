"""Ratings for 3- and 4-player tables: every counted game moves each person's rating by the
table's finishing order, with OpenSkill's Plackett–Luce model (a Bayesian rating built for
multiplayer games: a table's order goes in as it is, ties shared, and tables of 2, 3 and 4
sit on one scale).

A rating is a belief: ``mu`` (the skill) and ``sigma`` (how unsure it is), 25 and 25/3 for a
newcomer. The figure shown is the conservative one, ``mu − 3·sigma`` (0 for a newcomer), so a
player climbs by playing well and often; under ``PROVISIONAL_GAMES`` games a rating is
provisional. Ratings are recomputed from the games alone, oldest first: a correction or an
undone round changes them, and the same games give the same figures. Pure: no I/O, no clock
(``today`` is given).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

PROVISIONAL_GAMES = 30


@dataclass(frozen=True, slots=True)
class Game:
    """One counted game: each person's place at the table (1, 2, 2, 4: ties share)."""

    day: str  # when it was played, "2026-11-28": what "today" compares with
    places: Mapping[int, int]  # person -> place


@dataclass(frozen=True, slots=True)
class Rating:
    person: int
    mu: float
    sigma: float
    games: int
    before_today: float  # the shown figure before today's first game (now's if none today)

    @property
    def value(self) -> float:
        """The conservative figure the lists show: mu − 3·sigma."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def change_today(self) -> float:
        return self.value - self.before_today


def rate(games: Iterable[Game], today: str) -> dict[int, Rating]:
    """Every person's rating after ``games``, oldest first. A game of fewer than two persons
    (the rest unknown to the hub) moves nobody."""
    model = PlackettLuce()
    beliefs: dict[int, tuple[float, float]] = {}
    played: dict[int, int] = {}
    before: dict[int, float] = {}
    for game in games:
        people = sorted(game.places)
        if len(people) < 2:
            continue
        fresh = (model.mu, model.sigma)
        for person in people:
            mu, sigma = beliefs.get(person, fresh)
            if game.day == today and person not in before:
                before[person] = mu - 3 * sigma
        teams = [[model.rating(*beliefs.get(p, fresh))] for p in people]
        moved = model.rate(teams, ranks=[game.places[p] for p in people])
        for person, (now,) in zip(people, moved, strict=True):
            beliefs[person] = (now.mu, now.sigma)
            played[person] = played.get(person, 0) + 1
    return {
        p: Rating(p, mu, sigma, played[p], before.get(p, mu - 3 * sigma))
        for p, (mu, sigma) in beliefs.items()
    }


def ranked(ratings: Mapping[int, Rating]) -> list[Rating]:
    """Best first: by the shown figure, then mu, then the person's id (a fixed order)."""
    return sorted(ratings.values(), key=lambda r: (-r.value, -r.mu, r.person))
