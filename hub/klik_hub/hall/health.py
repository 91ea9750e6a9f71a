"""A table's health in plain words for the judge: the warnings its last heartbeat's
``health`` (``klik.link.protocol.Health``) calls for, compared with this hub's own version and
protocol revision. Pure: the console turns each warning's code into words.

A table whose heartbeat carries no ``health`` (an older table, or none heard yet) has no
warnings: nothing is known of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from klik.link import protocol as p
from klik.version import installed

#: Hot: the CPU at this temperature or above (°C; the Pi's firmware throttles from 80 °C)...
HOT_C = 80
#: ...or the firmware's flags that say the heat slowed it down, now.
HOT_FLAGS = frozenset(("soft_temp_limit",))
#: The card nearly full: less free space in the table's state folder than this, MiB. A day's
#: journals and results take a few MiB, and the table's reserve (``klik.table.game.card``,
#: not counted in the free space) carries the games on when it runs out; 200 MiB once made a
#: 64 MiB card, which serves a table well, an alarm for ever.
LOW_FREE_MB = 16


class HealthWarning(StrEnum):
    """What the console warns of, in the order it shows them (the worst first)."""

    PROTOCOL = "protocol"  # another protocol revision than the hub's: no round starts there
    # The card takes no writes (the table's own word, from its failed writes): the game in
    # play is not being kept. One warning a cause.
    CARD_FULL_NOW = "card_full_now"
    CARD_READ_ONLY = "card_read_only"
    CARD_NO_PERMISSION = "card_no_permission"
    UNDER_VOLTAGE = "under_voltage"  # the supply sagged, now or since boot
    HOT = "hot"
    CARD_FULL = "card_full"
    PANEL_OUT = "panel_out"  # a seat's screen does not answer (health.panels_out)
    STUCK = "stuck"  # a seat's button held down (health.stuck)
    VERSION = "version"  # another software version than the hub's (same protocol)
    CLOCK = "clock"  # the clock is not synchronised: results carry no time of day


def warnings(
    status: Mapping[str, Any] | None,
    *,
    version: str | None = None,
    protocol: int = p.REVISION,
) -> list[HealthWarning]:
    """The warnings for a table whose last heartbeat body is ``status`` (checked when it was
    taken, ``p.Heartbeat.decode``), against the hub's ``version`` (default: this hub's
    installed one) and ``protocol`` revision; none without a ``health``."""
    health = (status or {}).get("health")
    if not health:
        return []
    hub_version = installed() if version is None else version
    throttled = health.get("throttled") or {}
    now = set(throttled.get("now", ()))
    since_boot = set(throttled.get("since_boot", ()))
    temp = health.get("cpu_temp_c")
    free = health.get("free_mb")
    theirs = health.get("protocol")
    card = health.get("card")
    said = {
        HealthWarning.PROTOCOL: theirs is not None and theirs != protocol,
        HealthWarning.UNDER_VOLTAGE: "under_voltage" in now | since_boot,
        HealthWarning.HOT: (temp is not None and temp >= HOT_C) or bool(now & HOT_FLAGS),
        HealthWarning.CARD_FULL_NOW: card == "full",
        HealthWarning.CARD_READ_ONLY: card == "read-only",
        HealthWarning.CARD_NO_PERMISSION: card == "no-permission",
        HealthWarning.CARD_FULL: free is not None and free < LOW_FREE_MB and card != "full",
        HealthWarning.PANEL_OUT: bool(health.get("panels_out")),
        HealthWarning.STUCK: bool(health.get("stuck")),
        HealthWarning.VERSION: health.get("version") not in (None, hub_version),
        HealthWarning.CLOCK: health.get("clock_synced") is False,
    }
    if said[HealthWarning.PROTOCOL]:
        said[HealthWarning.VERSION] = False  # the worse of the two says it
    return [w for w in HealthWarning if said[w]]


def other_protocol(status: Mapping[str, Any] | None, protocol: int = p.REVISION) -> int | None:
    """The protocol revision a table's last heartbeat ``status`` names when it is not
    ``protocol``; None when it is, or is not known (no heartbeat, or one without health)."""
    health = (status or {}).get("health") or {}
    theirs = health.get("protocol")
    return None if theirs is None or theirs == protocol else int(theirs)
