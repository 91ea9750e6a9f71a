"""Klik: the table-side move clock and scorer for Rummikub tournaments.

``klik.core`` is the pure game engine (no I/O, no clock); everything else adapts it to a
command line, and later to the Raspberry Pi's buttons, screens and the tournament hub.
"""

__version__ = "0.1.0"
