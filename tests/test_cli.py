"""``klik score`` and ``klik replay`` as a judge or organiser types them."""

from __future__ import annotations

import json
import os
import pty
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from klik.cli import main
from klik.version import installed

KLIK = Path(sys.executable).with_name("klik")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def sheet(tmp_path: Path, doc: object) -> str:
    path = tmp_path / "sheet.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def test_score_seed_003_example(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = {
        "rules": "tournament",
        "ending": "rummikub",
        "winner": "A",
        "seats": {"A": {}, "B": {"rack": 25}, "C": {"rack": 17}, "D": {"rack": 18}},
    }
    code, out, err = run(capsys, "score", sheet(tmp_path, doc))
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "small": {"A": 60, "B": -25, "C": -17, "D": -18},
        "big": {"A": 1, "B": 0, "C": 0, "D": 0},
        "winners": ["A"],
    }


def test_score_reads_stdin_and_applies_penalties(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = {
        "rules": "league",
        "ending": "rummikub",
        "winner": "C",
        "seats": {
            "A": {"rack": 12, "opened": False, "could_open": True},  # +200
            "B": {"rack": 30, "opened": False, "could_open": True, "announced": True},  # +100
            "C": {"rack": 0},
        },
    }
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(json.dumps(doc)))
    code, out, _ = run(capsys, "score", "-")
    assert code == 0
    assert json.loads(out) == {
        "small": {"A": 200, "B": 100, "C": -300},
        "big": {"A": 0, "B": 2, "C": 4},  # lower is better in the league: B (+100) is 2nd
        "winners": ["C"],
    }


def test_score_exhausted_tie(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = {"rules": "tournament", "ending": "exhausted",
           "seats": {"A": {"rack": 9}, "B": {"rack": 9}, "C": {"rack": 21}}}  # fmt: skip
    code, out, _ = run(capsys, "score", sheet(tmp_path, doc))
    assert code == 0
    assert json.loads(out) == {
        "small": {"A": 12, "B": 12, "C": -12},
        "big": {"A": 1, "B": 1, "C": 0},
        "winners": ["A", "B"],
    }


GOOD = {"rules": "tournament", "ending": "rummikub", "winner": "A",
        "seats": {"A": {}, "B": {"rack": 3}}}  # fmt: skip


def spoil(**changes: object) -> object:
    doc = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "input is not JSON"),  # not JSON at all
        ("[1, 2]", "input: expected a JSON object"),  # JSON, but not a sheet
        (spoil(rules="poker"), "rules: unknown rule set 'poker'; allowed: classic, de-klub, pl-liga, pl-turniej, wrc"),
        (spoil(rules=None), "rules: missing"),
        (spoil(ending="draw"), "ending: unknown ending 'draw'; allowed: rummikub, exhausted"),
        (spoil(seats={"A": {}}), "seats: a table has 2 to 4 seats, got 1"),  # 1 seat
        (  # 5 seats: E is no seat letter
            spoil(seats={s: {"rack": 1} for s in "ABCDE"}),
            "seats.E: not a seat; seats are lettered A, B, C, D",
        ),
        (spoil(seats=[1, 2]), "seats: expected an object keyed by seat letter, got a list"),
        (spoil(seats={"A": {}, "B": {"rack": -3}}), "seats.B.rack: expected a whole number from 0 to 828 (every tile of the set), got -3"),
        (spoil(seats={"A": {}, "B": {"rack": 2.5}}), "seats.B.rack: expected a whole number from 0 to 828 (every tile of the set), got 2.5"),
        (spoil(seats={"A": {}, "B": {"rack": "7"}}), 'seats.B.rack: expected a whole number from 0 to 828 (every tile of the set), got "7"'),
        (spoil(seats={"A": {}, "B": {"rack": True}}), "seats.B.rack: expected a whole number from 0 to 828 (every tile of the set), got true"),
        # more than every tile of the set: 2 x 4 x (1 + ... + 13) + 2 jokers x 50 = 828
        (spoil(seats={"A": {}, "B": {"rack": 829}}), "seats.B.rack: expected a whole number from 0 to 828 (every tile of the set), got 829"),
        (spoil(seats={"A": {}, "B": {}}), "seats.B.rack: missing"),
        (spoil(seats={"A": {}, "B": {"rak": 3}}), "seats.B.rak: unknown field (did you mean 'rack'?)"),
        (spoil(seats={"A": {}, "B": {"rack": 3, "opened": "yes"}}), "seats.B.opened: expected true or false"),
        (spoil(winner=None), "winner: a Rummikub ending needs the seat that went out"),
        (spoil(winner="D"), "winner: 'D' is not seated; seated: A, B"),
        (spoil(seats={"A": {"rack": 4}, "B": {"rack": 3}}), "seats.A.rack: the winner of a Rummikub has no tiles left, got 4"),
        (spoil(ending="exhausted"), "winner: only a Rummikub ending has one"),
        (spoil(winer="A"), "winer: unknown field (did you mean 'winner'?)"),
    ],
)  # fmt: skip
def test_score_bad_input_is_one_line_naming_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: object, message: str
) -> None:
    code, out, err = run(capsys, "score", sheet(tmp_path, doc))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("klik score: ")
    assert message in err


