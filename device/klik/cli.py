"""The ``klik`` command line: ``klik score`` for the judge, ``klik replay`` for scripted games.

Start-up time matters (the judge types ``klik score`` at the table), so each command imports
what it needs only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from klik.errors import KlikError

EXIT_BAD_INPUT = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
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
    args = parser.parse_args(argv)
    try:
        if args.command == "score":
            return _score(args.file)
        return _replay(args.script)
    except KlikError as error:
        print(f"klik {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


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

    result = score_sheet(_read(name))
    print(json.dumps(output(result), ensure_ascii=False))
    return 0


def _replay(name: str) -> int:
    import json

    from klik import replay, script
    from klik.errors import InputError

    text = _read(name)
    try:
        parsed = script.parse(text)
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    print(json.dumps(replay.record(replay.run(parsed)), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
