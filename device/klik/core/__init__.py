"""The pure game core: rules, gestures, the move clock and scoring, with no I/O and no clock.

Nothing under ``klik.core`` imports hardware, storage, network, threads or ``time``; a test
enforces it. Events carry their timestamps; the shell carries out the effects it returns.
"""
