"""The hub's OpenAPI description says what every route answers (``klik_hub.door.answers``): each
operation's success answer has a model, or is a file of its declared media type; each refusal
is the hub's one line. The fuzz test (``test_hub_fuzz``) holds the answers to it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from klik.core.game import SEATS
from klik_hub.app import make_app
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock

FILES = {"text/csv", "application/toml; charset=utf-8"}  # the exports, a rule set: a file
REFUSALS = {"#/components/schemas/Refusal", "#/components/schemas/Answer"}  # a table's: Answer
Spec = dict[str, Any]


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Spec:
    """The description as ``/openapi.json`` serves it; it does not depend on the database."""
    store = Store(open_engine(str(tmp_path_factory.mktemp("hub") / "hub.sqlite")), Clock())
    try:
        return make_app(store).openapi()
    finally:
        store.engine.dispose()


def operations(spec: Spec) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            yield f"{method.upper()} {path}", operation


def described(schema: dict[str, Any], spec: Spec) -> bool:
    """Whether ``schema`` names its fields: a model, a list of models, or one of several
    (not ``{}`` nor a bare ``object``, which say nothing of an answer's keys)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        return bool(spec["components"]["schemas"][name].get("properties"))
    if schema.get("type") == "array":
        return described(schema.get("items", {}), spec)
    choices = schema.get("oneOf") or schema.get("anyOf") or []
    return bool(choices) and all(described(choice, spec) for choice in choices)


def test_every_operation_describes_its_success_answer(spec: Spec) -> None:
    for name, operation in operations(spec):
        success = {code: r for code, r in operation["responses"].items() if code[0] == "2"}
        assert success, f"{name}: no success answer"
        for code, answer in success.items():
            content = answer.get("content", {})
            if code == "204":
                assert content == {}, f"{name}: 204 has no body"
                continue
            assert content, f"{name} {code}: no media type"
            for media, body in content.items():
                if media in FILES:
                    assert body["schema"] == {"type": "string"}, f"{name} {code}: {media}"
                elif media == "text/event-stream":  # each event described, as OpenAPI 3.2 does
                    assert body["itemSchema"]["properties"], f"{name} {code}: no event model"
                else:
                    assert media == "application/json", f"{name} {code}: {media}"
                    assert described(body.get("schema", {}), spec), f"{name} {code}: no model"


def test_every_refusal_is_described_as_the_hubs_one_line(spec: Spec) -> None:
    for name, operation in operations(spec):
        refusals = {code: r for code, r in operation["responses"].items() if code[0] in "45"}
        assert "503" in refusals, f"{name}: the storage's trouble (503) is not described"
        for code, refusal in refusals.items():
            schema = refusal["content"]["application/json"]["schema"]
            assert schema.get("$ref") in REFUSALS, f"{name} {code}: {schema}"
    # FastAPI's own 422 body, which the hub never answers (``faults``: one line).
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_the_seats_are_the_games_letters(spec: Spec) -> None:
    """The seats a request or an answer names are described as the one list of them."""
    correction = spec["components"]["schemas"]["CorrectionIn"]["properties"]
    seat = next(s for s in correction["seat"]["anyOf"] if s.get("type") == "string")
    assert seat["enum"] == list(SEATS)
    players = next(s for s in correction["players"]["anyOf"] if s.get("type") == "object")
    assert players["propertyNames"]["enum"] == list(SEATS)
