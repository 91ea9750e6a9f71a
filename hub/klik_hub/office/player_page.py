"""A player's own page (``/p/CODE``, the code on their badge): where to sit now and who starts,
their seat in the next round as soon as it is drawn, their games as they count now, and their
place. Public and read-only: whoever holds the code reads it, and the page names nobody
else's code.

What the page says is worked out by the pure core (``tournament.whereabouts`` for the seats,
``tournament.standings`` by way of ``standings.ranked`` for the place) from what ``counting``
says every result counts for, so it agrees with the round's board, the results and the
standings; once for each revision of the tournament (``tally``), however many phones ask.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from klik.core.game import SEATS
from klik.words import words
from klik_hub.office import counting
from klik_hub.office.errors import NotFoundError
from klik_hub.office.players import CODE_ALPHABET, CODE_LENGTH
from klik_hub.office.results import reserve_of, seat_moves
from klik_hub.office.tally import Tallies, Tally
from klik_hub.office.tournaments import stages_of
from klik_hub.tournament import formats as f
from klik_hub.tournament import whereabouts as wh
from klik_hub.tournament.standings import Row

NO_PAGE = words("no player has this code; check the code on your badge")


def code_of(text: str) -> str | None:
    """The code ``text`` is, as the hub keeps it, or None if it could be no player's code
    (``players.new_code``): refused before the database is asked. A code is typed in either
    case (a phone's keyboard starts in lower case; issue 36): its alphabet has no two letters
    that differ only in case, so upper case is the code."""
    code = text.upper()
    return code if len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code) else None


def page(tallies: Tallies, code: str) -> dict[str, Any]:
    """The page of the player whose code is ``code``: NotFoundError if nobody's.

    ``{"name", "tournament", "tournament_id", "revision", "round", "table", "seat",
    "starts", "next", "games", "place", "notices", "checked_in", "check_in_open"}``:

    - ``revision``: the tournament's the page is of (``sql.tournaments.revision``);
    - ``round``, ``table``, ``seat``: where they sit now (``whereabouts``; null before their
      first draw); ``starts``: the seat that starts the first game at that table (null
      where the format draws it at the table);
    - ``next``: their ``{"round", "table", "seat"}`` in a round drawn after that one;
    - ``games``: every result they played, oldest first, with their seat's small and big
      points as it counts now and ``counts``; a game of a round whose results wait for its
      other tables (``release``) with null points, not counting yet;
    - ``place``: their place in the classification as the public sees it (null until a game
      of theirs counts);
    - ``notices``: what the judge changed about them, oldest first (``notices``);
    - ``checked_in``: whether they have checked in; ``check_in_open``: whether they may now
      (``checkin``).
    """
    return _mine(*_of(tallies, code))


def _mine(tally: Tally, player: int) -> dict[str, Any]:
    key = ("player", player)
    if key not in tally.memo:
        tally.memo[key] = of_player(tally, player)
    mine: dict[str, Any] = tally.memo[key]
    return mine


def page_json(
    tallies: Tallies, code: str, revision: Callable[[int], str | None] | None = None
) -> bytes:
    """``page`` as the JSON answered (UTF-8), made once per revision: a hall of phones asks
    for it in the same second after each result. ``revision``: the tournament's revision as
    the pages' feed knows it (``Tallies.at``), if it does."""
    return _json(*_of(tallies, code, revision))


def page_json_known(
    tallies: Tallies, code: str, revision: Callable[[int], str | None]
) -> bytes | None:
    """``page_json`` from memory alone, when ``revision`` says which revision the tournament
    has now and its tally is kept; else None (ask ``page_json``). For the phones' asking
    after each result: no thread, no database."""
    kept = code_of(code)
    found = None if kept is None else tallies.known(kept)
    if found is None:
        return None
    tid, player = found
    tally = tallies.cached(tid, revision(tid))
    return None if tally is None else _json(tally, player)


def tournament_known(tallies: Tallies, code: str) -> int | None:
    """The tournament of the player whose code is ``code``, from memory only (else None)."""
    kept = code_of(code)
    found = None if kept is None else tallies.known(kept)
    return None if found is None else found[0]


def _json(tally: Tally, player: int) -> bytes:
    key = ("player json", player)
    if key not in tally.memo:
        shown = json.dumps(_mine(tally, player), ensure_ascii=False, separators=(",", ":"))
        tally.memo[key] = shown.encode()
    answer: bytes = tally.memo[key]
    return answer


def _of(
    tallies: Tallies, code: str, revision: Callable[[int], str | None] | None = None
) -> tuple[Tally, int]:
    """The tally of the tournament of the player whose code is ``code``, and the player."""
    kept = code_of(code)
    found = None if kept is None else tallies.player(kept)
    if found is None:
        raise NotFoundError(NO_PAGE)
    tid, player = found
    return tallies.at(tid, None if revision is None else revision(tid)), player


@dataclass
class _Index:
    """Who is where in a tally, worked out once per revision for all its players' pages: a
    hall's 256 phones each ask for their own page after every result, and each page
    scanning every result would cost the hub's loop a square of the hall (issue 36)."""

    seats: dict[int, list[tuple[counting.Counted, str]]]  # seats played or credited, in order
    played: dict[int, list[counting.Counted]]  # results the player's name is on, in order
    ranked: dict[int, Row]  # the player's first row in the classification
    events: dict[int, list[Any]]  # the judge's events naming the player, oldest first
    stages: dict[int, str]  # each drawn round's stage


def _index(tally: Tally) -> _Index:
    if "index" in tally.memo:
        kept: _Index = tally.memo["index"]
        return kept
    seats: dict[int, list[tuple[counting.Counted, str]]] = defaultdict(list)
    played: dict[int, list[counting.Counted]] = defaultdict(list)
    for x in tally.listed:
        for seat in x.now.small:
            for player in dict.fromkeys((_played_by(x, seat), x.credit[seat])):
                if player is not None:
                    seats[player].append((x, seat))
        for player in dict.fromkeys(x.now.players.values()):
            if player is not None:
                played[player].append(x)
    ranked: dict[int, Row] = {}
    for r in tally.ranked:
        ranked.setdefault(r.player, r)
    events: dict[int, list[Any]] = defaultdict(list)
    for e in tally.events:
        events[e.player_no].append(e)
    index = _Index(seats, played, ranked, events, {x.round_no: x.stage for x in tally.drawn})
    tally.memo["index"] = index
    return index


def of_player(tally: Tally, player: int) -> dict[str, Any]:
    """Player ``player``'s page in ``tally`` (see ``page``)."""
    index = _index(tally)
    owing = tally.owing
    rounds = [(x.round_no, x.tables) for x in tally.sitting]  # a reserve where they sit
    now, then = wh.now_and_next(player, rounds, owing)
    starts = None
    if now is not None:
        kept = next(x for x in tally.drawn if x.round_no == now.round_no)
        seats = SEATS[: len(kept.tables[now.table - 1])]
        starts = wh.first_starter(f.load_format(tally.row.format).starter(tally.row.rules), seats)
    mine = index.ranked.get(player)
    return {
        "name": tally.names.get(player, ""),
        "tournament": tally.row.name,
        "tournament_id": tally.tid,
        "revision": tally.revision,
        "round": None if now is None else now.round_no,
        "table": None if now is None else now.table,
        "seat": None if now is None else now.seat,
        "starts": starts,
        "next": None if then is None else _spot(then),
        "games": [
            _game(x, seat, player, x.round_no in tally.held, names=tally.names, stages=index.stages)
            for x, seat in index.seats.get(player, [])
        ],
        "place": mine.place if mine is not None and mine.placed else None,
        "stage": mine.stage or None if mine is not None and mine.placed else None,
        "notices": notices(tally, player),
        "checked_in": player in tally.checked_in,
        "stages": stages_of(tally.row.format),
        "check_in_open": tally.row.check_in == "open",
    }


# The judge's events a player is told of on their page (``sql.events``' kinds).
TOLD = ("rename", "withdraw", "reinstate", "warning", "deduction", "exclusion")


def notices(tally: Tally, player: int) -> list[dict[str, Any]]:
    """What the judge changed about ``player``, oldest first: ``{"at", "kind", "round",
    "game", "table", "big"}``. ``kind`` is one of ``TOLD`` (the judge's events that name the
    player) or ``correction`` (a correction to a result the player played, as it counts
    now: ``round``, ``game`` and ``table`` its slot's; none to a result of a round held,
    ``release``); ``big`` the points a deduction took. The judge's reasons stay on the
    console: the judge tells the player."""
    index = _index(tally)
    told = [
        {"at": x.at, "kind": x.kind, "round": None, "game": None, "table": None,
         "big": tally.deductions.get(x.id)}
        for x in index.events.get(player, [])
        if x.kind in TOLD
    ]  # fmt: skip
    played = {x.row.id: x for x in index.played.get(player, []) if x.round_no not in tally.held}
    for c in tally.corrections:
        x = played.get(c.result_id)
        if x is None:
            continue
        told.append({"at": c.at, "kind": "correction", **_where(x), "big": None})
    return sorted(told, key=lambda n: str(n["at"]))


def _spot(spot: wh.Spot) -> dict[str, Any]:
    return {"round": spot.round_no, "table": spot.table, "seat": spot.seat}


def _game(
    x: counting.Counted,
    seat: str,
    player: int,
    waiting: bool,
    *,
    names: dict[int, str],
    stages: dict[int, str],
) -> dict[str, Any]:
    """``player``'s ``seat`` of result ``x`` as it counts now: where it was played
    (``_where``), the seat, small and big points, and how they moved (``results.seat_moves``:
    null from an older table). ``waiting``: its round's results wait for its other tables
    (``release``): no points, and it does not count yet. A seat a reserve played
    (``reserve``) is the reserve's game and, where it counts for them, the player's who left;
    it counts only for whom the format says. ``stages``: each drawn round's stage."""
    where = _where(x)
    return {
        **where,
        "stage": stages.get(where["round"]),
        "seat": seat,
        "small": None if waiting else x.now.small[seat],
        "big": None if waiting else x.now.big[seat],
        "counts": not waiting
        and x.now.counts
        and x.placed.slot is not None
        and x.credit[seat] == player,
        "moves": seat_moves(x.body, seat),
        "reserve": reserve_of(x, seat, names),
    }


def _played_by(x: counting.Counted, seat: str) -> int | None:
    """Who played ``seat`` of result ``x``: its reserve, or the player its result names."""
    r = x.reserves.get(seat)
    return x.now.players[seat] if r is None else r.reserve


def _where(x: counting.Counted) -> dict[str, Any]:
    """Result ``x``'s round, game and table: its slot's, or those the result names while it
    fills none."""
    slot = x.placed.slot
    named = x.body.get("round_game")
    return {
        "round": x.round_no if slot is None else slot.round_no,
        "game": (named if type(named) is int else None) if slot is None else slot.game,
        "table": x.row.table_no if slot is None else slot.table,
    }
