"""What the hub's routes share: the dependencies FastAPI hands them, and the types of what
comes in.

``make_app`` keeps what it makes on ``app.state`` (the store, the judge's gate, the tallies,
the feed, the certificate's pin, the tables' bundle, …); a route asks for one by a dependency
(``StoreDep``), so every route is declared once, at module level, and one app's routes never
see another's store (the tests make many apps in one process).

Every error is one line of JSON, ``{"error": "..."}``, in the reader's language (``reader``).
What comes in is held to what the database can keep, as the tables' envelopes are
(``klik.link.protocol``): no text holds NUL or a lone surrogate (``Text``), a free text a
person reads is legible (``FreeText``, ``Label``: ``tournament.text``), and a JSON body
nested deeper than ``protocol.MAX_DEPTH`` is refused before it is parsed (``Checked``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Literal

from fastapi import Depends, Path, Query, Request
from fastapi.params import Depends as Dependency
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPBasic
from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from klik.errors import KlikError
from klik.link import protocol as p
from klik.words import Language, language_of
from klik_hub.door.guard import session_of
from klik_hub.door.judge import Gate
from klik_hub.league.ratings import Ratings
from klik_hub.storage.store import Store
from klik_hub.tournament import text as tx

Id = Annotated[int, Path(ge=1, le=2**31 - 1, description="the tournament's id")]
RoundNo = Annotated[int, Path(ge=1, le=10_000, description="the round")]
Lang = Annotated[Literal["pl", "en"], Query(description="the header line's language")]
Tid = Annotated[int, Query(ge=1, le=2**31 - 1, description="the tournament's id")]


def _storable(text: str) -> str:
    if p.UNSTORABLE.search(text):
        raise PydanticCustomError("text", p.NOT_STORABLE)
    return text


# Text a request may carry to the database: PostgreSQL refuses NUL in text (a 500 where
# SQLite took it), and a lone surrogate has no UTF-8 for either database.
Text = Annotated[str, AfterValidator(_storable)]


def _legible(text: str) -> str:
    found = tx.fault(text)
    if found is not None:
        raise PydanticCustomError(found.name.lower(), found.value, {"most": tx.MAX_MARKS})
    return text


def _legible_or_blank(text: str) -> str:
    return text if not text.strip() else _legible(text)


# Free text a person reads (a name, a reason, who gave it): storable and legible, by the one
# rule of ``tournament.text`` (no control character nor text direction mark, something
# visible, at most a few marks on a letter), which the player lists keep too (``roster``).
FreeText = Annotated[str, AfterValidator(_storable), AfterValidator(_legible)]
# The same for a label that may be left blank for none (a club, a family).
Label = Annotated[str, AfterValidator(_storable), AfterValidator(_legible_or_blank)]


async def store_of(request: Request) -> Store:
    """The app's store (``app.state.store``); async, so it costs no worker thread."""
    store: Store = request.app.state.store
    return store


StoreDep = Annotated[Store, Depends(store_of)]


async def ratings_of(request: Request) -> Ratings:
    """The hub's ratings (``app.state.ratings``, ``league.ratings``)."""
    found: Ratings = request.app.state.ratings
    return found


RatingsDep = Annotated[Ratings, Depends(ratings_of)]


def reader(request: Request) -> Language:
    """The language of whoever reads the answer: the console says its own in
    ``Accept-Language`` with every request; a script that says none reads English."""
    return language_of(request.headers.get("accept-language"))


async def reader_of(request: Request) -> Language:
    """``reader`` as a dependency (async: no worker thread for a header)."""
    return reader(request)


Reader = Annotated[Language, Depends(reader_of)]


def error(status: int, message: str, **more: Any) -> JSONResponse:
    return JSONResponse({"error": message, **more}, status_code=status)


class NeedJudgeError(KlikError, PermissionError):
    """A judge's route asked without the judge's password (401)."""


class JudgeBasic(HTTPBasic):
    """HTTP Basic in the OpenAPI; the header (or the session cookie) is checked by
    ``guard.Guard`` before the route is reached, so a bad one never gets a body read."""

    async def __call__(self, request: Request) -> None:  # type: ignore[override]
        return None


# Module level: FastAPI reads the judge's dependency's annotations from this module's names.
BASIC = JudgeBasic(auto_error=False, description="user judge, the judge's password")


def judge_only(request: Request, _sent: Annotated[None, Depends(BASIC)]) -> None:
    """Routes that change the tournament or order a table: the guard found the judge.
    Checked again here so a route the guard's rule missed fails closed."""
    if not getattr(request.state, "judge", False):
        raise NeedJudgeError


async def judge_reads(request: Request) -> None:
    """A read that shows results: it marks the request the judge's (``request.state.judge``)
    if it is, for the judge sees every result and anyone else a tournament's results as
    released (``office.release``). The judge's session cookie counts with or without the
    console's header, as for a printed page (a read changes nothing, and only the hub's own
    pages may read its answer); so do the password and a hub with none set."""
    if getattr(request.state, "judge", False):
        return
    gate: Gate = request.app.state.gate
    client = request.client.host if request.client else "?"
    cookie = session_of(dict(request.headers))
    verdict = await gate.judge(request.headers.get("authorization"), cookie, client)
    if verdict.ok:
        request.state.judge = True


#: A route's ``dependencies``: the judge's only (it changes the tournament, orders a table or
#: shows the players' codes), or a read of results the judge's if it is (``public``).
JUDGE_ONLY: list[Dependency] = [Depends(judge_only)]
JUDGE_READS: list[Dependency] = [Depends(judge_reads)]


def public(request: Request) -> bool:
    """Whether a read of results is the public's, not the judge's (``judge_reads`` marks
    the judge's): it shows them as released (``office.release``)."""
    return not getattr(request.state, "judge", False)


class Checked(APIRoute):
    """A route that refuses a JSON body nested deeper than ``protocol.MAX_DEPTH`` (422)
    before FastAPI parses it: Python's JSON parser recurses, and a player list nested 5,000
    deep was a RecursionError (500). Any other body (a CSV file) is the route's to check."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            # The body is read once: FastAPI takes it from the request, where it stays.
            if kind != "text/csv" and p.deeper_than(await request.body(), p.MAX_DEPTH):
                why = f"arrays and objects nest deeper than {p.MAX_DEPTH} levels"
                return error(422, f"body: {why}")
            return await handler(request)

        return checked
