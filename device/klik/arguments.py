"""What every ``klik`` command shares, the table's and those the hub registers: the parser
that says a mistake in one line, the argument types, reading an input file, the log's format.

Standard library only: the table's commands start fast, and the hub's command module
(``klik_hub.commands``) may import it without importing the table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeAlias

from klik.errors import InputError

EXIT_BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake on the command line said in one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


if TYPE_CHECKING:
    #: ``klik``'s subcommands, as ``klik.cli`` hands them to each registrar.
    Commands: TypeAlias = argparse._SubParsersAction[Parser]


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        if not (text.isdigit() and low <= int(text) <= high):
            raise argparse.ArgumentTypeError(f"{text}: allowed are {low} to {high}")
        return int(text)

    return parse


def read(name: str) -> str:
    """An input file's text (``-``: standard input); one line if it cannot be read."""
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(f"{name}: cannot read ({reason})") from None


def log_lines() -> None:
    """The log of a long-running command (the table, the hub): one line per event."""
    import logging  # noqa: PLC0415  # only the commands that log pay for it

    # journald adds the time; one line per event, the logger's name says which part spoke.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
