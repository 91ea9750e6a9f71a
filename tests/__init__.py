"""Klik's tests, a package so that a test imports what it shares by name
(``from tests.helpers.radio import Radio``), never by editing ``sys.path``. The folders mirror
the code's; ``conftest.py`` sorts the tests into tiers."""
