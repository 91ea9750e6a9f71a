"""What tests in several folders share: ``hubkit`` (result bodies, a live hub), ``tourney``
(a tournament's paired tables and its judge), ``radio`` (a simulated serial channel),
``pgserver`` (a throwaway PostgreSQL cluster) and ``play`` (a table driven by hand)."""
