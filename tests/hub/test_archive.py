"""The archive of the day (``klik hub export-site``): a whole tournament of every preset format
played on a live hub, written as a static site by the command as an organiser types it, and
opened from ``file://`` in Chromium: the classification in order, a click to a round and to a
player's page, every link leading to a file of the site, and no player's code in any file.
Bad input is one line with exit code 2, and writes nothing.

``KLIK_WRITE_DOCS=1`` retakes the README's picture of the archive's first page
(docs/archive.png).
"""

from __future__ import annotations

import logging
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik.cli import main
from klik.errors import InputError
from klik_hub import office
from klik_hub.main import export_site
from klik_hub.office.tally import Tallies
from klik_hub.reports import archive
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from klik_hub.tournament.formats import load_format
from klik_hub.tournament.roster import Entrant
from tests.helpers.hubkit import Clock
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out, play_to_the_end

Hub = tuple[str, Store]
KLIK = Path(sys.executable).parent / "klik"
DOCS = Path(__file__).resolve().parents[2] / "docs"
RULES = {"open": "tournament", "liga": "league", "szczecin": "tournament"}
NAME = "Liga Szkolna „Kostka & Spółka”"  # escaped on every page ("&amp;"), never markup
NAMES = ["Łucja Żak", "Źdźisław Ćwik", "Ania Nowak", "Bożena Kęs", "Jan Óssowski", "Ewa Śliwa",
         "Olek Wąs", "Iga Ńuk", "Kuba Lis", "Zosia Bąk", "Marek Gil", "Hania Łoś", "Staś Puchała",
         "Wiktor Żuk", "Nela Dąb", "Tymon Kruk"]  # fmt: skip
CLUBS = ["SP 12 Szczecin", "SP 5 Police", "Klub Kostka", "SP 1 Gryfino"]


def export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(KLIK), "hub", "export-site", *args], capture_output=True, text=True, check=False
    )


