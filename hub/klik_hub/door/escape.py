"""Text from outside the hub, as its log may hold it (issue 36).

A log line is one line: journald, ``grep`` and the judge's terminal all trust that. A request
path, an address a proxy passed on or a frame's error is the client's text, and a CR LF in it
would start a line of the client's own (``ERROR klik_hub: …``, a forged event), an ESC would
drive the terminal, a RIGHT-TO-LEFT OVERRIDE would make it read backwards. So every such text
goes into the log through ``escaped``: each character that is not printable is written as
Python writes it in a string (``\\x00``, ``\\r``, ``\\u2028``), and a backslash is doubled,
so an escape in the log is always the hub's, never spelt out by the client.
"""

from __future__ import annotations

LIMIT = 300  # characters of the client's text kept in a line; a path is read in the first few


def escaped(text: str, limit: int = LIMIT) -> str:
    """``text`` for a log line: nothing that is not printable, backslashes doubled, at most
    ``limit`` characters of it (then "…"). Letters of any language stay as they are."""
    cut = text[:limit]
    if not (cut.isprintable() and "\\" not in cut):
        # repr() escapes exactly what str.isprintable() refuses; of a single character, with
        # its quotes taken off, it is that character's escape.
        cut = "".join(c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in cut)
    return cut + ("…" if len(text) > limit else "")
