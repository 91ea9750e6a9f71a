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

from klik.table.view import Language, Screen, SeatView

WIDTH, HEIGHT = 128, 64
COLUMN = 67  # RESULT: where the ending starts, right of the points
TICK = "✓"  # drawn by hand: see _split_ticks

PL: dict[str, str] = {
    "header": "St.{table} G{game}",
    "starts": "Zaczyna: {seat} {name}",
    "press_to_start": "Naciśnij, by zacząć",
    "wait_start": "Czekamy na start",
    "move": "Ruch: {seat} {time}",
    "pile": "Pula: {n}",
    "final": "OSTATNIA RUNDA",
    "timed_out": "CZAS MINĄŁ",
    "restore": "Przywróć stół:",
    "restore_tap": "klik = bez dobierania",
    "restore_hold": "trzymaj = kara",
    "restoring": "{seat} przywraca stół",
    "paused": "PAUZA",
    "by_seat": "Sędzia wezwany przez {seat}",
    "by_judge": "Pauza sędziego",
    "by_hub": "Pauza z huba",
    "by_recovery": "Po awarii zasilania",
    "press_to_resume": "Naciśnij, by wznowić",
    "press_to_withdraw": "Klik odwołuje wezwanie",
    "rack_sum": "Suma na stojaku:",
    "hint_tap": "klik +1",
    "hint_hold": "trzymaj +10",
    "hint_double": "2× klik OK",
    "confirmed": "Zatwierdzono: {n}",
    "waiting_for": "Czekamy na: {seats}",
    "rummikub": "Rummikub!",
    "exhausted": "Pula wyczerpana",
    "kept": "Wynik zapisany",
    "sending": "Wysyłanie…",
    "sent": "Wysłano ✓ {receipt}",
    "unreachable": "Brak huba — zapisany",  # "Hub nieosiągalny — …" is wider than the screen
    "kept_n": "Zapisany, czeka: {n}",  # more than one result waits for the hub
    "unreachable_n": "Brak huba — czeka {n}",
    "stuck": "Przycisk {seat} zablokowany",
    "panel": "Ekran {seat} nie działa",
    "hub": "Brak łączności z hubem",
}

EN: dict[str, str] = {
    "header": "T.{table} G{game}",
    "starts": "Starts: {seat} {name}",
    "press_to_start": "Press to start",
    "wait_start": "Waiting for the start",
    "move": "Move: {seat} {time}",
    "pile": "Pile: {n}",
    "final": "FINAL ROUND",
    "timed_out": "TIME IS UP",
    "restore": "Restore the table:",
    "restore_tap": "tap = no draw",
    "restore_hold": "hold = penalty",
    "restoring": "{seat} restores the table",
    "paused": "PAUSE",
    "by_seat": "Judge called by {seat}",
    "by_judge": "Judge's pause",
    "by_hub": "Paused by the hub",
    "by_recovery": "After a power cut",
    "press_to_resume": "Press to resume",
    "press_to_withdraw": "Tap to cancel the call",
    "rack_sum": "Rack total:",
    "hint_tap": "tap +1",
    "hint_hold": "hold +10",
    "hint_double": "2× tap OK",
    "confirmed": "Confirmed: {n}",
    "waiting_for": "Waiting for: {seats}",
    "rummikub": "Rummikub!",
    "exhausted": "Pile exhausted",
    "kept": "Result stored",
    "sending": "Sending…",
    "sent": "Sent ✓ {receipt}",
    "unreachable": "Hub down — stored",
    "kept_n": "Stored, {n} waiting",
    "unreachable_n": "Hub down — {n} waiting",
    "stuck": "Button {seat} stuck",
    "panel": "Screen {seat} out",
    "hub": "Hub unreachable",
}

TEXTS: Mapping[Language, Mapping[str, str]] = {Language.PL: PL, Language.EN: EN}

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

