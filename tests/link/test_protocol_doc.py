"""``docs/protocol.md`` is the contract in prose, ``klik.link.protocol`` the same contract in
code: each names everything the other names (envelope types, paths, answer statuses, command
kinds, the result body's fields, a link's ack and its troubles), so neither can drift from
the other unseen."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from klik.core import game as g
from klik.core.game import Move
from klik.core.scoring import Ending, SeatRack, score
from klik.link import protocol as p
from klik.link.protocol.ack import HUB_ERROR_HTTP, UNPAIRED_HTTP
from klik.link.results import make_result
from klik.rules import RULE_SETS

DOC = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
TICKED = re.compile(r"`([^`]+)`")


def section(heading: str) -> str:
    """The text under ``heading`` (a whole heading line, e.g. ``## The result body``) down to
    the next heading of the same or a higher level."""
    level = heading.split(" ", maxsplit=1)[0]
    start = DOC.index(f"\n{heading}\n") + len(heading) + 2
    ends = [
        m.start() for m in re.finditer(r"\n(#+) ", DOC[start:]) if len(m.group(1)) <= len(level)
    ]
    return DOC[start : start + ends[0]] if ends else DOC[start:]


def test_every_envelope_type_and_path_is_documented() -> None:
    envelopes = section("## Envelopes")
    for kind in p.EnvelopeType:
        assert f'"{kind}"' in envelopes or f"`{kind}`" in envelopes, kind
    for path in p.PATHS.values():
        assert f"\n### `POST {path}`\n" in DOC, path
    documented = set(re.findall(r"\n### `POST (/api/v1/(?:results|heartbeats))`", DOC))
    assert documented == set(p.PATHS.values())


def test_every_answer_status_is_documented_with_its_code_and_no_other() -> None:
    answers = section("### `POST /api/v1/results`") + section("### `POST /api/v1/heartbeats`")
    said = set(re.findall(r'"status": "([a-z]+)"', answers))
    assert said == {s.value for s in p.Status}
    for status in p.Status:
        if status is not p.Status.INVALID:  # unsigned: 413 or 422 as the fault is
            assert re.search(rf'\*\*{status.http}\*\*[^\n|]*"status": "{status}"', answers), status


def test_every_command_kind_is_documented_and_no_other() -> None:
    commands = section("### Hub → table commands")
    sentence = commands[commands.index("Kinds: ") : commands.index("a tournament round's lineup")]
    sentence = re.sub(r"\([^)]*\)", "", sentence)  # what each kind does, in brackets
    assert tuple(TICKED.findall(sentence)) == p.COMMAND_KINDS
    # A kind other than a lineup, names or a new number is an order the table's clock
    # carries out.
    orders = set(p.COMMAND_KINDS) - {
        p.CommandKind.PLAYERS, p.CommandKind.GAME, p.CommandKind.RENUMBER,
    }  # fmt: skip
    assert orders <= {action.value for action in g.Action}
    assert set(p.ROUND_KINDS) <= set(p.CommandKind)


def test_every_result_field_is_documented_and_no_other() -> None:
    body = section("## The result body")
    rows = re.findall(r"^\| (`[^|]+) \|", body, flags=re.MULTILINE)
    documented = {name for row in rows for name in TICKED.findall(row)}
    result = score(RULE_SETS["tournament"], Ending.RUMMIKUB,
                   {s: SeatRack(r) for s, r in {"A": 0, "B": 7}.items()}, "A")  # fmt: skip
    made = make_result(
        table=3, game=12, rules="tournament", result=result, names={"A": "Ala", "B": "Bo"},
        opened={"A", "B"}, moves=(Move("A", 0.0, 1.0, "tap", 0),), duration_ms=1_000,
        finished_at=None, tournament="1", round_no=2, players={"A": "17", "B": "3"},
        round_game=1,
    )  # fmt: skip
    assert documented == set(made)
    seat_fields = re.search(r"^\| `seats` \|(.*)$", body, flags=re.MULTILINE)
    assert seat_fields is not None
    assert set(made["seats"]["A"]) <= set(TICKED.findall(seat_fields.group(1)))


def test_every_heartbeat_field_is_documented_and_no_other() -> None:
    heartbeats = section("### `POST /api/v1/heartbeats`")
    example = json.loads(heartbeats[heartbeats.index("```json") + 7 : heartbeats.index("```\n")])
    fields = {f.name for f in dataclasses.fields(p.Heartbeat)}
    assert set(example) == fields - {"seq_in_doubt"}  # sent only by a table in doubt
    assert "`seq_in_doubt`" in heartbeats
    for name in fields:
        assert f"`{name}`" in heartbeats, name


def test_a_links_ack_and_how_http_answers_map_to_it_are_documented() -> None:
    links = section("## Links: an envelope out, an ack back")
    fields = links[links.index("| field |") : links.index("| HTTP answer |")]
    rows = re.findall(r"^\| `([a-z_]+)` \|", fields, flags=re.MULTILINE)
    assert rows == [f.name for f in dataclasses.fields(p.Ack)]
    mapping = links[links.index("| HTTP answer |") :]
    said = re.findall(r"trouble `([a-z_]+)`", mapping)
    assert said == [t.value for t in p.Trouble]  # each once, in the order they are read
    assert f"| **{UNPAIRED_HTTP}**" in mapping
    assert f"| **{HUB_ERROR_HTTP // 100}xx**" in mapping
    taken = links[links.index("A result is acknowledged by") : links.index("whose signed ack")]
    assert set(TICKED.findall(taken)) == set(p.TAKEN)


def test_a_seats_moves_are_documented_figure_by_figure() -> None:
    figures = section("### A seat's moves")
    listed = re.findall(r"^- `([a-z_]+)`:", figures, flags=re.MULTILINE)
    assert tuple(listed) == p.MOVES_FIELDS
    made = make_result(
        table=3, game=12, rules="tournament",
        result=score(RULE_SETS["tournament"], Ending.RUMMIKUB, {"A": SeatRack(0), "B": SeatRack(7)}, "A"),
        names={}, opened={"A", "B"}, moves=(Move("A", 0.0, 1.0, g.EndedBy.TAP),),
        duration_ms=1_000, finished_at=None,
    )  # fmt: skip
    assert tuple(made["seats"]["A"]["moves"]) == p.MOVES_FIELDS
    heartbeats = section("### `POST /api/v1/heartbeats`")
    example = json.loads(heartbeats[heartbeats.index("```json") + 7 : heartbeats.index("```\n")])
    for figures in example["moves"].values():
        p.check_moves(figures, "example")
    assert "*A seat's moves*" in heartbeats


def test_the_round_clock_in_a_heartbeats_answer_is_documented_as_the_package_has_it() -> None:
    clock = section("#### The round's clock")
    example = json.loads("{" + clock[clock.index("```json") + 7 : clock.index("```\n")] + "}")
    said = p.RoundClock.decode(example["round"])
    assert said.json() == example["round"]
    for name in said.json():
        assert f"`{name}`" in clock, name
    assert "*The round's clock*" in section("### `POST /api/v1/heartbeats`")
