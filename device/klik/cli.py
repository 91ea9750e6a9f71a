"""The ``klik`` command line: ``klik score`` for the judge, ``klik replay`` for scripted games.

Start-up time matters (the judge types ``klik score`` at the table), so each command imports
what it needs only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from klik.errors import KlikError
from klik.words import nwords

EXIT_BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake on the command line said in one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def port(text: str) -> int:
    """``--port``: a TCP port, 1 to 65535 (as ``[sim] port``)."""
    from klik.table.config import PORT

    if not (text.isdigit() and PORT.allows(int(text))):
        raise argparse.ArgumentTypeError(f"{text}: allowed are {PORT}")
    return int(text)


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        if not (text.isdigit() and low <= int(text) <= high):
            raise argparse.ArgumentTypeError(f"{text}: allowed are {low} to {high}")
        return int(text)

    return parse


def weight(text: str) -> float:
    """``--clubs-weight``: a number from 0 to 10."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10:  # draw.MAX_CLUBS_WEIGHT, not imported till a draw
        raise argparse.ArgumentTypeError(f"{text}: allowed are 0 to 10")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(
        prog="klik", description="Table-side move clock and scorer for Rummikub tournaments."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score = commands.add_parser(
        "score",
        help="small and big points from a judge's score sheet (JSON)",
        description="Score one game from a JSON score sheet; prints small and big points.",
    )
    score.add_argument("file", nargs="?", default="-", help="the score sheet; - reads stdin")
    replay = commands.add_parser(
        "replay",
        help="replay a scripted game on a virtual clock and print its record",
        description="Replay a game script (timed button presses) and print the game record.",
    )
    replay.add_argument("script", help="the game script")
    replay.add_argument(
        "--frames", metavar="DIR", help="also write each seat's screen as a PNG at every change"
    )
    config = commands.add_parser(
        "config",
        help="print the effective table config (defaults + your file)",
        description="Check a table config and print the effective config as TOML.",
    )
    config.add_argument(
        "--config", metavar="FILE", help="the table's config, e.g. /etc/klik/table.toml"
    )
    table = commands.add_parser(
        "table",
        help="run the table daemon (buttons, LEDs, buzzer, screens, journal)",
        description="Run one table: the daemon systemd starts on the Pi.",
    )
    table.add_argument("--config", metavar="FILE", required=True, help="the table's config")
    table.add_argument(
        "--check",
        action="store_true",
        help="check the config and that the table's software is all installed, then exit "
        "(no hardware is opened)",
    )
    sim = commands.add_parser(
        "sim",
        help="the virtual table: the real daemon with mock pins, played in a browser",
        description="Serve the virtual table (needs klik[sim]) on http://127.0.0.1:8100 "
        "(see [sim] in the config).",
    )
    sim.add_argument(
        "--config",
        metavar="FILE",
        action="append",
        help="a table config to lay over the defaults; again for each more table (/hall)",
    )
    sim.add_argument("--port", type=port, help="the port to serve on (default: [sim] port)")
    sim.add_argument(
        "--state-dir", metavar="DIR", help="where the journal goes (default: a temp dir)"
    )
    hub = commands.add_parser(
        "hub",
        help="run the tournament hub: results, tables' state, the judge's live page",
        description="Run the hub (needs klik[hub]): the API and the live page on HOST:PORT.",
    )
    hub.add_argument("--db", required=True, help="a SQLite file's path or a postgresql:// URL")
    hub.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    hub.add_argument("--port", type=port, default=8000, help="the port (default: 8000)")
    _serial_options(hub)
    hub.add_argument(
        "--judge-password-file",
        metavar="FILE",
        help="the judge's password (its first line), kept as a hash; needed off loopback",
    )
    hub.add_argument(
        "--tls",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="serve HTTPS (the default off loopback) with a self-signed certificate kept "
        "beside the database, or --tls-cert/--tls-key",
    )
    hub.add_argument("--tls-cert", metavar="FILE", help="a certificate of your own (PEM)")
    hub.add_argument("--tls-key", metavar="FILE", help="its private key (PEM)")
    hub.add_argument(
        "--bundle",
        metavar="DIR",
        help="a folder made by make bundle, served to the tables at /install",
    )
    _reached_options(hub)
    # `klik hub backup --db DB FILE`: argparse cannot take an optional word before the
    # hub's options, so main() hands "hub backup" (and "hub export-site") to a command of
    # its own.
    backup = commands.add_parser(
        "hub-backup",
        prog="klik hub backup",
        description="Write a consistent copy of the hub's SQLite database to FILE, while the "
        "hub runs or not (PostgreSQL: use pg_dump).",
    )
    backup.add_argument("--db", required=True, help="the hub's database (as klik hub --db)")
    backup.add_argument("file", metavar="FILE", help="the copy")
    _site_parser(commands)
    pair = commands.add_parser(
        "pair",
        help="pair a table with the hub; prints the [hub] section of the table's config",
        description="Register table N in the hub's database with a new device id and key.",
    )
    pair.add_argument("--db", required=True, help="the hub's database (as klik hub --db)")
    pair.add_argument("--table", type=int, required=True, help="the table's number")
    pair.add_argument("--url", help="the hub's address as the table reaches it")
    pair.add_argument(
        "--tls-cert", metavar="FILE", help="the hub's own certificate, if not its self-signed one"
    )
    _draw_parser(commands)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hub"] and argv[1:2] in (["backup"], ["export-site"]):
        argv[:2] = [f"hub-{argv[1]}"]
    args = parser.parse_args(argv)
    try:
        if args.command == "score":
            return _score(args.file)
        if args.command == "config":
            return _config(args.config)
        if args.command == "table":
            return _check(args.config) if args.check else _table(args.config)
        if args.command == "sim":
            return _sim(args.config, args.port, args.state_dir)
        if args.command in ("hub", "pair", "hub-backup", "hub-export-site"):
            return _hub(args)
        if args.command == "draw":
            return _draw(args.players, args.rounds, args.seed, args.clubs, args.clubs_weight)
        return _replay(args.script, args.frames)
    except KlikError as error:
        print(f"klik {args.command.replace('-', ' ', 1)}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _reached_options(hub: argparse.ArgumentParser) -> None:
    """How ``klik hub`` is reached: its host names, and its DNS-SD advert
    (``klik_hub.advert``), which tables with no ``[hub] url`` find."""
    hub.add_argument(
        "--public-name",
        metavar="NAME",
        action="append",
        default=[],
        help="a host name the hub is reached by (besides its addresses); again for more",
    )
    hub.add_argument(
        "--advertise",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="advertise the hub by DNS-SD/mDNS (_klik._tcp) so tables with no [hub] url find "
        "it (the default off loopback)",
    )
    hub.add_argument(
        "--advertise-name",
        metavar="NAME",
        help="the name it is advertised by (default: the host name), a table's [hub] name",
    )


def _serial_options(hub: Parser) -> None:
    """``klik hub``'s serial links: the devices, and how their channel is shared."""
    hub.add_argument(
        "--serial", metavar="DEVICE", action="append", default=[], help="a serial link's device"
    )
    hub.add_argument(
        "--serial-channel",
        choices=("listen", "polled"),
        default="listen",
        help="listen: tables listen before talking (default); polled: the hub polls each table",
    )


def _site_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    """``klik hub export-site``'s arguments."""
    site = commands.add_parser(
        "hub-export-site",
        prog="klik hub export-site",
        description="Write a finished tournament as a static web site in DIR: index.html (the "
        "final classification), a page a round and a page a player (by start number, never "
        "their code), style.css; relative links only, for a school's or a club's site.",
    )
    site.add_argument("--db", required=True, help="the hub's database (as klik hub --db)")
    site.add_argument(
        "--tournament", type=count(1, 2**31 - 1), required=True, metavar="ID", help="its id"
    )
    site.add_argument(
        "--lang", choices=["pl", "en"], default="pl", help="the pages' language (default: pl)"
    )
    site.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that is not empty (over the site's files; nothing deleted)",
    )
    site.add_argument("dir", metavar="DIR", help="the site's folder, made if missing")


def _draw_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    """``klik draw``'s arguments."""
    draw = commands.add_parser(
        "draw",
        help="draw random tables of 3-4 for a number of rounds (JSON), to preview or print",
        description="Draw tables of 3-4 for players 1..N over R rounds, avoiding repeat "
        'opponents; prints {"seed": S, "rounds": [[[1, 7, 12, 30], ...], ...], '
        '"repeated_pairs": [...], "same_club": [...], "same_family": [...]} (each table in '
        "seat order A, B, C, D; each list has a list per round). The same seed gives the "
        "same draw. --clubs FILE keeps players of one club apart as the hub does: the file "
        "is UTF-8, one player a line, NUMBER;CLUB or NUMBER;CLUB;FAMILY (a comma or a tab "
        "may stand for the semicolon; blank lines and lines starting with # are skipped); "
        "players of one family are kept apart always.",
    )
    draw.add_argument("--players", type=count(3, 10_000), required=True, help="N, 3 or more")
    draw.add_argument("--rounds", type=count(1, 100), required=True, help="R, 1 to 100")
    draw.add_argument(
        "--seed", type=count(0, 2**63 - 1), help="the draw's seed (default: a new one, printed)"
    )
    draw.add_argument(
        "--clubs", metavar="FILE", help="each player's club (and family): NUMBER;CLUB[;FAMILY]"
    )
    draw.add_argument(
        "--clubs-weight",
        type=weight,
        default=None,
        metavar="W",
        help="how hard clubs are kept apart, in repeated pairs: 0 (off) to 10 (default 0.5, "
        "as the hub's draw)",
    )


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        from klik.errors import InputError

        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(f"{name}: cannot read ({reason})") from None


def _score(name: str) -> int:
    import json

    from klik.scorefile import output, score_sheet

    if name == "-" and sys.stdin.isatty():
        # A judge who types `klik score` alone at a terminal would wait on a silent prompt.
        raise KlikError("give a score sheet: klik score SHEET.json (or pipe one into klik score -)")

    result = score_sheet(_read(name))
    print(json.dumps(output(result), ensure_ascii=False))
    return 0


def _replay(name: str, frames: str | None) -> int:
    import json

    from klik import script
    from klik.errors import InputError
    from klik.table.record import replay

    text = _read(name)
    try:
        parsed = script.parse(text)
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    if frames is None:
        done = replay.run(parsed)
    else:
        from klik.table.sim.frames import run_with_frames

        done = run_with_frames(parsed, Path(frames))
    print(json.dumps(replay.record(done), ensure_ascii=False, indent=2))
    return 0


def _config(name: str | None) -> int:
    from klik.table import config

    print(config.dumps(config.load(name)), end="")
    return 0


def _table(name: str) -> int:
    from klik.table import config
    from klik.table.hardware.panels import open_panels
    from klik.table.service.daemon import Daemon, serve

    _logging()
    table_config = config.load(name)
    config.make_state_dir(table_config)  # before the hardware is opened
    try:
        table = Daemon(table_config, screens=open_panels(table_config))
    except OSError as error:
        raise KlikError(f"{name}: the table cannot start ({_reason(error)})") from None
    return serve(table)


# What the daemon imports on a Pi, beyond the standard library: a bundle or an install that
# lacks one would fail only at the first start.
TABLE_MODULES = (
    "klik.table.service.daemon",
    "klik.table.hardware.panels",
    "gpiozero",
    "luma.oled.device",
    "PIL.Image",
    "serial",
    "smbus2",
    "tomli_w",
    "zeroconf",  # finding the hub (klik.link.discovery), imported only when a table browses
)


def _check(name: str) -> int:
    """``klik table --check``: the config loads and every module the daemon needs imports;
    one line says so. Nothing is opened: no pins, no panels, no state folder."""
    import importlib
    from importlib.metadata import version

    from klik.table import config

    table_config = config.load(name)
    for module in TABLE_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise KlikError(f"the table's software is incomplete: {error}") from None
    seats = table_config.table.seats
    print(f"klik table: {name}: in order (klik {version('klik')}, {seats} seats)")
    return 0


def _reason(error: OSError) -> str:
    """An OSError as a person reads it: ``Permission denied: /var/lib/klik/journal.jsonl``."""
    what = error.strerror or str(error)
    return f"{what}: {error.filename}" if error.filename else what


def _sim(names: list[str] | None, port: int | None, state_dir: str | None) -> int:
    from klik.table import config
    from klik.table.sim import virtual as sim

    _logging()
    configs = [config.load(name) for name in names] if names else [config.load(None)]
    return sim.main(configs, port, state_dir)


def _hub(args: argparse.Namespace) -> int:
    try:
        from klik_hub import main as hub
    except ImportError as error:
        missing = error.name
        raise KlikError(
            f"the hub is not installed here ({missing}): pip install 'klik[hub]'"
        ) from None
    if args.command == "hub-export-site":  # its one line, without the migrations' log
        print(hub.export_site(args.db, args.tournament, args.dir, args.lang, force=args.force))
        return 0
    _logging()
    if args.command == "pair":
        print(hub.pair(args.db, args.table, args.url, args.tls_cert), end="")
        return 0
    if args.command == "hub-backup":
        print(hub.save_copy(args.db, args.file))
        return 0
    return hub.serve(
        args.db,
        args.host,
        args.port,
        args.serial,
        args.judge_password_file,
        tls=args.tls,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        public_names=args.public_name,
        bundle=args.bundle,
        serial_channel=args.serial_channel,
        advertise=args.advertise,
        advertise_name=args.advertise_name,
    )


def _draw(
    players: int, rounds: int, seed: int | None, clubs: str | None, weight: float | None
) -> int:
    """``klik draw``: the JSON on stdout; on stderr one line of what it is, then a line for
    each round's repeated pairs and each table that seats two of one club or family."""
    import json
    import secrets

    from klik.words import words
    from klik_hub.tournament import draw

    if seed is None:
        seed = secrets.randbelow(1_000_000)  # six digits: easy to read out and write down
    try:
        sizes = draw.table_sizes(players)
        of_club, of_family = _clubs(clubs, players) if clubs is not None else ({}, {})
        apart = draw.Apart(of_club, of_family, draw.CLUBS_WEIGHT if weight is None else weight)
        drawn = draw.draw_rounds(players, rounds, seed, apart=apart)
    except draw.DrawError as error:
        raise KlikError(error.message) from None
    pairs = [draw.repeated_pairs(drawn[:k], one) for k, one in enumerate(drawn)]
    same = [draw.same_label(one, of_club) for one in drawn]
    family = [draw.same_label(one, of_family) for one in drawn]
    print(
        json.dumps(
            {
                "seed": seed,
                "rounds": [[list(table) for table in one] for one in drawn],
                "repeated_pairs": [
                    [{"table": k, "players": [a, b], "met": m} for k, a, b, m in one]
                    for one in pairs
                ],
                "same_club": [
                    [{"table": k, "club": c, "players": list(ps)} for k, c, ps in one]
                    for one in same
                ],
                "same_family": [
                    [{"table": k, "family": c, "players": list(ps)} for k, c, ps in one]
                    for one in family
                ],
            },
            ensure_ascii=False,
        )
    )
    fours, threes, repeated = sizes.count(4), sizes.count(3), draw.repeats(drawn)
    said = nwords("{n} repeated pair", "{n} repeated pairs", repeated)
    lines = [
        f"{players} players, {len(sizes)} tables ({fours} × 4 + {threes} × 3), "
        f"{rounds} rounds, seed {seed}: {said}"
    ]
    for n, (one, clubs_at, families_at) in enumerate(zip(pairs, same, family, strict=True), 1):
        if one:
            shown = ", ".join(f"{a}–{b}" + (f" (×{m})" if m > 2 else "") for _, a, b, m in one)
            lines.append(str(words("round {round}: repeated pairs {pairs}", round=n, pairs=shown)))
        for k, club, ps in clubs_at:
            lines.append(
                str(
                    words(
                        "round {round}, table {table}: {players} of one club ({club})",
                        round=n,
                        table=k,
                        players=", ".join(map(str, ps)),
                        club=club,
                    )
                )
            )
        for k, label, ps in families_at:
            lines.append(
                str(
                    words(
                        "round {round}, table {table}: {players} of one family ({family})",
                        round=n,
                        table=k,
                        players=", ".join(map(str, ps)),
                        family=label,
                    )
                )
            )
    for line in lines:
        print(f"klik draw: {line}", file=sys.stderr)
    return 0


def _clubs(name: str, players: int) -> tuple[dict[int, str], dict[int, str]]:
    """``klik draw --clubs FILE``: each listed player's club and family (empty: none)."""
    import re

    from klik.errors import InputError

    clubs: dict[int, str] = {}
    families: dict[int, str] = {}
    for at, line in enumerate(_read(name).lstrip("\ufeff").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        number, *rest = (field.strip() for field in re.split(r"[;,\t]", line))
        if not (number.isdigit() and 1 <= int(number) <= players) or len(rest) > 2:
            said = (
                f"{name}:{at}: {line.strip()!r}: allowed is NUMBER;CLUB or NUMBER;CLUB;FAMILY, "
                f"NUMBER from 1 to {players}"
            )
            raise InputError(said)
        if int(number) in clubs:
            raise InputError(f"{name}:{at}: player {number} is listed twice")
        clubs[int(number)] = rest[0] if rest else ""
        families[int(number)] = rest[1] if len(rest) > 1 else ""
    return clubs, families


def _logging() -> None:
    import logging

    # journald adds the time; one line per event, the logger's name says which part spoke.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")


if __name__ == "__main__":
    sys.exit(main())
