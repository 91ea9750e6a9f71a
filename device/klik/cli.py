"""The ``klik`` command line: ``klik score`` for the judge, ``klik replay`` for scripted games.

Start-up time matters (the judge types ``klik score`` at the table), so each command imports
what it needs only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from klik import __version__
from klik.arguments import EXIT_BAD_INPUT, Parser, log_lines, read
from klik.errors import KlikError

if TYPE_CHECKING:
    from klik.arguments import Commands

#: The table's own commands: ``klik`` looks for the others (the hub's) only when asked for
#: one of those, so ``klik score`` and ``klik table`` start without reading the entry points.
TABLE_COMMANDS = ("score", "replay", "config", "table", "sim", "rules")
#: Where a package registers commands of its own (``klik_hub.commands:register``): a function
#: handed ``klik``'s subcommands (``klik.arguments.Commands``) that adds its own to them.
GROUP = "klik.commands"


def port(text: str) -> int:
    """``--port``: a TCP port, 1 to 65535 (as ``[sim] port``)."""
    from klik.table.config import PORT

    if not (text.isdigit() and PORT.allows(int(text))):
        raise argparse.ArgumentTypeError(f"{text}: allowed are {PORT}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(
        prog="klik", description="Table-side move clock and scorer for Rummikub tournaments."
    )
    parser.add_argument("--version", action="version", version=f"klik {__version__}")
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
    rules = commands.add_parser(
        "rules",
        help="the rule sets: list them, print one as TOML, check a file",
        description="Rummikub's rule sets as data (klik/rules/*.toml): the move time, the "
        "penalty tiles, the joker, small and big points.",
    )
    what = rules.add_subparsers(dest="action", required=True, metavar="ACTION")
    what.add_parser("list", help="every rule set: name, version, title, source")
    show = what.add_parser("show", help="print a rule set as TOML, every key")
    show.add_argument("set", metavar="NAME|FILE", help="a set's name, or a rule set file")
    check_file = what.add_parser("check", help="check a rule set file; exit 2 if it is bad")
    check_file.add_argument("file", help="the rule set file; - reads stdin")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != [] and argv[0] not in TABLE_COMMANDS:
        _register_others(commands)
    # `klik hub backup --db DB FILE`: argparse cannot take an optional word before a
    # command's options, so a registrar names such a command "hub-backup", and "klik hub
    # backup" is handed to it.
    if len(argv) > 1 and f"{argv[0]}-{argv[1]}" in commands.choices:
        argv[:2] = [f"{argv[0]}-{argv[1]}"]
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
        if args.command == "replay":
            return _replay(args.script, args.frames)
        if args.command == "rules":
            named = getattr(args, "set", None) or getattr(args, "file", "-")
            return _rules(args.action, str(named))
        run: Callable[[argparse.Namespace], int] = args.run
        return run(args)
    except KlikError as error:
        print(f"klik {args.command.replace('-', ' ', 1)}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _register_others(commands: Commands) -> None:
    """The commands other packages register (the hub's: ``klik hub``, ``klik pair``,
    ``klik draw``), found by their ``klik.commands`` entry points."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=GROUP):
        try:
            register: Callable[[Commands], None] = entry.load()
        except ImportError as error:  # a broken install: the table's commands still run
            print(
                f"klik: the commands of {entry.value} cannot be loaded ({error})", file=sys.stderr
            )
            continue
        register(commands)


def _score(name: str) -> int:
    import json

    from klik.scorefile import output, score_sheet

    if name == "-" and sys.stdin.isatty():
        # A judge who types `klik score` alone at a terminal would wait on a silent prompt.
        raise KlikError("give a score sheet: klik score SHEET.json (or pipe one into klik score -)")

    result = score_sheet(read(name))
    print(json.dumps(output(result), ensure_ascii=False))
    return 0


def _rules(action: str, name: str) -> int:
    from klik import rules

    if action == "list":
        for found in rules.sets().values():
            aliases = f" (also {', '.join(found.aliases)})" if found.aliases else ""
            print(f"{found.name}\tv{found.version}\t{found.title_en}{aliases}\t{found.source}")
        return 0
    if action == "show" and name in rules.RULE_SETS:
        print(rules.to_toml(rules.RULE_SETS[name]), end="")
        return 0
    found = rules.parse(read(name), "<stdin>" if name == "-" else name)
    if action == "show":
        print(rules.to_toml(found), end="")
    else:
        print(f"{name}: {found.name} v{found.version}: good")
    return 0


def _replay(name: str, frames: str | None) -> int:
    import json

    from klik import script
    from klik.errors import InputError
    from klik.table.record import replay

    text = read(name)
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

    log_lines()
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

    log_lines()
    configs = [config.load(name) for name in names] if names else [config.load(None)]
    return sim.main(configs, port, state_dir)


if __name__ == "__main__":
    sys.exit(main())
