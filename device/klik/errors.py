"""One error root for everything Klik reports to a person.

Each leaf also subclasses the fitting builtin, so callers that only know Python's own
exceptions still catch it. ``str(error)`` is the one line a user sees: what, where, what
is allowed, in English; an error raised with ``Words`` (``klik.words``) also reads in the
language of whoever shows it (``error.into(language)``), as the hub's console does.
"""

from __future__ import annotations

from klik.words import Language, Words, text


class KlikError(Exception):
    """Root of every error Klik reports to a person.

    The first argument is the message: a plain string (a library's words, a file's name), or
    ``Words`` still in no language.
    """

    def __init__(self, *args: object) -> None:
        message = args[0] if args else ""
        english = str(message) if isinstance(message, Words) else message
        super().__init__(english, *args[1:])
        self.message: str | Words = message if isinstance(message, Words) else str(message)

    def into(self, language: Language) -> str:
        """The one line in ``language``: the English ``str()`` where the message has no Words."""
        if isinstance(self.message, Words) and len(self.args) == 1:
            return text(self.message, language)
        return str(self)


class InputError(KlikError, ValueError):
    """A document a person wrote (score sheet, game script) is not what Klik accepts."""
