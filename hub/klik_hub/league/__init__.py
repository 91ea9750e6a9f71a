"""Beyond one day: what the hub keeps across tournaments, a module per concept: ``rule_sets``
(the judge's own rule sets beside Klik's), ``people`` (a player across tournaments, and the
judge's link of an enrolment to one), ``ratings`` (every person's, from every counted game),
``seasons`` (a league's meetings ranked together). The results that travel between hubs
come next.

Above the office: it may ask the office of a tournament (its classification, for a season),
and raises the tournament's errors (``office.errors``); it reads through ``klik_hub.sql`` and
the store as the office does, and asks the pure core (``klik_hub.tournament``).
"""

from klik_hub.league import people, ratings, rule_sets, seasons

__all__ = ["people", "ratings", "rule_sets", "seasons"]
