"""Strict input (issue 36): a request's numbers and booleans are JSON's own, never text or
each other taken for them; every free text a person reads (a name, a club, a family, a reason,
who) holds no control character nor text direction mark and something visible; a player's
code is theirs typed in either case."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from klik_hub.tournament import text
from tests.helpers.hubkit import Clock, live_hub, post
from tests.helpers.tourney import API, Hall, create, enrol, results

Hub = tuple[str, Store]
RLO = "\u202e"  # right-to-left override: "Kowalski" + RLO + "ikswalwoK" reads backwards
MANY_MARKS = "a" + "\u0301" * 99  # one letter under 99 accents: a tall smear over the list


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    """One hub (SQLite: nothing here reaches the database) with a tournament of 8 players,
    round 1 drawn and a result reported; yields its URL, the tournament and the result."""
    folder: Path = tmp_path_factory.mktemp("strict")
    store = Store(open_engine(str(folder / "hub.sqlite")), Clock())
    with live_hub(store) as url:
        tid = create(url)
        enrol(url, tid, 8)
        drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1})
        assert drawn.status_code == 201, drawn.text
        seats = drawn.json()["tables"][0]["seats"]
        reported = Hall(url, store, 1).report(
            tid, 1, 1, seats, {"A": 0, "B": 5, "C": 9, "D": 3}, rules="tournament", round_game=1
        )
        assert reported.status_code == 201, reported.text
        yield url, tid, results(url, tid)[0]["id"]
    store.engine.dispose()


def logged(url: str, tid: int) -> tuple[int, int, list[Any]]:
    """What the judge's requests could have changed: the log, the sanctions, the players."""
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    sanctions = httpx.get(f"{url}{API}/{tid}/sanctions").json()
    players = httpx.get(f"{url}{API}/{tid}/players").json()
    return len(log), len(sanctions), players


