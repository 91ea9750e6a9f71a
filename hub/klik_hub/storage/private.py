"""Files only the hub's user can read (issue 36).

A SQLite hub's database holds every table's HMAC key and the hub's pairing private key, in
the file and, until a checkpoint, in its ``-wal``; a copy in ``backups/`` holds the same. A
hub started by hand runs with the shell's umask, commonly 022, under which SQLite makes the
file world-readable. So the hub sets the modes itself, whatever the umask: files 0600,
folders 0700.

- A new database file is made here, empty and 0600, before SQLite opens it: SQLite gives its
  ``-wal``, ``-shm`` and ``-journal`` the database file's own mode (tested in
  tests/hub/test_private_files.py), so they are born 0600 too.
- A file made here is made with ``O_EXCL | O_NOFOLLOW``: never one that was already there,
  never through a link someone planted at its name.
- At start (``database``) the database, its side files, ``backups/`` and every copy in it
  are checked: a looser one, as an older hub or a copy put back by hand left it, is made
  the hub's user's only, and one log line names them all.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger("klik_hub")

FILE_MODE = 0o600
FOLDER_MODE = 0o700
OTHERS = 0o077  # the group's and the others' bits: none of them for the hub's files
BACKUPS = "backups"  # the hub's own copies, beside the database (``backup.keep``)
SQLITE_SIDES = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database


def create(path: Path) -> bool:
    """An empty file at ``path``, 0600, unless something is there already (a file, or a
    link, which is never followed): whether it was made."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def folder(path: Path) -> None:
    """The folder ``path``, made 0700 if missing, and tightened (logged) if looser."""
    path.mkdir(mode=FOLDER_MODE, exist_ok=True)
    told(tighten([path]))


def tighten(paths: Iterable[Path]) -> list[tuple[Path, int]]:
    """Each of ``paths`` that exists and gives the group or others any right: made the
    owner's only (a file 0600, a folder 0700). Those changed, each with its mode before."""
    changed = []
    for path in paths:
        try:
            found = path.stat()
        except FileNotFoundError:
            continue
        was = stat.S_IMODE(found.st_mode)
        if not was & OTHERS:
            continue
        try:
            os.chmod(path, FOLDER_MODE if stat.S_ISDIR(found.st_mode) else FILE_MODE)
        except OSError as error:  # another user's file: said, and the hub goes on
            log.warning("hub: %s is readable by others and stays so (%s)", path, error.strerror)
            continue
        changed.append((path, was))
    return changed


def told(changed: list[tuple[Path, int]]) -> None:
    """One log line for the files ``tighten`` changed, if any: a judge who copies them
    elsewhere, or has a backup job read them, learns why it no longer can."""
    if changed:
        shown = ", ".join(f"{path} (was {was:04o})" for path, was in changed)
        log.warning(
            "hub: %s: readable by others; now the hub's user's only (files 0600, folders 0700)",
            shown,
        )


def database(path: Path) -> None:
    """Before and after SQLite opens ``path`` (``db.open_engine``): the file made 0600 if
    it is not there yet; it, its side files, ``backups/`` and the copies in it tightened."""
    create(path)
    copies = path.parent / BACKUPS
    found = sorted(copies.glob(f"{path.stem}-*.sqlite")) if copies.is_dir() else []
    sides = [path.with_name(path.name + side) for side in SQLITE_SIDES]
    told(tighten([path, *sides, copies, *found]))