def test_score_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "score", str(tmp_path / "nope.json"))
    assert code == 2
    assert err == f"klik score: {tmp_path / 'nope.json'}: cannot read (No such file or directory)\n"


def test_replay_prints_the_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "game.klik"
    script.write_text("set seats=2 move_time_s=30\n0 B tap\n4.5 A tap\n10 end\n", "utf-8")
    code, out, _ = run(capsys, "replay", str(script))
    record = json.loads(out)
    assert code == 0
    assert {k: record[k] for k in ("state", "mover", "time_left_s", "draw_tiles_left")} == {
        "state": "move", "mover": "B", "time_left_s": 24.5, "draw_tiles_left": 78,
    }  # fmt: skip
    assert record["moves"] == [
        {"seat": "A", "start": 0.0, "end": 4.5, "ended_by": "tap", "drew": 0}
    ]
    assert (record["final_round"], record["opened"], record["result"]) == (False, ["A"], None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0 A hodl\n", "line 1: 'hodl' is not a seat action (did you mean 'hold'?)"),
        ("0 D tap\n", "line 1: 'D' is not at this table; allowed: A, B, C, judge, hub"),
        ("zero A tap\n", "line 1: expected a time in seconds first, got 'zero'"),
        ("5 A tap\n4 B tap\n", "line 2: time 4 is before the previous event's 5"),
        ("0 judge pasue\n", "line 1: 'pasue' is not a judge action (did you mean 'pause'?)"),
        ("0 A rack\n", "line 1: 'rack' needs a whole number from 0 to 999"),
        ("0 A rack -4\n", "line 1: 'rack' needs a whole number from 0 to 999"),
        ("0 A tap 3\n", "line 1: 'tap' takes no argument"),
        ("set move_time=40\n", "line 1: unknown setting 'move_time' (did you mean 'move_time_s'?)"),
        ("set rules=liga\n", "line 1: rules must be one of classic, de-klub, pl-liga, pl-turniej, wrc, got 'liga'"),
        ("set move_time_s=fast\n", "line 1: move_time_s must be a number, got 'fast'"),
        ("set move_time_s=nan\n", "line 1: move_time_s must be a finite number"),
        ("set move_time_s=-5\n0 C tap\n", "line 1: move_time_s = -5.0: allowed are 5 to 600 s"),
        ("set move_time_s=4\n", "line 1: move_time_s = 4.0: allowed are 5 to 600 s"),  # too short to think
        ("set move_time_s=3601\n", "line 1: move_time_s = 3601.0: allowed are 5 to 600 s"),  # the old limit
        ("set move_time_s=5\n", "line 1: warn_s must be below move_time_s (5.0), got 10.0"),  # the default warn_s: says why
        ("set penalty_tiles=9\n", "line 1: penalty_tiles = 9: allowed are 0 to 3 tiles"),
        ("set warn_s=-1\n", "line 1: warn_s = -1.0: allowed are 0 to 600 s"),
        ("set hold_s=0\n", "line 1: hold_s = 0.0: allowed are 0.3 to 3 s"),
        ("set double_s=100\n", "line 1: double_s = 100.0: allowed are 0.1 to 1 s"),
        ("set double_s=0.9 hold_s=0.8 call_judge_s=1\n", "line 1: double_s must be below hold_s (0.8), got 0.9"),
        ("set debounce_ms=500\n", "line 1: debounce_ms = 500.0: allowed are 0 to 100 ms"),
        ("set long_hold_s=20\n", "line 1: long_hold_s = 20.0: allowed are 0.3 to 10 s"),
        ("set seats=5\n0 A tap\n", "line 1: seats must be 2 to 4 (or the letters AB, ABC, ABCD)"),
        ("set seats=ABD\n", "line 1: seats must be 2 to 4 (or the letters AB, ABC, ABCD)"),
        ("set seats=3\nset starter=D\n0 A tap\n", "line 2: starter must be one of A, B, C"),
        ("set hold_s=3\n", "line 1: call_judge_s must be from hold_s (3.0)"),
        ("set seats\n", "line 1: expected key=value, got 'seats'"),
        ("0 A tap\nset seats=2\n", "line 2: 'set' must come before the first event"),
        ("0 A\n", "line 1: expected 'T WHO ACTION [ARG]' or 'T end'"),
        ("5 end\n6 A tap\n", "line 2: nothing may follow 'T end'"),
    ],
)  # fmt: skip
def test_replay_bad_line_names_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    script = tmp_path / "bad.klik"
    script.write_text("set seats=3\n" + text if not text.startswith("set") else text, "utf-8")
    if not text.startswith("set"):
        message = message.replace(f"line {message[5]}", f"line {int(message[5]) + 1}", 1)
    code, out, err = run(capsys, "replay", str(script))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"klik replay: {script}: ")
    assert message in err


