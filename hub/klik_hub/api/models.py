"""The bodies the judge's routes take: what each may carry, held to what the database can
keep (``deps.Text``), every free text to what a person can read (``deps.FreeText``), every
number and boolean to JSON's own (``In``: strict) and to the rules' ranges, so a wrong one is
refused (422, in one line) before any route runs. Each field's ``description`` is the
OpenAPI's."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, field_validator
from pydantic_core import PydanticCustomError

from klik.core.limits import GAME
from klik.link import protocol as p
from klik.rules import RULE_SETS
from klik_hub import office
from klik_hub.api.deps import FreeText, Label, Text
from klik_hub.door import faults
from klik_hub.door.answers import Seat
from klik_hub.tournament import draw as d
from klik_hub.tournament import formats as f

MOVE_TIME = GAME["move_time_s"]
#: What the judge's command route queues: a renumbering has its own route, which changes
#: the hub's records with it (``office.renumbering``).
SENT_KINDS = tuple(k for k in p.COMMAND_KINDS if k != p.CommandKind.RENUMBER)


class In(BaseModel):
    """A request's body: strict (issue 36). A number is a JSON number and a boolean a JSON
    boolean, never text nor each other: pydantic's lax mode took ``"big": true`` for one big
    point off and ``"seconds": "60"`` for 60, so a form's slip or a script's bug became a
    sanction. Strict takes a JSON integer for a float, and a string for a ``Literal``; an
    enum field says ``strict=False`` (FastAPI validates the parsed JSON as Python, where a
    strict enum wants the enum itself, never its value)."""

    model_config = ConfigDict(strict=True)


class TournamentIn(In):
    # As a player's name (``FreeText``): no control, bidirectional-override or zero-width
    # character, which would turn a projected title around or hide one tournament behind
    # another, and something visible.
    name: FreeText = Field(min_length=1, max_length=200, description="shown on every page")
    rules: str | None = Field(
        None,
        min_length=1,
        max_length=16,
        description="the rule set that scores, ranks and seeds it (`klik rules list`): one its "
        "format is played under (liga: pl-liga, szczecin: pl-turniej, open: any shipped set; "
        "by default the format's first); the older names tournament and league are aliases",
    )
    format: Text = Field(description=f"a preset: {', '.join(f.preset_names())}")
    move_time_s: int | None = Field(
        None,
        ge=int(MOVE_TIME.lo),
        le=int(MOVE_TIME.hi),
        description="seconds for every move; by default the rule set's (pl-turniej 60, wrc 40)",
    )
    round_time_s: int | None = Field(
        None,
        ge=0,
        le=f.ROUND_TIME_S[1],
        description="a round's time at a table in seconds, counted from the table's start "
        f"(000 o), {f.ROUND_TIME_S[0]} to {f.ROUND_TIME_S[1]}; 0 for no limit; by default "
        "the format's",
    )
    release_together: bool = Field(
        False,
        description="the public pages and the projector show a round's results only once "
        "every table of the round has reported (the console always sees them)",
    )

    @field_validator("rules")
    @classmethod
    def _known(cls, rules: str | None) -> str | None:
        if rules is not None and rules not in RULE_SETS:
            raise PydanticCustomError("rules", faults.RULES, {"allowed": ", ".join(RULE_SETS)})
        return rules

    @field_validator("round_time_s")
    @classmethod
    def _long_enough(cls, seconds: int | None) -> int | None:
        if seconds and seconds < f.ROUND_TIME_S[0]:
            raise PydanticCustomError(
                "round_time_s", faults.ROUND_TIME, {"least": f.ROUND_TIME_S[0]}
            )
        return seconds


def _round_kind(kind: p.CommandKind) -> p.CommandKind:
    if kind not in p.ROUND_KINDS:
        allowed = ", ".join(p.ROUND_KINDS)
        raise PydanticCustomError("kind", faults.ROUND_KIND, {"allowed": allowed})
    return kind


class RoundCommandIn(In):
    kind: Annotated[p.CommandKind, AfterValidator(_round_kind)] = Field(
        strict=False,  # a command's kind by its value ("start"), as JSON says it
        description="what every table of the round is told",
        json_schema_extra={"enum": list(p.ROUND_KINDS)},
    )
    tables: list[Annotated[int, Field(ge=1, le=999)]] | None = Field(
        None,
        min_length=1,
        max_length=999,
        description="these tables of the round only (a late table started on its own, its "
        "round time counted from its own start); by default every table",
    )


class ExtendIn(In):
    model_config = ConfigDict(extra="forbid")

    seconds: int = Field(
        ge=1, le=office.clock.MAX_EXTRA_S, description="more round time for this table"
    )
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who extends it")


class CorrectionIn(In):
    kind: Literal["rack", "could_open", "player", "exclude", "accept", "assign"] = Field(
        description="rack: a seat's rack sum; could_open: the seat could have opened (−200); "
        "player: a seat's player id; exclude: the game does not count; accept: it counts "
        "(and takes its game's slot); assign: put it in a round's slot"
    )
    seat: Seat | None = Field(None, description="rack, could_open, player: the seat")
    value: int | bool | None = Field(
        None, description="a rack sum, a player's id, or true / false (not for assign)"
    )
    round: int | None = Field(None, ge=1, le=10_000, description="assign: the round")
    table: int | None = Field(None, ge=1, le=999, description="assign: the table")
    game: int | None = Field(None, ge=1, le=9, description="assign: the game within the round")
    players: dict[Seat, int] | None = Field(None, description="assign: each seat's player id")
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who corrects")


class NeedsIn(In):
    """A player's needs (issue 40, ``tournament.needs``): any of its keys; a key not sent
    stays as it was (false and null for a new player)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt need must not pass as none

    vibration: StrictBool = Field(False, description="the seat's vibration motor pulses")
    large: StrictBool = Field(False, description="the seat's screens are large")
    quiet: StrictBool = Field(False, description="no buzzer at the player's table")
    fixed_table: int | None = Field(
        None,
        ge=1,
        le=999,
        description="the table the player is always drawn to (a seeded stage's table "
        "numbered so); null for none",
    )

    def given(self) -> dict[str, Any]:
        """The keys sent, as ``dataclasses.replace`` takes them."""
        return self.model_dump(exclude_unset=True)


