"""Pairing at the table on the seats' screens: seat A shows ``Szukam huba…`` while the table
asks to join and no hub has answered, the six digits of its request once one has, and
``Stół 7 · połączono`` once the judge accepted it, until the game starts; the other seats
show none of them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from klik.core import game as g
from klik.core.tabletop import new_tabletop
from klik.table.screens import render as screens
from klik.table.screens.view import Alert, AlertKind, TableInfo, seat_views
from klik.words import Language

SETTINGS = g.Settings(seats=("A", "B", "C", "D"))
READY = new_tabletop(SETTINGS).game


def alerts(info: TableInfo, game: g.Game = READY) -> dict[str, tuple[Alert, ...]]:
    return {v.seat: v.alerts for v in seat_views(game, 0.0, info)}


def test_seat_a_shows_the_digits_while_the_table_asks_to_join() -> None:
    shown = alerts(TableInfo(table="1", pairing_digits="026990"))
    assert shown == {
        "A": (Alert(AlertKind.PAIRING, text="026 990"),),
        "B": (),
        "C": (),
        "D": (),
    }


def test_seat_a_says_it_looks_for_the_hub_until_the_digits_come() -> None:
    shown = alerts(TableInfo(table="1", seeking_hub=True))
    assert shown == {"A": (Alert(AlertKind.SEEKING),), "B": (), "C": (), "D": ()}


@pytest.mark.parametrize("language", list(Language))
def test_the_looking_for_the_hub_line_is_in_the_seat_s_words_uncut(language: Language) -> None:
    info = TableInfo(table="7", language=language, seeking_hub=True)
    view = next(v for v in seat_views(READY, 0.0, info) if v.seat == "A")
    drawn = [d.text for d in screens.layout(view).texts]
    said = {Language.PL: "Szukam huba…", Language.EN: "Looking for the hub…"}[language]
    assert said in drawn, drawn


def test_seat_a_says_the_table_is_connected_until_the_game_starts() -> None:
    info = TableInfo(table="7", paired=True)
    assert alerts(info)["A"] == (Alert(AlertKind.PAIRED, text="7"),)
    started = replace(READY, phase=g.Phase.MOVE, mover="A")
    assert alerts(info, started)["A"] == ()


@pytest.mark.parametrize("language", list(Language))
@pytest.mark.parametrize(
    "alert",
    [
        Alert(AlertKind.PAIRING, text="026 990"),  # the digits, whole, on one line
        Alert(AlertKind.PAIRED, text="999"),  # the longest table number
    ],
)
def test_the_pairing_lines_fit_seat_a_uncut(alert: Alert, language: Language) -> None:
    view = next(
        v for v in seat_views(READY, 0.0, TableInfo(table="7", language=language)) if v.seat == "A"
    )
    drawn = [d.text for d in screens.layout(replace(view, alerts=(alert,))).texts]
    assert any(alert.text in text and not text.endswith("…") for text in drawn), drawn