@pytest.mark.parametrize(
    ("method", "path", "body", "where"),
    [
        # a sanction's points: true was 1 big point off, "2" two
        ("POST", "/{tid}/sanctions", {"player": 1, "kind": "deduction", "big": True,
                                      "reason": "x"}, "big points"),
        ("POST", "/{tid}/sanctions", {"player": 1, "kind": "deduction", "big": "2",
                                      "reason": "x"}, "big points"),
        ("POST", "/{tid}/sanctions", {"player": "1", "kind": "warning", "reason": "x"},
         "player"),
        ("POST", "/{tid}/sanctions", {"player": 1.0, "kind": "warning", "reason": "x"},
         "player"),
        # a table's extra time: "60" was 60 seconds
        ("POST", "/{tid}/rounds/1/tables/1/extend", {"seconds": "60", "reason": "x"},
         "extra seconds"),
        # a correction's value and where an assign puts it
        ("POST", "/{tid}/results/{result}/corrections",
         {"kind": "rack", "seat": "B", "value": "7", "reason": "x"},
         "value"),  # not pydantic's union member tried (value.int)
        ("POST", "/{tid}/results/{result}/corrections",
         {"kind": "assign", "round": "1", "table": 1, "game": 1, "reason": "x"}, "round"),
        ("POST", "/{tid}/results/{result}/corrections",
         {"kind": "assign", "round": 1, "table": 1, "game": 1, "players": {"A": "1"},
          "reason": "x"}, "players, A"),
        # a withdrawal: "false" was false, 0 too
        ("PATCH", "/{tid}/players/1", {"active": "false", "reason": "x"}, "playing"),
        ("PATCH", "/{tid}/players/1", {"active": 0, "reason": "x"}, "playing"),
        # a draw's seed, its override, its field, its tie-break and its clubs' weight
        ("POST", "/{tid}/rounds", {"seed": "5", "round": 2}, "draw seed"),
        ("POST", "/{tid}/rounds", {"override": 1, "round": 2}, "draw despite missing results"),
        ("POST", "/{tid}/rounds", {"override": "true", "round": 2}, "draw despite missing results"),
        ("POST", "/{tid}/rounds", {"round": "2"}, "round"),
        ("POST", "/{tid}/rounds", {"tie_break": ["3"], "round": 2}, "order among tied players, item 1"),
        ("POST", "/{tid}/rounds", {"clubs_weight": "0.5", "round": 2}, "weight of clubs"),
        ("POST", "/{tid}/rounds", {"clubs_weight": True, "round": 2}, "weight of clubs"),
        # the round's tables told to start
        ("POST", "/{tid}/rounds/1/commands", {"kind": "start", "tables": ["1"]},
         "tables, item 1"),
        # a replacement
        ("POST", "/{tid}/rounds/1/replacements",
         {"table": "1", "seat": "A", "reserve": 8, "reason": "x"}, "table"),
        ("POST", "/{tid}/rounds/1/replacements",
         {"table": 1, "seat": "A", "reserve": 8, "from_game": True, "reason": "x"},
         "from game"),
        # a new tournament
        ("POST", "", {"name": "Liga", "format": "open", "move_time_s": "60"},
         "move time"),
        ("POST", "", {"name": "Liga", "format": "open", "move_time_s": 60,
                      "release_together": "yes"}, "results shown together"),
        ("POST", "", {"name": "Liga", "format": "open", "move_time_s": 60,
                      "round_time_s": "1800"}, "round time"),
        # a paired table's new number
        ("POST", "/api/v1/tables/1/renumber", {"table": "3"}, "table"),
    ],
)  # fmt: skip
def test_a_number_or_a_boolean_is_json_s_own(
    hall: tuple[str, int, int], method: str, path: str, body: Any, where: str
) -> None:
    url, tid, result = hall
    before = logged(url, tid)
    full = path if path.startswith("/api/") else API + path.format(tid=tid, result=result)
    answer = httpx.request(method, url + full, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"].startswith(f"{where}: "), answer.text
    assert logged(url, tid) == before


#: The free texts' labels in an English refusal, where they differ from the field's name.
LABELS = {"by": "who"}

# Each free text of the judge's requests, with a bad text put in it.
FIELDS = [
    ("PATCH", "/{tid}/players/1", {"reason": "x"}, "family"),
    ("PATCH", "/{tid}/players/1", {"reason": "x"}, "club"),
    ("PATCH", "/{tid}/players/1", {"reason": "x"}, "name"),
    ("PATCH", "/{tid}/players/1", {"family": "Nowakowie"}, "reason"),
    ("PATCH", "/{tid}/players/1", {"family": "Nowakowie", "reason": "x"}, "by"),
    ("POST", "/{tid}/sanctions", {"player": 1, "kind": "warning", "reason": "x"}, "by"),
    ("POST", "/{tid}/sanctions", {"player": 1, "kind": "warning"}, "reason"),
    ("POST", "/{tid}/results/{result}/corrections", {"kind": "exclude", "value": True}, "reason"),
    ("POST", "/{tid}/results/{result}/corrections",
     {"kind": "exclude", "value": True, "reason": "x"}, "by"),
    ("POST", "/{tid}/rounds/1/tables/1/extend", {"seconds": 60}, "reason"),
    ("POST", "/{tid}/rounds/1/replacements",
     {"table": 1, "seat": "A", "reserve": 8, "reason": "x"}, "by"),
    ("DELETE", "/{tid}/rounds/1", {}, "reason"),
    ("POST", "/{tid}/check-in", {"open": True}, "by"),
    ("POST", "", {"format": "open", "move_time_s": 60}, "name"),
    ("POST", "/api/v1/tables/1/renumber", {"table": 3}, "reason"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (f"Kowalski{RLO}", "holds a control character"),  # right-to-left override
        ("Ala\u2066Kot\u2069", "holds a control character"),  # a left-to-right isolate
        ("Ala\u200f", "holds a control character"),  # a right-to-left mark
        ("Ala\u061c", "holds a control character"),  # the Arabic letter mark
        ("Ala\u2028Kot", "holds a control character"),  # a line separator
        ("\u3164", "holds no visible letter or digit"),  # the Hangul filler
        ("\u2800\u2800", "holds no visible letter or digit"),  # the braille blank
        ("\u115f\u1160 \uffa0", "holds no visible letter or digit"),  # more fillers
        ("...", "holds no visible letter or digit"),
        (MANY_MARKS, f"a letter carries more than {text.MAX_MARKS} combining marks"),
    ],
)
@pytest.mark.parametrize("sent", FIELDS)
def test_a_free_text_is_visible_and_runs_one_way(
    hall: tuple[str, int, int], sent: tuple[str, str, dict[str, Any], str], bad: str, said: str
) -> None:
    url, tid, result = hall
    method, path, body, field = sent
    before = logged(url, tid)
    full = path if path.startswith("/api/") else API + path.format(tid=tid, result=result)
    answer = httpx.request(method, url + full, json={**body, field: bad})
    label = LABELS.get(field, field)
    assert (answer.status_code, answer.json()) == (422, {"error": f"{label}: {said}"})
    assert logged(url, tid) == before


def test_a_free_text_is_refused_in_polish(hall: tuple[str, int, int]) -> None:
    url, tid, _ = hall
    polish = {"Accept-Language": "pl"}
    for sent, said in (
        ({"family": f"Nowakowie{RLO}"}, "Rodzina: zawiera znak sterujący"),
        ({"family": "\u3164"}, "Rodzina: nie zawiera widocznej litery ani cyfry"),
        (
            {"family": MANY_MARKS},
            "Rodzina: więcej znaków diakrytycznych na jednej literze niż 4",
        ),
        ({"active": "false"}, "Gra dalej: true albo false"),
    ):
        answer = httpx.patch(
            f"{url}{API}/{tid}/players/1", json={"reason": "x", **sent}, headers=polish
        )
        assert (answer.status_code, answer.json()) == (422, {"error": said})


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (f"Kowalski{RLO};SP 1", "line 2: the name holds a control character"),
        ("\u3164;SP 1", "line 2: the name holds no visible letter or digit"),
        ("Ala;\u2800", "line 2: the club holds no visible letter or digit"),
        (
            f"{MANY_MARKS};SP 1",
            f"line 2: a letter of the name carries more than {text.MAX_MARKS} combining marks",
        ),
    ],
)
def test_a_player_list_holds_the_same_texts(hub: Hub, line: str, said: str) -> None:
    url, _ = hub
    tid = create(url)
    sent = f"imię i nazwisko;klub\n{line}\n".encode()
    as_csv = post(url, f"{API}/{tid}/players", sent, **{"Content-Type": "text/csv"})
    assert (as_csv.status_code, as_csv.json()) == (422, {"error": said})
    name, club = line.split(";")
    as_json = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": name, "club": club}])
    assert as_json.status_code == 422
    assert as_json.json() == {"error": said.replace("line 2", "players[0]")}
    assert httpx.get(f"{url}{API}/{tid}/players").json() == []


