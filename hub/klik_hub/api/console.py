"""The judge's console: its page and its scripts (not in the OpenAPI), and the hub's health,
which the console polls for its red banner."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from klik import words as catalogue_script
from klik_hub.door import answers
from klik_hub.door.guard import TROUBLE_CODES, Troubles

router = APIRouter()


def _web(name: str) -> str:
    return resources.files("klik_hub").joinpath(f"web/{name}").read_text(encoding="utf-8")


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page() -> HTMLResponse:
    return HTMLResponse(_web("index.html"))


@router.get("/console.js", include_in_schema=False)
def script() -> Response:
    return Response(_web("console.js"), media_type="text/javascript; charset=utf-8")


@router.get("/hall.js", include_in_schema=False)
def hall_script() -> Response:
    """The Tables tab's hall of tiles (console.js's helpers lay them out)."""
    return Response(_web("hall.js"), media_type="text/javascript; charset=utf-8")


# The pages' icon: each names /favicon.svg (<link rel="icon">); /favicon.ico is for whatever
# asks for it unprompted (a browser showing an answer of the API, a bookmark). Both files.
ICONS = {"/favicon.svg": "image/svg+xml", "/favicon.ico": "image/x-icon"}
ICON_CACHE = {"Cache-Control": "public, max-age=86400"}  # a day: it seldom changes


def _icon(path: str, kind: str) -> Any:
    def icon() -> Response:
        body = resources.files("klik_hub").joinpath(f"web{path}").read_bytes()
        return Response(body, media_type=kind, headers=ICON_CACHE)

    return icon


for icon_path, icon_kind in ICONS.items():
    router.add_api_route(icon_path, _icon(icon_path, icon_kind), include_in_schema=False)


@router.get("/words.js", include_in_schema=False)
def catalogue() -> Response:
    """The catalogue for the console's and the projector's scripts (klik.words)."""
    return Response(catalogue_script.script(), media_type="text/javascript; charset=utf-8")


# {"ok": true} carries no trouble: only the keys set are answered.
@router.get("/api/v1/health", response_model=answers.Health, response_model_exclude_unset=True)
def health(request: Request) -> dict[str, Any]:
    """``{"ok": true}``, or ``{"ok": false, "trouble": "disk_full" | "database_down",
    "error": …}`` while the disk is full or the database does not answer (met within the
    last minute): the console's red banner."""
    troubles: Troubles = request.app.state.troubles
    trouble = troubles.now()
    if trouble is None:
        return {"ok": True}
    return {"ok": False, "trouble": TROUBLE_CODES[trouble], "error": trouble}
