"""The archive of the day (``klik hub export-site``): a finished tournament as a static web
site, for a school's or a club's pages.

``DIR/index.html`` has the tournament (name, format, date), its final classification and a
link to every round; ``rounds/N.html`` a round's tables, each seat's player and every game's
small and big points; ``players/N.html`` a player's page by start number (their place, their
games, as the live ``/p/CODE`` says them); ``style.css`` the look. Every link is relative, so
the folder works from ``file://`` and from any sub-folder of a web site; no script, nothing
fetched from elsewhere; UTF-8, the ``lang`` of ``--lang``.

What the pages say is the public pages' own: the tournament worked out once (``office.tally``),
the classification as the board gives it (``office.board.standings``), a player's games and
place as their page gives them (``office.player_page.of_player``), each game's points as
``office.counting`` says it counts now. A tally holds no player's code, so no page can show
one. The markup is in ``templates/site/`` (Jinja2, autoescaped), its words the catalogue's
(context "site").

``pages`` makes every file in memory, so nothing is written for a tournament that cannot be
archived; ``write`` puts them in a new or empty folder (or, with ``force``, over the files of
the same names in a folder that has others: it deletes nothing).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from babel.dates import format_date

from klik.core.game import SEATS
from klik.errors import InputError
from klik.words import Language, spoken, templates
from klik_hub.office import board, player_page
from klik_hub.office.counting import Counted
from klik_hub.office.standings import separated
from klik_hub.office.tally import Tally
from klik_hub.sql.rounds import Round
from klik_hub.tournament import formats as f
from klik_hub.tournament.slots import Slot

TEMPLATES = templates("klik_hub")
STYLE = "style.css"


@dataclass(frozen=True)
class Cell:
    """A seat's points in one game: as the game counts now (``counts`` false: held or
    excluded by the judge, its points shown but not counted)."""

    small: int
    big: int
    counts: bool


@dataclass(frozen=True)
class SeatLine:
    """A seat of a round's table: its player, their points in each of the round's games
    (None: no result for that game) and the sums of those that count."""

    seat: str
    player: int
    name: str
    club: str
    games: tuple[Cell | None, ...]
    small: int
    big: int


@dataclass(frozen=True)
class TableOf:
    table: int
    seats: tuple[SeatLine, ...]


@dataclass(frozen=True)
class RoundOf:
    """A drawn round as its page shows it."""

    round_no: int
    stage: str
    games: int
    tables: tuple[TableOf, ...]


def unfinished(tally: Tally) -> str | None:
    """Why ``tally``'s tournament is not finished (one line), or None: a round drawn, every
    stage with a set number of rounds drawn to its end, and every game of them in."""
    if not tally.drawn:
        return "no round is drawn"
    fmt = f.load_format(tally.row.format)
    stages = [x.stage for x in tally.drawn]
    for stage in fmt.stages:
        if stage.rounds and stages.count(stage.name) < stage.rounds:
            return f"its stage {stage.name!r} is not drawn to its end"
    if tally.owing:
        owing = sorted(tally.owing)
        shown = ", ".join(f"round {r}, table {t}" for r, t in owing[:3])
        more = f" and {len(owing) - 3} more" if len(owing) > 3 else ""
        return f"games without a result at {shown}{more}"
    return None


def pages(
    tally: Tally, lang: Language, seasons: Sequence[tuple[int, str, list[Any]]] = ()
) -> dict[str, str]:
    """Every file of the site: its path in the folder (``/`` between parts) → its text.
    ``seasons``: the league's seasons the tournament is a meeting of, each (id, name, its
    table as ``league.seasons.standings`` gives it), a page each."""
    fmt = f.load_format(tally.row.format)
    rounds = [round_of(tally, x) for x in tally.drawn]
    classification = board.standings(tally)
    common: dict[str, Any] = {
        "tournament": tally.row.name,
        "format": fmt.title_pl if lang is Language.PL else fmt.title_en,
        "date": dates(tally, lang),
        "by_stage": fmt.classification is f.Classification.BY_STAGE,
        "signed": signed,
        "stage_name": lambda name: fmt.stage_title(name, english=lang is Language.EN),
        **spoken(lang),
    }
    site = {STYLE: resources.files("klik_hub").joinpath("templates/site", STYLE).read_text("utf-8")}
    site["index.html"] = _render(
        "index.html",
        common,
        root="",
        rows=separated(classification),
        rounds=rounds,
        players=len(tally.names),
        seasons=seasons,
    )
    for sid, name, table in seasons:
        site[f"seasons/{sid}.html"] = _render("season.html", common, root="../", season=name,
                                              lines=table)  # fmt: skip
    for k, x in enumerate(rounds):
        site[f"rounds/{x.round_no}.html"] = _render(
            "round.html",
            common,
            root="../",
            round=x,
            before=rounds[k - 1] if k else None,
            after=rounds[k + 1] if k + 1 < len(rounds) else None,
        )
    stages = {x.round_no: x.stage for x in tally.drawn}
    for row in classification:
        mine = player_page.of_player(tally, row["player"])
        site[f"players/{row['player']}.html"] = _render(
            "player.html", common, root="../", row=row, games=mine["games"], stages=stages
        )
    return site


def _render(name: str, common: Mapping[str, Any], **context: Any) -> str:
    return TEMPLATES.get_template(f"site/{name}").render(**common, **context) + "\n"


def round_of(tally: Tally, kept: Round) -> RoundOf:
    """Round ``kept``'s tables: each seat's player and their points in each game, from the
    result that fills the game's slot."""
    filled: dict[Slot, Counted] = {
        x.placed.slot: x
        for x in tally.listed
        if x.placed.slot is not None and x.placed.held is None
        and x.placed.slot.round_no == kept.round_no
    }  # fmt: skip
    tables = []
    for k, players in enumerate(kept.tables, start=1):
        results = [filled.get(Slot(kept.round_no, k, g)) for g in range(1, kept.games + 1)]
        lines = []
        for seat, player in zip(SEATS, players, strict=False):
            cells = tuple(_cell(x, player) for x in results)
            counted = [c for c in cells if c is not None and c.counts]
            lines.append(
                SeatLine(
                    seat,
                    player,
                    tally.names.get(player, ""),
                    tally.clubs.get(player, ""),
                    cells,
                    sum(c.small for c in counted),
                    sum(c.big for c in counted),
                )
            )
        tables.append(TableOf(k, tuple(lines)))
    return RoundOf(kept.round_no, kept.stage, kept.games, tuple(tables))