def test_names_of_every_script_and_their_accents_are_taken(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    names = [
        "Łucja Żółć-Ębiszewska",  # Polish
        "Zoe\u0308 Lefe\u0300vre",  # accents typed as combining marks (kept as one letter)
        "김민준",  # Hangul syllables (the fillers are not letters; these are)
        "محمد علي",  # Arabic, right to left by itself: no mark needed
        "देवनागरी",  # Devanagari: a vowel sign on a consonant
        "Nguyễn Thị Ánh",  # Vietnamese: two marks on one letter
        "R2-D2",
    ]
    sent = [{"name": n, "club": "SP 1"} for n in names]
    answer = httpx.post(f"{url}{API}/{tid}/players", json=sent)
    assert answer.status_code == 201, answer.text
    changed = httpx.patch(
        f"{url}{API}/{tid}/players/1",
        json={"family": "Żółciowie", "reason": "rodzeństwo", "by": "Anna Nowak-Łęcka"},
    )
    assert changed.status_code == 200, changed.text
    cleared = httpx.patch(f"{url}{API}/{tid}/players/1", json={"family": "", "reason": "x"})
    assert (cleared.status_code, cleared.json()["family"]) == (200, "")


def test_a_player_s_code_is_theirs_in_either_case(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    enrol(url, tid, 4)
    code = httpx.get(f"{url}{API}/{tid}/players").json()[1]["code"]
    shown = httpx.get(f"{url}/api/v1/p/{code}").json()
    for typed in (code.lower(), code.capitalize(), code.swapcase()):
        answer = httpx.get(f"{url}/api/v1/p/{typed}")
        assert (answer.status_code, answer.json()) == (200, shown), typed
        page = httpx.get(f"{url}/p/{typed}")
        assert page.status_code == 200, typed
    httpx.post(f"{url}{API}/{tid}/check-in", json={"open": True})
    checked = httpx.post(f"{url}/api/v1/p/{code.lower()}/check-in")
    assert (checked.status_code, checked.json()) == (200, {"checked_in": True})
    assert httpx.get(f"{url}/api/v1/p/{code}").json()["checked_in"] is True
    # still no code but the player's: another's, or one not of the alphabet, is nobody's
    assert httpx.get(f"{url}/api/v1/p/{code.lower()[:-1]}0").status_code == 404
