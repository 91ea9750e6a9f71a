"""The one validator: what each check allows, how a refusal reads in each reader's voice."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from klik import scorefile, script
from klik.errors import InputError, KlikError
from klik.link.protocol import ProtocolError
from klik.link.protocol import lineup as wire
from klik.table.config import ConfigError, schema
from klik.table.game import journal
from klik.validate import (
    NUMBER,
    OBJECT,
    TEXT,
    TRUE_FALSE,
    WHOLE,
    Allowed,
    Choice,
    Each,
    Kind,
    Number,
    Text,
    Voice,
    check,
    known,
    refused,
    required,
    take,
)
from klik_hub.tournament import formats
from klik_hub.tournament.formats import FormatError

#: A voice of no reader: every field on show, so a test sees which one a check filled in.
PLAIN = Voice(
    lambda at, line: InputError(line),
    wrong="{where}|{at}|{value}|{allowed}",
    kind="{at}: want {allowed}, got {got}",
    choice="{at}: {value} not in {allowed}{hint}",
    unknown="{at} ({key}): unknown{hint}; allowed: {allowed}",
    missing="{at}: missing, {allowed}",
    where="doc",
    kinds={Kind.ARRAY: "a list"},
)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (True, Kind.BOOLEAN),  # a bool is an int to Python, never to a person
        (0, Kind.INTEGER),
        (0.5, Kind.FLOAT),
        (float("nan"), Kind.FLOAT),  # still a float; Number refuses it
        ("", Kind.STRING),
        ({}, Kind.TABLE),  # a JSON object, a TOML table
        ([], Kind.ARRAY),
        (None, Kind.NULL),  # JSON's null
        (object(), Kind.OTHER),  # a TOML date, say
    ],
)  # fmt: skip
def test_kind_of(value: object, kind: Kind) -> None:
    assert Kind.of(value) is kind


@pytest.mark.parametrize(
    ("allowed", "value", "allows"),
    [
        (TRUE_FALSE, False, True),
        (TRUE_FALSE, 0, False),  # 0 is no false
        (WHOLE, 3, True),
        (WHOLE, True, False),  # true is no 1
        (WHOLE, 3.0, False),  # a float, however whole
        (NUMBER, 3, True),  # a whole number is a number too
        (NUMBER, True, False),
        (TEXT, "", True),  # any text, even none
        (OBJECT, {"a": 1}, True),
        (OBJECT, [], False),
        (Number(1, 9), 1, True),  # both ends allowed
        (Number(1, 9), 9, True),
        (Number(1, 9), 10, False),
        (Number(1, 9), 5.0, False),  # whole only
        (Number(1, 9), True, False),  # true is 1 to Python, never here
        (Number(0, 1e9, whole=False), 0.5, True),
        (Number(0, 1e9, whole=False), float("nan"), False),  # NaN fails every comparison
        (Number(0, 1e9, whole=False), float("inf"), False),
        (Number(0, 1e9, whole=False), "1", False),  # text that reads as a number is text
        (Text(1, 3), "abc", True),
        (Text(1, 3), "", False),  # too short
        (Text(1, 3), "abcd", False),  # too long
        (Text(1, 3), 1, False),  # no text at all
        (Text(blank=False), " ", False),  # all spaces
        (Text(blank=False), " a ", True),
        (Choice(("A", "B")), "A", True),
        (Choice(("A", "B")), "a", False),  # exactly: no case folding
        (Choice(("A", "B")), ["A"], False),  # a list is no word (and never hashed)
        (Choice(("A", "B")), {"A": 1}, False),
        (Each(Number(1, 4)), [1, 4], True),
        (Each(Number(1, 4)), [], True),  # none at all: every one of them is allowed
        (Each(Number(1, 4)), [1, 5], False),
        (Each(Number(1, 4)), (1, 2), False),  # a list, not any sequence
    ],
)  # fmt: skip
def test_what_each_check_allows(allowed: Allowed, value: object, allows: bool) -> None:
    assert allowed.allows(value) is allows


@pytest.mark.parametrize(
    ("allowed", "words"),
    [
        (Number(1, 9), "a whole number from 1 to 9"),
        (Number(1, 10**9), "a whole number from 1 to 1000000000"),  # a whole bound as written
        (Number(0, 1e9, whole=False, noun="a number of seconds"), "a number of seconds from 0 to 1e+09"),
        (Number(0, 106, note=" (every tile of the set)"), "a whole number from 0 to 106 (every tile of the set)"),
        (Text(), "text"),
        (Text(1, 200), "text of 1 to 200 characters"),
        (Text(0, 200), "text of at most 200 characters"),
        (Text(2), "text of at least 2 characters"),
        (Text(blank=False), "text, not all spaces"),
        (Choice(("pl", "en")), "pl, en"),  # in the order given
        (Choice(("pl", "en"), show=repr), "'pl', 'en'"),  # as the reader writes a word
        (Each(Number(1, 4)), "a list of a whole number from 1 to 4"),
        (TRUE_FALSE, "true or false"),
    ],
)  # fmt: skip
def test_what_is_allowed_in_words(allowed: Allowed, words: str) -> None:
    assert str(allowed) == words


@pytest.mark.parametrize(
    ("call", "line"),
    [
        # a value of the wrong kind: the voice's kind template, {got} in its words
        (lambda: check([1], WHOLE, PLAIN, "n"), "n: want a whole number, got a list"),
        # a kind the voice has no word for is named by its Python type
        (lambda: check(1.5, WHOLE, PLAIN, "n"), "n: want a whole number, got float"),
        # out of range: the voice's wrong template, the value as the voice shows it
        (lambda: check(10, Number(1, 9), PLAIN, "n"), "doc|n|10|a whole number from 1 to 9"),
        # words say what is allowed in place of the check's own
        (lambda: check(10, Number(1, 9), PLAIN, "n", words="1 to 9"), "doc|n|10|1 to 9"),
        # shown shows the value in place of the voice
        (lambda: check(10, Number(1, 9), PLAIN, "n", shown=hex), "doc|n|0xa|a whole number from 1 to 9"),
        # a word not among the allowed: the choice template with a "did you mean"
        (lambda: check("hodl", Choice(("tap", "hold")), PLAIN, "act"), "act: 'hodl' not in tap, hold (did you mean hold?)"),
        # nothing close: no hint (the voice's far is empty)
        (lambda: check("zz", Choice(("tap", "hold")), PLAIN, "act"), "act: 'zz' not in tap, hold"),
        # says puts the fault in the caller's own sentence
        (lambda: check(3, TEXT, PLAIN, "t", says="{at} is {got}?"), "t is int?"),
        # an unknown key: the path joined to it, the hint, the allowed keys
        (lambda: known({"b": 1, "rakc": 2}, ("b", "rack"), PLAIN, "seats.A"), "seats.A.rakc (rakc): unknown (did you mean rack?); allowed: b, rack"),
        # a key that is missing says what it may be
        (lambda: required({}, "rules", PLAIN, allowed="a rule set"), "rules: missing, a rule set"),
        # take: missing first ...
        (lambda: take({}, "n", Number(1, 9), PLAIN, "top"), "top.n: missing, a whole number from 1 to 9"),
        # ... then checked, at the key's path
        (lambda: take({"n": 0}, "n", Number(1, 9), PLAIN, "top"), "doc|top.n|0|a whole number from 1 to 9"),
    ],
)  # fmt: skip
def test_a_refusal_is_one_line_in_the_voice(call: Any, line: str) -> None:
    with pytest.raises(InputError) as refusal:
        call()
    assert str(refusal.value) == line


def test_refused_is_the_wrong_template_for_a_rule_of_the_reader_s_own() -> None:
    error = refused({"field": [8, 8]}, "field", PLAIN, "stages[1]", allowed="each once")
    assert str(error) == "doc|stages[1].field|[8, 8]|each once"


def test_far_lists_the_allowed_words_when_none_is_close() -> None:
    voice = Voice(lambda at, line: ConfigError(line), unknown="{at}{hint}", far="; allowed are {}")
    with pytest.raises(ConfigError, match=r"^zz; allowed are a, b$"):
        known(["zz"], ("a", "b"), voice)


#: Each reader's voice and the error it raises, every one a KlikError and a ValueError.
READERS = [
    (schema.VOICE, ConfigError),  # the table's config
    (formats.VOICE, FormatError),  # the hub's tournament formats
    (scorefile.VOICE, InputError),  # score sheets
    (script.VOICE, InputError),  # game scripts
    (wire.VOICE, ProtocolError),  # a round's lineup
    (journal.VOICE, journal.DamageError),  # the journal read back
]


@pytest.mark.parametrize(("voice", "error"), READERS)
def test_each_reader_refuses_with_its_own_error_under_the_one_root(
    voice: Voice, error: type[Exception]
) -> None:
    with pytest.raises(error) as refusal:
        check("x", Number(1, 9), voice, "n")
    assert isinstance(refusal.value, KlikError)
    assert isinstance(refusal.value, ValueError)


@pytest.mark.parametrize(
    ("voice", "line"),
    [
        (schema.VOICE, "f: seats = 9: allowed are a whole number from 2 to 4"),
        (formats.VOICE, "f: seats = 9: a whole number from 2 to 4"),  # its words say "allowed are"
        (scorefile.VOICE, "seats: expected a whole number from 2 to 4, got 9"),
        (script.VOICE, "seats must be a whole number from 2 to 4, got 9"),
        (wire.VOICE, "seats: must be a whole number from 2 to 4"),  # ProtocolError adds the field
        (journal.VOICE, "seats is not a whole number from 2 to 4"),  # never shows the value
    ],
)  # fmt: skip
def test_the_same_fault_in_each_reader_s_words(voice: Voice, line: str) -> None:
    with pytest.raises(KlikError) as refusal:
        take({"seats": 9}, "seats", Number(2, 4), replace(voice, where="f"))
    assert str(refusal.value) == line


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
CHECKS = [TRUE_FALSE, WHOLE, NUMBER, TEXT, OBJECT, Number(0, 9), Number(0, 1, whole=False),
          Text(1, 4), Text(blank=False), Choice(("A", "B")), Each(Number(1, 4))]  # fmt: skip


@given(value=JSON, allowed=st.sampled_from(CHECKS), voice=st.sampled_from([r[0] for r in READERS]))
def test_a_check_returns_the_value_or_refuses_in_the_voice_and_nothing_else(
    value: Any, allowed: Allowed, voice: Voice
) -> None:
    """Whatever a document holds, a check never crashes: the value back, or one line."""
    if allowed.allows(value):
        assert check(value, allowed, voice, "key") is value
    else:
        with pytest.raises(KlikError) as refusal:
            check(value, allowed, voice, "key")
        assert "\n" not in str(refusal.value)  # one line: every voice shows a value escaped


@given(key=st.text(alphabet="{}[]!:ab 0", min_size=1, max_size=12) | st.text(min_size=1))
def test_a_key_is_shown_as_it_is_never_read_as_a_template(key: str) -> None:
    """Braces in what a person wrote are text: only the voice's own templates are formatted."""
    voice = Voice(lambda at, line: InputError(line), unknown="{at}: unknown; allowed: {allowed}")
    assume(key not in ("a", "b"))
    with pytest.raises(InputError) as refusal:
        known([key], ("a", "b"), voice, "x")
    assert str(refusal.value) == f"x.{key}: unknown; allowed: a, b"
