"""Pairing at the table, over HTTP (``docs/protocol.md``, "Pairing"; ``hall.pairing``).

The asking table's side, open to anyone on the hall's network (the guard lets it through
without the judge, with a small body limit): ``POST /api/v1/join`` (its public key),
``POST /api/v1/join/{id}/nonce`` (its nonce; the hub's in the answer) and
``GET /api/v1/join/{id}`` (polled: waiting, or the answer sealed for it).

A request not followed by its nonce within 30 s is dropped; one address holds at most 4
undecided requests and the hub 256 (beyond either: 429 with ``Retry-After``).

The judge's side: ``GET /api/v1/pairing`` lists the tables asking, ``POST
/api/v1/pairing/{id}`` ``{"table": N, "digits": "DDDDDD"}`` accepts one (201; 409 when the
digits are not the request's), ``DELETE /api/v1/pairing/{id}`` refuses it, ``DELETE
/api/v1/pairing`` refuses every request not yet decided (*Refuse all*); ``POST
/api/v1/tables/{n}/renumber`` ``{"table": M}`` gives a paired table another number (200; 409
when M is taken or the table is in a game or owes a round's games: ``office.renumbering``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from klik.link import protocol as p
from klik.link.protocol import pairing as x
from klik.words import Language
from klik_hub import hall, office
from klik_hub.api.deps import JUDGE_ONLY, FreeText, Label, Reader, StoreDep
from klik_hub.door.answers import JUDGE, Refusal, refusals
from klik_hub.hall.pairing import PairingError, Problem

STATUS = {
    Problem.UNKNOWN: 404,
    Problem.FULL: 429,  # too many asking: a while later, some have expired
    Problem.STATE: 409,
    Problem.DIGITS: 409,
    Problem.REFUSED: 410,
    Problem.HELD: 409,  # the judge says replace, or picks another number
}
RequestId = Annotated[
    str, Path(pattern=f"^{x.REQUEST_ID.pattern}$", description="the request's id")
]
# Anchored: a pydantic pattern matches anywhere in the text.
Hex64 = Annotated[str, Field(pattern=f"^{x.HEX_KEY.pattern}$")]
Hex32 = Annotated[str, Field(pattern=f"^{x.HEX_NONCE.pattern}$")]


class Strict(BaseModel):
    # No unknown field, and JSON's own numbers (a table's number "3" is refused), as the
    # judge's bodies (``models.In``).
    model_config = ConfigDict(extra="forbid", strict=True)


class ProofIn(Strict):
    device_id: str = Field(
        pattern=p.DEVICE.pattern, description="the device the table was paired as"
    )
    mac: Hex64 = Field(
        description="HMAC-SHA256 under that pairing's key over 'klik re-pair v1\\n' and "
        "table_key (docs/protocol.md, Pairing)"
    )


class JoinIn(Strict):
    v: Literal[1] = 1
    table_key: Hex64 = Field(description="the table's ephemeral X25519 public key, hex")
    link: Literal["http", "serial"] = "http"
    proof: ProofIn | None = Field(
        None, description="a paired table asking again: the proof of its old pairing"
    )


class Joined(BaseModel):
    id: str
    hub_key: str = Field(description="the hub's long-term X25519 public key, hex")
    commit: str = Field(description="SHA-256 commitment to the hub's nonce, hex")
    expires_s: int


class NonceIn(Strict):
    nonce: Hex32 = Field(description="the table's 16-byte nonce, hex")


class HubNonce(BaseModel):
    nonce: str = Field(description="the hub's nonce, which the table checks against commit")


class JoinAnswer(BaseModel):
    state: str = Field(description="committed, asking or accepted")
    table: int | None = None
    sealed: str | None = Field(None, description="accepted: the answer, AES-256-GCM, hex")


class Asking(BaseModel):
    id: str
    digits: str
    seen_s_ago: float
    link: str


class AcceptIn(Strict):
    table: int = Field(ge=1, le=999)
    digits: str = Field(pattern=f"^{x.DIGITS_RE.pattern}$")
    replace: bool = Field(
        False,
        description="the number is a paired table's: let that device go and pair this one "
        "(without it, 409 with held_by)",
    )


class Accepted(BaseModel):
    status: Literal["paired"]
    table: int
    device: str


class Refused(BaseModel):
    status: Literal["refused"]


class AllRefused(BaseModel):
    status: Literal["refused"]
    count: int = Field(description="the requests refused that were waiting for the judge")


class RenumberIn(Strict):
    table: int = Field(ge=1, le=999, description="the table's new number")
    replace: bool = Field(
        False,
        description="the number is another paired table's: let that device go (without it, "
        "409 with held_by)",
    )
    reason: Label = Field("", max_length=500, description="why: kept in the judge's log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who")


class Renumbered(BaseModel):
    status: Literal["renumbered"]
    table: int = Field(description="the table's new number")
    was: int = Field(description="its number until now")
    device: str
    id: str = Field(description="the renumber command's id, acknowledged by the table")


def _said(codes: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": Refusal, "description": why} for code, why in codes.items()}


def _refused(error: PairingError, language: Language = Language.EN) -> JSONResponse:
    wait = {} if error.retry_s is None else {"Retry-After": str(error.retry_s)}
    held = {} if error.held_by is None else {"held_by": error.held_by}
    said = {"error": error.into(language), **held}
    return JSONResponse(said, STATUS[error.problem], headers=wait)


async def tls_pin_of(request: Request) -> str | None:
    """The SHA-256 of the hub's certificate (``app.state.tls_pin``; None: plain http), sealed
    into each accepted table's answer."""
    pin: str | None = request.app.state.tls_pin
    return pin


