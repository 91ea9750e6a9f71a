"""The judge's console logs in and out (a session cookie), and asks whether it is the judge's."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from klik_hub.api.deps import JUDGE_ONLY, StoreDep
from klik_hub.api.models import SessionIn
from klik_hub.door import answers, judge
from klik_hub.door.answers import refusals
from klik_hub.door.guard import refusal, session_of

# No tags here: ``/api/v1/judge`` is in none (the two session routes are the judge's).
router = APIRouter()


def _gate(request: Request) -> judge.Gate:
    gate: judge.Gate = request.app.state.gate
    return gate


def _secure(request: Request) -> bool:
    """Whether the hub is served over HTTPS (``app.state.tls``): its cookie is ``Secure``."""
    return bool(request.app.state.tls)


@router.post(
    "/api/v1/session",
    tags=["judge"],
    response_model=answers.LoggedIn,
    responses=refusals(401, 403, 413, 422, 429),
)
async def log_in(
    request: Request, sent: SessionIn, response: Response
) -> answers.LoggedIn | JSONResponse:
    """The console logs in once: a session cookie for 12 hours (HttpOnly, SameSite=Strict,
    Secure over HTTPS). After 5 wrong passwords a client waits (429, ``Retry-After``)."""
    client = request.client.host if request.client else "?"
    verdict, token = await _gate(request).login(sent.password, client)
    if token is None:
        status, error, headers = refusal(verdict, console=True)
        return JSONResponse({"error": error}, status, headers)
    response.set_cookie(
        judge.SESSION_COOKIE,
        token,
        max_age=judge.SESSION_MS // 1000,
        path="/",
        secure=_secure(request),
        httponly=True,
        samesite="strict",
    )
    return answers.LoggedIn(judge=True)


@router.delete("/api/v1/session", tags=["judge"], status_code=204, responses=refusals(403))
async def log_out(request: Request) -> Response:
    """Log out: the session ends on the hub, and the browser forgets the cookie."""
    await _gate(request).logout(session_of({k.lower(): v for k, v in request.headers.items()}))
    response = Response(status_code=204)
    response.delete_cookie(
        judge.SESSION_COOKIE, path="/", secure=_secure(request), httponly=True, samesite="strict"
    )
    return response


@router.get(
    "/api/v1/judge",
    dependencies=JUDGE_ONLY,
    response_model=answers.Judge,
    responses=refusals(401, 429),
)
def is_judge(store: StoreDep) -> answers.Judge:
    """200 ``{"judge": true, "open": …}`` with the judge's password or session, or when
    no password is set (``open``: true, a hub on loopback; nobody logs in); else 401."""
    return answers.Judge(judge=True, open=store.setting(judge.SETTING) is None)
