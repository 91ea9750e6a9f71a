"""The tournament core is pure: no storage, network, threads or clock; random only seeded."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import klik_hub.tournament

CORE = Path(klik_hub.tournament.__file__).parent
FORBIDDEN = {
    "time", "datetime", "sqlite3", "socket", "threading", "asyncio", "os", "io", "subprocess",
    "http", "urllib", "sqlalchemy", "fastapi", "starlette", "pathlib", "secrets",
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
def test_tournament_module_imports_no_io(path: Path) -> None:
    assert imported_roots(path) & FORBIDDEN == set()


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_randomness_is_only_a_seeded_generator(path: Path) -> None:
    # `random.shuffle` and friends use the module's hidden global generator, seeded from the
    # OS: a draw made with them could not be made again from its seed.
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr == "Random", f"{path.name}: random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert [a.name for a in node.names] == ["Random"], path.name
