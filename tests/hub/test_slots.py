"""Every result counts once, in its place: table k of round n owes exactly the round's games,
played by the lineup's players, and nothing else reaches the standings (on a real hub)."""

from __future__ import annotations

import httpx
import pytest

from klik_hub import hall
from klik_hub.office import counting
from klik_hub.storage.store import Store
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out, results, standings

Hub = tuple[str, Store]


def one_game_round(hub: Hub) -> tuple[str, Hall, int, dict[str, object]]:
    """An open tournament (one game a round) of 8 players at 2 tables, round 1 drawn."""
    url, store = hub
    tid = create(url, format="open")
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 5}).json()
    return url, Hall(url, store, 3), tid, drawn


def seats_of(drawn: dict[str, object], table: int) -> dict[str, int]:
    tables = drawn["tables"]
    assert isinstance(tables, list)
    seats: dict[str, int] = tables[table - 1]["seats"]
    return seats


def held(url: str, tid: int) -> list[tuple[int, str | None, object]]:
    return [(r["table"], r["held"], r["slot"]) for r in results(url, tid)]


def test_games_past_the_rounds_games_are_held_not_in_round(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    for g in (1, 2, 3):  # the table played its round's one game, then two more
        answer = hall.report(tid, 1, 1, one, lowest_goes_out(1, 1, g, one), rules="tournament",
                             round_game=g)  # fmt: skip
        assert answer.status_code == 201, answer.text
    slot = {"round": 1, "table": 1, "game": 1}
    assert held(url, tid) == [(1, None, slot), (1, "not_in_round", None), (1, "not_in_round", None)]
    games = {r["player"]: r["games"] for r in standings(url, tid)}
    assert all(games[p] == 1 for p in one.values())  # not 3


def test_a_table_reporting_another_tables_players_counts_nowhere(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    answer = hall.report(tid, 1, 2, one, lowest_goes_out(1, 2, 1, one), rules="tournament",
                         round_game=1)  # fmt: skip
    assert answer.status_code == 201, answer.text
    assert held(url, tid) == [(2, "not_in_round", None)]
    board = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    # Table 2's own players never played: it still owes its game; table 1 too.
    assert [t["missing"] for t in board["tables"]] == [1, 1]
    assert [x["table"] for x in board["unplaced"]] == [2]


def test_a_result_for_an_undrawn_round_counts_nowhere(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    answer = hall.report(tid, 9, 1, one, lowest_goes_out(9, 1, 1, one), rules="tournament",
                         round_game=1)  # fmt: skip
    assert answer.status_code == 201, answer.text
    (result,) = results(url, tid)
    assert (result["counts"], result["held"], result["slot"]) == (False, "not_in_round", None)


def test_an_older_table_fills_the_first_empty_slot_in_order(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    for g in (1, 2):  # no round_game: a table from before it was in the protocol
        hall.report(tid, 1, 1, one, lowest_goes_out(1, 1, g, one), rules="tournament")
    assert held(url, tid) == [
        (1, None, {"round": 1, "table": 1, "game": 1}),
        (1, "not_in_round", None),  # the round had one game: nothing left to fill
    ]


def test_a_second_result_for_a_filled_slot_is_a_conflict_until_the_judge_accepts_it(
    hub: Hub,
) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    first = lowest_goes_out(1, 1, 1, one)
    hall.report(tid, 1, 1, one, first, rules="tournament", round_game=1)
    # The table was sent the round's lineup again and played game 1 once more.
    again = {s: (5 if r == 0 else 0) if s in ("A", "B") else r for s, r in first.items()}
    hall.report(tid, 1, 1, one, again, rules="tournament", round_game=1)
    slot = {"round": 1, "table": 1, "game": 1}
    assert held(url, tid) == [(1, None, slot), (1, "conflict", slot)]
    second = results(url, tid)[1]["id"]
    accepted = httpx.post(
        f"{url}{API}/{tid}/results/{second}/corrections",
        json={"kind": "accept", "value": True, "reason": "druga gra była właściwa"},
    )
    assert accepted.status_code == 201, accepted.text
    assert held(url, tid) == [(1, "conflict", slot), (1, None, slot)]
    games = {r["player"]: r["games"] for r in standings(url, tid)}
    assert all(games[p] == 1 for p in one.values())


def test_start_before_the_lineups_sends_them_first(hub: Hub) -> None:
    url, store = hub
    _, _, tid, _ = one_game_round(hub)
    hall.devices.pair(store, 2)
    started = httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"})
    assert started.status_code == 201, started.text
    assert len(started.json()) == 2  # the start commands, one a table
    pending = {t["table"]: [c["kind"] for c in t["commands"]] for t in hall.devices.tables(store)}
    assert pending == {1: ["game", "start"], 2: ["game", "start"], 3: []}
    # With the lineups sent, a start is only a start.
    httpx.post(f"{url}{API}/{tid}/rounds/1/commands", json={"kind": "start"})
    pending = {t["table"]: [c["kind"] for c in t["commands"]] for t in hall.devices.tables(store)}
    assert pending[1] == ["game", "start", "start"]


def test_a_result_played_without_the_lineup_is_offered_and_assigned(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    nobody = dict.fromkeys(one)  # "Gracz A-D": the table never had the lineup
    racks = lowest_goes_out(1, 1, 1, one)
    answer = hall.report(None, None, 1, nobody, racks, rules="tournament")
    assert answer.status_code == 201, answer.text
    assert results(url, tid) == []
    board = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    (offered,) = board["unplaced"]
    assert (offered["table"], offered["tournament"]) == (1, None)
    assert board["tables"][0]["missing"] == 1
    path = f"{url}{API}/{tid}/results/{offered['id']}/corrections"
    assign = {"kind": "assign", "round": 1, "table": 1, "game": 1, "players": one,
              "reason": "stół grał bez składu", "by": "Anna"}  # fmt: skip
    wrong = httpx.post(path, json={**assign, "table": 2})
    assert wrong.status_code == 422
    players = ", ".join(str(p) for p in sorted(seats_of(drawn, 2).values()))
    assert wrong.json() == {"error": f"players: table 2 of round 1 seats players {players}"}
    made = httpx.post(path, json=assign)
    assert made.status_code == 201, made.text
    assert (made.json()["kind"], made.json()["round"], made.json()["by"]) == ("assign", 1, "Anna")
    (result,) = results(url, tid)
    assert (result["counts"], result["slot"]) == (True, {"round": 1, "table": 1, "game": 1})
    board = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    assert (board["tables"][0]["missing"], board["unplaced"]) == (0, [])
    games = {r["player"]: r["games"] for r in standings(url, tid)}
    assert all(games[p] == 1 for p in one.values())


def test_a_player_correction_cannot_seat_one_player_twice(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    hall.report(tid, 1, 1, one, lowest_goes_out(1, 1, 1, one), rules="tournament", round_game=1)
    (result,) = results(url, tid)
    made = httpx.post(
        f"{url}{API}/{tid}/results/{result['id']}/corrections",
        json={"kind": "player", "seat": "B", "value": one["A"], "reason": "pomyłka"},
    )
    assert made.status_code == 422
    assert made.json() == {"error": f"value: player {one['A']} already sits at seat A of this game"}


@pytest.mark.parametrize(
    ("text", "player"),
    [
        ("17", 17),  # as the hub writes it into a lineup
        ("1", 1),
        (str(2**31 - 1), 2**31 - 1),  # the largest an INTEGER column holds
        (str(2**31), None),  # past it
        ("0", None),  # start numbers begin at 1
        ("017", None),  # a leading zero: not how the hub writes 17
        ("+17", None),  # a sign
        (" 17", None),  # a space
        ("١٧", None),  # digits, but not ASCII ones
        ("Gracz A", None),  # a stand-alone table's own text
        (None, None),  # the table had no lineup
        (17, None),  # a number: the protocol's field is text
    ],
)  # fmt: skip
def test_a_results_seat_names_a_player_only_as_the_lineup_wrote_the_id(
    text: object, player: int | None
) -> None:
    assert counting.player_id(text) == player


def test_a_seat_naming_its_player_otherwise_holds_the_result_as_unknown(hub: Hub) -> None:
    url, hall, tid, drawn = one_game_round(hub)
    one = seats_of(drawn, 1)
    padded = {**one, "A": f"0{one['A']}"}  # not the lineup's text: no player the hub knows
    answer = hall.report(tid, 1, 1, padded, lowest_goes_out(1, 1, 1, one), rules="tournament",
                         round_game=1)  # fmt: skip
    assert answer.status_code == 201, answer.text
    (result,) = results(url, tid)
    assert (result["counts"], result["held"], result["slot"]) == (False, "players", None)
    assert (result["seats"]["A"]["player"], result["seats"]["A"]["name"]) == (None, "")
    assert result["seats"]["B"]["player"] == one["B"]
    board = httpx.get(f"{url}{API}/{tid}/rounds/1").json()
    (offered,) = board["unplaced"]
    assert offered["players"]["A"] == f"0{one['A']}"  # as the table sent it
