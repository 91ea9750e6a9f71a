"""A power cut in the two narrow windows around a round's lineup (issue 18, points 5 and 6),
hit exactly with a kill point (``klik.faults``): the real ``klik sim`` kills itself there with
SIGKILL, comes back, and the round is still played with its players, every game counting in
its slot at the real ``klik hub``.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik.faults import ENV
from tests.crash.test_crash_campaign import VirtualTable, free_port
from tests.crash.test_delivery_faults import Hub, judge_tap, paired, play, until

Json = dict[str, Any]
PLAYERS = (
    "Łucja Żak",
    "Źdźisław Ćwik",
    "Ania Nowak",
    "Bożena Kęs",
    "Jan Óssowski",
    "Ewa Śliwa",
    "Olek Wąs",
    "Iga Ńuk",
)
API = "/api/v1/tournaments"


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[VirtualTable, Hub]]:
    hub = Hub(tmp_path / "hub.sqlite", free_port()).start()
    folder = tmp_path / "state"
    folder.mkdir()
    table = VirtualTable(folder, config=paired(hub, hub.url, tmp_path, table=1), dated=True)
    (tmp_path / "other").mkdir()
    paired(hub, hub.url, tmp_path / "other", table=2)  # the round's other table, not played
    yield table, hub
    table.stop()
    hub.kill()


def draw_round(hub: Hub) -> tuple[int, list[str]]:
    """A liga tournament (2 games a round) of eight players (fewer than liga takes: the judge
    overrides), its round 1 drawn at tables 1 and 2 and its lineups sent; the tournament's id
    and table 1's players."""
    api = hub.url + API
    made = httpx.post(api, json={"name": "Puchar", "format": "liga", "move_time_s": 60})
    tid = int(made.json()["id"])
    enrolled = httpx.post(f"{api}/{tid}/players", json=[{"name": n} for n in PLAYERS])
    assert enrolled.status_code == 201, enrolled.text
    return tid, draw_next(hub, tid, 1)


def draw_next(hub: Hub, tid: int, round_no: int) -> list[str]:
    """Round ``round_no`` drawn at tables 1 and 2 (over the results table 2 never sent) and
    its lineups sent; table 1's players."""
    api = f"{hub.url}{API}/{tid}"
    drawn = httpx.post(f"{api}/rounds", json={"seed": round_no, "override": True})
    assert drawn.status_code == 201, drawn.text
    first, second = drawn.json()["tables"]
    assert (first["table"], second["table"]) == (1, 2)
    sent = httpx.post(f"{api}/rounds/{round_no}/commands", json={"kind": "game"})
    assert sent.status_code == 201, sent.text
    enrolment = {p["id"]: p["name"] for p in httpx.get(f"{api}/players").json()}
    return sorted(enrolment[p] for p in first["seats"].values())


def named(table: VirtualTable, players: list[str]) -> bool:
    """The round's players are on the seats."""
    return sorted(table.state()["names"].values()) == players


def first_game(table: VirtualTable, players: list[str]) -> None:
    """The round's first game, once its players are on the seats; its starter is drawn: A
    drew the highest tile and holds its button."""
    until(lambda: named(table, players))
    table.hold("A", 1.3)
    play(table)


def commands_waiting(hub: Hub) -> int:
    listed = httpx.get(hub.url + "/api/v1/tables").json()
    return len([c for t in listed if t["table"] == 1 for c in t["commands"]])


def round_played(hub: Hub, tid: int, round_no: int = 1) -> None:
    """Every game of the round at table 1 counts in its slot, none is left over; the hub holds
    no result in conflict."""
    drawn = httpx.get(f"{hub.url}{API}/{tid}/rounds/{round_no}").json()
    assert [t["missing"] for t in drawn["tables"]] == [0, 2]  # table 2 is not played here
    assert drawn["unplaced"] == []
    assert not any(r["conflict"] for r in hub.results())


@pytest.mark.parametrize("point", ["command-carried-out", "command-recorded"])
def test_a_cut_around_the_game_command_never_loses_the_rounds_lineup(
    hall: tuple[VirtualTable, Hub], point: str
) -> None:
    """Cut after the lineup is carried out but before it is recorded as done, and after it is
    recorded but before the hub hears so: either way the round is played with its players."""
    table, hub = hall
    table.env = {ENV: point}
    table.start()
    tid, players = draw_round(hub)
    assert table.died() == -signal.SIGKILL  # at the kill point, as a power cut
    table.env = {}
    table.start()
    until(lambda: named(table, players) and commands_waiting(hub) == 0)
    table.hold("A", 1.3)  # the round's first starter is drawn: A drew the highest tile
    for _ in range(2):
        play(table)
        assert named(table, players)
    until(lambda: table.state()["delivery"]["waiting"] == 0)
    round_played(hub, tid)
    assert sorted(r["game"] for r in hub.results()) == [1, 2]


