"""The hub's refusals in the reader's language: a Polish console shows Polish errors.

The console says its language in ``Accept-Language`` with every request; a script that says
none reads English (the other tests check that English word for word). Plurals come from the
catalogue's Polish forms: 1 gra, 2 gry, 5 gier.
"""

from __future__ import annotations

import httpx
import pytest

from klik_hub.storage.store import Store
from tests.helpers.hubkit import post
from tests.helpers.tourney import Hall, lowest_goes_out
from tests.hub.test_tournament_api import API, ROSTER, create, enrol_csv

Hub = tuple[str, Store]
POLISH = {"Accept-Language": "pl"}


def roster(players: int) -> str:
    return "imię i nazwisko;szkoła\n" + "".join(f"Gracz {k};SP {k % 3}\n" for k in range(players))


@pytest.mark.parametrize(
    ("header", "said"),
    [
        ("pl", "bajt 3: to nie UTF-8; zapisz plik jako UTF-8"),  # the console in Polish
        ("pl-PL,pl;q=0.9,en;q=0.8", "bajt 3: to nie UTF-8; zapisz plik jako UTF-8"),  # a browser
        ("en", "byte 3: not UTF-8; save the file as UTF-8"),  # the console in English
    ],
)
def test_a_file_that_is_not_utf8_is_refused_in_the_reader_s_language(
    hub: Hub, header: str, said: str
) -> None:
    url, _ = hub
    tid = create(url)
    latin2 = "imię".encode("iso-8859-2") + b";klub\n"  # "ę" is byte 3 in Latin-2
    answer = post(
        url,
        f"{API}/{tid}/players",
        latin2,
        **{"Content-Type": "text/csv", "Accept-Language": header},
    )
    assert answer.status_code == 422
    assert answer.json() == {"error": said}


def test_a_bad_line_of_the_list_is_named_in_polish(hub: Hub) -> None:
    url, _ = hub
    tid = create(url)
    text = "imię i nazwisko;szkoła\nAla;SP 1\nOla;SP 2;3a\n"
    answer = post(
        url, f"{API}/{tid}/players", text.encode(), **{"Content-Type": "text/csv", **POLISH}
    )
    assert answer.json() == {"error": "wiersz 3: pól: 3; dozwolone są nazwisko i klub"}
    again = post(url, f"{API}/{tid}/players", ROSTER.encode(), **{"Content-Type": "text/csv"})
    assert again.status_code == 201
    twice = enrol_csv(url, tid)
    assert twice.status_code == 409
    polish = post(
        url, f"{API}/{tid}/players", ROSTER.encode(), **{"Content-Type": "text/csv", **POLISH}
    )
    assert polish.json()["error"].startswith("każdy gracz z listy jest już zapisany: Łucja Żak")
    assert polish.json()["error"].endswith("i 3 innych; czy lista nie została wysłana dwa razy?")


# The missing results of a round of one game, in Polish plurals: a table of 4 per 4 players.
@pytest.mark.parametrize(
    ("players", "reported", "said"),
    [
        (8, 1, "runda 1: 1 gra bez wyniku przy 1 stole"),  # one of two tables reported
        (8, 0, "runda 1: 2 gry bez wyniku przy 2 stołach"),
        (20, 0, "runda 1: 5 gier bez wyniku przy 5 stołach"),
    ],
)
def test_missing_results_are_counted_in_polish_plurals(
    hub: Hub, players: int, reported: int, said: str
) -> None:
    url, store = hub
    tables = Hall(url, store, players // 4)
    tid = create(url)
    assert enrol_csv(url, tid, roster(players)).status_code == 201
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 1}).json()
    if reported:
        one = {**drawn, "tables": drawn["tables"][:reported]}
        tables.play(tid, one, lowest_goes_out, "tournament")
    early = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 2}, headers=POLISH)
    assert early.status_code == 409
    assert early.json()["error"] == f"{said}; zaznacz „mimo braków”, by losować dalej"


# A form's value out of its range, in the console's words; English keeps pydantic's.
@pytest.mark.parametrize(
    ("change", "header", "said"),
    [
        ({"move_time_s": 3}, "pl", "Czas ruchu: co najmniej 5"),
        ({"move_time_s": 3}, "en", "move time: Input should be greater than or equal to 5"),
        ({"name": ""}, "pl", "Nazwa: co najmniej 1 znak"),
        ({"name": "Liga\u202e"}, "pl", "Nazwa: zawiera znak sterujący"),
        (
            {"rules": "house"},
            "pl",
            "Zasady: zestaw zasad spośród classic, de-klub, pl-liga, pl-turniej, wrc",
        ),
        ({"format": "swiss"}, "pl", "format 'swiss': dozwolone są liga, open, szczecin"),
    ],
)
def test_a_tournament_s_form_is_refused_in_the_reader_s_language(
    hub: Hub, change: dict[str, object], header: str, said: str
) -> None:
    url, _ = hub
    sent = {"name": "Liga", "rules": "tournament", "format": "open", "move_time_s": 60, **change}
    answer = httpx.post(url + API, json=sent, headers={"Accept-Language": header})
    assert answer.status_code == 422
    assert answer.json() == {"error": said}


# A command for a table that cannot take it, in the console's words.
@pytest.mark.parametrize(
    ("path", "payload", "header", "said"),
    [
        ("/api/v1/tables/5/commands", {"kind": "pause"}, "pl", "stół 5 nie jest sparowany"),
        ("/api/v1/tables/5/commands", {"kind": "pause"}, "en", "table 5 is not paired"),
    ],
)
def test_a_command_for_an_unpaired_table_is_refused_in_the_reader_s_language(
    hub: Hub, path: str, payload: dict[str, str], header: str, said: str
) -> None:
    url, _ = hub
    answer = httpx.post(url + path, json=payload, headers={"Accept-Language": header})
    assert answer.status_code == 404
    assert answer.json()["error"] == said
