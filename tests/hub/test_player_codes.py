"""Every player's code (their page's address, /p/CODE): made at enrolment, unguessable,
shown to the judge only, never in a public answer, and given to players enrolled before."""

from __future__ import annotations

import httpx
from sqlalchemy import select, text

from klik_hub.door import judge
from klik_hub.office.players import CODE_ALPHABET, CODE_LENGTH
from klik_hub.sql.schema import players
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import at_revision, live_hub
from tests.helpers.tourney import Hall, create, lowest_goes_out
from tests.hub.test_judge import PASSWORD, basic

Hub = tuple[str, Store]
API = "/api/v1/tournaments"


def enrolled(url: str, tid: int, count: int, **headers: str) -> list[dict[str, object]]:
    sent = [{"name": f"Gracz {k:02d}", "club": f"SP {k % 3}"} for k in range(1, count + 1)]
    answer = httpx.post(f"{url}{API}/{tid}/players", json=sent, headers=headers)
    assert answer.status_code == 201, answer.text
    listed: list[dict[str, object]] = answer.json()
    return listed


def is_a_code(code: object) -> bool:
    return isinstance(code, str) and len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)


def test_every_player_gets_a_code_of_ten_signs_none_alike(hub: Hub) -> None:
    url, _ = hub
    first, second = create(url), create(url)
    given = enrolled(url, first, 20) + enrolled(url, second, 20)
    codes = [p["code"] for p in given]
    assert all(map(is_a_code, codes)), codes
    assert not set("01IO") & set("".join(map(str, codes)))  # nothing to mix up on a badge
    assert len(set(codes)) == 40  # distinct across tournaments too
    listed = [p for t in (first, second) for p in httpx.get(f"{url}{API}/{t}/players").json()]
    assert [p["code"] for p in listed] == codes  # the list shows the codes the enrolment gave


def test_the_players_list_is_the_judges_on_a_hub_with_a_password(hub: Hub) -> None:
    url, store = hub
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    judges = basic("judge", PASSWORD)
    made = httpx.post(url + API, json={"name": "Liga", "format": "open", "move_time_s": 60},
                      headers=judges)  # fmt: skip
    tid = made.json()["id"]
    given = enrolled(url, tid, 3, **judges)
    path = f"{url}{API}/{tid}/players"
    refused = httpx.get(path)
    assert refused.status_code == 401
    assert list(refused.json()) == ["error"]  # one line, naming no player
    assert "Gracz" not in refused.text
    shown = httpx.get(path, headers=judges)
    assert shown.status_code == 200
    assert [p["code"] for p in shown.json()] == [p["code"] for p in given]


def test_no_public_answer_shows_a_players_code(hub: Hub) -> None:
    url, store = hub
    tables = Hall(url, store, 2)
    tid = create(url)
    given = enrolled(url, tid, 8)
    codes = [str(p["code"]) for p in given]
    for seed in (1, 2):
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": seed}).json()
        tables.play(tid, drawn, lowest_goes_out, "tournament")
    httpx.post(f"{url}{API}/{tid}/sanctions", json={"player": 2, "kind": "warning", "reason": "x"})
    sid = httpx.post(f"{url}/api/v1/seasons", json={"name": "Sezon"}).json()["id"]
    httpx.post(f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": tid})
    # Every GET the API describes but the judge's players' list, with what the hub holds
    paths = httpx.get(url + "/openapi.json").json()["paths"]
    # a table asking to join (pairing at the table), for GET /api/v1/join/{request_id}
    asked = httpx.post(f"{url}/api/v1/join", json={"table_key": "ab" * 32}).json()
    known = {"{tid}": str(tid), "{round_no}": "2", "{code}": codes[0], "{request_id}": asked["id"],
             "{name}": "pl-liga", "{player}": "1", "{sid}": str(sid)}  # fmt: skip
    public = []
    for described, methods in paths.items():
        if "get" not in methods or described == f"{API}/{{tid}}/players":
            continue
        path = described
        for name, value in known.items():
            path = path.replace(name, value)
        public.append(path)
    assert f"/api/v1/p/{codes[0]}" in public
    assert f"{API}/{tid}/standings" in public
    pages = ["/", "/projector", "/projector.js", f"/print/standings?t={tid}", f"/p/{codes[0]}",
             "/player.js", "/words.js"]  # fmt: skip
    pages += [f"/t/{tid}", "/board.js"]
    for path in public + pages:
        if path.endswith("/events"):  # a stream that never ends: its first event
            with httpx.stream("GET", url + path) as stream:
                assert stream.status_code == 200, path
                first = next(x for x in stream.iter_text() if x)
            assert first.startswith("event: revision"), first
            assert not [c for c in codes if c in first], path
            continue
        answer = httpx.get(url + path)
        # The tables' install line: a hub without --bundle has none (one line, 404).
        expected = 404 if path == "/api/v1/install" else 200
        assert answer.status_code == expected, (path, answer.text)
        assert not [c for c in codes if c in answer.text], path


def test_the_migration_gives_codes_to_the_players_enrolled_before(db: str) -> None:
    with at_revision(db, "0005") as connection:
        connection.execute(
            text(
                "INSERT INTO tournaments (id, name, rules, format, move_time_s, created_at)"
                " VALUES (4, 'Liga', 'tournament', 'open', 60, '2026-11-24T10:00:00Z')"
            )
        )
        for k in range(1, 13):
            connection.execute(
                text(
                    "INSERT INTO players (tournament_id, player_no, name, club)"
                    " VALUES (4, :k, :name, 'SP 1')"
                ),
                {"k": k, "name": f"Gracz {k}"},
            )
    store = Store(open_engine(db), lambda: 0)  # migrates to the head
    try:
        with store.engine.connect() as connection:
            codes = list(
                connection.execute(select(players.c.code).order_by(players.c.player_no)).scalars()
            )
        assert len(codes) == 12
        assert all(map(is_a_code, codes)), codes
        assert len(set(codes)) == 12
        # a player enrolled after the migration gets one too, unlike every other
        with live_hub(store) as url:
            late = enrolled(url, 4, 1)[0]
            assert is_a_code(late["code"])
            assert late["code"] not in codes
            page = httpx.get(f"{url}/api/v1/p/{codes[0]}")
            assert (page.status_code, page.json()["name"]) == (200, "Gracz 1")
    finally:
        store.engine.dispose()
