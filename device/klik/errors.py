"""One error root for everything Klik reports to a person.

Each leaf also subclasses the fitting builtin, so callers that only know Python's own
exceptions still catch it. ``str(error)`` is the one line a user sees: what, where, what
is allowed.
"""


class KlikError(Exception):
    """Root of every error Klik reports to a person."""


class InputError(KlikError, ValueError):
    """A document a person wrote (score sheet, game script) is not what Klik accepts."""
