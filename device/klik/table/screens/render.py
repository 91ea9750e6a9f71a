"""The seat screens: a seat's view drawn as a 128×64 one-bit picture (white = lit pixel).

The daemon calls ``render(view)`` when a seat's view changes and hands the picture to the
panel, whose driver (luma's ``rotate``) turns it to face the player; the virtual table calls
``render`` too and shows the picture turned with ``oriented``. Rendering is pure: equal views
give equal pictures. The fonts ship in ``fonts/`` (DejaVu Sans Condensed, which has the Polish
letters) and text is laid out with Pillow's basic engine and drawn without anti-aliasing, so
the golden PNGs in ``tests/golden/`` do not depend on whether libraqm is installed.

Theory of operation: a screen is a stack of blocks (the header, a line of text, the big clock,
the result table), each with a priority (``keep``, lower is kept longer). Blocks that do not
fit in 64 rows are dropped, least important first, and the rows left over are shared out as
gaps between the blocks. Text never leaves its cell: ``fit`` shrinks it, then cuts it with "…".
Alerts rank with the screen's main block (the clock, the sum, the table), which comes before
them, so the main block and at least the first alert are always on screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from io import BytesIO
from math import ceil

from PIL import Image, ImageDraw, ImageFont
from PIL.Image import Transpose as Turn

from klik.table.screens.view import STEPS, Alert, AlertKind, Delivery, Screen, SeatScore, SeatView
from klik.words import N_, catalogue

WIDTH, HEIGHT = 128, 64
TICK = "✓"  # drawn by hand: see _split_ticks

#: The screens' words are in the catalogue (``klik.words``); a screen gets gettext for its
#: seat's language. These tables pick a message by what the view says; ``N_`` only marks
#: each for extraction, and the screen translates it when it draws.
Say = Callable[[str], str]

ALERTS: Mapping[AlertKind, str] = {
    AlertKind.STUCK: N_("Button {seat} stuck"),
    AlertKind.PANEL: N_("Screen {seat} out"),
    AlertKind.HUB: N_("Hub unreachable"),
    AlertKind.PAIRING: N_("Pairing code {text}"),
    AlertKind.PAIRED: N_("Table {text} · connected"),
    AlertKind.SEEKING: N_("Looking for the hub…"),
    # One line of 128 px: "Karta pełna — wezwij sędziego" would be cut after "wezwij s".
    AlertKind.CARD_FULL: N_("Card full — call the judge"),
    AlertKind.CARD_READ_ONLY: N_("Card read-only — judge"),
    AlertKind.CARD_NO_PERMISSION: N_("Card error — judge"),
    AlertKind.POWER: N_("Power failing!"),
}
PAUSED_BY: Mapping[str, str] = {
    "judge": N_("Judge's pause"),
    "hub": N_("Paused by the hub"),
    "recovery": N_("After a power cut"),
    "seat": N_("Judge called by {seat}"),
}
UNDONE_BY: Mapping[str, str] = {
    "judge": N_("Judge took back {seat}'s move"),
    "hub": N_("Hub took back {seat}'s move"),
}
DELIVERY: Mapping[Delivery, str] = {
    Delivery.KEPT: N_("Result stored"),
    Delivery.SENDING: N_("Sending…"),
    Delivery.SENT: N_("Sent ✓ {receipt}"),
    Delivery.CONFLICT: N_("Result conflict — judge"),
    Delivery.UNREACHABLE: N_("Hub down — stored"),
    Delivery.REFUSED: N_("Result refused: game {game}"),
    Delivery.UNSAVED: N_("Result NOT stored!"),
    Delivery.UNPAIRED: N_("Pair the table again"),
    Delivery.STRANDED: N_("Old number's result — judge"),
    Delivery.SERVER_ERROR: N_("Hub: server error"),
    Delivery.BAD_CERTIFICATE: N_("Wrong hub certificate"),
}
#: More than one result waits for the hub: the count instead of the plain word.
DELIVERY_WAITING: Mapping[Delivery, str] = {
    Delivery.KEPT: N_("Stored, {n} waiting"),
    Delivery.UNREACHABLE: N_("Hub down — {n} waiting"),
}

Font = ImageFont.FreeTypeFont
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, the far edges excluded


@dataclass(frozen=True, slots=True)
class Style:
    """A font weight and the sizes (pixels per em) ``fit`` may use, largest first."""

    bold: bool
    sizes: tuple[int, ...]


# Regular 11 px is the smallest size whose hinted glyphs keep their spacing in one bit.
SMALL = Style(bold=False, sizes=(11,))
BOLD = Style(bold=True, sizes=(10,))  # the final round: stands out, as wide as SMALL
MEDIUM = Style(bold=True, sizes=(16, 14, 12))
BIG = Style(bold=True, sizes=(30, 26, 22, 18))  # the mover's clock and the rack sum
# The large screens' one number (issue 40): digits as tall as the panel allows beside one
# line of words; "0:37" is 118 px wide at 52 px, "10:00" fits at 44.
HUGE = Style(bold=True, sizes=(52, 48, 44, 40, 36))

# A line's height and baseline in rows; a line may reach a few rows into its neighbours
# (accents above, descenders below) because the gaps between blocks make room for them.
_LINE = {SMALL: (11, 10), BOLD: (11, 10), MEDIUM: (17, 15), BIG: (25, 24), HUGE: (41, 40)}
# The same, black on a lit bar: the bar must hold the descenders, or they vanish.
_LIT = {SMALL: (13, 10), BOLD: (13, 10), MEDIUM: (20, 16), BIG: (28, 25), HUGE: (44, 41)}
_ANCHOR = {"l": "ls", "m": "ms", "r": "rs"}  # which end of the text sits at x; y is the baseline
_FILES = {False: "DejaVuSansCondensed.ttf", True: "DejaVuSansCondensed-Bold.ttf"}


@cache
def font(bold: bool, size: int) -> Font:
    """The shipped font at ``size`` pixels per em, read from the package once per size."""
    data = BytesIO(
        resources.files("klik.table.screens").joinpath("fonts", _FILES[bold]).read_bytes()
    )
    return ImageFont.truetype(data, size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)  # the same names and labels are measured every second
def text_width(text: str, f: Font) -> int:
    """Pixels ``text`` covers, counting glyphs that reach past their advance."""
    if not text:
        return 0
    left, _, right, _ = f.getbbox(text, anchor="ls")
    return int(max(right, ceil(f.getlength(text))) - min(left, 0))


def fit(text: str, style: Style, width: int) -> tuple[str, Font]:
    """``text`` and the font to draw it in within ``width`` pixels: the largest size of
    ``style`` that fits, else the smallest with the text cut and ended with "…"."""
    for size in style.sizes:
        f = font(style.bold, size)
        if text_width(text, f) <= width:
            return text, f
    while text and text_width(text.rstrip() + "…", f) > width:
        text = text[:-1]
    return (text.rstrip() + "…" if text else ""), f


@dataclass(frozen=True, slots=True)
class Cell:
    """Text in a block: its ``align`` end ("l", "m", "r") sits at ``x`` on row ``baseline``
    of the block, and it may take ``width`` pixels."""

    text: str
    style: Style = SMALL
    x: int = 0
    baseline: int = 10
    align: str = "l"
    width: int = WIDTH
    boxed: bool = False  # black on a lit box just around the text: a badge, the warning clock
    dark: bool = False  # black, on a bar the block lights


@dataclass(frozen=True, slots=True)
class Block:
    cells: tuple[Cell, ...]
    height: int  # rows to the next block before gaps are added
    keep: int  # lower is kept longer: -1 the header, 0 alerts and the screen's main block
    bars: tuple[Box, ...] = ()  # lit rectangles in the block's rows


@dataclass(frozen=True, slots=True)
class Drawn:
    """A text as ``render`` draws it: Pillow's ``anchor`` point of it is at (x, y)."""

    text: str
    font: Font
    x: int
    y: int
    anchor: str
    fill: int

    @property
    def box(self) -> Box:
        """The pixels the text covers, for tests that check it stays on the screen."""
        left, top, right, bottom = map(int, self.font.getbbox(self.text, anchor=self.anchor))
        return (self.x + left, self.y + top, self.x + right, self.y + bottom)


