"""The judge's password: kept as a hash, asked for on every route that changes anything,
never on the public ones; a table's key opens nothing."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from klik.errors import InputError
from klik_hub import hall
from klik_hub.door import judge
from klik_hub.door.guard import NEED_JUDGE
from klik_hub.main import judge_password
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock, live_hub

PASSWORD = "sędzia-główny-2026"
KLIK = str(Path(sys.executable).parent / "klik")


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def guarded(store: Store) -> Iterator[tuple[str, Store]]:
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    with live_hub(store) as url:
        yield url, store


def test_the_password_is_kept_as_a_salted_hash() -> None:
    stored = judge.hash_password(PASSWORD)
    assert PASSWORD not in stored
    assert stored.startswith("scrypt$16384$8$1$")
    assert stored != judge.hash_password(PASSWORD)  # a new salt each time
    assert judge.verify(PASSWORD, stored)
    assert not judge.verify(PASSWORD + "x", stored)
    assert not judge.verify(PASSWORD, "md5$abc")  # a hash of another kind
    assert not judge.verify(PASSWORD, "scrypt$x$8$1$00$00")  # a damaged one


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"", "the password on its first line has 0 characters; at least 8"),
        (
            b"  short \nlonger second line\n",
            "the password on its first line has 5 characters; at least 8",
        ),
        (b"\xff\xfe\x00", "cannot read (not UTF-8 text)"),
    ],
)
def test_a_password_file_that_cannot_be_used_is_one_line(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "judge-password"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        judge.read_password(str(path))
    assert str(raised.value) == f"--judge-password-file {path}: {message}"


def test_the_first_line_is_the_password(tmp_path: Path) -> None:
    path = tmp_path / "judge-password"
    path.write_text(f"  {PASSWORD}  \nnot this\n", encoding="utf-8")
    assert judge.read_password(str(path)) == PASSWORD


@pytest.mark.slow  # a live hub
def test_the_judges_routes_ask_for_the_password(guarded: tuple[str, Store]) -> None:
    url, store = guarded
    device, key = hall.devices.pair(store, 3)
    new = {"name": "Liga", "rules": "league", "format": "liga", "move_time_s": 60}
    for headers in (
        {},  # nothing
        basic("judge", "wrong password"),
        basic("admin", PASSWORD),  # another user
        basic(device, key),  # a table's key opens nothing here
        {"Authorization": "Bearer 0123456789abcdef"},  # another scheme
        {"Authorization": "Basic %%%"},  # not base64
    ):
        answer = httpx.post(f"{url}/api/v1/tournaments", json=new, headers=headers)
        assert answer.status_code == 401, (headers, answer.text)
        assert answer.json() == {"error": NEED_JUDGE}
        assert answer.headers["WWW-Authenticate"] == 'Basic realm="Klik hub", charset="UTF-8"'
    # The console asks for the password in its own form: no browser prompt (not "Basic").
    console = httpx.post(f"{url}/api/v1/tournaments", json=new, headers={"X-Klik-Console": "1"})
    assert (console.status_code, console.headers["WWW-Authenticate"]) == (
        401,
        'KlikJudge realm="Klik hub"',
    )
    command = httpx.post(f"{url}/api/v1/tables/3/commands", json={"kind": "pause"})
    assert command.status_code == 401
    made = httpx.post(f"{url}/api/v1/tournaments", json=new, headers=basic("judge", PASSWORD))
    assert made.status_code == 201
    tid = made.json()["id"]
    players = [{"name": f"Gracz {k}"} for k in range(8)]
    assert httpx.post(f"{url}/api/v1/tournaments/{tid}/players", json=players).status_code == 401
    assert httpx.post(f"{url}/api/v1/tournaments/{tid}/rounds", json={}).status_code == 401
    sent = httpx.post(
        f"{url}/api/v1/tables/3/commands", json={"kind": "pause"}, headers=basic("judge", PASSWORD)
    )
    assert sent.status_code == 201


@pytest.mark.slow  # a live hub
def test_reading_needs_no_password(guarded: tuple[str, Store]) -> None:
    url, _ = guarded
    tid = httpx.post(
        f"{url}/api/v1/tournaments",
        json={"name": "Liga", "rules": "league", "format": "liga", "move_time_s": 60},
        headers=basic("judge", PASSWORD),
    ).json()["id"]
    for path in (
        f"/api/v1/tournaments/{tid}",
        f"/api/v1/tournaments/{tid}/standings",
        "/api/v1/results",
        "/api/v1/tables",
        "/",
    ):
        assert httpx.get(url + path).status_code == 200, path
    # but the players' list carries each player's code (their page's address): the judge's
    players = f"{url}/api/v1/tournaments/{tid}/players"
    assert httpx.get(players).status_code == 401
    assert httpx.get(players, headers=basic("judge", PASSWORD)).status_code == 200


def test_a_hub_on_the_network_needs_a_password(store: Store, tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        judge_password(store, "0.0.0.0", None)
    assert str(raised.value) == (
        "--host 0.0.0.0: a hub on the network needs the judge's password: "
        "--judge-password-file FILE"
    )
    judge_password(store, "127.0.0.1", None)  # one laptop: allowed, with a warning
    judge_password(store, "::1", None)
    path = tmp_path / "judge-password"
    path.write_text(PASSWORD + "\n", encoding="utf-8")
    judge_password(store, "0.0.0.0", str(path))
    stored = store.setting(judge.SETTING)
    assert stored is not None
    assert judge.verify(PASSWORD, stored)
    judge_password(store, "0.0.0.0", None)  # set once: kept in the database


@pytest.mark.slow  # a real `klik hub` process
def test_klik_hub_says_so_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [KLIK, "hub", "--db", str(tmp_path / "hub.sqlite"), "--host", "0.0.0.0"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "klik hub: --host 0.0.0.0: a hub on the network needs the judge's password: "
        "--judge-password-file FILE"
    )


@pytest.mark.slow  # live hubs
def test_another_hub_process_sets_the_password_and_this_one_asks_at_once(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "hub.sqlite")
    one, two = Store(open_engine(db), Clock()), Store(open_engine(db), Clock())
    try:
        with live_hub(one) as url:
            assert (
                httpx.post(f"{url}/api/v1/tables/3/commands", json={"kind": "x"}).status_code == 404
            )
            two.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
            assert (
                httpx.post(f"{url}/api/v1/tables/3/commands", json={"kind": "x"}).status_code == 401
            )
    finally:
        one.engine.dispose()
        two.engine.dispose()