class PlayerChangeIn(In):
    model_config = ConfigDict(extra="forbid")  # a misspelt field must not pass as no change

    name: FreeText | None = Field(None, min_length=1, max_length=100, description="the new name")
    club: Label | None = Field(None, max_length=100, description="the new club or school")
    family: Label | None = Field(
        None,
        max_length=100,
        description="the player's family: players with one label are never drawn to one "
        "table in a random stage while the tables allow it; empty for none",
    )
    active: bool | None = Field(
        None, description="false: withdraw the player (not drawn again); true: reinstate"
    )
    needs: NeedsIn | None = Field(
        None, description="the player's needs: any of their keys, the others stay"
    )
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who changes it")


class SanctionIn(In):
    model_config = ConfigDict(extra="forbid")

    player: int = Field(ge=1, le=2**31 - 1, description="the player's id (start number)")
    kind: Literal["warning", "deduction", "exclusion"] = Field(
        description="warning: logged only; deduction: big points off; exclusion: out of the "
        "tournament (not drawn again, marked on the standings)"
    )
    big: int | None = Field(None, ge=1, le=100, description="deduction only: big points off")
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who gives it")


class UndrawIn(In):
    reason: FreeText = Field(
        "losowanie cofnięte", min_length=1, max_length=500, description="why: kept in the log"
    )
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who undoes it")


class ReleaseIn(In):
    reason: FreeText = Field(
        "wyniki rundy opublikowane przed końcem wszystkich stołów",
        min_length=1,
        max_length=500,
        description="why: kept in the log",
    )
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who releases them")


class ReplacementIn(In):
    model_config = ConfigDict(extra="forbid")

    table: int = Field(ge=1, le=999, description="the table, of the round's")
    seat: Seat = Field(description="the seat of the player who must leave")
    reserve: int = Field(
        ge=1,
        le=2**31 - 1,
        description="who takes the seat: an enrolled player not withdrawn nor excluded who "
        "sits nowhere in the round (a late arrival, say, or one who did not qualify)",
    )
    from_game: int | None = Field(
        None,
        ge=1,
        le=9,
        description="the round's game at the table from which on the reserve plays the seat "
        "(by default the first the table has not reported)",
    )
    withdraw: StrictBool = Field(
        True, description="withdraw the player who left (a logged withdrawal); false: not"
    )
    reason: FreeText = Field(min_length=1, max_length=500, description="why: kept in the audit log")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who replaces")


class RoundIn(In):
    seed: int | None = Field(
        None, ge=0, le=2**63 - 1, description="the draw's seed (default: a new one)"
    )
    override: bool = Field(False, description="draw although results of the last are missing")
    field: int | None = Field(
        None, ge=2, le=64, description="a seeded stage's size, of those its format allows"
    )
    tie_break: list[int] = Field(
        default_factory=list,
        max_length=2000,
        description="player ids: among players who share a place, these first, in this order",
    )
    round: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="the round meant (default: the next); 409 if it is not the next one, so "
        "a draw sent twice draws once",
    )
    clubs_weight: float = Field(
        d.CLUBS_WEIGHT,
        ge=0,
        le=d.MAX_CLUBS_WEIGHT,
        description="a random stage: how hard players of one club or school are kept apart, "
        "in repeated pairs (0.5: two of one club at one table weigh half a pair that meets "
        "again; 1: as much; 0: off); players of one family (set per player) are kept apart "
        "always",
    )
    by_rating: bool = Field(
        False,
        description="a random stage's first round: the best-rated players (GET /api/v1/ratings), "
        "as many as there are tables, are kept at different tables (a player's family label, "
        "if they have one, is kept instead)",
    )


class CheckInIn(In):
    model_config = ConfigDict(extra="forbid")

    open: StrictBool = Field(description="true: players may check in from their pages; false: not")
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who")


class TickIn(In):
    model_config = ConfigDict(extra="forbid")

    checked_in: StrictBool = Field(description="true: the player is here; false: not after all")
    needs: NeedsIn | None = Field(
        None, description="the player's needs as told at the desk: any of their keys"
    )
    by: FreeText = Field("judge", min_length=1, max_length=100, description="who")


class ByIn(In):
    model_config = ConfigDict(extra="forbid")

    by: FreeText = Field("judge", min_length=1, max_length=100, description="who")


class CommandIn(In):
    kind: str = Field(description=f"one of {', '.join(SENT_KINDS)}")
    args: dict[str, Any] = Field(default_factory=dict)


class SessionIn(In):
    password: str = Field(max_length=1024, description="the judge's password")
