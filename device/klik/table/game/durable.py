"""Small files the table must not lose: written whole or not at all, and fsynced.

``write_atomic`` writes a temporary file in the same folder, fsyncs it, renames it into place
and fsyncs the folder, so after a power cut the file is either the old one or the new one,
never half of each. ``GameCounter`` keeps the number of the table's last game, so game
numbers never go back, not even after a damaged journal was moved aside; the files of the
games (results, archived journals) are a floor under it in case it was lost.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from pathlib import Path

from klik.link.outbox import sync_folder
from klik.table.game.card import Card

log = logging.getLogger(__name__)

RESULT = re.compile(r"^result-(\d{1,9})(?:\.\d+)?\.json$")
#: A finished game's journal, kept aside when the next game began (``klik.table.game.journal``).
#: Before numbers named them they were counted 1, 2, ...: never above the game they hold.
ARCHIVED = re.compile(r"^journal\.game-(\d{1,9})(?:\.\d+)?\.jsonl$")


def write_atomic(path: Path, data: bytes, *, replace: bool = True) -> Path:
    """Write ``data`` to ``path`` durably; returns the path written.

    With ``replace=False`` an existing file is never overwritten: the data goes to the first
    free ``stem.N.suffix`` beside it instead. Raises OSError if the data cannot be kept.
    """
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        done = 0
        while done < len(data):
            done += os.write(fd, data[done:])
        os.fsync(fd)
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    os.close(fd)
    try:
        if replace:
            os.replace(temporary, path)
        else:
            path = _link_free(temporary, path)
            temporary.unlink()
        sync_folder(path.parent)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return path


def _link_free(temporary: Path, path: Path) -> Path:
    """Hard-link ``temporary`` at ``path`` or the first free name beside it (never replacing)."""
    candidate, n = path, 1
    while True:
        try:
            os.link(temporary, candidate)
            return candidate
        except FileExistsError:
            candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
            n += 1


class GameCounter:
    """The number of the last game begun at this table, in ``state_dir/game-no``."""

    def __init__(self, folder: Path, card: Card | None = None) -> None:
        self.path = folder / "game-no"
        self.folder = folder
        self.card = card or Card()

    def counted(self) -> int:
        """The number the counter holds: the game begun last (0 if none, or if it is lost)."""
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return 0
        except (OSError, UnicodeDecodeError) as error:
            log.error("game counter %s: cannot read (%s); using the results kept", self.path, error)
            return 0
        if text.isdigit() and len(text) <= 9:
            return int(text)
        log.error("game counter %s is damaged; using the results kept", self.path)
        return 0

    def kept(self) -> int:
        """The highest game number of a result kept in a file (0 if none)."""
        return self._highest(RESULT)

    def archived(self) -> int:
        """The highest game number of a journal kept aside when the next game began (0 if
        none); a game never played is kept aside too when a round's lineup replaces it."""
        return self._highest(ARCHIVED)

    def _highest(self, pattern: re.Pattern[str]) -> int:
        try:
            names = [p.name for p in self.folder.iterdir()]
        except OSError:
            return 0
        return max((int(m.group(1)) for name in names if (m := pattern.match(name))), default=0)

    def begin(self, game_no: int) -> None:
        """Record that game ``game_no`` has begun; logged, not raised, if the disk refuses."""
        try:
            self.card.attempt(lambda: write_atomic(self.path, f"{game_no}\n".encode()))
        except OSError as error:
            log.error("game counter %s: cannot write (%s)", self.path, error.strerror or error)
            self.card.failed(error, f"game {game_no}'s number")
            return
        self.card.wrote()
