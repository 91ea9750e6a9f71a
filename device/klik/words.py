"""Every word a player or judge reads, in one gettext catalogue per language.

The messages' ids are English (gettext's convention: a missing translation still reads), and
``locale/pl/LC_MESSAGES/klik.po`` gives each one in Polish, with Polish plural forms
(``nplurals=3``: "1 gra", "2 gry", "5 gier"). English needs no catalogue of its own: its words
are the ids, and gettext's English plural rule is the default one.

Where the words are used:

* the table's screens (``klik.table.screens.render``) and its virtual table's page;
* the hub's printed pages (Jinja2's i18n extension with these translations), its CSV
  headers, its console and projector (``/words/{lang}.json``, the same catalogue as JSON);
* every error a person reads: a ``KlikError`` carries ``Words``, the message still in no
  language, and whoever shows it picks the language (the console's, the page's).

``make words`` extracts the ids from the code (``pybabel extract``, configured in
``pyproject.toml``), merges them into the ``.po`` and compiles the ``.mo`` that gettext reads;
``tests/test_words.py`` fails when a message lacks its Polish or the ``.mo`` is stale.

Marking a message: ``_("Pile: {n}")`` where the language is known, ``words("…", n=3)`` where it
is not yet (an error), ``nwords("{n} game", "{n} games", n)`` for a plural, and
``pgettext``/``pwords`` with a context where one English word needs two Polish ones.
"""

from __future__ import annotations

import gettext
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the pages' extras only (klik[hub], klik[sim]): never imported on a table
    from jinja2 import Environment

DOMAIN = "klik"


class Language(StrEnum):
    """The languages everything a person reads is written in; Polish is the default."""

    PL = "pl"
    EN = "en"


DEFAULT = Language.PL


@cache
def catalogue(language: Language) -> gettext.NullTranslations:
    """The translations for ``language``, read once from the package's ``locale/``.

    English is the ids themselves. A missing Polish catalogue is a broken install, so it
    raises (``FileNotFoundError``) rather than quietly showing English to Polish players.
    """
    if language is Language.EN:
        return gettext.NullTranslations()
    with resources.as_file(resources.files("klik").joinpath("locale")) as folder:
        return gettext.translation(DOMAIN, localedir=folder, languages=[language.value])


def language_of(header: str | None, default: Language = Language.EN) -> Language:
    """The first language of an ``Accept-Language`` header that Klik speaks, else ``default``.

    Quality values are honoured in order of preference (``en;q=0.5, pl`` is Polish); a tag's
    region is ignored (``pl-PL`` is Polish). Never raises: a garbled header is no preference.
    """
    if not header:
        return default
    ranked: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")[:16]):  # a header is a person's, not a list
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip() == "q":
            try:
                quality = float(value)
            except ValueError:
                continue
        ranked.append((-quality, order, tag.strip().lower().split("-")[0]))
    for negative, _, tag in sorted(ranked):
        if negative < 0 and tag in {language.value for language in Language}:
            return Language(tag)
    return default


@dataclass(frozen=True, slots=True)
class Words:
    """A message in no language yet: its English id, its arguments, and for a plural the
    plural id and the count that picks the form. ``str()`` is English; ``into`` any language.

    Built by ``words``/``nwords``/``pwords`` (which ``pybabel extract`` looks for), carried by
    errors (``KlikError``) up to whoever knows the reader's language.
    """

    msgid: str
    args: Mapping[str, object] = field(default_factory=dict)
    plural: str | None = None
    n: int = 1
    context: str | None = None

    def into(self, language: Language) -> str:
        """The message in ``language``, its ``{names}`` filled in."""
        found = catalogue(language)
        if self.plural is not None and self.context is not None:
            text = found.npgettext(self.context, self.msgid, self.plural, self.n)
        elif self.plural is not None:
            text = found.ngettext(self.msgid, self.plural, self.n)
        elif self.context is not None:
            text = found.pgettext(self.context, self.msgid)
        else:
            text = found.gettext(self.msgid)
        args = {name: _shown(value, language) for name, value in self.args.items()}
        return text.format(**args) if args or self.plural is not None else text

    def __str__(self) -> str:
        return self.into(Language.EN)


def _shown(value: object, language: Language) -> object:
    """An argument that is itself ``Words`` (a reason inside a message) in the same language."""
    return value.into(language) if isinstance(value, Words) else value


def N_(msgid: str) -> str:  # noqa: N802  (gettext's own name for it, which extractors know)
    """Marks ``msgid`` for the catalogue where it is stored, to be translated where it is shown."""
    return msgid


def words(msgid: str, /, **args: object) -> Words:
    """A message for later: ``words("byte {at}: not UTF-8", at=3)``."""
    return Words(msgid, args)


def nwords(singular: str, plural: str, n: int, /, **args: object) -> Words:
    """A plural message for later; ``{n}`` is the count unless ``args`` says otherwise."""
    return Words(singular, {"n": n, **args}, plural, n)


def pwords(context: str, msgid: str, /, **args: object) -> Words:
    """A message for later whose English id needs a context to pick its translation."""
    return Words(msgid, args, context=context)


def text(message: str | Words, language: Language) -> str:
    """What a person reads: ``Words`` in ``language``; a plain string as it is (a name, a
    library's own message)."""
    return message.into(language) if isinstance(message, Words) else message


# --- the catalogue for the pages' scripts -----------------------------------------------
# A browser picks a plural by its own CLDR rules (``Intl.PluralRules``); Babel's CLDR data maps
# each category ("one", "few", "many") to the catalogue's form, checked against gettext's own
# formula for every count up to a thousand. Babel is the hub's and the virtual table's
# (klik[hub], klik[sim]), never a table's: it is imported only here, when a page asks.

_COUNTS = range(1001)


def plural_forms(language: Language) -> dict[str, int]:
    """CLDR's plural category of a count → the catalogue's form for it, e.g. Polish's
    ``{"one": 0, "few": 1, "many": 2}``. Raises if the two rules ever disagree."""
    from babel import Locale  # noqa: PLC0415  (the pages' extra, not the table's)

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
    from babel.messages.mofile import read_mo  # noqa: PLC0415  (as above)

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
    """``/words.js``: the catalogue as data, then ``words.js``'s functions that read it
    (``_``, ``ngettext``, ``pgettext``, ``speak``); served by the hub and the virtual table."""
    data = {
        language.value: {"plural": plural_forms(language), "messages": messages(language)}
        for language in Language
    }
    functions = resources.files("klik").joinpath("words.js").read_text(encoding="utf-8")
    catalogue_line = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return f'"use strict";\nconst CATALOGUE = {catalogue_line};\n{functions}'


# --- the pages' templates ---------------------------------------------------------------


def templates(package: str) -> Environment:
    """The Jinja2 templates in ``package``'s ``templates/``, as every page of Klik's has them:
    autoescaped, a name a template misspells an error (StrictUndefined) rather than a blank,
    each compiled once. The hub's printed pages and the virtual table's hall use it."""
    from jinja2 import (  # noqa: PLC0415  (the pages' extras, not the table's)
        Environment,
        PackageLoader,
        StrictUndefined,
        select_autoescape,
    )

    return Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def spoken(language: Language) -> dict[str, Any]:
    """What a template needs to speak ``language``: ``_``, ``pgettext`` and ``ngettext`` from
    the catalogue (``pybabel extract`` finds their calls), and ``lang`` for the page's tag."""
    said = catalogue(language)
    return {
        "lang": language.value,
        "_": said.gettext,
        "pgettext": said.pgettext,
        "ngettext": said.ngettext,
    }
