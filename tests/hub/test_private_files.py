"""Files only the hub can read (issue 36): the database holds every table's key and the hub's
pairing key, so it, its ``-wal`` and ``-shm``, the TLS key, ``backups/`` and every copy in it
are the hub's user's alone (files 0600, folders 0700) whatever the umask; a looser one found
at start is tightened, in one log line. And ``klik hub export-site`` never writes through a
link planted in the folder it writes into."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from klik.errors import InputError
from klik_hub import hall
from klik_hub.door import tls
from klik_hub.main import open_store, save_copy
from klik_hub.reports import archive
from klik_hub.storage import backup
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock


@pytest.fixture(autouse=True)
def umask() -> Iterator[None]:
    """The usual umask of a login shell: what a judge has who starts the hub by hand."""
    was = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(was)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_its_wal_and_shm_and_its_copies_are_the_hubs_alone(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite"
    store = open_store(str(db), pool_size=1)
    try:
        hall.devices.pair(store, 3)  # a table's key in the database: in the WAL for now
        with store.reading():  # a connection open: the -wal and -shm are there
            assert {p.name: mode(p) for p in tmp_path.iterdir()} == {
                "hub.sqlite": 0o600,
                "hub.sqlite-wal": 0o600,
                "hub.sqlite-shm": 0o600,
            }
        kept = backup.keep(db, "turniej-1-runda-1")  # the hub's own copy, a round complete
        said = save_copy(str(db), str(tmp_path / "copy.sqlite"))  # klik hub backup
    finally:
        store.engine.dispose()
    assert said == f"klik hub backup: {db} copied to {tmp_path / 'copy.sqlite'}"
    assert mode(tmp_path / backup.FOLDER) == 0o700
    assert [(p, mode(p)) for p in (tmp_path / backup.FOLDER).iterdir()] == [(kept, 0o600)]
    assert mode(tmp_path / "copy.sqlite") == 0o600
    assert mode(db) == 0o600


def test_the_hubs_own_tls_key_is_the_hubs_alone(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite"
    # a part-file left by a start that was cut off, readable by all: never the key's mode
    (tmp_path / f"{tls.KEY_FILE}.partial").write_bytes(b"")
    store = open_store(str(db), pool_size=1)
    try:
        made = tls.kept(store, db, ["127.0.0.1"])
    finally:
        store.engine.dispose()
    assert (mode(made.key_file), mode(made.cert_file)) == (0o600, 0o644)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "hub.sqlite",
        tls.CERT_FILE,
        tls.KEY_FILE,
    ]  # no part-file left behind


def test_looser_files_are_tightened_at_start_in_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """As an older hub, or a copy put back by hand, left them."""
    db = tmp_path / "hub.sqlite"
    Store(open_engine(str(db)), Clock()).engine.dispose()
    copy = backup.keep(db, "turniej-1-runda-1")
    store = open_store(str(db), pool_size=1)
    try:
        tls.kept(store, db, ["127.0.0.1"])
    finally:
        store.engine.dispose()
    key = tmp_path / tls.KEY_FILE
    # Another process has the database open (a second hub on the file), so its -wal and
    # -shm stay while this one starts.
    with closing(sqlite3.connect(db)) as other:
        other.execute("SELECT count(*) FROM devices").fetchone()
        wal, shm = tmp_path / "hub.sqlite-wal", tmp_path / "hub.sqlite-shm"
        for path in (db, wal, shm, copy, key):
            path.chmod(0o644)
        (tmp_path / backup.FOLDER).chmod(0o755)
        with caplog.at_level(logging.INFO, "klik_hub"):
            store = open_store(str(db), pool_size=1)
            try:
                tls.kept(store, db, ["127.0.0.1"])
            finally:
                store.engine.dispose()
        assert [mode(p) for p in (db, wal, shm, copy, key)] == [0o600] * 5
    assert mode(tmp_path / backup.FOLDER) == 0o700
    said = [r.getMessage() for r in caplog.records if "others" in r.getMessage()]
    assert said == [
        f"hub: {db} (was 0644), {wal} (was 0644), {shm} (was 0644), "
        f"{tmp_path / backup.FOLDER} (was 0755), {copy} (was 0644): readable by others; "
        "now the hub's user's only (files 0600, folders 0700)",
        f"hub: {key} (was 0644): readable by others; now the hub's user's only (files 0600, "
        "folders 0700)",
    ]
    with caplog.at_level(logging.INFO, "klik_hub"):
        caplog.clear()
        open_store(str(db), pool_size=1).engine.dispose()  # tight now: nothing more to say
    assert [r for r in caplog.records if "others" in r.getMessage()] == []


# --- export-site: no planted link is written through ------------------------------------------


@pytest.mark.parametrize(
    "planted",
    [
        ".index.html.part",  # the part-file's old, fixed name
        "index.html",  # the file itself: replaced by the new one, the link's target untouched
    ],
)
def test_a_link_planted_at_a_sites_file_is_never_written_through(
    tmp_path: Path, planted: str
) -> None:
    site = tmp_path / "archiwum"
    site.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("nie ruszać\n", encoding="utf-8")
    (site / planted).symlink_to(victim)
    archive.write({"index.html": "<!doctype html>\n"}, site, force=True)
    assert victim.read_text(encoding="utf-8") == "nie ruszać\n"
    assert (site / "index.html").read_text(encoding="utf-8") == "<!doctype html>\n"
    assert not (site / "index.html").is_symlink()
    assert [p.name for p in site.iterdir() if p.name.endswith(".part")] == (
        [planted] if planted.endswith(".part") else []
    )  # the planted link is left as it was, and no part-file of ours is left behind


def test_a_link_planted_for_a_sites_folder_is_refused(tmp_path: Path) -> None:
    site = tmp_path / "archiwum"
    site.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (site / "rounds").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError) as refused:
        archive.write({"index.html": "a\n", "rounds/1.html": "b\n"}, site, force=True)
    assert str(refused.value) == f"{site / 'rounds'}: a link, not a folder: refused"
    assert list(elsewhere.iterdir()) == []