# A line's height and baseline in rows; a line may reach a few rows into its neighbours
# (accents above, descenders below) because the gaps between blocks make room for them.
_LINE = {SMALL: (11, 10), BOLD: (11, 10), MEDIUM: (17, 15), BIG: (25, 24)}
# The same, black on a lit bar: the bar must hold the descenders, or they vanish.
_LIT = {SMALL: (13, 10), BOLD: (13, 10), MEDIUM: (20, 16), BIG: (28, 25)}
_ANCHOR = {"l": "ls", "m": "ms", "r": "rs"}  # which end of the text sits at x; y is the baseline
_FILES = {False: "DejaVuSansCondensed.ttf", True: "DejaVuSansCondensed-Bold.ttf"}


@cache
def font(bold: bool, size: int) -> Font:
    """The shipped font at ``size`` pixels per em, read from the package once per size."""
    data = BytesIO(resources.files("klik.table").joinpath("fonts", _FILES[bold]).read_bytes())
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


def _header(v: SeatView, t: Mapping[str, str]) -> Block:
    """Table and game on the left; this seat's letter, as a badge, and its player's name on
    the right. Taller than a line so accented capitals keep their accents on row 0."""
    left = t["header"].format(table=v.table, game=v.game_no)
    left, f = fit(left, SMALL, WIDTH // 2)
    badge_x = text_width(left, f) + 6  # the badge box reaches 2 px left of its text
    name, f = fit(v.name, SMALL, WIDTH - badge_x - text_width(v.seat, f) - 6)
    badge_x = WIDTH - text_width(name, f) - (4 if name else 2)
    cells = (
        Cell(left, baseline=11),
        Cell(v.seat, x=badge_x, baseline=11, align="r", boxed=True, width=12),
        Cell(name, x=WIDTH, baseline=11, align="r"),
    )
    return Block(cells, 12, keep=-1)


def _alert(code: str, t: Mapping[str, str]) -> Block:
    kind, _, seat = code.partition(":")
    return _line(t[kind].format(seat=seat) if kind in t else code, 0, lit=True)


def _ready(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    name = v.mover_name if v.mover == v.starter else ""
    starts = t["starts"].format(seat=v.starter or "", name=name).rstrip()
    if v.seat == v.opener:
        return [_line(starts, 0, MEDIUM), _line(t["press_to_start"], 1, lit=True)]
    return [_line(starts, 0, MEDIUM), _line(t["wait_start"], 1)]


def _status(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    """The lines every seat sees while the game runs: the final round, then the pile."""
    final = [_line(t["final"], 2, BOLD)] if v.final_round else []
    return [*final, _line(t["pile"].format(n=v.tiles_left), 3)]


def _move(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    time = _clock(v.seconds_left)
    if v.is_mover:
        # In the last seconds the clock is drawn black on a lit bar: seen from the side too.
        return [_line(time, 0, BIG, lit=v.warn), *_status(v, t)]
    move = _line(t["move"].format(seat=v.mover or "", time=time), 0, MEDIUM)
    name = [_line(v.mover_name, 4)] if v.mover_name else []
    return [move, *name, *_status(v, t)]


def _timed_out(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    if v.is_mover:
        return [
            _line(t["timed_out"], 0, MEDIUM),
            _line(t["restore"], 3, align="l"),
            _line(t["restore_tap"], 2, align="l"),
            _line(t["restore_hold"], 2, align="l"),
        ]
    restoring = _line(t["restoring"].format(seat=v.mover or ""), 2)
    name = [_line(v.mover_name, 4)] if v.mover_name else []
    return [_line(t["timed_out"], 0, MEDIUM, lit=True), restoring, *name, *_status(v, t)]


def _paused(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    by = v.paused_by or ""
    kind = by if by in ("judge", "hub", "recovery") else "seat"
    stopped = f"{v.mover or ''} {_clock(v.seconds_left)}".strip()
    paused = Cell(t["paused"], MEDIUM, 2, 15, boxed=True, width=WIDTH // 2)
    head = Block((paused, Cell(stopped, MEDIUM, WIDTH, 15, align="r", width=56)), 17, keep=0)
    blocks = [head, _line(t[f"by_{kind}"].format(seat=by), 2)] if by else [head]
    if kind == "recovery" and v.is_mover:
        blocks.append(_line(t["press_to_resume"], 2, lit=True))
    elif by == v.seat:
        blocks.append(_line(t["press_to_withdraw"], 2))
    elif v.mover_name:
        blocks.append(_line(f"{v.mover} {v.mover_name}", 4))
    return blocks


def _scoring(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    # The sum, large, on the left and the three gestures beside it: both fit only side by side.
    hints = (t["hint_tap"], t["hint_hold"], t["hint_double"])
    cells = (
        Cell(str(v.rack), BIG, 31, 28, align="m", width=62),
        *(Cell(h, x=66, baseline=10 + 11 * i, width=WIDTH - 66) for i, h in enumerate(hints)),
    )
    return [_line(t["rack_sum"], 2, align="l"), Block(cells, 33, keep=0)]


def _waiting(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    blocks = [_line(t["confirmed"].format(n=v.rack), 0, MEDIUM)]
    if v.waiting_for:
        blocks.append(_line(t["waiting_for"].format(seats=", ".join(v.waiting_for)), 1))
    return blocks


def _wrap(text: str, width: int, f: Font) -> list[str]:
    """Words of ``text`` in lines of at most ``width`` pixels (a long word gets a line)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", f) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _result(v: SeatView, t: Mapping[str, str]) -> list[Block]:
    """Rows of seat, small points, big points and place, 10 rows apart (four rows, the header
    and a status line just fit), this seat's row lit; the ending beside them, past a rule."""
    cells: list[Cell] = []
    height = max(10 * len(v.scores) - 1, 22)  # no gap needed under the last row
    bars: list[Box] = [(COLUMN - 4, 0, COLUMN - 3, height)]
    for i, s in enumerate(v.scores):
        own = s.seat == v.seat
        if own:
            bars.append((0, 10 * i, COLUMN - 6, 10 * i + 10))
        row = [(s.seat, 2, "l"), (_signed(s.small), 37, "r"), (str(s.big), 47, "r")]
        row += [(f"{s.place}.", 60, "r")] if s.place else []
        cells += [
            Cell(text, x=x, baseline=10 * i + 9, align=a, width=34, dark=own) for text, x, a in row
        ]
    lines = _wrap(t.get(v.ending or "", ""), WIDTH - COLUMN, font(False, SMALL.sizes[0]))[:2]
    top = (height - 11 * len(lines)) // 2 + 10  # the ending centred beside the rows
    for i, line in enumerate(lines):
        cells.append(Cell(line, x=COLUMN, baseline=top + 11 * i, width=WIDTH - COLUMN))
    return [Block(tuple(cells), height, keep=0, bars=tuple(bars)), _line(_delivery(v, t), 2)]


def _delivery(v: SeatView, t: Mapping[str, str]) -> str:
    """Where the result is: sent with the hub's receipt, or kept and how many results wait."""
    key = v.delivery.value
    if v.waiting > 1 and f"{key}_n" in t:
        key = f"{key}_n"
    return t[key].format(receipt=v.receipt or "", n=v.waiting).rstrip()


_BODIES: dict[Screen, Callable[[SeatView, Mapping[str, str]], list[Block]]] = {
    Screen.READY: _ready,
    Screen.MOVE: _move,
    Screen.TIMED_OUT: _timed_out,
    Screen.PAUSED: _paused,
    Screen.SCORING: _scoring,
    Screen.WAITING: _waiting,
    Screen.RESULT: _result,
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


def layout(view: SeatView) -> Layout:
    """Where ``render`` puts every bar and text of ``view``'s screen; tests measure it."""
    t = TEXTS[view.language]
    alerts = [_alert(code, t) for code in view.alerts]
    return _stack([_header(view, t), *_BODIES[view.screen](view, t), *alerts])


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
