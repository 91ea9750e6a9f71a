"""The catalogue (``klik.words``) for the hub's pages: their scripts, templates and errors.

The console and the projector are scripts in the browser, so they get the same catalogue as a
script of data, ``/words.js``, loaded before theirs (the pages' Content-Security-Policy runs
scripts from files only, so it is a script, not inline JSON). A plural there is picked by the
browser's own CLDR rules (``Intl.PluralRules``), whose categories ("one", "few", "many")
this module maps to the catalogue's plural forms, checked against gettext's formula for
every count up to a thousand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from babel import Locale
from babel.messages.mofile import read_mo

from klik.words import DOMAIN, Language, catalogue

#: Counts whose plural form the browser's category must match (CLDR's rules repeat every 100).
_COUNTS = range(1001)


def plural_forms(language: Language) -> dict[str, int]:
    """CLDR's plural category of a count → the catalogue's form for it, e.g. Polish's
    ``{"one": 0, "few": 1, "many": 2}``. Raises if the two rules ever disagree."""
    rule = Locale(language.value).plural_form
    found = catalogue(language)
    gettext_form: Callable[[int], int] = getattr(found, "plural", lambda n: int(n != 1))
    forms: dict[str, int] = {}
    for n in _COUNTS:
        form = forms.setdefault(rule(n), gettext_form(n))
        if form != gettext_form(n):
            raise AssertionError(f"{language}: CLDR's {rule(n)!r} is form {form} and {n} isn't")
    return forms


def messages(language: Language) -> dict[str, str | list[str]]:
    """Every translated message: its id (with ``context\\x04`` before it where it has one) →
    its text, or its forms for a plural. English is empty: its words are the ids."""
    if language is Language.EN:
        return {}
    mo = resources.files("klik").joinpath(f"locale/{language.value}/LC_MESSAGES/{DOMAIN}.mo")
    with mo.open("rb") as f:
        found = read_mo(f)
    said: dict[str, str | list[str]] = {}
    for message in found:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        context: Any = message.context  # Babel's .mo reader gives it as bytes
        if context:
            key = f"{context.decode() if isinstance(context, bytes) else context}\x04{key}"
        string: Any = message.string
        said[key] = string if isinstance(string, str) else list(string)
    return said


@cache
def script() -> str:
    """``/words.js``: the data, then ``web/words.js``'s functions that read it."""
    data = {
        language.value: {"plural": plural_forms(language), "messages": messages(language)}
        for language in Language
    }
    functions = resources.files("klik_hub").joinpath("web/words.js").read_text(encoding="utf-8")
    catalogue_line = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return f'"use strict";\nconst CATALOGUE = {catalogue_line};\n{functions}'
