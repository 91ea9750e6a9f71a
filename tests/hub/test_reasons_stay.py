"""The judge's reasons stay with the judge (issue 36): anyone on the hall's Wi-Fi reads a
sanction's kind, points and stage and a correction's effect, never why it was given nor who
gave it; the judge (the password, or the console's session) reads everything."""

from __future__ import annotations

from typing import Any

import httpx

from klik_hub.door import judge
from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out

Hub = tuple[str, Store]
PASSWORD = "sędzia-główny"
JUDGE = ("judge", PASSWORD)
# What the judge wrote, each in one place of the log: none may reach the public.
SECRETS = {
    "sanction": "rozmawiał podczas gry",
    "sanction's judge": "Zofia Sędziowska",
    "deduction": "podpowiadał koledze",
    "correction": "źle policzona tabliczka",
    "correction's judge": "Anna Liczydło",
    "rename": "literówka w nazwisku",
    "withdraw": "musiał wyjść wcześniej",
    "renamer": "Bogdan Zmiennik",
}


def played(url: str, store: Store) -> tuple[int, dict[str, str]]:
    """A tournament of 8 with round 1 played, a warning, a deduction, a correction, a rename
    and a withdrawal, each with its reason and judge; then the hub has a password.
    Returns the tournament and the players' codes."""
    tid = create(url)
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    Hall(url, store, 2).play(tid, drawn, lowest_goes_out, "tournament")
    given = [
        ("/sanctions", {"player": 1, "kind": "warning", "reason": SECRETS["sanction"],
                        "by": SECRETS["sanction's judge"]}),
        ("/sanctions", {"player": 2, "kind": "deduction", "big": 1,
                        "reason": SECRETS["deduction"]}),
        ("/players/3", {"name": "Gracz Trzeci", "reason": SECRETS["rename"],
                        "by": SECRETS["renamer"]}),
        ("/players/4", {"active": False, "reason": SECRETS["withdraw"]}),
    ]  # fmt: skip
    for path, body in given:
        send = httpx.patch if path.startswith("/players") else httpx.post
        answer = send(f"{url}{API}/{tid}{path}", json=body)
        assert answer.status_code in (200, 201), (path, answer.text)
    result = httpx.get(f"{url}{API}/{tid}/results").json()[0]
    corrected = httpx.post(
        f"{url}{API}/{tid}/results/{result['id']}/corrections",
        json={"kind": "rack", "seat": "B", "value": result["seats"]["B"]["rack"] + 5,
              "reason": SECRETS["correction"], "by": SECRETS["correction's judge"]},
    )  # fmt: skip
    assert corrected.status_code == 201, corrected.text
    codes = {str(p["id"]): p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    return tid, codes


def told(text: str) -> list[str]:
    """The judge's words ``text`` holds (JSON escapes none of them: all are plain letters)."""
    return [k for k, said in SECRETS.items() if said in text]


def test_the_public_log_shows_what_was_done_not_why_nor_who(hub: Hub) -> None:
    url, store = hub
    tid, _ = played(url, store)
    sanctions = httpx.get(f"{url}{API}/{tid}/sanctions")
    assert sanctions.status_code == 200
    assert told(sanctions.text) == []
    # the kind, the points and the stage stay: the standings count them
    assert [(s["player"], s["kind"], s["big"], s["stage"]) for s in sanctions.json()] == [
        (2, "deduction", 1, "rozgrywki"),
        (1, "warning", None, "rozgrywki"),
    ]
    assert all({"reason", "by"}.isdisjoint(s) for s in sanctions.json())
    log = httpx.get(f"{url}{API}/{tid}/corrections")
    assert log.status_code == 200
    assert told(log.text) == []
    assert all({"reason", "by"}.isdisjoint(x) for x in log.json())
    correction = next(x for x in log.json() if x["log"] == "correction")
    assert (correction["kind"], correction["seat"]) == ("rack", "B")  # what it did
    results = httpx.get(f"{url}{API}/{tid}/results")
    assert told(results.text) == []
    assert [c["kind"] for r in results.json() for c in r["corrections"]] == ["rack"]


def test_the_judge_reads_every_reason_and_who_gave_it(hub: Hub) -> None:
    url, store = hub
    tid, _ = played(url, store)
    for path in ("/sanctions", "/corrections"):
        answer = httpx.get(f"{url}{API}/{tid}{path}", auth=JUDGE)
        assert answer.status_code == 200
        assert set(told(answer.text)) >= (
            {"sanction", "sanction's judge", "deduction"}
            if path == "/sanctions"
            else {"correction", "correction's judge", "rename", "renamer", "withdraw"}
        ), path
    results = httpx.get(f"{url}{API}/{tid}/results", auth=JUDGE).json()
    made = [c for r in results for c in r["corrections"]]
    assert [(c["reason"], c["by"]) for c in made] == [
        (SECRETS["correction"], SECRETS["correction's judge"])
    ]
    # the console's session, as the console reads them
    with httpx.Client(base_url=url, headers={"X-Klik-Console": "1"}) as console:
        assert console.post("/api/v1/session", json={"password": PASSWORD}).status_code == 200
        sanctions = console.get(f"{API}/{tid}/sanctions").json()
        assert {s["reason"] for s in sanctions} == {SECRETS["sanction"], SECRETS["deduction"]}
        assert {s["by"] for s in sanctions} == {SECRETS["sanction's judge"], "judge"}


def test_no_public_answer_carries_a_reason_or_a_judge(hub: Hub) -> None:
    url, store = hub
    tid, codes = played(url, store)
    sid = httpx.post(f"{url}/api/v1/seasons", json={"name": "Sezon"}, auth=JUDGE).json()["id"]
    sent = httpx.post(
        f"{url}/api/v1/seasons/{sid}/tournaments", json={"tournament": tid}, auth=JUDGE
    )
    assert sent.status_code == 201, sent.text
    paths = httpx.get(url + "/openapi.json").json()["paths"]
    known = {"{tid}": str(tid), "{round_no}": "1", "{code}": codes["1"], "{player}": "1",
             "{name}": "pl-liga", "{sid}": str(sid)}  # fmt: skip
    read: list[str] = []
    for described, methods in paths.items():
        if "get" not in methods or described.endswith("/events") or "{request_id}" in described:
            continue
        path = described
        for name, value in known.items():
            path = path.replace(name, value)
        read.append(path)
    assert f"{API}/{tid}/sanctions" in read
    pages = [f"/p/{c}" for c in codes.values()] + [f"/api/v1/p/{c}" for c in codes.values()]
    pages += [f"/t/{tid}", f"/print/standings?t={tid}"]
    pages += [f"{API}/{tid}/results.csv?lang=en", f"{API}/{tid}/standings.csv?lang=en"]
    for path in read + pages:
        answer = httpx.get(url + path)
        if answer.status_code == 401:  # the judge's only (the players' list with codes)
            continue
        assert answer.status_code in (200, 404), (path, answer.text)
        assert told(answer.content.decode("utf-8", "replace")) == [], path


def test_what_a_player_s_page_says_of_a_sanction(hub: Hub) -> None:
    url, store = hub
    _, codes = played(url, store)
    page: dict[str, Any] = httpx.get(f"{url}/api/v1/p/{codes['2']}").json()
    deduction = next(n for n in page["notices"] if n["kind"] == "deduction")
    assert deduction["big"] == 1  # what it took, not why
    assert told(str(page)) == []


def test_a_family_label_is_the_judge_s_note_not_news_for_the_players(hub: Hub) -> None:
    """Marking a family is logged as ``family`` for the judge; the players' pages say nothing
    of it (it is no change of their names) and the public log does not show it."""
    url, store = hub
    tid = create(url)
    enrol(url, tid, 8)
    codes = {p["id"]: p["code"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    for player in (3, 4):
        marked = httpx.patch(f"{url}{API}/{tid}/players/{player}",
                             json={"family": "Nowakowie", "reason": "rodzeństwo"})  # fmt: skip
        assert marked.status_code == 200, marked.text
    renamed = httpx.patch(f"{url}{API}/{tid}/players/5",
                          json={"name": "Gracz Piąty", "reason": "literówka"})  # fmt: skip
    assert renamed.status_code == 200
    store.set_setting(judge.SETTING, judge.hash_password(PASSWORD))
    mine = httpx.get(f"{url}{API}/{tid}/corrections", auth=JUDGE).json()
    assert sorted((x["kind"], x["player"]) for x in mine if x["log"] == "event") == [
        ("family", 3), ("family", 4), ("rename", 5)
    ]  # fmt: skip
    public = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [(x["kind"], x["player"]) for x in public if x["log"] == "event"] == [("rename", 5)]
    assert "Nowakowie" not in httpx.get(f"{url}{API}/{tid}/corrections").text
    for player, told_of in ((3, []), (5, ["rename"])):
        page = httpx.get(f"{url}/api/v1/p/{codes[player]}").json()
        assert [n["kind"] for n in page["notices"]] == told_of
