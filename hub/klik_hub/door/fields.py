"""The request fields' names as a person reads them: the glossary a refusal names a field by.

A refusal of a request that breaks its schema (``klik_hub.door.faults``) says where: pydantic
gives a path such as ``("body", "round_time_s")`` or ``("query", "limit")``, which reads as code
and as English in a Polish console. Every field of a judge's, a phone's or a table's request
body (``klik_hub.api.models``, ``klik_hub.api.pairing``) and every query and path parameter of
the routes has a label here, in the catalogue (``make words``; context ``field``), so the
Polish answer says ``Czas rundy: …`` and the English one ``round time: …``.
``tests/hub/test_field_names.py`` fails when a route takes a field this glossary lacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from klik.words import Language, Words, pwords, text, words

#: A field's name, in a body, a query or a path → its label. One name, one label: ``kind`` is
#: a command's, a correction's or a sanction's, and the route says which.
FIELDS: Mapping[str, Words] = {
    # where the fault is when no field is named (a body that is not JSON)
    "body": pwords("field", "request"),
    "query": pwords("field", "address"),
    "path": pwords("field", "address"),
    # a tournament (TournamentIn)
    "name": pwords("field", "name"),
    "rules": pwords("field", "rules"),
    # a season (SeasonIn, MeetingIn)
    "best": pwords("field", "best meetings"),
    "points": pwords("field", "points"),
    "sid": pwords("field", "season"),
    "tournament": pwords("field", "tournament"),
    "by_rating": pwords("field", "best-rated apart"),
    "person": pwords("field", "person"),
    # a judge's own rule set (RuleSetIn)
    "toml": pwords("field", "rule set file"),
    "format": pwords("field", "format"),
    "move_time_s": pwords("field", "move time"),
    "round_time_s": pwords("field", "round time"),
    "release_together": pwords("field", "results shown together"),
    # a round, its draw and its commands (RoundIn, RoundCommandIn, UndrawIn, ExtendIn)
    "seed": pwords("field", "draw seed"),
    "override": pwords("field", "draw despite missing results"),
    "field": pwords("field", "stage size"),
    "tie_break": pwords("field", "order among tied players"),
    "round": pwords("field", "round"),
    "clubs_weight": pwords("field", "weight of clubs"),
    "kind": pwords("field", "kind"),
    "tables": pwords("field", "tables"),
    "seconds": pwords("field", "extra seconds"),
    # a correction, a sanction, a replacement (CorrectionIn, SanctionIn, ReplacementIn)
    "seat": pwords("field", "seat"),
    "value": pwords("field", "value"),
    "table": pwords("field", "table"),
    "game": pwords("field", "game"),
    "players": pwords("field", "players"),
    "player": pwords("field", "player"),
    "big": pwords("field", "big points"),
    "reserve": pwords("field", "reserve player"),
    "from_game": pwords("field", "from game"),
    "withdraw": pwords("field", "withdraw the player"),
    # a player (PlayerChangeIn, TickIn) and check-in (CheckInIn)
    "club": pwords("field", "club"),
    "family": pwords("field", "family"),
    "active": pwords("field", "playing"),
    "checked_in": pwords("field", "present"),
    "open": pwords("field", "check-in open"),
    # a player's needs (NeedsIn, issue 40)
    "needs": pwords("field", "needs"),
    "vibration": pwords("field", "vibration"),
    "large": pwords("field", "large screen"),
    "quiet": pwords("field", "quiet"),
    "fixed_table": pwords("field", "fixed table"),
    # who and why, on every judge's action
    "reason": pwords("field", "reason"),
    "by": pwords("field", "who"),
    # a table's command (CommandIn), the judge's session (SessionIn)
    "args": pwords("field", "arguments"),
    "password": pwords("field", "password"),
    # pairing (JoinIn, ProofIn, NonceIn, AcceptIn, RenumberIn)
    "v": pwords("field", "protocol version"),
    "table_key": pwords("field", "table's key"),
    "proof": pwords("field", "proof of the old pairing"),
    "device_id": pwords("field", "device"),
    "mac": pwords("field", "proof's code"),
    "link": pwords("field", "connection"),
    "nonce": pwords("field", "nonce"),
    "digits": pwords("field", "digits"),
    "replace": pwords("field", "replace the paired table"),
    # the routes' paths and queries
    "tid": pwords("field", "tournament"),
    "round_no": pwords("field", "round"),
    "table_no": pwords("field", "table"),
    "result_id": pwords("field", "result"),
    "request_id": pwords("field", "join request"),
    "code": pwords("field", "player's code"),
    "stage": pwords("field", "stage"),
    "lang": pwords("field", "language"),
    "limit": pwords("field", "limit"),
    "allow_same_name": pwords("field", "same name allowed"),
}

#: Where pydantic says a part of the request starts; never shown when a field follows.
PARTS = frozenset({"body", "query", "path", "header", "cookie"})

#: The steps of a path that are pydantic's, not the request's: which member of a union
#: failed (``value.int``), a validator (``function-after[...]``), a mapping's key (``[key]``).
TAGS = frozenset({"int", "bool", "str", "float", "none", "dict", "list", "is-instance"})


def named(loc: Sequence[object], language: Language) -> str:
    """The field at pydantic's ``loc`` as the reader calls it: the innermost field's label,
    with the list item's number (from 1) or the mapping's key that holds the fault, e.g.
    ``Stoły, pozycja 3`` or ``Gracze, A``. A field the glossary lacks is named as it is
    spelled, without the part (``body.``) before it. Never raises."""
    parts = list(loc)
    if len(parts) > 1 and parts[0] in PARTS:
        parts = parts[1:]
    if parts and isinstance(parts[0], int) and not isinstance(parts[0], bool):
        parts = []  # a body that is not JSON: pydantic names the character, not a field
    names = [k for k, part in enumerate(parts) if isinstance(part, str) and part in FIELDS]
    if not parts:
        return text(FIELDS["body"] if not loc or loc[0] == "body" else FIELDS["query"], language)
    if not names:
        return ".".join(str(part) for part in parts)
    last = names[-1]
    label = text(FIELDS[str(parts[last])], language)
    for part in parts[last + 1 :]:
        if isinstance(part, int) and not isinstance(part, bool):
            label = text(words("{field}, item {n}", field=label, n=part + 1), language)
        elif isinstance(part, str) and part not in TAGS and not set("[-").intersection(part):
            label = text(words("{field}, {key}", field=label, key=part), language)
    return label