def test_the_console_script_exits_2_on_bad_input(tmp_path: Path) -> None:
    bad = sheet(tmp_path, "{")
    done = subprocess.run([KLIK, "score", bad], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("klik score: input is not JSON")


def test_klik_version_prints_the_installed_version_and_exits_0() -> None:
    # What a table's heartbeat says (klik.version.installed), so the hub's table list and the
    # command agree; the package's own __version__ is what argparse prints.
    done = subprocess.run([KLIK, "--version"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"klik {installed()}\n", "")


def test_klik_score_imports_no_hardware_web_or_database_modules(tmp_path: Path) -> None:
    # Start-up time: the judge's command loads only what scoring needs.
    path = sheet(tmp_path, GOOD)
    code = (
        "import sys; from klik.cli import main; main(['score', sys.argv[1]]); "
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, path], capture_output=True, text=True, check=True
    )
    loaded = {name.split(".")[0] for name in done.stderr.split()}
    heavy = {
        "gpiozero",
        "luma",
        "PIL",
        "serial",
        "sqlite3",
        "http",
        "socket",
        "asyncio",
        "threading",
    }
    assert loaded & heavy == set()
    assert "klik.table.record.replay" not in done.stderr.split()


# --- the table and the virtual table: a folder or a port they cannot use is one line -------


def klik(*args: str) -> subprocess.CompletedProcess[str]:
    """The real ``klik`` command; a daemon that wrongly starts is stopped by the timeout."""
    return subprocess.run([KLIK, *args], capture_output=True, text=True, check=False, timeout=60)


def table_toml(tmp_path: Path, state_dir: str) -> str:
    path = tmp_path / "table.toml"
    path.write_text(
        f'[table]\nstate_dir = "{state_dir}"\n[hardware]\npin_factory = "mock"\n'
        '[panels]\ninterface = "sim"\n',
        encoding="utf-8",
    )
    return str(path)


@pytest.mark.slow  # a real `klik sim` or `klik table` process
@pytest.mark.parametrize(
    ("args", "state_dir", "line"),
    [
        ("sim --state-dir {tmp}/file", None, "klik sim: --state-dir {tmp}/file: cannot make this folder (a file is in the way)"),  # a file, not a folder
        ("sim --state-dir {tmp}/file/journal", None, "klik sim: --state-dir {tmp}/file/journal: cannot make this folder (Not a directory)"),  # under a file
        ("sim --state-dir /proc/klik", None, "klik sim: --state-dir /proc/klik: cannot make this folder (No such file or directory)"),  # /proc takes none
        ("table --config {config}", "/proc/klik", 'klik table: {config}: [table] state_dir = "/proc/klik": cannot make this folder (No such file or directory)'),  # from the config
        ("table --config {config}", "{tmp}/file", 'klik table: {config}: [table] state_dir = "{tmp}/file": cannot make this folder (a file is in the way)'),  # the same
        ("sim --port 70000", None, "klik sim: argument --port: 70000: allowed are 1 to 65535 (see klik sim --help)"),  # TCP ports end at 65535
        ("sim --port -1", None, "klik sim: argument --port: -1: allowed are 1 to 65535 (see klik sim --help)"),  # and start at 1
        ("sim --port 0", None, "klik sim: argument --port: 0: allowed are 1 to 65535 (see klik sim --help)"),  # 0 fell back to 8100
        ("sim --port http", None, "klik sim: argument --port: http: allowed are 1 to 65535 (see klik sim --help)"),  # a name
        ("table", None, "klik table: the following arguments are required: --config (see klik table --help)"),  # argparse, one line
        ("sim --prot 8100", None, "klik: unrecognized arguments: --prot 8100 (see klik --help)"),  # a typo
    ],
)  # fmt: skip
def test_a_daemon_that_cannot_start_says_why_in_one_line(
    tmp_path: Path, args: str, state_dir: str | None, line: str
) -> None:
    (tmp_path / "file").write_text("not a folder\n", encoding="utf-8")
    names = {"tmp": str(tmp_path), "config": str(tmp_path / "table.toml")}
    if state_dir is not None:
        table_toml(tmp_path, state_dir.format(**names))
    done = klik(*args.format(**names).split())
    assert "Traceback" not in done.stderr
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line.format(**names) + "\n")


