"""schemathesis against the hub's own OpenAPI description: no request makes a 5xx, every
answer is one the description has (its status) and looks as described (its schema), and
half the requests ask in Polish: no refusal then names a field by the code's path.

Driven through hypothesis directly (every operation's strategy), not schemathesis's pytest
plugin: the hub runs for real on loopback for the whole run, over a real SQLite file and a
real PostgreSQL database (``store``): PostgreSQL refuses what SQLite takes (NUL in text, a
key longer than its column), so a fuzz of SQLite alone passed over 500s.

Random ids seldom name anything, and a request about nothing is refused before it reaches
the database; so the hub holds a tournament with players, a drawn round and a result, and
half the requests are sent to them (``KNOWN``).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from klik_hub import sql
from klik_hub.storage.store import Store
from tests.helpers.hubkit import live_hub
from tests.helpers.tourney import Hall, create, enrol

# A stream of events never ends, so no answer to it is whole: its refusals and its events are
# tested in tests/hub/test_feed.py.
STREAMS = {"/api/v1/tournaments/{tid}/events"}
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
# The path parameters of what the hub holds: tournament 1, its player 1, its round 1, result 1,
# and (set once the player is enrolled) player 1's code.
KNOWN: dict[str, object] = {"tid": 1, "player": 1, "round_no": 1, "result_id": 1, "table": 1}
# What the tables say to the hub (docs/protocol.md): machines read its refusals, in English,
# each naming its field by the body's path (``body.mover: must be a seat``).
TABLES_SAY = {"/api/v1/results", "/api/v1/heartbeats", "/api/v1/join", "/api/v1/join/{request_id}",
              "/api/v1/join/{request_id}/nonce"}  # fmt: skip
# Words every English refusal uses and no Polish one does (pydantic's and the hub's own).
ENGLISH = re.compile(r"\b(must|allowed|should|cannot|expected|invalid|missing|required)\b", re.I)
CODE_PATH = re.compile(r"^(body|query|path|header)\.|\b(body|query|path)\.[a-z_]+\b")


def at_known(case: schemathesis.Case) -> schemathesis.Case:
    for name, value in KNOWN.items():
        if case.path_parameters and name in case.path_parameters:
            case.path_parameters[name] = value
    return case


def in_polish(answer: Any) -> None:
    """A refusal to a Polish reader names its field in Polish (issue 37, point 5): never a
    path of the code's (``body.round_time_s: …``, ``query.stage: …``)."""
    if (
        not 400 <= answer.status_code < 500
        or "json" not in answer.headers.get("content-type", [""])[0]
    ):
        return
    error = answer.json().get("error")
    assert isinstance(error, str), answer.text
    assert not CODE_PATH.search(error), error
    assert not ENGLISH.search(error), error  # an entry the catalogue lacks reads in English


def test_no_request_the_api_describes_makes_a_server_error(store: Store) -> None:
    with live_hub(store) as url:
        tables = Hall(url, store, 3)  # paired, so that commands to them are taken
        tid = create(url)
        enrol(url, tid, 8)
        with store.reading() as db:  # player 1's page's code (the players' list is the judge's)
            KNOWN["code"] = sql.players.one(db, tid, 1).code
        seated = {"A": 1, "B": 2, "C": 3}
        reported = tables.report(tid, None, 1, seated, {"A": 0, "B": 5, "C": 9},
                                 rules="tournament")  # fmt: skip
        assert (tid, reported.status_code) == (KNOWN["tid"], 201)
        schema = schemathesis.openapi.from_url(url + "/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        described = httpx.get(url + "/openapi.json").json()["paths"]
        assert len(operations) == sum(map(len, described.values()))  # every route, fuzzed...
        # The same routes on PostgreSQL find its own faults (types, limits) in fewer examples:
        # SQLite's run keeps the full count, and make test its 15 minutes (issue 40's tests).
        examples = 40 if store.engine.dialect.name == "sqlite" else 25
        for operation in operations:
            if operation.path in STREAMS:
                continue  # ... but a stream, which never ends (tests/hub/test_feed.py)
            cases = operation.as_strategy()

            @given(case=st.one_of(cases, cases.map(at_known)), polish=st.booleans())
            @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
            def call(case: schemathesis.Case, polish: bool) -> None:
                if polish:
                    case.headers = {**(case.headers or {}), "Accept-Language": "pl"}
                answer = case.call_and_validate(checks=CHECKS)
                if polish and case.operation.path not in TABLES_SAY:
                    in_polish(answer)

            call()