@dataclass(frozen=True, slots=True)
class Layout:
    bars: tuple[Box, ...]  # lit first
    texts: tuple[Drawn, ...]  # then drawn on top


def _line(text: str, keep: int, style: Style = SMALL, align: str = "m", lit: bool = False) -> Block:
    """One line across the screen; ``lit`` draws it black on a bar, for what must catch the eye."""
    height, baseline = (_LIT if lit else _LINE)[style]
    x = {"l": 0, "m": WIDTH // 2, "r": WIDTH}[align]
    cell = Cell(text, style, x, baseline, align, WIDTH - 4 if lit else WIDTH, dark=lit)
    return Block((cell,), height, keep, ((0, 0, WIDTH, height),) if lit else ())


def _clock(seconds: int | None) -> str:
    """m:ss, as on a chess clock."""
    return "-:--" if seconds is None else f"{seconds // 60}:{seconds % 60:02d}"


def _signed(points: int) -> str:
    # A real minus sign: the hyphen is too short to read on a 1-bit screen.
    return f"+{points}" if points > 0 else f"−{-points}" if points < 0 else "0"


def _header(v: SeatView, _: Say, title: str | None = None) -> Block:
    """Table and game on the left (in full where it fits beside the name), or ``title``
    instead; this seat's letter, as a badge, and its player's name on the right. Taller than
    a line so accented capitals keep their accents on row 0."""
    f = font(False, SMALL.sizes[0])
    badge = text_width(v.seat, f) + 8  # the badge's box and the gap before it
    name_width = text_width(v.name, f) + 4 if v.name else 0
    if title is None:
        left = _("Table {table} · Game {game}").format(table=v.table, game=v.game_no)
        if text_width(left, f) + badge + name_width > WIDTH:
            left = _("T.{table} G{game}").format(table=v.table, game=v.game_no)
        left, f = fit(left, SMALL, WIDTH - badge - 2)
    else:
        left, f = fit(title, SMALL, WIDTH - badge - 2)
    badge_x = text_width(left, f) + 6  # the badge box reaches 2 px left of its text
    name, f = fit(v.name, SMALL, WIDTH - badge_x - text_width(v.seat, f) - 6)
    if title is not None and name != v.name:
        name = ""  # the title comes first; a cut name says nothing
    badge_x = WIDTH - text_width(name, f) - (4 if name else 2)
    cells = (
        Cell(left, baseline=11),
        Cell(v.seat, x=badge_x, baseline=11, align="r", boxed=True, width=12),
        Cell(name, x=WIDTH, baseline=11, align="r"),
    )
    return Block(cells, 12, keep=-1)


def _alert(alert: Alert, _: Say) -> Block:
    said = _(ALERTS[alert.kind]).format(seat=alert.seat or "", text=alert.text)
    return _line(said, 0, lit=True)


def _ready(v: SeatView, _: Say) -> list[Block]:
    if v.draw_starter:  # 001: whoever drew the highest tile starts; they say so by holding
        return [
            _line(_("The highest tile"), 0, MEDIUM),
            _line(_("starts the game:"), 0, MEDIUM),
            _line(_("hold your button 1 s"), 1, lit=True),
        ]
    name = v.mover_name if v.mover == v.starter else ""
    starts = _("Starts: {seat} {name}").format(seat=v.starter or "", name=name).rstrip()
    # The round's time ran out before the start: the game is one final round (000 o).
    final = _time_up(_) if v.final_round else []
    if v.seat == v.opener:
        return [_line(starts, 0, MEDIUM), _line(_("Press to start"), 1, lit=True), *final]
    return [_line(starts, 0, MEDIUM), _line(_("Waiting for the start"), 1), *final]


def _status(v: SeatView, _: Say) -> list[Block]:
    """The lines every seat sees while the game runs: why the final round came, then the
    pile, and beside it the round's time left while the hub's round clock runs (a pile that
    ran out says so in the first line instead)."""
    if v.round_left is None:
        said = _("Pile: {n}").format(n=v.tiles_left)
    else:
        said = _("Pile: {n} · round {time}").format(n=v.tiles_left, time=_clock(v.round_left))
    pile = [_line(said, 3)]
    if not v.final_round:
        return pile
    if v.tiles_left == 0:
        return [_line(_("The pile is empty —"), 2), _line(_("FINAL ROUND"), 2, BOLD)]
    return [*_time_up(_), *pile]


def _time_up(_: Say) -> list[Block]:
    return [_line(_("Round time is up —"), 2), _line(_("FINAL ROUND"), 2, BOLD)]


def _calling(v: SeatView, _: Say) -> list[Block]:
    """A seat holding its button to call the judge: a bar fills over the 2 s, so nobody lets
    go a moment too soon."""
    if v.calling is None:
        return []
    bar = (0, 12, round(WIDTH * v.calling / STEPS), 16)
    frame = (0, 16, WIDTH, 17)
    cell = Cell(_("Calling the judge…"), SMALL, WIDTH // 2, 10, "m")
    return [Block((cell,), 17, keep=0, bars=(bar, frame))]


def _called(v: SeatView, _: Say) -> list[Block]:
    """A seat called the judge (000 s, 004 17): every screen says who, lit; the mover is told
    to finish the move, the caller how to withdraw. The clock stops once the move ends."""
    if v.called_by is None:
        return []
    if v.is_mover:
        return [_line(_("{seat}: judge! Finish the move").format(seat=v.called_by), 1, lit=True)]
    said = [_line(_("{seat} calls the judge").format(seat=v.called_by), 1, lit=True)]
    return [*said, _line(_("tap = withdraw"), 2)] if v.seat == v.called_by else said


def _move(v: SeatView, _: Say) -> list[Block]:
    time = _clock(v.seconds_left)
    if v.is_mover:
        # In the last seconds the clock is drawn black on a lit bar: seen from the side too.
        clock = _line(time, 0, BIG, lit=v.warn)
        if v.first_round:  # every seat's first move: how to end it
            # Kept after the final round's lines but before the pile's.
            hints = [_line(_("tap = done"), 3), _line(_("hold = draw a tile"), 3)]
            return [clock, *_called(v, _), *hints, *_status(v, _)]
        return [clock, *_called(v, _), *_status(v, _)]
    move = _line(_("Move: {seat} {time}").format(seat=v.mover or "", time=time), 0, MEDIUM)
    name = [_line(v.mover_name, 4)] if v.mover_name else []
    return [move, *_called(v, _), *name, *_status(v, _), *_calling(v, _)]


def _timed_out(v: SeatView, _: Say) -> list[Block]:
    if v.is_mover:
        return [
            _line(_("TIME IS UP"), 0, MEDIUM),
            _line(_("Restore the table:"), 3, align="l"),
            _line(_("tap = no draw"), 2, align="l"),
            _line(_("hold = penalty +{n}").format(n=v.penalty_tiles), 2, align="l"),
        ]
    restoring = _line(_("{seat} restores the table").format(seat=v.mover or ""), 2)
    name = [_line(v.mover_name, 4)] if v.mover_name else []
    timed_out = _line(_("TIME IS UP"), 0, MEDIUM, lit=True)
    return [timed_out, *_called(v, _), restoring, *name, *_status(v, _), *_calling(v, _)]


def _paused(v: SeatView, _: Say) -> list[Block]:
    by = v.paused_by or ""
    kind = by if by in ("judge", "hub", "recovery") else "seat"
    stopped = f"{v.mover or ''} {_clock(v.seconds_left)}".strip()
    paused = Cell(_("PAUSE"), MEDIUM, 2, 15, boxed=True, width=WIDTH // 2)
    head = Block((paused, Cell(stopped, MEDIUM, WIDTH, 15, align="r", width=56)), 17, keep=0)
    why = _(PAUSED_BY[kind]).format(seat=by)
    if v.undone and kind in UNDONE_BY:
        why = _(UNDONE_BY[kind]).format(seat=v.mover or "")
    blocks = [head, _line(why, 2)] if by else [head]
    if kind == "recovery" and v.is_mover:
        blocks.append(_line(_("Press to resume"), 2, lit=True))
    elif by == v.seat:
        blocks.append(_line(_("Tap to cancel the call"), 2))
    elif v.mover_name:
        blocks.append(_line(f"{v.mover} {v.mover_name}", 4))
    return blocks


def _count_title(v: SeatView, _: Say) -> str:
    """Who went out, or that the game is over: every seat sees it through the count."""
    if v.ending == "rummikub" and v.winner:
        return _("Rummikub! {seat} · {name}").format(seat=v.winner, name=v.winner_name).rstrip(" ·")
    return _("Game over")


def _scoring(v: SeatView, _: Say) -> list[Block]:
    # The sum, large, on the left and the four gestures beside it: both fit only side by side.
    hints = (_("tap +1"), _("hold +10"), _("tap, hold −10"), _("2× tap = OK"))
    cells = (
        Cell(str(v.rack), BIG, 20, 32, align="m", width=40),
        *(Cell(h, x=42, baseline=8 + 10 * i, width=WIDTH - 42) for i, h in enumerate(hints)),
    )
    if v.refused:
        # The seat double-tapped 0 and did not go out: why it was not confirmed, lit where
        # "Rack total:" stands, until the sum changes (``klik.core.game``, Why.EMPTY_RACK).
        return [_line(_("At least 1 tile is left"), 1, lit=True), Block(cells, 38, keep=0)]
    # A joker counts 50 as players know it (000 m); a set that counts it otherwise says so.
    said = _("Rack total:") if v.joker == 50 else _("Rack, joker {n}:").format(n=v.joker)
    return [_line(said, 2, align="l"), Block(cells, 38, keep=0)]


def _waiting(v: SeatView, _: Say) -> list[Block]:
    if v.seat == v.winner:
        blocks = [_line(_("You won!"), 0, MEDIUM)]
    elif v.penalty is not None:
        blocks = [
            _line(_("Not opened"), 0, MEDIUM),
            _line(_("penalty {points}, no count").format(points=_signed(v.penalty)), 1),
        ]
        if v.waiting_for:
            blocks.append(
                _line(_("Waiting for: {seats}").format(seats=", ".join(v.waiting_for)), 1)
            )
        return blocks
    else:
        blocks = [_line(_("Confirmed: {n}").format(n=v.rack), 0, MEDIUM)]
    if v.waiting_for:
        blocks.append(_line(_("Waiting for: {seats}").format(seats=", ".join(v.waiting_for)), 1))
        if v.seat != v.winner:
            blocks.append(_line(_("2× tap = correct"), 2))
    return blocks


def _reason(v: SeatView, _: Say, own: SeatScore) -> str:
    """Why this seat got its small points, in a few words."""
    if v.ending == "rummikub":
        if own.place == 1 and own.rack == 0 and own.small >= 0:
            return _("Rummikub — won")
        if not own.opened:
            return _("not opened: {points}").format(points=_signed(own.small))
        return _("on the rack: {rack}").format(rack=own.rack)
    low = min((s.rack for s in v.scores if s.place == 1), default=own.rack)
    if own.place == 1:
        return _("lowest total: {rack}").format(rack=own.rack)
    return _("rack {rack} − {low}").format(rack=own.rack, low=low)


def _result(v: SeatView, _: Say) -> list[Block]:
    """This seat's small points and place, large, with why; a tap shows the whole table."""
    if v.whole_table:
        return _whole_table(v, _)
    own = next((s for s in v.scores if s.seat == v.seat), None)
    if own is None:
        return _whole_table(v, _)
    row = Block(
        (
            Cell(_signed(own.small), MEDIUM, 2, 15, "l", width=46),  # "−100": 42 px
            Cell(_("place {n}").format(n=own.place), MEDIUM, WIDTH, 15, "r", width=WIDTH - 48),
        ),
        17,
        keep=0,
    )
    return [
        row,
        _line(_reason(v, _, own), 1),
        _line(_delivery(v, _), 1),
        _line(_("tap = whole table"), 3),
    ]


def _whole_table(v: SeatView, _: Say) -> list[Block]:
    """Every seat's small points, big points and place under labelled columns, 10 rows
    apart (four seats, the header and the labels just fit), this seat's row lit."""
    labels = Block(
        (
            Cell(_("small"), x=52, baseline=9, align="r", width=48),
            Cell(_("big"), x=86, baseline=9, align="r", width=32),
            Cell(_("place"), x=WIDTH, baseline=9, align="r", width=40),
        ),
        11,
        keep=1,  # an alert comes first
    )
    cells: list[Cell] = []
    bars: list[Box] = []
    for i, s in enumerate(v.scores):
        own = s.seat == v.seat
        if own:
            bars.append((0, 10 * i, WIDTH, 10 * i + 10))
        row = [(s.seat, 2, "l"), (_signed(s.small), 52, "r"), (str(s.big), 86, "r")]
        row += [(f"{s.place}.", WIDTH - 4, "r")] if s.place else []
        cells += [
            Cell(text, x=x, baseline=10 * i + 9, align=a, width=40, dark=own) for text, x, a in row
        ]
    rows = Block(tuple(cells), max(10 * len(v.scores) - 1, 22), keep=0, bars=tuple(bars))
    return [labels, rows, _line(_delivery(v, _), 2)]


def _delivery(v: SeatView, _: Say) -> str:
    """Where the result is: sent with the hub's receipt, or kept and how many results wait."""
    said = DELIVERY_WAITING.get(v.delivery) if v.waiting > 1 else None
    said = said or DELIVERY[v.delivery]
    return _(said).format(receipt=v.receipt or "", n=v.waiting, game=v.game_no).rstrip()


def _free(v: SeatView, _: Say) -> list[Block]:
    """A seat the round's table of 3 leaves empty: nobody should wait for it."""
    return [_line(_("Free seat"), 2, MEDIUM), _line(_("in this game"), 1)]


_BODIES: dict[Screen, Callable[[SeatView, Say], list[Block]]] = {
    Screen.READY: _ready,
    Screen.MOVE: _move,
    Screen.TIMED_OUT: _timed_out,
    Screen.PAUSED: _paused,
    Screen.SCORING: _scoring,
    Screen.WAITING: _waiting,
    Screen.RESULT: _result,
    Screen.FREE: _free,
}


@dataclass(frozen=True, slots=True)
class _Part:
    """A block made real: its bars and texts with rows counted from the block's top, and
    the rows its pixels span, which may stick out of its height."""

    block: Block
    bars: list[Box]
    texts: list[Drawn]
    top: int
    bottom: int


@lru_cache(maxsize=1024)
def _realise(block: Block) -> _Part:
    # Cached: from one second to the next only the clock's block changes; measuring the
    # others again was most of the daemon's CPU time per minute.
    bars, texts = list(block.bars), []
    for c in block.cells:
        text, f = fit(c.text, c.style, c.width - (4 if c.boxed else 0))
        drawn = Drawn(text, f, c.x, c.baseline, _ANCHOR[c.align], 0 if c.boxed or c.dark else 1)
        left, _, right, _ = drawn.box  # a glyph may reach past its cell: "T" at x = 0 does
        nudge = max(0, (2 if c.boxed else 0) - left) - max(0, right - WIDTH)
        drawn = Drawn(text, f, c.x + nudge, c.baseline, drawn.anchor, drawn.fill)
        if c.boxed and text:
            left, top, right, bottom = drawn.box
            bars.append((left - 2, top - 1, right + 2, bottom + 1))
        texts += _split_ticks(drawn) if text else []
    boxes = [*bars, *(d.box for d in texts)]
    top = min([0] + [b[1] for b in boxes])
    return _Part(block, bars, texts, top, max([block.height] + [b[3] for b in boxes]))


def _split_ticks(d: Drawn) -> list[Drawn]:
    """``d`` in pieces around each ✓, so that ``_draw`` can draw the ✓ itself: the font's
    ✓ at 11 px is a thin slash on a one-bit screen."""
    if TICK not in d.text:
        return [d]
    left = d.box[0] - int(d.font.getbbox(d.text, anchor="ls")[0])  # x of the text's start
    pieces, start = [], 0
    for part in re.split(f"({TICK})", d.text):
        x = left + round(d.font.getlength(d.text[:start]))
        pieces += [Drawn(part, d.font, x, d.y, "ls", d.fill)] if part else []
        start += len(part)
    return pieces


def _stack(blocks: list[Block]) -> Layout:
    """Blocks top to bottom, dropping the least kept until they fit, spreading the spare rows."""
    parts = [_realise(b) for b in blocks]

    def needed() -> int:  # the first block's accents and the last one's descenders count
        return -parts[0].top + sum(p.block.height for p in parts[:-1]) + parts[-1].bottom

    while len(parts) > 1 and needed() > HEIGHT:
        del parts[max(range(len(parts)), key=lambda i: (parts[i].block.keep, i))]
    spare, gaps = HEIGHT - needed(), max(len(parts) - 1, 1)
    bars: list[Box] = []
    texts: list[Drawn] = []
    y = -parts[0].top
    for i, part in enumerate(parts):
        bars += [(x0, y + y0, x1, y + y1) for x0, y0, x1, y1 in part.bars]
        texts += [Drawn(d.text, d.font, d.x, y + d.y, d.anchor, d.fill) for d in part.texts]
        y += part.block.height + spare // gaps + (i < spare % gaps)
    return Layout(tuple(bars), tuple(texts))


# --- the large screens (issue 40) --------------------------------------------------------
# For a player who cannot read 11 px text: while a move runs, the time left in digits filling
# the panel and the state in one line of large words, nothing else; the count and the result
# as one large number with its word. No header: the table and the names are on the start's
# screen. The alerts still come (the main block first), and so does a judge's call.


def _large_move(v: SeatView, _: Say) -> list[Block]:
    clock = _line(_clock(v.seconds_left), 0, HUGE, lit=v.warn)
    word = _("YOUR MOVE") if v.is_mover else _("Move: {seat}").format(seat=v.mover or "")
    return [clock, *_called(v, _), _line(word, 1, MEDIUM), *_calling(v, _)]


def _large_timed_out(v: SeatView, _: Say) -> list[Block]:
    word = _("hold = +{n}").format(n=v.penalty_tiles) if v.is_mover else _("TIME IS UP")
    return [_line(_clock(0), 0, HUGE, lit=True), *_called(v, _), _line(word, 1, MEDIUM)]


def _large_paused(v: SeatView, _: Say) -> list[Block]:
    return [_line(_clock(v.seconds_left), 0, HUGE), _line(_("PAUSE"), 1, MEDIUM, lit=True)]


def _large_scoring(v: SeatView, _: Say) -> list[Block]:
    if v.refused:
        said = _line(_("At least 1 tile"), 1, MEDIUM, lit=True)
    else:
        said = _line(_("Rack:") if v.joker == 50 else _("Joker {n}:").format(n=v.joker), 1, MEDIUM)
    return [said, _line(str(v.rack), 0, HUGE)]


def _large_waiting(v: SeatView, _: Say) -> list[Block]:
    if v.seat == v.winner:
        return [_line(_("You won!"), 0, MEDIUM), _line("0", 1, HUGE)]
    if v.penalty is not None:
        return [_line(_("Not opened"), 1, MEDIUM), _line(_signed(v.penalty), 0, HUGE)]
    return [_line(_("Confirmed:"), 1, MEDIUM), _line(str(v.rack), 0, HUGE)]


def _large_result(v: SeatView, _: Say) -> list[Block]:
    own = next((s for s in v.scores if s.seat == v.seat), None)
    if v.whole_table or own is None:  # the seat asked for every seat's points: as small
        return _whole_table(v, _)
    place = _line(_("place {n}").format(n=own.place), 1, MEDIUM)
    return [_line(_signed(own.small), 0, HUGE), place]


_LARGE: dict[Screen, Callable[[SeatView, Say], list[Block]]] = {
    Screen.MOVE: _large_move,
    Screen.TIMED_OUT: _large_timed_out,
    Screen.PAUSED: _large_paused,
    Screen.SCORING: _large_scoring,
    Screen.WAITING: _large_waiting,
    Screen.RESULT: _large_result,
}


def layout(view: SeatView) -> Layout:
    """Where ``render`` puts every bar and text of ``view``'s screen; tests measure it."""
    _ = catalogue(view.language).gettext
    alerts = [_alert(alert, _) for alert in view.alerts]
    if view.large and view.screen in _LARGE:
        return _stack([*_LARGE[view.screen](view, _), *alerts])
    counting = view.screen in (Screen.SCORING, Screen.WAITING)
    header = _header(view, _, _count_title(view, _) if counting else None)
    return _stack([header, *_BODIES[view.screen](view, _), *alerts])


def _draw(drawing: Layout) -> Image.Image:
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # no anti-aliasing: a one-bit panel would show grey as noise
    for x0, y0, x1, y1 in drawing.bars:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=1)
    for d in drawing.texts:
        if d.text == TICK:
            x0, y0, x1, y1 = d.box
            tick = [(x0, y1 - 4), (x0 + 2, y1 - 2), (x1 - 2, y0)]
            draw.line(tick, fill=d.fill)
            draw.line([(x + 1, y) for x, y in tick], fill=d.fill)  # two pixels wide
        else:
            mask, (left, top) = _glyphs(d.text, d.font, d.anchor)
            x, y = d.x + left, d.y + top
            image.paste(d.fill, (x, y, x + mask.width, y + mask.height), mask)
    return image


@lru_cache(maxsize=1024)
def _glyphs(text: str, f: Font, anchor: str) -> tuple[Image.Image, tuple[int, int]]:
    """``text`` drawn once in one-bit pixels, and where its box sits from the anchor point.

    Cached: the same names, labels and digits are drawn again every second."""
    left, top, right, bottom = map(int, f.getbbox(text, anchor=anchor))
    mask = Image.new("1", (max(1, right - left), max(1, bottom - top)), 0)
    draw = ImageDraw.Draw(mask)
    draw.fontmode = "1"
    draw.text((-left, -top), text, fill=1, font=f, anchor=anchor)
    return mask, (left, top)


def render(view: SeatView) -> Image.Image:
    """``view``'s screen: 128×64, mode "1", unturned. Called by the daemon and the virtual table."""
    return _draw(layout(view))


def render_text_sample(text: str) -> Image.Image:
    """``text`` in each style the screens use, small to big, each fitted to the width: the
    golden test of the font's Polish letters."""
    return _draw(_stack([_line(text, 0, style, align="l") for style in (SMALL, BOLD, MEDIUM)]))


def oriented(image: Image.Image, rotate: int) -> Image.Image:
    """``image`` turned as luma's ``rotate`` turns it for the panel: ``rotate`` quarter turns
    clockwise (0..3). The virtual table shows each seat's screen this way."""
    turn = (None, Turn.ROTATE_270, Turn.ROTATE_180, Turn.ROTATE_90)[rotate % 4]
    return image.copy() if turn is None else image.transpose(turn)