def files(site: Path) -> dict[str, str]:
    """Every file of the site (its path with ``/``) → its text, read as UTF-8 (strictly)."""
    return {
        p.relative_to(site).as_posix(): p.read_bytes().decode("utf-8")
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def links(text: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', text)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("fmt", ["liga", "szczecin", "open"])
def test_the_archive_of_a_whole_tournament_opens_from_file_in_chromium(
    hub: Hub, db: str, chromium_page: Page, tmp_path: Path, fmt: str
) -> None:
    url, store = hub
    tid = create(url, format=fmt, name=NAME)
    sent = [{"name": n, "club": CLUBS[k % len(CLUBS)]} for k, n in enumerate(NAMES)]
    assert httpx.post(f"{url}{API}/{tid}/players", json=sent).status_code == 201
    codes = {p["id"]: p["code"] for p in office.players.listed(store, tid)}
    drawn = play_to_the_end(url, Hall(url, store, 4), tid, random.Random(5), lowest_goes_out,
                            rules=RULES[fmt])  # fmt: skip
    # What the hub's own pages say (the board's classification, the winner's page), read
    # through the office as the routes read it.
    overall = office.board.board(Tallies(store), tid)["standings"]
    # ... which is the classification by the last stage reached (the open format: one
    # table), best first within each stage
    order = [s.name for s in load_format(fmt).stages][::-1]
    ranks = [(order.index(r["stage"]) if r["stage"] else 0, -r["big"]) for r in overall]
    assert ranks == sorted(ranks)

    site = tmp_path / "archiwum"
    done = export("--db", db, "--tournament", str(tid), str(site))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == (
        f"klik hub export-site: tournament {tid} written to {site / 'index.html'} "
        f"({len(drawn)} rounds, 16 players' pages)\n"
    )

    # The files: the index, the stylesheet, a page a round and a page a player, all UTF-8;
    # no player's code anywhere, no script, and every link a file of the site.
    written = files(site)
    assert set(written) == {"index.html", "style.css"} | {
        f"rounds/{d['round']}.html" for d in drawn
    } | {f"players/{p}.html" for p in codes}
    for name, text in written.items():
        assert not [c for c in codes.values() if c in text], name
        assert "<script" not in text, name
        if name.endswith(".html"):
            assert text.startswith('<!doctype html>\n<html lang="pl">'), name
            assert '<meta charset="utf-8">' in text, name
            assert "Liga Szkolna „Kostka &amp; Spółka”" in text, name
            for link in links(text):
                assert "://" not in link, (name, link)
                assert not link.startswith("/"), (name, link)
                target = (site / name).parent / link.partition("#")[0]
                assert target.resolve().is_file(), (name, link)

    # In Chromium from file://: the classification in its order, with the standings' points
    index = chromium_page
    index.goto((site / "index.html").as_uri())
    expect(index).to_have_title(NAME)
    assert index.evaluate("document.documentElement.lang") == "pl"
    # the stylesheet beside it is read
    border = "getComputedStyle(document.querySelector('header')).borderBottomStyle"
    assert index.evaluate(border) == "solid"
    rows = index.locator("#classification tbody tr:not(.stage)")
    expect(rows).to_have_count(16)
    by_stage = fmt != "open"  # liga and szczecin place by the last stage reached
    shown = [r.locator("td").all_inner_texts() for r in rows.all()]
    assert shown == [
        [f"{r['place']}.", str(r["player"]), r["name"], r["club"],
         *([r["stage"]] if by_stage else []), str(r["big"]), str(r["small"]), str(r["games"]), ""]
        for r in overall
    ]  # fmt: skip
    # a separator names the stage before each group of a classification by stage
    separators = index.locator("#classification tbody tr.stage")
    expect(separators).to_have_text(
        list(dict.fromkeys(r["stage"] for r in overall)) if by_stage else []
    )

    # ... a click to a round: its tables, each seat's player as drawn
    index.locator("#rounds a").first.click()
    expect(index).to_have_url(re.compile(r"/archiwum/rounds/1\.html$"))
    first = drawn[0]
    expect(index.locator("section.table")).to_have_count(len(first["tables"]))
    names = {r["player"]: r["name"] for r in overall}
    for table in first["tables"]:
        seats = index.locator(f"#table-{table['table']} tbody tr td:nth-child(2) a")
        expect(seats).to_have_text([names[p] for p in table["seats"].values()])

    # ... and back, a click to the winner's page: their place and every game of theirs
    index.go_back()
    winner = overall[0]
    rows.first.get_by_role("link").click()
    expect(index).to_have_url(re.compile(rf"/archiwum/players/{winner['player']}\.html$"))
    expect(index.locator("h1")).to_have_text(winner["name"])
    expect(index.locator("#place")).to_have_text("1.")
    live = office.player_page.page(Tallies(store), codes[winner["player"]])
    games = index.locator("#games tbody tr")
    expect(games).to_have_count(len(live["games"]))
    assert [g.locator("td").all_inner_texts()[2:] for g in games.all()] == [
        [str(g["game"]), str(g["table"]), g["seat"], archive.signed(g["small"]),
         str(g["big"])]
        for g in live["games"]
    ]  # fmt: skip
    games.first.get_by_role("link").click()
    expect(index).to_have_url(re.compile(r"/archiwum/rounds/1\.html#table-\d+$"))

    if os.environ.get("KLIK_WRITE_DOCS") == "1" and fmt == "liga":
        index.goto((site / "index.html").as_uri())
        index.screenshot(path=str(DOCS / "archive.png"), full_page=True)

    # Again into the same folder: refused in one line, the site as it was; --force writes it
    before = files(site)
    again = export("--db", db, "--tournament", str(tid), str(site))
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1, again.stderr
    assert again.stderr.startswith(f"klik hub export-site: {site}: the folder is not empty (")
    assert files(site) == before
    forced = export("--db", db, "--tournament", str(tid), "--force", str(site))
    assert (forced.returncode, forced.stderr) == (0, "")
    assert files(site) == before  # the same tournament: the same site, byte for byte

    # In English: the format's English title, and the same classification
    english = tmp_path / "en"
    export_site(db, tid, str(english), "en")
    page = (english / "index.html").read_text(encoding="utf-8")
    assert page.startswith('<!doctype html>\n<html lang="en">')
    assert load_format(fmt).title_en in page
    assert re.findall(r'<a href="players/(\d+)\.html">', page) == [
        str(r["player"]) for r in overall
    ]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_an_evening_of_one_round_is_counted_in_the_singular(
    hub: Hub, db: str, tmp_path: Path
) -> None:
    # The line's counts are plurals from the catalogue (nwords): never "1 rounds".
    url, store = hub
    tid = create(url, format="open")
    enrol(url, tid, 3)
    play_to_the_end(url, Hall(url, store, 1), tid, random.Random(1), lowest_goes_out,
                    rules="tournament", rounds=1)  # fmt: skip
    site = tmp_path / "archiwum"
    done = export("--db", db, "--tournament", str(tid), str(site))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == (
        f"klik hub export-site: tournament {tid} written to {site / 'index.html'} "
        "(1 round, 3 players' pages)\n"
    )


@pytest.fixture
def sqlite_hub(tmp_path: Path) -> Iterator[tuple[str, Store]]:
    """A hub's SQLite database, with no tournament."""
    path = tmp_path / "hub.sqlite"
    store = Store(open_engine(str(path)), Clock())
    yield str(path), store
    store.engine.dispose()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # no such tournament in the database
        (["--tournament", "9"], "--tournament 9: no such tournament in {db}"),
        # a tournament with no round drawn: nothing to archive yet
        (
            ["--tournament", "1"],
            "--tournament 1: the tournament is not finished (no round is drawn)",
        ),
        # a round whose games are not all in: the archive would lack them
        (
            ["--tournament", "2"],
            "--tournament 2: the tournament is not finished (games without a result at "
            "round 1, table 1, round 1, table 2)",
        ),
        # a typo in --db: never a new, empty database
        (
            ["--db", "{tmp}/nie-ma.sqlite", "--tournament", "1"],
            "--db {tmp}/nie-ma.sqlite: no such file",
        ),
    ],
)
def test_a_tournament_that_cannot_be_archived_is_one_line_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str],
    sqlite_hub: tuple[str, Store],
    tmp_path: Path,
    args: list[str],
    said: str,
) -> None:
    db, store = sqlite_hub
    office.tournaments.create(store, "Turniej", None, "liga", 60)
    drawn = office.tournaments.create(store, "Wieczór", None, "open", 60)
    office.players.enrol(store, drawn, [Entrant(f"Gracz {k}", "") for k in range(1, 9)])
    office.draws.draw(store, drawn, seed=1)
    site = tmp_path / "archiwum"
    filled = [a.format(db=db, tmp=tmp_path) for a in args]
    if "--db" not in filled:
        filled = ["--db", db, *filled]
    code = main(["hub", "export-site", *filled, str(site)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == f"klik hub export-site: {said.format(db=db, tmp=tmp_path)}\n"
    assert not site.exists()
    assert not (tmp_path / "nie-ma.sqlite").exists()


def test_export_site_hears_no_migration_step_where_logging_is_on(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    # Whoever runs the command may have logging on (here the root logger at INFO): an empty
    # SQLite file runs every migration, and Alembic's INFO steps are still not the command's
    # output. Its warnings are: the logger stays at WARNING, not off.
    db = tmp_path / "hub.sqlite"
    db.touch(mode=0o600)
    caplog.set_level(logging.INFO)
    code = main(["hub", "export-site", "--db", str(db), "--tournament", "1", str(tmp_path / "s")])
    assert (code, capsys.readouterr().err) == (
        2,
        f"klik hub export-site: --tournament 1: no such tournament in {db}\n",
    )
    assert [r.getMessage() for r in caplog.records if r.name.startswith("alembic")] == []
    assert logging.getLogger("alembic").getEffectiveLevel() == logging.WARNING


@pytest.mark.parametrize(
    ("where", "said"),
    [
        # a folder that holds something: refused, untouched
        (
            "full",
            "{dir}: the folder is not empty (notes.txt); choose a new or empty folder, "
            "or --force to write the site over it",
        ),
        # a file where the folder should be
        ("file", "{dir}: not a folder"),
        # a folder that cannot be made (its parent is a file)
        ("under-a-file", "{dir}: cannot write (Not a directory)"),
    ],
)
def test_a_folder_the_site_cannot_go_into_is_one_line(
    tmp_path: Path, where: str, said: str
) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("moje notatki\n", encoding="utf-8")
    (tmp_path / "file").write_text("plik\n", encoding="utf-8")
    folder = tmp_path / "file" / "site" if where == "under-a-file" else tmp_path / where
    with pytest.raises(InputError) as refused:
        archive.write({"index.html": "<!doctype html>\n"}, folder)
    assert str(refused.value) == said.format(dir=folder)
    assert (tmp_path / "full" / "notes.txt").read_text(encoding="utf-8") == "moje notatki\n"
    assert not (tmp_path / "full" / "index.html").exists()


def test_force_writes_over_the_sites_own_files_and_deletes_nothing(tmp_path: Path) -> None:
    site: dict[str, Any] = {"index.html": "nowy\n", "rounds/1.html": "runda\n"}
    (tmp_path / "rounds").mkdir()
    (tmp_path / "index.html").write_text("stary\n", encoding="utf-8")
    (tmp_path / "rounds" / "9.html").write_text("inna\n", encoding="utf-8")
    archive.write(site, tmp_path, force=True)
    assert files(tmp_path) == {"index.html": "nowy\n", "rounds/1.html": "runda\n",
                               "rounds/9.html": "inna\n"}  # fmt: skip


def test_the_small_points_are_signed_as_on_the_players_page() -> None:
    assert [archive.signed(n) for n in (12, 0, -7)] == ["+12", "0", "-7"]
