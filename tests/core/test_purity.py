"""The core is pure: no hardware, storage, network, threads or clock imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import klik.core

CORE = Path(klik.core.__file__).parent
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


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    # Guard the guard: a module that imports time must be caught.
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("import os.path\nfrom time import monotonic\n", encoding="utf-8")
    assert imported_roots(sneaky) & FORBIDDEN == {"os", "time"}
