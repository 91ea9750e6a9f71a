"""The hub's open files (``klik_hub.door.files``): the start's line about the limit, and a
shortage told at once and then once a minute, on a clock the tests move. (The live hub with
a shell's limit and a thousand silent connections: tests/hub/test_hub_security.py.)"""

from __future__ import annotations

import logging
import resource

import pytest

from klik_hub.door.files import Limit, Shortage, free_file, said

LOW = (
    "the most this system allows: as many silent connections would lock the tables out; "
    "allow 65536 (LimitNOFILE= in the systemd unit, nofile in /etc/security/limits.conf)"
)


@pytest.mark.parametrize(
    ("limit", "level", "line"),
    [
        # a shell's 1,024, raised to a desktop's hard limit
        (Limit(1024, 1048576, 1048576), logging.INFO, "hub: open files: up to 1048576 (was 1024)"),
        # systemd's LimitNOFILE sets both: nothing to raise
        (Limit(65536, 65536, 65536), logging.INFO, "hub: open files: up to 65536"),
        # raised, but the hard limit is low: said, with where to allow more
        (
            Limit(1024, 4096, 4096),
            logging.WARNING,
            f"hub: open files: up to 4096 (was 1024), {LOW}",
        ),
        # a low limit with nothing to raise
        (Limit(1024, 1024, 1024), logging.WARNING, f"hub: open files: up to 1024, {LOW}"),
        # the system refused the hard limit (macOS: an unlimited one is no soft limit)
        (
            Limit(256, 256, resource.RLIM_INFINITY),
            logging.WARNING,
            "hub: open files: up to 256; the system refused the unlimited of its hard limit",
        ),
    ],
)
def test_the_start_says_how_many_files_the_hub_may_open(
    limit: Limit, level: int, line: str
) -> None:
    assert said(limit) == (level, line)


FIRST = (
    "hub: out of open files (1024 at most): new connections are closed unanswered until "
    "some end; told again in a minute while it lasts"
)


def every(seconds: int) -> str:
    return (
        f"hub: out of open files (1024 at most) for {seconds} s of the last minute: new "
        "connections were closed unanswered meanwhile"
    )


# (at s, a free file, the line logged, (told_at, short) after the look)
LOOKS: list[tuple[float, bool, str | None, tuple[float | None, int]]] = [
    (0.0, True, None, (None, 0)),  # files to spare: nothing to say
    (1.0, False, FIRST, (1.0, 0)),  # the first look that finds none: told at once
    (2.0, False, None, (1.0, 1)),  # counted, not told: no flood
    (3.0, True, None, (1.0, 1)),  # a file came free: the shortage goes on being counted
    (60.0, False, None, (1.0, 2)),  # 59 s since the line
    (61.0, False, every(3), (61.0, 0)),  # a minute: how long they were out
    (62.0, True, None, (61.0, 0)),
    (121.0, True, None, (None, 0)),  # a minute with a file at every look ends it, silently
    (122.0, False, FIRST, (122.0, 0)),  # so the next shortage is told at once again
]


def test_a_shortage_is_told_at_once_then_once_a_minute_with_how_long() -> None:
    shortage = Shortage(1024)
    for at, free, line, (told_at, short) in LOOKS:
        assert shortage.note(at, free) == line, at
        assert (shortage.told_at, shortage.short) == (told_at, short), at


def test_a_look_for_a_free_file_sees_the_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert free_file()
    resource.setrlimit(resource.RLIMIT_NOFILE, (3, hard))  # stdin, stdout, stderr: all taken
    try:
        assert not free_file()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
