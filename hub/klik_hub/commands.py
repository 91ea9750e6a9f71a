"""The hub's ``klik`` commands: ``klik hub`` (and ``hub backup``, ``hub export-site``,
``hub export-results``, ``hub import-results``),
``klik pair`` and ``klik draw``.

The table's command line (``klik.cli``) never imports the hub: it finds this module by the
``klik.commands`` entry point (``pyproject.toml``) and hands it its subcommands to fill. So
``device/`` stands alone on a table's card. This module imports only the standard library and
``klik.arguments`` until a command runs; ``klik hub`` then imports the server (``klik_hub.main``)
and says what to install, in one line, where the extra ``klik[hub]`` is missing.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from typing import TYPE_CHECKING

from klik.arguments import Parser, count, log_lines, read
from klik.errors import KlikError
from klik.words import nwords

if TYPE_CHECKING:
    from klik.arguments import Commands

PORT = count(1, 65535)  # TCP, as the table's [sim] port


def register(commands: Commands) -> None:
    """Add the hub's commands to ``klik``'s, each with the function that runs it (``run``)."""
    hub = commands.add_parser(
        "hub",
        help="run the tournament hub: results, tables' state, the judge's live page",
        description="Run the hub (needs klik[hub]): the API and the live page on HOST:PORT.",
    )
    hub.add_argument("--db", required=True, help="a SQLite file's path or a postgresql:// URL")
    hub.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    hub.add_argument("--port", type=PORT, default=8000, help="the port (default: 8000)")
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
    hub.set_defaults(run=_hub)
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
    backup.set_defaults(run=_hub)
    _site_parser(commands)
    _exchange_parsers(commands)
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
    pair.set_defaults(run=_hub)
    _draw_parser(commands)


def weight(text: str) -> float:
    """``--clubs-weight``: a number from 0 to 10."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10:  # draw.MAX_CLUBS_WEIGHT, not imported till a draw
        raise argparse.ArgumentTypeError(f"{text}: allowed are 0 to 10")
    return value


def proxies(text: str) -> str:
    """``--forwarded-allow-ips``: addresses or networks, comma-separated, or ``*`` (any)."""
    for item in text.split(","):
        try:
            if item.strip() != "*":
                ipaddress.ip_network(item.strip(), strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item.strip() or '(empty)'}: allowed are IP addresses or networks "
                "(10.0.0.1, 10.0.0.0/24), comma-separated, or *"
            ) from None
    return text


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
        "--forwarded-allow-ips",
        metavar="IPS",
        type=proxies,
        help="the reverse proxies (comma-separated addresses) whose X-Forwarded-For and "
        "X-Forwarded-Proto headers count; without it they are ignored",
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


def _site_parser(commands: Commands) -> None:
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
    site.set_defaults(run=_hub)


def _exchange_parsers(commands: Commands) -> None:
    """``klik hub export-results`` and ``klik hub import-results``: a tournament's results as
    a file another hub (or a national ranking) takes in (README, *Results that travel*)."""
    out = commands.add_parser(
        "hub-export-results",
        prog="klik hub export-results",
        description='Write a tournament\'s games and classification as JSON ("format": '
        '"klik-results", "version": 1), or with --csv its classification a person a line.',
    )
    out.add_argument("--db", required=True, help="the hub's database (as klik hub --db)")
    out.add_argument(
        "--tournament", type=count(1, 2**31 - 1), required=True, metavar="ID", help="its id"
    )
    out.add_argument("--csv", action="store_true", help="the classification as CSV instead")
    out.add_argument("file", metavar="FILE", help="the file to write")
    out.set_defaults(run=_hub)
    into = commands.add_parser(
        "hub-import-results",
        prog="klik hub import-results",
        description="Take another hub's results file as a finished tournament; refused in one "
        "line, keeping nothing, if it breaks the format or its points do not recompute.",
    )
    into.add_argument("--db", required=True, help="the hub's database (as klik hub --db)")
    into.add_argument(
        "--season", type=count(1, 2**31 - 1), metavar="ID", help="a meeting of this season too"
    )
    into.add_argument("file", metavar="FILE", help="the results file (JSON)")
    into.set_defaults(run=_hub)


def _draw_parser(commands: Commands) -> None:
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
    draw.set_defaults(
        run=lambda args: _draw(args.players, args.rounds, args.seed, args.clubs, args.clubs_weight)
    )


def _hub(args: argparse.Namespace) -> int:
    try:
        from klik_hub import main as hub
    except ImportError as error:
        missing = (error.name or "?").partition(".")[0]  # the package to install
        raise KlikError(
            f"the hub is not installed here ({missing}): pip install 'klik[hub]'"
        ) from None
    if args.command != "hub":
        _quiet_migrations()
    if args.command == "hub-export-site":  # its one line, without the hub's log
        print(hub.export_site(args.db, args.tournament, args.dir, args.lang, force=args.force))
        return 0
    if args.command == "hub-export-results":
        print(hub.export_results(args.db, args.tournament, args.file, as_csv=args.csv))
        return 0
    if args.command == "hub-import-results":
        print(hub.import_results(args.db, args.file, args.season))
        return 0
    log_lines()
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
        forwarded_allow_ips=args.forwarded_allow_ips,
    )


def _quiet_migrations() -> None:
    """A one-shot command (``pair``, ``hub backup``, ``hub export-site``) prints its own lines
    only: opening the database brings its schema up to date (``storage.db.migrate``), and
    Alembic says so at INFO, a line per step. Its warnings and errors still show, and a
    migration that fails raises as ever. ``klik hub`` itself keeps them in its log."""
    import logging

    logging.getLogger("alembic").setLevel(logging.WARNING)


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
    summary = words(
        "{players}, {tables} ({fours} × 4 + {threes} × 3), {rounds}, seed {seed}: {pairs}",
        players=nwords("{n} player", "{n} players", players),
        tables=nwords("{n} table", "{n} tables", len(sizes)),
        fours=sizes.count(4),
        threes=sizes.count(3),
        rounds=nwords("{n} round", "{n} rounds", rounds),
        seed=seed,
        pairs=nwords("{n} repeated pair", "{n} repeated pairs", draw.repeats(drawn)),
    )
    lines = [str(summary)]
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
    for at, line in enumerate(read(name).lstrip("\ufeff").splitlines(), 1):
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
