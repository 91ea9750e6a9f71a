"""A table's heartbeat: its state and its acks kept, the commands waiting for it handed back.

A heartbeat is taken only if its seq is above the last one the hub holds for the device,
compared in the very statement that writes it (``sql.heartbeats.upsert``): a heartbeat
captured on the way and replayed later (a dead table looking alive, a judge's call nobody
made) changes nothing, on any number of processes. A hub that loses its last heartbeats in a
power cut (they are best effort) holds an older seq for a moment; the table's next heartbeat
moves it on.

A newer table's heartbeat says how each seat has moved so far (``moves``, with the game's
``move_time_ms``); ``watch`` picks out the seats the judge should look at while the round
runs: slow movers and repeated timeouts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from klik.link import protocol as p
from klik_hub import sql
from klik_hub.sql.devices import Device
from klik_hub.storage.store import Store
from klik_hub.tournament import clock

log = logging.getLogger("klik_hub")

#: A slow mover: its mean move time is at least this share of the move time...
SLOW_SHARE = 0.8
#: ...over at least this many moves (one long think is no habit).
SLOW_FROM_MOVES = 3
#: Repeated timeouts: this many or more in the game.
TIMEOUTS_TO_WATCH = 2


@dataclass(frozen=True, slots=True)
class Beat:
    """What a heartbeat came to: taken, with the table's waiting commands, or stale."""

    taken: bool  # False: its seq was not above ``last_seq`` (a replay, or a count lost)
    last_seq: int  # the seq of the device's heartbeat the hub holds now
    commands: list[dict[str, Any]]  # the table's waiting commands; none when stale
    # The last result seq the hub holds from the device, when the heartbeat asked for it
    # (``seq_in_doubt``: a table whose count was lost numbers its results on above it).
    last_result_seq: int | None = None
    # The table's round and its time left while its round clock runs (``office.clock``).
    round: dict[str, Any] | None = None
    # The highest result seq the hub holds from the device, when the table says the hub
    # acknowledged a higher one (``acked_seq``): the hub lost those (a lost WAL, a restored
    # backup), and the signed answer asks for them again.
    resend_after: int | None = None
    # The results the table reports in conflict (``conflicts``) that the judge has settled
    # since: the table stops saying so.
    settled: list[int] = field(default_factory=list)


def take(store: Store, db: Connection, envelope: p.Envelope, device: Device) -> Beat:
    """Keep a heartbeat's state and its acks in ``devices.believed``'s transaction ``db``,
    with the table's pending commands; or nothing at all for a stale heartbeat, one whose seq
    is not above the last the hub holds for the device (a replay, or the same one twice).

    ProtocolError (422) for a body that is not a heartbeat (``p.Heartbeat.decode``).
    """
    now = store.now_ms()
    body = envelope.body
    said = p.Heartbeat.decode(body)  # an older table's may lack names, acks, refused
    acks = list(said.acks)
    beat = {
        "device": device.device,
        "table_no": device.table_no,
        "seq": envelope.seq,
        "body": p.canonical(body).decode("ascii"),
        "seen_ms": now,
    }
    last_result = None
    if said.seq_in_doubt:  # asked for only by a table that lost its count
        last_result = sql.results.last_seq(db, device.device)
    resend_after = None
    if said.acked_seq:
        held = sql.results.last_seq(db, device.device)
        if said.acked_seq > held:
            resend_after = held
            log.warning(
                "table %d (%s): the hub acknowledged its results up to seq %d but holds them "
                "up to %d only; asked to send them again",
                device.table_no, device.device, said.acked_seq, held,
            )  # fmt: skip
    if not sql.heartbeats.keep(db, store.beat_upsert, beat):
        last = sql.heartbeats.last_seq(db, device.device)
        return Beat(taken=False, last_seq=last, commands=[], last_result_seq=last_result,
                    resend_after=resend_after)  # fmt: skip
    if acks:
        sql.commands.acknowledge(db, acks, device.table_no, now)
    commands = sql.commands.pending(db, device.table_no)
    timed = _round(db, device.table_no, now)
    settled = sql.results.settled(db, device.device, [c.seq for c in said.conflicts])
    return Beat(True, envelope.seq, commands, last_result, timed, resend_after, settled)


def _round(db: Connection, table_no: int, now_ms: int) -> dict[str, Any] | None:
    """The answer's ``round`` for table ``table_no`` (``p.RoundClock``): its latest round's
    tournament, round and time left, 0 once its time is up or round-over was sent (the
    table's later games of the round begin with their last moves); None without a round
    time (the table forgets its round clock)."""
    x = sql.clocks.of_table(db, table_no)
    if x is None:
        return None
    left = clock.left_ms(clock.ends_ms(x.started_ms, x.round_time_s, x.extra_s), now_ms)
    if left is None:
        return None
    said = p.RoundClock(str(x.tournament_id), x.round_no, 0 if x.over_ms is not None else left)
    return said.json()


def watch(status: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The seats of a table's last heartbeat body ``status`` the judge should watch, by seat:
    ``{"seat", "name", "slow", "timeouts", "count", "mean_ms", "longest_ms"}``, ``slow`` when
    its mean move time is ``SLOW_SHARE`` of the move time or more over ``SLOW_FROM_MOVES``
    moves or more, listed too with ``TIMEOUTS_TO_WATCH`` timeouts or more; none for an older
    table's heartbeat, without ``moves``. The body was checked when it was taken
    (``p.Heartbeat.decode``)."""
    if not status:
        return []
    moves = status.get("moves") or {}
    names = status.get("names") or {}
    move_ms = status.get("move_time_ms")
    watched = []
    for seat in sorted(moves):
        figures = moves[seat]
        slow = (
            move_ms is not None
            and figures["count"] >= SLOW_FROM_MOVES
            and figures["mean_ms"] >= SLOW_SHARE * move_ms
        )
        if slow or figures["timeouts"] >= TIMEOUTS_TO_WATCH:
            watched.append(
                {
                    "seat": seat,
                    "name": names.get(seat, ""),
                    "slow": slow,
                    **{
                        name: figures[name]
                        for name in ("timeouts", "count", "mean_ms", "longest_ms")
                    },
                }
            )
    return watched
