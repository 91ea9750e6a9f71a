"""The virtual table is an extra (``klik[sim]``: Starlette on uvicorn); the table is not.

On a Pi neither is installed: the daemon must not need them, and ``klik sim`` without them
says what to install in one line instead of a traceback.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from klik.cli import main
from klik.errors import KlikError

LINE = "the virtual table is not installed here (starlette): pip install 'klik[sim]'"
SIM = ("klik.table.sim.virtual", "klik.table.sim.server")


@pytest.fixture
def without_starlette(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a table: Starlette cannot be imported and the virtual table was never imported."""
    for name in [name for name in sys.modules if name.partition(".")[0] == "starlette"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "starlette", None)  # `import starlette` fails
    for name in SIM:
        monkeypatch.delitem(sys.modules, name, raising=False)
        parent, _, child = name.rpartition(".")
        monkeypatch.delattr(importlib.import_module(parent), child, raising=False)


@pytest.mark.usefixtures("without_starlette")
def test_importing_the_virtual_table_without_starlette_says_what_to_install() -> None:
    with pytest.raises(ImportError) as caught:
        importlib.import_module("klik.table.sim.virtual")
    assert isinstance(caught.value, KlikError)
    assert str(caught.value) == LINE
    assert caught.value.__cause__ is None  # from None: one line, not a chain
    assert "klik.table.sim.virtual" not in sys.modules  # a later import tries again


@pytest.mark.usefixtures("without_starlette")
def test_klik_sim_without_starlette_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["sim", "--state-dir", str(tmp_path / "state")])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"klik sim: {LINE}\n")
    assert not (tmp_path / "state").exists()  # it stopped before making anything


@pytest.mark.slow  # a real Python process, so that nothing is imported yet
def test_the_table_daemon_and_the_cli_import_no_web_stack() -> None:
    probe = (
        "import sys, klik.cli, klik.table.service.daemon, klik.table.hardware.panels, klik.table.record.replay\n"
        "print(sorted({m.partition('.')[0] for m in sys.modules} & {'starlette', 'uvicorn'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"
