"""schemathesis against the hub's own OpenAPI description: no request makes a 5xx.

Driven through hypothesis directly (every operation's strategy), not schemathesis's pytest
plugin: the hub runs for real on loopback for the whole run, over a real SQLite file.
"""

from __future__ import annotations

from pathlib import Path

import schemathesis
from hubkit import Clock, live_hub
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from klik_hub.db import open_engine
from klik_hub.store import Store


def test_no_request_the_api_describes_makes_a_server_error(tmp_path: Path) -> None:
    store = Store(open_engine(str(tmp_path / "hub.sqlite")), Clock())
    store.pair(3)  # a paired table, so that commands to table 3 are taken
    with live_hub(store) as url:
        schema = schemathesis.openapi.from_url(url + "/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == 25  # every route, the judge's new ones too
        for operation in operations:

            @given(case=operation.as_strategy())
            @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
            def call(case: schemathesis.Case) -> None:
                case.call_and_validate(checks=[not_a_server_error])

            call()
    store.engine.dispose()
