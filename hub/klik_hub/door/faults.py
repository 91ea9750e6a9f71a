"""A request that breaks its schema, said in one line in the reader's language.

FastAPI's validation (pydantic) writes its own English; the console's judge reads Polish. The
faults a form or a script can make are said here with the catalogue's words, by pydantic's
error type and its context (``ge``, ``max_length``...). English keeps pydantic's own words,
and so does any type not listed here: still one clear line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from klik.link import protocol as p
from klik.words import N_, Language, Words, catalogue, nwords, text, words
from klik_hub.door import fields
from klik_hub.tournament import text as tx

#: pydantic's error types → what the reader is told; ``{where}`` is the field's label
#: (``fields.named``) and the other names come from the error's context.
SAID: Mapping[str, str] = {
    "missing": N_("{where}: required"),
    "greater_than_equal": N_("{where}: at least {ge}"),
    "less_than_equal": N_("{where}: at most {le}"),
    "greater_than": N_("{where}: more than {gt}"),
    "less_than": N_("{where}: less than {lt}"),
    "int_parsing": N_("{where}: a whole number"),
    "int_type": N_("{where}: a whole number"),
    "int_from_float": N_("{where}: a whole number"),
    "bool_parsing": N_("{where}: true or false"),
    "bool_type": N_("{where}: true or false"),
    "float_parsing": N_("{where}: a number"),
    "float_type": N_("{where}: a number"),
    "string_type": N_("{where}: text"),
    "literal_error": N_("{where}: allowed are {expected}"),
    "enum": N_("{where}: allowed are {expected}"),
    "json_invalid": N_("{where}: not JSON"),
    "extra_forbidden": N_("{where}: unknown field"),
    "dict_type": N_("{where}: an object"),
    "model_attributes_type": N_("{where}: an object"),
    "list_type": N_("{where}: a list"),
}

#: The types whose message counts something: the context's count, and the message for it.
Counted = Callable[[int, str], Words]
COUNTED: Mapping[str, tuple[str, Counted]] = {
    "string_too_short": (
        "min_length",
        lambda n, where: nwords(
            "{where}: at least {n} character", "{where}: at least {n} characters", n, where=where
        ),
    ),
    "string_too_long": (
        "max_length",
        lambda n, where: nwords(
            "{where}: at most {n} character", "{where}: at most {n} characters", n, where=where
        ),
    ),
    "too_short": (
        "min_length",
        lambda n, where: nwords(
            "{where}: at least {n} item", "{where}: at least {n} items", n, where=where
        ),
    ),
    "too_long": (
        "max_length",
        lambda n, where: nwords(
            "{where}: at most {n} item", "{where}: at most {n} items", n, where=where
        ),
    ),
}

#: The hub's own validation messages (``PydanticCustomError``): pydantic hands back only the
#: filled-in text, so these are known by their template to translate it.
OWN: Mapping[str, str] = {
    message: message
    for message in (
        p.NOT_STORABLE,
        tx.Fault.CONTROL.value,
        tx.Fault.INVISIBLE.value,
    )
}


#: The hub's own messages with names pydantic fills in from the context, by their error type.
ROUND_KIND = N_("a round's tables are told one of {allowed}")
ROUND_TIME = N_("0 for no round time, or at least {least} seconds")
RULES = N_("a rule set of {allowed}")
TEMPLATES: Mapping[str, str] = {
    "kind": ROUND_KIND,
    "round_time_s": ROUND_TIME,
    "rules": RULES,
    "marks": tx.Fault.MARKS.value,  # a free text's (``api.deps.FreeText``)
}


def one_line(fault: Mapping[str, Any], language: Language) -> str:
    """The first fault of a ``RequestValidationError`` as ``where: what is allowed``, the
    field named by its label in ``language`` (``klik_hub.door.fields``)."""
    where = fields.named(tuple(fault.get("loc", ())), language)
    context = {str(k): v for k, v in (fault.get("ctx") or {}).items()}
    kind = str(fault.get("type", ""))
    if language is not Language.EN:  # English: pydantic's own words
        if "expected" in context:  # pydantic's list of the allowed: "'a', 'b' or 'c'"
            alternative = catalogue(language).pgettext("a list's last", "or")
            context["expected"] = str(context["expected"]).replace(" or ", f" {alternative} ")
        try:
            if kind in SAID:
                return text(words(SAID[kind], where=where, **context), language)
            if kind in COUNTED:
                count, said = COUNTED[kind]
                return text(said(int(context[count]), where), language)
        except (KeyError, IndexError, ValueError):  # a context pydantic did not give
            pass
    message = str(fault.get("msg", "invalid"))
    if message in OWN:
        message = catalogue(language).gettext(message)
    elif kind in TEMPLATES:
        message = catalogue(language).gettext(TEMPLATES[kind]).format(**context)
    return f"{where}: {message}"
