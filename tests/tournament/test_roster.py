"""Enrolment lists: CSV files from spreadsheets and JSON from the console, all or nothing."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik_hub.tournament import text as tx
from klik_hub.tournament.roster import NAME_HEADERS, Entrant, RosterError, from_csv, from_json


@pytest.mark.parametrize(
    "text",
    [
        "name,club\nŁucja Żak,SP 5\nŹdźisław Ćwik,\n",  # a header, commas
        "\ufeffImię i nazwisko;Szkoła\r\nŁucja Żak;SP 5\r\nŹdźisław Ćwik\r\n",  # Excel: BOM, ;, CRLF
        "Łucja Żak\tSP 5\nŹdźisław Ćwik\n",  # no header: the name first; tabs
        "\n  Łucja   Żak , SP 5\n\nŹdźisław Ćwik\n\n",  # blank lines, stray spaces
        'klub,zawodnik\n"SP 5","Łucja Żak"\n,Ździsław Ćwik\n'.replace(
            "Ździsław", "Źdźisław"
        ),  # columns named the other way round
    ],
)
def test_a_csv_gives_the_players_in_file_order(text: str) -> None:
    assert from_csv(text) == [Entrant("Łucja Żak", "SP 5"), Entrant("Źdźisław Ćwik", "")]


def test_letters_typed_two_ways_are_one_letter() -> None:
    decomposed = "Łucja Z\u0307ak"  # Z + combining dot above, as some keyboards send Ż
    assert from_csv(decomposed + "\n") == [Entrant("Łucja Żak")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name,club\nAla,SP 1\n,SP 2\n", "line 3: the name is empty"),
        ("Ala,SP 1,extra\n", "line 1: 3 fields; allowed are name and club"),
        ("name\nAla\nOla,SP 2\n", "line 3: 2 fields; allowed are name"),
        ("Ala,SP 1\nOla\nala,sp 1\n", "line 3: ala (sp 1) is listed twice (also line 1)"),
        ("Ala,SP 1\n" + "x" * 101 + "\n", "line 2: the name is 101 characters; at most 100"),
        ('Ala,"SP 1\n', "line 1: unexpected end of data"),  # a quote never closed
        ("Ala\x07,SP 1\n", "line 1: the name holds a control character"),
        ("name,club\n\n", "no players in the list"),
        ("", "no players in the list"),
    ],
)
def test_a_bad_csv_names_its_line_and_nothing_is_enrolled(text: str, message: str) -> None:
    with pytest.raises(RosterError) as raised:
        from_csv(text)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"name": "Ala"}, 'players: send a list of {"name": ..., "club": ...}'),
        (["Ala"], 'players[0]: must be {"name": ..., "club": ...}'),
        ([{"name": "Ala"}, {"name": ""}], "players[1]: the name is empty"),
        ([{"name": 7}], "players[0]: name must be text"),
        ([{"name": "Ala", "club": 5}], "players[0]: club must be text"),
        (
            [{"name": "Ala", "clb": "SP"}],
            "players[0]: unknown field 'clb'; allowed: name, club, needs",
        ),
        ([], "no players in the list"),
    ],
)
def test_a_bad_json_list_names_its_entry(entries: object, message: str) -> None:
    with pytest.raises(RosterError) as raised:
        from_json(entries)
    assert str(raised.value) == message


def test_a_json_list_may_leave_the_club_out() -> None:
    assert from_json([{"name": "Ala"}, {"name": "Ola", "club": None}]) == [
        Entrant("Ala"),
        Entrant("Ola"),
    ]


names = st.text(
    st.characters(codec="utf-8", exclude_categories=("C", "Z"), exclude_characters='"'),
    min_size=1,
    max_size=30,
).filter(lambda s: s.casefold() not in NAME_HEADERS and tx.fault(s) is None)  # legible


def nfc_fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


@given(st.lists(names, min_size=1, max_size=20, unique_by=nfc_fold))
def test_any_names_written_as_csv_come_back(written: list[str]) -> None:
    text = "name;club\n" + "".join(f'"{n}";Klub\n' for n in written)
    assert [e.name for e in from_csv(text)] == [unicodedata.normalize("NFC", n) for n in written]
