"""The tables' install from the hub (issues 21, 36): ``make bundle``'s folder, served
read-only to the venue's network, so a table installs or updates with no internet (README,
"From an empty SD card to a table")::

    curl -fsSk https://HUB:PORT/install -o klik-install.sh && echo "SCRIPT  klik-install.sh" \
        | sha256sum -c - && sudo sh klik-install.sh BUNDLE

(one line). ``GET /install`` is the script (``web/install.sh``, the hub's own address filled
in); ``GET /install/files/PATH`` is one file of the bundle, streamed: ``SHA256SUMS`` or a
file it lists, nothing else (so no path leaves the folder). Public, like the projector: the
bundle is the table's software and the shipped default config, no key and no player.

The certificate is the hub's self-signed one (``curl -k``), so whatever answers at the hub's
address is believed until something is checked, and the check must come before anything
runs as root: ``SCRIPT`` is the SHA-256 of the script as the hub serves it at that address,
checked by ``sha256sum`` on the table before ``sudo``; ``BUNDLE`` (the SHA-256 of the
bundle's SHA256SUMS, as ``make bundle`` printed it) is then checked by the script before it
fetches anything else, and ``install.sh --from`` checks every file. ``GET /api/v1/install``
gives the line with both filled in for the hub's hall address (the console's *Stoły* tab and
the printed card ``/print/install`` show it; ``klik hub --bundle`` logs it at start).
Without ``klik hub --bundle DIR`` these answer 404 in one line.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field

from klik_hub.api.deps import Lang
from klik_hub.door.addresses import hall_base
from klik_hub.door.answers import Refusal
from klik_hub.reports import printing

SUMS = "SHA256SUMS"  # as firmware/bundle.py writes it
NO_BUNDLE = "no bundle for the tables here: start the hub with --bundle DIR (make bundle)"
# A Host header as the script may quote it: a name or an IPv4 address, or an IPv6 one in
# brackets, and a port. The guard has checked that it names this hub.
HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
SHELL_SCRIPT = "text/x-shellscript; charset=utf-8"
SAVED_AS = "klik-install.sh"  # the script's name on the table, in the line


def served(hub: str) -> str:
    """The install script as the hub at ``hub`` (``https://10.0.0.5:8000``) serves it."""
    text = resources.files("klik_hub").joinpath("web/install.sh").read_text(encoding="utf-8")
    return text.replace("@HUB@", hub)


def install_line(hub: str, bundle: str) -> str:
    """The one line that installs a table from the hub at ``hub`` with bundle hash
    ``bundle``: nothing runs as root unless the script is the one this hub serves there."""
    script = hashlib.sha256(served(hub).encode()).hexdigest()
    return (
        f"curl -fsSk {hub}/install -o {SAVED_AS}"
        f' && echo "{script}  {SAVED_AS}" | sha256sum -c -'
        f" && sudo sh {SAVED_AS} {bundle}"
    )


def described(hub: str, bundle: Path) -> dict[str, str] | None:
    """The install for the hub at ``hub``: its url, both hashes and the line; None when
    ``bundle`` holds no bundle."""
    digest = bundle_hash(bundle) if listed(bundle) is not None else None
    if digest is None:
        return None
    return {
        "url": hub,
        "script_sha256": hashlib.sha256(served(hub).encode()).hexdigest(),
        "bundle_sha256": digest,
        "line": install_line(hub, digest),
    }


def listed(bundle: Path) -> set[str] | None:
    """The paths SHA256SUMS lists in ``bundle`` (with SHA256SUMS itself), or None when
    ``bundle`` holds no bundle. A path that is absolute or goes upwards is never listed."""
    try:
        text = (bundle / SUMS).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    paths = {line[66:] for line in text.splitlines() if len(line) > 66 and line[64:66] == "  "}
    return {SUMS} | {p for p in paths if not p.startswith("/") and ".." not in p.split("/")}


def bundle_hash(bundle: Path) -> str | None:
    """The bundle's hash (the SHA-256 of its SHA256SUMS), for the hub's log; None if none."""
    try:
        return hashlib.sha256((bundle / SUMS).read_bytes()).hexdigest()
    except OSError:
        return None


async def bundle_of(request: Request) -> Path | None:
    """The folder the tables' install is served from (``app.state.bundle``; None: none)."""
    bundle: Path | None = request.app.state.bundle
    return bundle


Bundle = Annotated[Path | None, Depends(bundle_of)]
router = APIRouter(include_in_schema=False)  # a script and files, as the console's
described_router = APIRouter(tags=["install"])


class Install(BaseModel):
    url: str = Field(description="the hub's address as the tables reach it")
    script_sha256: str = Field(description="SHA-256 of the script served at that address")
    bundle_sha256: str = Field(description="SHA-256 of the bundle's SHA256SUMS (make bundle)")
    line: str = Field(description="the line to run on a table, both hashes filled in")


def hall_of(request: Request) -> str:
    """The hub's address as the tables reach it (no trailing slash)."""
    return hall_base(str(request.base_url), request.app.state.listening).rstrip("/")


@described_router.get(
    "/api/v1/install",
    response_model=Install,
    responses={404: {"model": Refusal, "description": "no --bundle"}},
)
def install(request: Request, bundle: Bundle) -> Install | JSONResponse:
    """The tables' install line for this hub's hall address, with the script's hash and the
    bundle's (404 without ``klik hub --bundle``)."""
    said = described(hall_of(request), bundle) if bundle is not None else None
    if said is None:
        return JSONResponse({"error": NO_BUNDLE}, 404)
    return Install(**said)


@router.get("/install")
def script(request: Request, bundle: Bundle) -> Response:
    if bundle is None or listed(bundle) is None:
        return JSONResponse({"error": NO_BUNDLE}, 404)
    host = request.headers.get("host", "")
    if not HOST.fullmatch(host):
        return JSONResponse({"error": f"Host {host[:100]!r}: not an address"}, 400)
    return Response(served(f"{request.url.scheme}://{host}"), media_type=SHELL_SCRIPT)


@router.get("/print/install", response_class=HTMLResponse)
def card(request: Request, bundle: Bundle, lang: Lang = "pl") -> Response:
    """The printed install card (public, as the script: it holds no secret)."""
    said = described(hall_of(request), bundle) if bundle is not None else None
    if said is None:
        return JSONResponse({"error": NO_BUNDLE}, 404)
    return HTMLResponse(printing.install_card(said, lang))


@router.get("/install/files/{path:path}")
def file(path: str, bundle: Bundle) -> Response:
    paths = listed(bundle) if bundle is not None else None
    if bundle is None or paths is None:
        return JSONResponse({"error": NO_BUNDLE}, 404)
    if path not in paths or not _served(bundle, path):
        return JSONResponse({"error": f"{path[:200]}: not in the bundle"}, 404)
    return FileResponse(bundle / path, media_type="application/octet-stream")


def _served(bundle: Path, path: str) -> bool:
    """Whether ``path`` (one SHA256SUMS lists) is a file inside ``bundle``: no symlink out.
    A name no file can have (a NUL: ValueError) or that cannot be looked up (OSError) is
    not served; the guard refuses a control character before this, but a route must never
    fail on what a client typed."""
    try:
        inside = (bundle / path).resolve().is_relative_to(bundle.resolve())
        return inside and (bundle / path).is_file()
    except (OSError, ValueError):
        return False
