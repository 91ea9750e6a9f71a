"""The catalogue: every word a person reads has its Polish, and gettext reads what the .po says.

The messages are extracted from the code, the templates and the scripts exactly as
``make words`` does (``pybabel extract`` with ``pyproject.toml``'s mapping), so a message marked
in the code but never translated fails here, and so does a translation the code no longer uses.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from klik import words as page_words
from klik.words import Language, Words, catalogue, language_of, nwords, pwords, text, words

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "device/klik/locale/pl/LC_MESSAGES"
PLACEHOLDER = re.compile(r"(?<!\{)\{(\w*)[^{}]*\}")


def read(path: Path, reader: type = read_po) -> Catalog:
    with path.open("rb") as f:
        return reader(f, locale="pl") if reader is read_po else reader(f)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    pot = tmp_path_factory.mktemp("words") / "klik.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [pybabel, "-q", "extract", "-F", "pyproject.toml", "-o", pot, "device", "hub"],
        cwd=ROOT,
        check=True,
    )
    return read(pot)


@pytest.fixture(scope="module")
def polish() -> Catalog:
    return read(LOCALE / "klik.po")


def ids(catalog: Catalog) -> set[object]:
    return {message.id for message in catalog if message.id}


def strings(message: Message) -> list[str]:
    found = message.string
    return list(found) if isinstance(found, (list, tuple)) else [found]


def test_every_message_in_the_code_has_its_polish(extracted: Catalog, polish: Catalog) -> None:
    missing = ids(extracted) - ids(polish)
    assert not missing, f"run `make words` and translate: {sorted(map(str, missing))}"
    untranslated = [
        message.id
        for message in polish
        if message.id and (message.fuzzy or not all(strings(message)))
    ]
    assert not untranslated, f"translate in klik.po: {untranslated}"


def test_the_catalogue_holds_no_message_the_code_no_longer_uses(
    extracted: Catalog, polish: Catalog
) -> None:
    assert not ids(polish) - ids(extracted), "run `make words`"


def test_the_compiled_catalogue_is_the_po(polish: Catalog) -> None:
    def said(catalog: Catalog) -> dict[object, object]:
        return {
            (_text(m.context), tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id): tuple(
                strings(m)
            )
            for m in catalog
            if m.id and all(strings(m))  # gettext compiles no untranslated message
        }

    compiled = read(LOCALE / "klik.mo", read_mo)
    assert said(compiled) == said(polish), "run `make words` (pybabel compile)"


def _text(context: object) -> object:
    """Babel's .mo reader gives a message's context as bytes; its .po reader as text."""
    return context.decode() if isinstance(context, bytes) else context


def test_a_translation_fills_in_the_same_names_as_its_message(polish: Catalog) -> None:
    for message in polish:
        if not message.id:
            continue
        english = [message.id] if isinstance(message.id, str) else list(message.id)
        wanted = set().union(*(set(PLACEHOLDER.findall(one)) for one in english))
        for form in filter(None, strings(message)):  # untranslated: the first test's to say
            assert set(PLACEHOLDER.findall(form)) <= wanted, (message.id, form)
            if isinstance(message.id, str):  # a plural's Polish "1 gra" may drop the {n}
                assert set(PLACEHOLDER.findall(form)) == wanted, (message.id, form)


# One word for one thing, in every Polish text a player or judge reads (the glossary): the
# tiles are "kostki" on the screens, the sheets and the rules, never "płytki".
GLOSSARY = {"płytk": "kostk"}


def test_one_word_for_one_thing(polish: Catalog) -> None:
    said = [
        (message.id, form)
        for message in polish
        if message.id
        for form in filter(None, strings(message))
        if any(other in form.lower() for other in GLOSSARY)
    ]
    assert said == []


def test_polish_plurals_are_cldr_s(polish: Catalog) -> None:
    """The .po's plural formula picks the form CLDR's Polish rule names, for every count."""
    forms = {"one": 0, "few": 1, "many": 2}
    rule = Locale("pl").plural_form
    found = catalogue(Language.PL)
    assert polish.num_plurals == 3
    for n in range(1001):
        assert found.plural(n) == forms[rule(n)], n  # type: ignore[attr-defined]


# The Words a message carries until someone shows it, each row a way of marking one.
@pytest.mark.parametrize(
    ("message", "english", "polish"),
    [
        (words("Free seat"), "Free seat", "Miejsce wolne"),  # a plain message
        (words("Pile: {n}", n=5), "Pile: 5", "Pula: 5"),  # with a name filled in
        (words("Not in the catalogue {x}", x=1), "Not in the catalogue 1", None),  # its id
        # Polish's three forms: 1 gracz, 2-4 (and 22-24) gracze, 5-21 (and 12-14) graczy
        (nwords("{n} player", "{n} players", 1), "1 player", "1 gracz"),
        (nwords("{n} player", "{n} players", 3), "3 players", "3 gracze"),
        (nwords("{n} player", "{n} players", 12), "12 players", "12 graczy"),
        (nwords("{n} player", "{n} players", 24), "24 players", "24 gracze"),
        # a summary of counts, each in its own form (klik draw's line)
        (
            words(
                "{players}, {tables} ({fours} × 4 + {threes} × 3), {rounds}, seed {seed}: {pairs}",
                players=nwords("{n} player", "{n} players", 3),
                tables=nwords("{n} table", "{n} tables", 1),
                fours=0,
                threes=1,
                rounds=nwords("{n} round", "{n} rounds", 1),
                seed=7,
                pairs=nwords("{n} repeated pair", "{n} repeated pairs", 0),
            ),
            "3 players, 1 table (0 × 4 + 1 × 3), 1 round, seed 7: 0 repeated pairs",
            "3 gracze, 1 stół (0 × 4 + 1 × 3), 1 runda, ziarno 7: 0 powtórzonych par",
        ),
    ],
)
def test_words_are_shown_in_the_reader_s_language(
    message: Words, english: str, polish: str | None
) -> None:
    assert str(message) == english
    assert text(message, Language.EN) == english
    assert text(message, Language.PL) == (polish or english)


def test_plural_and_context_words_go_through_the_catalogue() -> None:
    one = nwords("{n} game", "{n} games", 1)
    assert str(one) == "1 game"
    assert str(nwords("{n} game", "{n} games", 2)) == "2 games"
    assert str(pwords("nowhere", "Free seat")) == "Free seat"
    assert text("a name, as it is", Language.PL) == "a name, as it is"


# Accept-Language headers as browsers and scripts send them.
@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, Language.EN),  # a script: the API's English
        ("", Language.EN),
        ("pl", Language.PL),
        ("pl-PL,pl;q=0.9,en-US;q=0.8", Language.PL),  # a Polish browser
        ("en-GB,en;q=0.9", Language.EN),
        ("de-DE, en;q=0.5, pl;q=0.7", Language.PL),  # the better of the two it speaks
        ("fr, de", Language.EN),  # none it speaks
        ("pl;q=0", Language.EN),  # "not Polish"
        ("pl;q=abc, en", Language.EN),  # a garbled weight is no preference
        (";;;,,,=", Language.EN),
    ],
)
def test_the_language_of_a_request(header: str | None, language: Language) -> None:
    assert language_of(header) is language


def test_the_pages_scripts_get_every_message_with_its_context(polish: Catalog) -> None:
    """``/words.js``'s data: each translated message by its id, a context before it."""
    said = page_words.messages(Language.PL)
    for message in polish:
        if not message.id or not all(strings(message)):
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        key = f"{message.context}\x04{msgid}" if message.context else msgid
        forms = strings(message)
        assert said[key] == (forms[0] if isinstance(message.id, str) else forms), key
    assert page_words.plural_forms(Language.PL) == {"one": 0, "few": 1, "many": 2}
    assert page_words.script().startswith('"use strict";\nconst CATALOGUE = {')
