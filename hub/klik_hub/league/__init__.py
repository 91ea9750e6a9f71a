"""Beyond one day: what the hub keeps across tournaments, a module per concept. ``rule_sets``
(the judge's own rule sets beside Klik's) for now; the people, their ratings, the seasons of a
league's meetings and the results that travel between hubs come next (issue 39).

Above the office: it may ask the office of a tournament (its classification, for a season),
and raises the tournament's errors (``office.errors``); it reads through ``klik_hub.sql`` and
the store as the office does, and asks the pure core (``klik_hub.tournament``).
"""

from klik_hub.league import rule_sets

__all__ = ["rule_sets"]
