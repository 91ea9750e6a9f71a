"""A refused request names its field in the reader's words (issue 37, point 4).

Every field a route takes, in its body, its query or its path, has a label in the glossary
(``klik_hub.door.fields``); a Polish console reads ``Czas rundy: …``, never
``body.round_time_s: …``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik.words import Language, catalogue
from klik_hub import hall
from klik_hub.app import make_app
from klik_hub.door import fields
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock, post
from tests.hub.test_tournament_api import API, create

Hub = tuple[str, Store]
POLISH = {"Accept-Language": "pl"}


def taken(schema: dict[str, Any], schemas: dict[str, Any], seen: set[str]) -> set[str]:
    """Every property name in ``schema``, through its references, lists and unions."""
    names: set[str] = set()
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            seen.add(name)
            names |= taken(schemas[name], schemas, seen)
    for name, inner in schema.get("properties", {}).items():
        names |= {name} | taken(inner, schemas, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            names |= taken(schema[key], schemas, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        for inner in schema.get(key, []):
            names |= taken(inner, schemas, seen)
    return names


def test_every_field_a_route_takes_has_a_label(tmp_path: Path) -> None:
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), Clock())
    try:
        described = make_app(store).openapi()
    finally:
        store.engine.dispose()
    schemas = described["components"]["schemas"]
    names: set[str] = set()
    for operations in described["paths"].values():
        for operation in operations.values():
            names |= {parameter["name"] for parameter in operation.get("parameters", [])}
            for content in operation.get("requestBody", {}).get("content", {}).values():
                # A model's body (a $ref) is FastAPI's to validate; an inline one (a table's
                # signed envelope) is read by the route itself and refused by klik.link.
                if "$ref" in content.get("schema", {}):
                    names |= taken(content["schema"], schemas, set())
    assert {"round_time_s", "big", "tie_break", "tid", "stage"} <= names  # the walk sees them
    assert sorted(names - set(fields.FIELDS)) == []


def test_every_label_is_polish_in_the_catalogue() -> None:
    polish = catalogue(Language.PL)
    for name, label in fields.FIELDS.items():
        assert label.context == "field", name
        said = polish.pgettext("field", label.msgid)
        assert said != label.msgid, f"{name}: {label.msgid!r} has no Polish"


# A bad value in each part of a request: the field named in Polish, no code, no English.
@pytest.mark.parametrize(
    ("method", "path", "sent", "said"),
    [
        # a tournament's round time too short: the hub's own message
        (
            "POST",
            "",
            {"name": "T", "format": "open", "move_time_s": 60, "round_time_s": 120},
            "Czas rundy: 0 to brak czasu rundy, inaczej co najmniej 300 sekund",
        ),
        (
            "POST",
            "",
            {"name": "T", "format": "open", "move_time_s": 3},
            "Czas ruchu: co najmniej 5",
        ),
        # a deduction of no big points
        (
            "POST",
            "/{tid}/sanctions",
            {"player": 1, "kind": "deduction", "big": 0, "reason": "x"},
            "Duże punkty: co najmniej 1",
        ),
        # a withdrawal sent as text, not a boolean
        (
            "PATCH",
            "/{tid}/players/1",
            {"active": "false", "reason": "x"},
            "Gra dalej: true albo false",
        ),
        # the second of a list, and a seat of a mapping
        ("POST", "/{tid}/rounds", {"tie_break": [3, "x"]}, "Kolejność remisujących, pozycja 2"),
        (
            "POST",
            "/{tid}/results/1/corrections",
            {"kind": "assign", "players": {"A": "x"}, "reason": "x"},
            "Gracze, A",
        ),
        ("POST", "/{tid}/rounds/1/tables/1/extend", {"seconds": 0, "reason": "x"}, "Dodatkowe"),
        # a path and a query parameter
        ("GET", "/abc", None, "Turniej: liczba całkowita"),
        ("GET", "/{tid}/standings?stage=" + "x" * 65, None, "Etap: "),
        # a body that is not JSON
        ("POST", "/{tid}/rounds", b"{", "Zapytanie: to nie JSON"),
    ],
)
def test_a_polish_refusal_names_the_field_in_polish(
    hub: Hub, method: str, path: str, sent: object, said: str
) -> None:
    url, _ = hub
    tid = create(url)
    where = f"{API}{path.format(tid=tid)}"
    if isinstance(sent, bytes):
        answer = post(url, where, sent, **{"Content-Type": "application/json", **POLISH})
    else:
        answer = httpx.request(method, url + where, json=sent, headers=POLISH)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error.startswith(said), error
    assert not re.search(r"\b(body|query|path)\.", error), error  # no path of code
    assert not re.search(r"[A-Za-z]_[A-Za-z]", error), error  # no name of code
    if isinstance(sent, bytes):
        english = post(url, where, sent, **{"Content-Type": "application/json"})
    else:
        english = httpx.request(method, url + where, json=sent)
    head = english.json()["error"].split(": ", 1)[0]
    assert not error.startswith(head + ":"), (error, head)  # the label is not the English one


def test_no_polish_message_starts_with_a_fields_code_name() -> None:
    """Every message the hub's own checks give (a correction's, a reserve's, a draw's) that
    names its field first in English (``value: a rack sum from 0 to {most}``) names it in
    Polish in Polish (``Suma na tabliczce: …``, issue 37, point 5): no ``value:``, ``seat:``,
    ``round:`` glued to Polish text."""
    polish = catalogue(Language.PL)
    code_names = {name for name in fields.FIELDS if re.fullmatch(r"[a-z_]+", name)}
    read = polish._catalog  # type: ignore[attr-defined]  # gettext's own: every msgid → msgstr
    glued = []
    for key, said in read.items():
        msgid = key[0] if isinstance(key, tuple) else key  # a plural's: (msgid, form)
        if "\x04" in msgid:
            continue  # a context's message (a label itself, a button)
        head = msgid.partition(": ")[0]
        if head in code_names and said.startswith(f"{head}: "):
            glued.append(f"{msgid!r} -> {said!r}")
    assert glued == []


def test_a_commands_args_are_refused_in_the_readers_words(hub: Hub) -> None:
    """A command's args a table could not be sent (a script's): ``args.x: …`` in English, as
    documented, and the field's label with the reason in Polish (the fuzz found English)."""
    url, store = hub
    hall.devices.pair(store, 1)
    where = f"{url}/api/v1/tables/1/commands"
    deep: object = 1
    for _ in range(20):
        deep = [deep]
    cases = [
        ({"x": "\u0000"}, "args.x: must not hold NUL", "Argumenty, x: nie może zawierać znaku NUL"),
        ({"\u0000": 1}, "args.(top): a key must not", "Argumenty: klucz nie może zawierać"),
        ({"x": 1.5}, "args.x: floats are not allowed", "Argumenty, x: liczby niecałkowite"),
        ({"x": deep}, "args.x: arrays and objects nest deeper than 16", "Argumenty, x: listy i "
         "obiekty zagnieżdżone głębiej niż na 16 poziomów"),
    ]  # fmt: skip
    for args, english, polish in cases:
        sent = {"kind": "pause", "args": args}
        said = httpx.post(where, json=sent)
        assert (said.status_code, said.json()["error"][: len(english)]) == (422, english)
        said = httpx.post(where, json=sent, headers=POLISH)
        assert (said.status_code, said.json()["error"][: len(polish)]) == (422, polish)