@pytest.mark.parametrize(
    "point", ["next-game-counted", "round-game-journalled", "round-game-counted"]
)
def test_a_cut_during_the_judges_next_game_tap_keeps_the_rounds_next_game(
    hall: tuple[VirtualTable, Hub], point: str
) -> None:
    """Cut between the game counter and the next game's journal, between that journal and the
    round's count, and right after the count: the table comes back on the round's second game
    (exactly the next number) with its players, not an ordinary game."""
    table, hub = hall
    table.start()
    tid, players = draw_round(hub)
    first_game(table, players)
    table.kill()
    table.env = {ENV: point}
    table.start()
    with contextlib.suppress(OSError):  # the table may die before it answers the release
        judge_tap(table)
    assert table.died() == -signal.SIGKILL
    table.env = {}
    back = table.start().state()
    assert (back["game_no"], back["state"]) == (2, "ready")
    assert named(table, players)
    play(table)
    until(lambda: table.state()["delivery"]["waiting"] == 0)
    round_played(hub, tid)
    assert sorted(r["game"] for r in hub.results()) == [1, 2]


def test_a_new_card_with_the_old_pairing_numbers_its_results_above_the_hubs(
    hall: tuple[VirtualTable, Hub],
) -> None:
    """Table 1's card dies after round 1 and a fresh one with the same pairing goes in: it
    cannot know which seqs the hub holds from it, so it asks (a heartbeat ``seq_in_doubt``)
    before it sends a result. Round 2's results count, and round 1's stay counted: no seq
    is used twice, nothing is a conflict."""
    table, hub = hall
    table.start()
    tid, players = draw_round(hub)
    first_game(table, players)
    play(table)
    until(lambda: table.state()["delivery"]["waiting"] == 0)
    table.kill()
    shutil.rmtree(table.folder)  # the card is replaced: nothing of the old one is left
    table.folder.mkdir()
    table.start()
    players = draw_next(hub, tid, 2)
    first_game(table, players)
    play(table)
    until(lambda: table.state()["delivery"]["waiting"] == 0)
    assert sorted((r["seq"], r["round"]) for r in hub.results()) == [(1, 1), (2, 1), (3, 2),
                                                                    (4, 2)]  # fmt: skip
    round_played(hub, tid, 1)
    round_played(hub, tid, 2)
    assert (table.folder / "outbox.seq").read_text() == "4\n"  # confirmed by the hub


def test_a_round_game_played_twice_is_a_conflict_the_table_shows_until_the_judge_settles_it(
    hall: tuple[VirtualTable, Hub],
) -> None:
    """Table 1's card dies after its round's first game was sent, a blank one goes in, the
    judge sends the round's lineup again and game 1 is played once more: the hub holds two
    results for one game. The table never says `Wysłano ✓` for it: its delivery is `conflict`
    and its heartbeats list it (the console shows it) until the judge accepts one result."""
    table, hub = hall
    table.start()
    tid, players = draw_round(hub)
    first_game(table, players)
    until(lambda: table.state()["delivery"]["state"] == "sent")
    table.kill()
    shutil.rmtree(table.folder)  # the card is replaced: nothing of the old one is left
    table.folder.mkdir()
    table.start()
    sent = httpx.post(f"{hub.url}{API}/{tid}/rounds/1/commands", json={"kind": "game"})
    assert sent.status_code == 201, sent.text
    first_game(table, players)  # the round's game 1 again
    until(lambda: table.state()["delivery"]["state"] == "conflict")
    assert table.state()["game_no"] == 1
    until(lambda: conflicts_of(hub, 1) == [{"seq": 2, "game": 1}])
    again = next(r for r in hub.results() if r["seq"] == 2)
    assert again["conflict"]
    accepted = httpx.post(
        f"{hub.url}{API}/{tid}/results/{again['id']}/corrections",
        json={"kind": "accept", "value": True, "reason": "druga gra była właściwa"},
    )
    assert accepted.status_code == 201, accepted.text
    until(lambda: table.state()["delivery"]["state"] == "sent")
    until(lambda: conflicts_of(hub, 1) == [])


def conflicts_of(hub: Hub, table_no: int) -> list[Json]:
    """What table ``table_no``'s last heartbeat says is in conflict."""
    listed = httpx.get(hub.url + "/api/v1/tables").json()
    status = next(t for t in listed if t["table"] == table_no)["status"] or {}
    found: list[Json] = status.get("conflicts", [])
    return found
