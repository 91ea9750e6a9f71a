"""The hub's tests run against a real PostgreSQL: one throwaway cluster a session (`postgres`),
one fresh database a test (`pg_url`). How, and why, is told in tests/helpers/pgserver.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock, live_hub
from tests.helpers.pgserver import Cluster, fresh_database, running_cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """The session's cluster, running; crashed and removed when the session ends."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def pg_url(postgres: Cluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty database for this test: `postgresql+psycopg://USER@127.0.0.1:PORT/NAME`.

    Dropped after the test, even with the test's own connections still open.
    """
    with fresh_database(postgres, request.node.name) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The hub's ``--db``: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "hub.sqlite")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(db: str) -> Iterator[Store]:
    hub = Store(open_engine(db), Clock())
    yield hub
    hub.engine.dispose()


@pytest.fixture
def hub(store: Store) -> Iterator[tuple[str, Store]]:
    with live_hub(store) as url:
        yield url, store


@pytest.fixture
def chromium_page() -> Iterator[Any]:
    """A page of Debian's headless Chromium, 1280 × 900, closed after the test."""
    from tests.helpers.browser import chromium_page  # noqa: PLC0415 - only page tests pay for it

    with chromium_page(viewport={"width": 1280, "height": 900}) as page:
        yield page


@pytest.fixture
def phone() -> Iterator[Any]:
    """A page of Debian's headless Chromium the size of a phone (390 × 844, twice as sharp),
    closed after the test: the players' pages."""
    from tests.helpers.browser import chromium_page  # noqa: PLC0415 - only page tests pay for it

    size = {"width": 390, "height": 844}
    with chromium_page(viewport=size, device_scale_factor=2, is_mobile=True) as page:
        yield page