def _cell(x: Counted | None, player: int) -> Cell | None:
    """``player``'s points in result ``x`` as it counts now (by player, not by seat letter:
    the result's seats are the lineup's; a seat a reserve took counts for whom the format
    says, ``Counted.credit``, maybe no one)."""
    if x is None:
        return None
    whose = x.credit or x.now.players
    seat = next((s for s, p in whose.items() if p == player), None)
    if seat is None or seat not in x.now.small:
        return None
    return Cell(x.now.small[seat], x.now.big[seat], x.now.counts)


def dates(tally: Tally, lang: Language) -> str:
    """The day (or the first and last days) the tournament's rounds were drawn, in this
    machine's time zone, as ``lang`` writes a date: ``17 marca 2023``."""
    stamps = [x.drawn_at for x in tally.drawn if x.drawn_at] or [tally.row.created_at]
    days = sorted({_day(s) for s in stamps})
    shown = [format_date(d, "long", locale=lang.value) for d in (days[0], days[-1])]
    return shown[0] if days[0] == days[-1] else f"{shown[0]} – {shown[1]}"


def _day(stamp: str) -> dt.date:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone().date()


def signed(n: int) -> str:
    """Small points as the player's page shows them: ``+12``, ``0``, ``-7``."""
    return f"+{n}" if n > 0 else str(n)


def write(site: Mapping[str, str], folder: Path, *, force: bool = False) -> None:
    """Write ``site`` into ``folder``, made if missing (with its parents). A folder that
    holds anything is refused (InputError) unless ``force``: then the site's files are
    written over those of the same names and nothing else is touched. Each file is written
    whole (to a new temporary name, then renamed), UTF-8, never through a link planted in
    ``folder`` (``_put``); an OSError is one line (InputError)."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    if folder.is_dir() and not force:
        held = _held(folder)
        if held:
            raise InputError(
                f"{folder}: the folder is not empty ({', '.join(held)}); "
                "choose a new or empty folder, or --force to write the site over it"
            )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in site.items():
            *folders, file = name.split("/")
            _put(folder, folders, file, text.encode("utf-8"))
    except OSError as error:
        where = error.filename or folder
        raise InputError(f"{where}: cannot write ({error.strerror or error})") from None


def _put(folder: Path, folders: Sequence[str], name: str, data: bytes) -> None:
    """``data`` as ``folder/FOLDERS…/name``, never through a link planted in ``folder``
    (``--force`` writes into a folder others may have written to, a web server's, say).

    Each folder on the way is entered by its descriptor, without following a link (one is
    refused: InputError); the file is written to a part-file of a new random name, made
    with ``O_EXCL | O_NOFOLLOW``, then renamed over ``name``, which replaces a file or a
    link of that name and never writes into what it points at. Not ``tempfile.mkstemp``:
    its files are 0600, and a site is for a web server to read (the umask's mode here)."""
    where = folder  # for the messages: the path of what is being made now
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)  # DIR itself: the organiser's choice
    try:
        for part in folders:
            where = where / part
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as error:
                if error.errno == errno.ELOOP or os.path.islink(where):
                    raise InputError(f"{where}: a link, not a folder: refused") from None
                raise
            os.close(fd)
            fd = inner
        where = where / name
        part_name = f".{name}.{secrets.token_hex(6)}.part"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        out = os.open(part_name, flags, 0o666, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as written:
                written.write(data)
        except OSError:
            os.unlink(part_name, dir_fd=fd)  # a full disk: no part-file left behind
            raise
        os.replace(part_name, name, src_dir_fd=fd, dst_dir_fd=fd)
    except OSError as error:  # the names above are relative to a descriptor: say the path
        raise OSError(error.errno, error.strerror, str(where)) from None
    finally:
        os.close(fd)


def _held(folder: Path, shown: int = 3) -> Sequence[str]:
    """The first few names in ``folder`` (and "…" if there are more)."""
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError as error:
        raise InputError(f"{folder}: cannot read ({error.strerror or error})") from None
    return names[:shown] + (["…"] if len(names) > shown else [])
