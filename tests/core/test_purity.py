"""The cores are pure: the table's game engine and the hub's tournament logic import no
hardware, storage, network, threads or clock; the tournament's randomness is a seeded
generator only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import klik.core
import klik_hub.tournament

CORE = Path(klik.core.__file__).parent
TOURNAMENT = Path(klik_hub.tournament.__file__).parent
FORBIDDEN = {
    "time", "datetime", "gpiozero", "luma", "serial", "sqlite3", "socket", "threading",
    "asyncio", "RPi", "os", "io", "subprocess", "random", "PIL", "http", "urllib",
}  # fmt: skip


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_imports_no_io(path: Path) -> None:
    assert imported_roots(path) & FORBIDDEN == set()


# The tournament core draws from a seeded random.Random (a draw is made again from its seed)
# and reads its shipped formats with importlib.resources; nothing else from outside.
TOURNAMENT_FORBIDDEN = (FORBIDDEN - {"random"}) | {"sqlalchemy", "fastapi", "starlette",
                                                   "pathlib", "secrets"}  # fmt: skip


@pytest.mark.parametrize("path", sorted(TOURNAMENT.glob("*.py")), ids=lambda p: p.name)
def test_tournament_module_imports_no_io(path: Path) -> None:
    assert imported_roots(path) & TOURNAMENT_FORBIDDEN == set()


def unseeded_randomness(path: Path) -> list[str]:
    """Uses of ``random`` other than its ``Random`` class: random.shuffle and friends use the
    module's hidden generator, seeded from the OS, so a draw made with them could not be made
    again from its seed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr != "Random"
        ):
            found.append(f"random.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            found += [f"from random import {a.name}" for a in node.names if a.name != "Random"]
    return found


@pytest.mark.parametrize("path", sorted(TOURNAMENT.glob("*.py")), ids=lambda p: p.name)
def test_the_tournaments_randomness_is_only_a_seeded_generator(path: Path) -> None:
    assert unseeded_randomness(path) == []


def test_the_check_sees_an_unseeded_shuffle(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("import random\nfrom random import choice\nrandom.shuffle([])\n")
    assert unseeded_randomness(sneaky) == ["from random import choice", "random.shuffle"]


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    # Guard the guard: a module that imports time must be caught.
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("import os.path\nfrom time import monotonic\n", encoding="utf-8")
    assert imported_roots(sneaky) & FORBIDDEN == {"os", "time"}
