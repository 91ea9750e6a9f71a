"""The tables' install from the hub (issue 21): ``make bundle``'s folder, served read-only to
the venue's network, so a table installs or updates with no internet (README, "From an empty
SD card to a table")::

    curl -fsSk https://HUB:8000/install | sudo sh -s -- HASH

``GET /install`` is the script (``web/install.sh``, the hub's own address filled in);
``GET /install/files/PATH`` is one file of the bundle, streamed: ``SHA256SUMS`` or a file it
lists, nothing else (so no path leaves the folder). Public, like the projector: the bundle is
the table's software and the shipped default config, no key and no player. What keeps it
honest is the hash the organiser brings: the script fetches SHA256SUMS first and refuses a
bundle whose SHA256SUMS has another hash, and ``install.sh --from`` checks every file.
Without ``klik hub --bundle DIR`` both answer 404 in one line.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, JSONResponse, Response

SUMS = "SHA256SUMS"  # as firmware/bundle.py writes it
NO_BUNDLE = "no bundle for the tables here: start the hub with --bundle DIR (make bundle)"
# A Host header as the script may quote it: a name or an IPv4 address, or an IPv6 one in
# brackets, and a port. The guard has checked that it names this hub.
HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
SHELL_SCRIPT = "text/x-shellscript; charset=utf-8"


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


@router.get("/install")
def script(request: Request, bundle: Bundle) -> Response:
    if bundle is None or listed(bundle) is None:
        return JSONResponse({"error": NO_BUNDLE}, 404)
    host = request.headers.get("host", "")
    if not HOST.fullmatch(host):
        return JSONResponse({"error": f"Host {host[:100]!r}: not an address"}, 400)
    hub = f"{request.url.scheme}://{host}"
    text = resources.files("klik_hub").joinpath("web/install.sh").read_text(encoding="utf-8")
    return Response(text.replace("@HUB@", hub), media_type=SHELL_SCRIPT)


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