@pytest.mark.slow  # a real `klik sim` process
def test_a_busy_port_says_to_choose_another(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = klik("sim", "--port", str(port), "--state-dir", str(tmp_path / "state"))
    assert done.returncode == 2
    assert done.stderr == (
        f"klik sim: cannot serve on 127.0.0.1:{port} (Address already in use); "
        "another port: klik sim --port N\n"
    )


@pytest.mark.slow  # a real `klik sim` process, stopped
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])  # Ctrl-C; systemd's stop
def test_klik_sim_tidies_its_temporary_journal_away_on_exit(
    tmp_path: Path, stop: signal.Signals
) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    sim = subprocess.Popen(
        [KLIK, "sim", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert sim.stdout is not None
    line = sim.stdout.readline()  # "… (journal: FOLDER; Ctrl-C ends)" once it serves
    folder = Path(line.split("journal: ")[1].split(";")[0])
    assert folder.is_dir()
    assert folder.parent == tmp_path
    sim.send_signal(stop)
    assert sim.wait(timeout=30) == 0
    assert sim.stderr is not None
    assert "Traceback" not in sim.stderr.read()
    assert not folder.exists()


def test_klik_score_at_a_terminal_with_no_sheet_says_how_instead_of_waiting() -> None:
    main_end, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [KLIK, "score"], stdin=terminal, capture_output=True, text=True, timeout=30,
            check=False,
        )  # fmt: skip
    finally:
        os.close(main_end)
        os.close(terminal)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "klik score: give a score sheet: klik score SHEET.json (or pipe one into klik score -)\n"
    )


def test_a_seat_that_has_not_opened_needs_no_rack_where_its_penalty_counts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = {
        "rules": "tournament",
        "ending": "rummikub",
        "winner": "A",
        "seats": {"A": {}, "B": {"opened": False}, "C": {"rack": 17}},  # B: −100, rack unread
    }
    code, out, err = run(capsys, "score", sheet(tmp_path, doc))
    assert (code, err) == (0, "")
    assert json.loads(out)["small"] == {"A": 117, "B": -100, "C": -17}
    # In an exhausted game the rack is what counts, opened or not: it is still asked for.
    exhausted = {"rules": "tournament", "ending": "exhausted",
                 "seats": {"A": {"rack": 3}, "B": {"opened": False}}}  # fmt: skip
    code, out, err = run(capsys, "score", sheet(tmp_path, exhausted))
    assert (code, out) == (2, "")
    assert err == (
        "klik score: seats.B.rack: missing; the sum of the tiles left on the rack "
        "(a seat that has not opened is scored by its rack here)\n"
    )