TlsPin = Annotated[str | None, Depends(tls_pin_of)]
router = APIRouter(tags=["pairing"])


@router.post(
    "/api/v1/join",
    status_code=201,
    response_model=Joined,
    responses={
        **_said({429: "too many requests from this address, or in the hub (Retry-After)"}),
        **refusals(413, 422),
    },
)
def join(asked: JoinIn, request: Request, store: StoreDep) -> Joined | JSONResponse:
    """A table asks to join with its ephemeral public key (step 1 of 3)."""
    # The peer's own address: proxy headers count only from a proxy the hub was told of
    # (``klik hub --forwarded-allow-ips``), so a header cannot make a fresh address.
    address = request.client.host if request.client else None
    try:
        proof = None if asked.proof is None else (asked.proof.device_id, asked.proof.mac)
        return Joined(**hall.pairing.ask(store, asked.table_key, asked.link, address, proof))
    except PairingError as error:
        return _refused(error)


@router.post(
    "/api/v1/join/{request_id}/nonce",
    response_model=HubNonce,
    responses={
        **_said({404: "no such request", 409: "another nonce was sent"}),
        **refusals(413, 422),
    },
)
def nonce(request_id: RequestId, sent: NonceIn, store: StoreDep) -> HubNonce | JSONResponse:
    """The table's nonce; the answer reveals the hub's (step 2 of 3)."""
    try:
        return HubNonce(nonce=hall.pairing.reveal(store, request_id, sent.nonce))
    except PairingError as error:
        return _refused(error)


@router.get(
    "/api/v1/join/{request_id}",
    response_model=JoinAnswer,
    response_model_exclude_none=True,
    responses={
        **_said({404: "no such request (or it expired)", 410: "the judge refused it"}),
        **refusals(422),
    },
)
def polled(request_id: RequestId, store: StoreDep) -> JoinAnswer | JSONResponse:
    """The asking table polls: still asking, or accepted with its sealed answer."""
    try:
        return JoinAnswer(**hall.pairing.answer(store, request_id))
    except PairingError as error:
        return _refused(error)


@router.get(
    "/api/v1/pairing",
    dependencies=JUDGE_ONLY,
    response_model=list[Asking],
    responses=refusals(401, 403, 429),
)
def asking(store: StoreDep) -> list[dict[str, Any]]:
    """The tables asking to join, oldest first, with the digits each shows on seat A."""
    return hall.pairing.asking(store)


@router.post(
    "/api/v1/pairing/{request_id}",
    dependencies=JUDGE_ONLY,
    status_code=201,
    response_model=Accepted,
    responses={
        **_said({404: "no such request"}),
        409: {
            "model": Refusal,
            "description": "the digits are not the request's (no held_by), or the number is "
            "a paired table's (held_by; send replace to let it go)",
        },
        **refusals(422, *JUDGE),
    },
)
def accept(
    request_id: RequestId,
    accepted: AcceptIn,
    store: StoreDep,
    tls_pin: TlsPin,
    language: Reader,
) -> Accepted | JSONResponse:
    """Accept a table asking to join as table ``table``, its digits compared. A number a
    paired table holds is 409 (``held_by``; the request keeps waiting) unless ``replace``:
    then that device is let go, and the judge's log says so (``replace_table``)."""
    try:
        device, _key = hall.pairing.accept(
            store, request_id, accepted.table, accepted.digits, tls_pin,
            replace=accepted.replace,
        )  # fmt: skip
    except PairingError as error:
        return _refused(error, language)
    return Accepted(status="paired", table=accepted.table, device=device)


@router.delete(
    "/api/v1/pairing/{request_id}",
    dependencies=JUDGE_ONLY,
    response_model=Refused,
    responses={
        **_said({404: "no such request", 409: "accepted already"}),
        **refusals(422, *JUDGE),
    },
)
def refuse(request_id: RequestId, store: StoreDep) -> Refused | JSONResponse:
    """Refuse a table asking to join: nothing is paired; the table hears so."""
    try:
        hall.pairing.refuse(store, request_id)
    except PairingError as error:
        return _refused(error)
    return Refused(status="refused")


@router.delete(
    "/api/v1/pairing",
    dependencies=JUDGE_ONLY,
    response_model=AllRefused,
    responses=refusals(*JUDGE),
)
def refuse_all(store: StoreDep) -> AllRefused:
    """Refuse every table asking to join (and drop the requests that never sent their
    nonce): a flood cleared at once, or a hall to pair afresh."""
    return AllRefused(status="refused", count=hall.pairing.refuse_all(store))


@router.post(
    "/api/v1/tables/{table}/renumber",
    dependencies=JUDGE_ONLY,
    response_model=Renumbered,
    responses=refusals(404, 409, 422, *JUDGE),
)
def renumber(
    table: Annotated[int, Path(ge=1, le=999)], wanted: RenumberIn, store: StoreDep
) -> Renumbered:
    """Give paired table ``table`` the number ``wanted.table``: the hub's records follow
    it, the table is told (a ``renumber`` command) and the judge's log keeps it. 404 when
    ``table`` is not paired; 409 when the number is taken, the table is in a game or has
    results to send, or it owes games of a round whose lineup it took."""
    done = office.renumbering.renumber(
        store, table, wanted.table, reason=wanted.reason, by=wanted.by, replace=wanted.replace
    )
    return Renumbered(status="renumbered", **done)
