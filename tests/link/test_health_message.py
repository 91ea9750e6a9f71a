"""A heartbeat's ``health`` (issue 21, point 4): what a table sends the hub decodes as it was,
an older table's heartbeat without it is taken, and a wrong field is one line naming it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.link import protocol as p
from klik.link.protocol import health as h

flags = st.lists(st.sampled_from(p.THROTTLE_FLAGS), unique=True).map(tuple)
seat_lists = st.lists(st.sampled_from(("A", "B", "C", "D")), unique=True).map(tuple)
healths = st.builds(
    p.Health,
    # text the protocol can keep: no NUL, no lone surrogate (p.NOT_STORABLE)
    version=st.none()
    | st.text(
        st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=h.MAX_VERSION
    ),
    protocol=st.none() | st.integers(1, h.BIG),
    clock_synced=st.none() | st.booleans(),
    cpu_temp_c=st.none() | st.integers(*h.TEMP_C),
    throttled=st.none() | st.builds(p.Throttled, flags, flags),
    free_mb=st.none() | st.integers(0, h.BIG),
    journal_kb=st.none() | st.integers(0, h.BIG),
    panels_out=seat_lists,
    stuck=seat_lists,
)


@given(healths)
def test_a_heartbeat_with_health_decodes_as_it_was(health: p.Health) -> None:
    beat = p.Heartbeat(game=2, state="move", mover="C", health=health)
    body = beat.json()
    p.canonical(body)  # signable: whole numbers only
    assert p.Heartbeat.decode(body) == beat


def test_an_older_table_sends_no_health_and_a_null_one_is_none() -> None:
    body = p.Heartbeat(game=1).json()
    assert "health" not in body
    assert p.Heartbeat.decode(body).health is None
    assert p.Heartbeat.decode({**body, "health": None}).health is None
    # a newer table's health with fields it has not read yet, and one a later one adds
    partial = p.Heartbeat.decode({**body, "health": {"protocol": 1, "fan_rpm": 3000}})
    assert partial.health == p.Health(protocol=1)


def test_the_firmware_s_bits_are_its_flags() -> None:
    assert p.Throttled.of_bits(0x50005) == p.Throttled(
        ("under_voltage", "throttling"), ("under_voltage", "throttling")
    )
    assert p.Throttled.of_bits(0) == p.Throttled()
    assert p.Throttled.of_bits(0xF000F) == p.Throttled(p.THROTTLE_FLAGS, p.THROTTLE_FLAGS)


@pytest.mark.parametrize(
    ("health", "message"),
    [
        ("ok", "body.health: must be an object"),
        ({"version": 1}, "body.health.version: must be text of at most 40, or null"),
        ({"version": "x" * 41}, "body.health.version: must be text of at most 40, or null"),
        ({"protocol": 0}, "body.health.protocol: must be a whole number from 1 to 9007199254740991, or null"),
        ({"protocol": "1"}, "body.health.protocol: must be a whole number from 1 to 9007199254740991, or null"),
        ({"clock_synced": 1}, "body.health.clock_synced: must be true, false or null"),
        ({"cpu_temp_c": 51.5}, "body.health.cpu_temp_c: must be a whole number from -60 to 200, or null"),  # no float
        ({"cpu_temp_c": 900}, "body.health.cpu_temp_c: must be a whole number from -60 to 200, or null"),
        ({"free_mb": -1}, "body.health.free_mb: must be a whole number from 0 to 9007199254740991, or null"),
        ({"journal_kb": True}, "body.health.journal_kb: must be a whole number from 0 to 9007199254740991, or null"),
        ({"throttled": 5}, "body.health.throttled: must be an object of now and since_boot, or null"),
        ({"throttled": {"now": ["hot"]}}, "body.health.throttled.now: must be a list of flags, each once: under_voltage, freq_capped, throttling, soft_temp_limit"),
        ({"throttled": {"since_boot": ["throttling", "throttling"]}}, "body.health.throttled.since_boot: must be a list of flags, each once: under_voltage, freq_capped, throttling, soft_temp_limit"),
        ({"panels_out": ["E"]}, "body.health.panels_out: must be a list of seats (A, B, C, D), each once"),
        ({"stuck": "A"}, "body.health.stuck: must be a list of seats (A, B, C, D), each once"),
        ({"stuck": [["A"]]}, "body.health.stuck: must be a list of seats (A, B, C, D), each once"),
    ],
)  # fmt: skip
def test_a_wrong_health_field_is_one_line_naming_it(health: Any, message: str) -> None:
    body = {**p.Heartbeat(game=1).json(), "health": health}
    with pytest.raises(p.ProtocolError) as refused:
        p.Heartbeat.decode(body)
    assert str(refused.value) == message


def test_every_health_field_and_warning_is_documented() -> None:
    import dataclasses  # noqa: PLC0415
    import re  # noqa: PLC0415

    from tests.link.test_protocol_doc import section  # noqa: PLC0415

    said = section("#### A table's health")
    rows = re.findall(r"^\| `([a-z_]+)` \|", said, flags=re.MULTILINE)
    assert rows == [f.name for f in dataclasses.fields(p.Health)]
    assert all(f"`{flag}`" in said for flag in p.THROTTLE_FLAGS)
    assert f"now **{p.REVISION}**" in said
