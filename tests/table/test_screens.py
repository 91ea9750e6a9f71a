"""The seat screens against golden PNGs in tests/golden, and what every screen must keep to.

A golden PNG is the picture a seat's panel shows, pixel for pixel. After a deliberate change
to the screens, rewrite them with ``KLIK_WRITE_GOLDEN=1 pytest tests/table/test_screens.py``
and look at every changed picture before committing it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from klik import script
from klik.core import game as g
from klik.core.gestures import DoubleTap, Held, Mark, Tap
from klik.core.pile import DrawPile
from klik.core.tabletop import new_tabletop
from klik.table.record.driver import Driver
from klik.table.screens import render as screens
from klik.table.screens.view import (
    STEPS,
    Alert,
    AlertKind,
    Delivery,
    Language,
    Screen,
    SeatScore,
    SeatView,
    TableInfo,
    calling_step,
    seat_views,
)
from klik.words import catalogue

STUCK_B, HUB = Alert(AlertKind.STUCK, "B"), Alert(AlertKind.HUB)

GOLDEN = Path(__file__).parents[1] / "golden"

# Seat B, Ola, at table 7 in game 2; A Ania is on the move.
BASE = SeatView(
    seat="B",
    name="Ola",
    table="7",
    game_no=2,
    screen=Screen.MOVE,
    mover="A",
    mover_name="Ania",
    seconds_left=37,
    tiles_left=54,
)
MOVER = replace(BASE, seat="A", name="Ania")
# READY names the starter only when the view carries it as the mover (seat_views does not yet).
READY = replace(BASE, screen=Screen.READY, mover="A", seconds_left=None, starter="A", opener="D")
PAUSED = replace(BASE, screen=Screen.PAUSED, seconds_left=29)
TIMED_OUT = replace(BASE, screen=Screen.TIMED_OUT, seconds_left=0)
SCORES = (
    SeatScore("A", "Ania", 0, 117, 1, 1),
    SeatScore("B", "Ola", 25, -25, 0, 2),
    SeatScore("C", "Łucja", 17, -17, 0, 3),
    SeatScore("D", "Żaneta", 75, -75, 0, 4),
)
# C went out; B counts its rack.
COUNT = replace(
    BASE,
    screen=Screen.SCORING,
    mover=None,
    seconds_left=None,
    ending="rummikub",
    winner="C",
    winner_name="Łucja",
)
RESULT = replace(
    BASE, screen=Screen.RESULT, mover=None, seconds_left=None, scores=SCORES, ending="rummikub"
)

VIEWS: dict[str, SeatView] = {
    "ready-opener": replace(READY, seat="D", name="Żaneta"),  # D's tap starts A's clock
    "ready-other": READY,
    "ready-en": replace(READY, language=Language.EN),
    "ready-draw": replace(READY, draw_starter=True),  # 001: the highest tile's seat holds
    "move-mover": MOVER,
    "move-mover-warn": replace(MOVER, seconds_left=7, warn=True),  # last warn_s seconds
    "move-mover-final": replace(MOVER, tiles_left=0, final_round=True),
    "move-mover-long": replace(MOVER, seconds_left=600),  # a 10-minute clock still fits
    "move-other": BASE,
    "move-other-final": replace(BASE, tiles_left=0, final_round=True),
    "move-other-long-names": replace(  # names cut with "…", never off the screen
        BASE, name="Grzegorz Brzęczyszczykiewicz", mover_name="Konstanty Ildefons Gałczyński"
    ),
    "move-en": replace(BASE, language=Language.EN, final_round=True),
    "move-alert-stuck": replace(MOVER, alerts=(STUCK_B,)),
    "move-alert-card-full": replace(MOVER, alerts=(Alert(AlertKind.CARD_FULL),)),
    "move-alert-card-read-only": replace(MOVER, alerts=(Alert(AlertKind.CARD_READ_ONLY),)),
    "move-alert-card-no-permission": replace(MOVER, alerts=(Alert(AlertKind.CARD_NO_PERMISSION),)),
    "move-alert-card-en": replace(
        MOVER, language=Language.EN, alerts=(Alert(AlertKind.CARD_FULL), HUB)
    ),
    "move-alerts-all": replace(
        BASE, final_round=True, alerts=(STUCK_B, Alert(AlertKind.PANEL, "C"), HUB)
    ),
    "move-alerts-en": replace(
        MOVER, language=Language.EN, alerts=(Alert(AlertKind.PANEL, "C"), HUB)
    ),
    "timed-out-mover": replace(TIMED_OUT, seat="A", name="Ania"),
    "timed-out-other": TIMED_OUT,
    "timed-out-mover-alert": replace(TIMED_OUT, seat="A", name="Ania", alerts=(HUB,)),
    "timed-out-en": replace(TIMED_OUT, seat="A", name="Ania", language=Language.EN),
    "paused-seat-caller": replace(PAUSED, paused_by="B"),  # B called the judge: B may withdraw
    "paused-seat-other": replace(PAUSED, seat="C", name="Łucja", paused_by="B"),
    "paused-judge": replace(PAUSED, paused_by="judge"),
    "paused-hub": replace(PAUSED, paused_by="hub"),
    "paused-recovery-mover": replace(PAUSED, seat="A", name="Ania", paused_by="recovery"),
    "paused-recovery-other": replace(PAUSED, paused_by="recovery"),
    "paused-en": replace(PAUSED, paused_by="C", language=Language.EN),
    "scoring": replace(COUNT, rack=25),
    "scoring-big": replace(COUNT, rack=828),  # the largest rack there can be
    "scoring-exhausted": replace(COUNT, rack=7, ending="exhausted", winner=None, winner_name=""),
    "scoring-alert": replace(COUNT, rack=7, alerts=(Alert(AlertKind.STUCK, "D"),)),
    "scoring-en": replace(COUNT, rack=25, language=Language.EN),
    "scoring-joker-30": replace(COUNT, rack=25, joker=30),  # classic: a joker counts 30
    # B double-tapped 0 and did not go out: not confirmed, the screen says why (issue 37)
    "scoring-refused": replace(COUNT, refused=True),
    "scoring-refused-en": replace(COUNT, refused=True, language=Language.EN),
    "waiting": replace(COUNT, screen=Screen.WAITING, rack=25, waiting_for=("A", "D")),
    "waiting-not-opened": replace(  # C went out; B never opened: the penalty, not counted
        COUNT, screen=Screen.WAITING, penalty=-100, waiting_for=("A", "D")
    ),
    "waiting-winner": replace(  # C went out: confirmed with 0 from the start
        COUNT, screen=Screen.WAITING, seat="C", name="Łucja", waiting_for=("A", "B", "D")
    ),
    "waiting-en": replace(
        COUNT, screen=Screen.WAITING, rack=25, waiting_for=("D",), language=Language.EN
    ),
    "move-mover-first": replace(MOVER, first_round=True),  # every seat's first move: hints
    "move-other-round-time": replace(BASE, final_round=True),  # the round's time ran out
    # the round's clock (000 o) on the status line: the pile, then the round's time left
    "move-mover-round-clock": replace(MOVER, round_left=754),
    "move-other-round-clock": replace(BASE, round_left=2999),
    "timed-out-round-clock": replace(TIMED_OUT, round_left=59),
    "move-round-clock-en": replace(BASE, language=Language.EN, round_left=3600),
    # C called the judge during A's move: every screen says so; the clock stops after the move
    "move-mover-called": replace(MOVER, called_by="C"),  # A: finish the move
    "move-other-called": replace(BASE, called_by="C"),
    "move-caller-called": replace(BASE, seat="C", name="Łucja", called_by="C"),  # tap: withdraw
    "timed-out-other-called": replace(TIMED_OUT, called_by="C"),
    "move-other-calling": replace(BASE, calling=5),  # B holds to call the judge: 5/8 of 2 s
    "timed-out-mover-two": replace(TIMED_OUT, seat="A", name="Ania", penalty_tiles=2),
    "paused-undone": replace(PAUSED, paused_by="judge", undone=True),
    "result-table": replace(RESULT, whole_table=True, delivery=Delivery.SENT, receipt="R-1234"),
    "result-table-three": replace(RESULT, whole_table=True, scores=SCORES[:3]),
    "result-winner": replace(RESULT, seat="A", name="Ania", delivery=Delivery.SENT, receipt="R-77"),
    "result-not-opened": replace(
        RESULT,
        seat="D",
        name="Żaneta",
        scores=(*SCORES[:3], SeatScore("D", "Żaneta", 75, -100, 0, 4, opened=False)),
    ),
    "result-kept": RESULT,
    "result-sending": replace(RESULT, delivery=Delivery.SENDING),
    "result-sent": replace(RESULT, delivery=Delivery.SENT, receipt="R-1234"),
    "result-sent-wide": replace(RESULT, delivery=Delivery.SENT, receipt="R-WWMWM"),  # widest
    "result-unreachable": replace(RESULT, delivery=Delivery.UNREACHABLE),
    "result-conflict": replace(RESULT, delivery=Delivery.CONFLICT, receipt="R-7KQ2M"),
    "result-refused": replace(RESULT, delivery=Delivery.REFUSED, game_no=12),
    "result-unpaired": replace(RESULT, delivery=Delivery.UNPAIRED),
    "result-stranded": replace(RESULT, delivery=Delivery.STRANDED),
    "result-unsaved": replace(RESULT, delivery=Delivery.UNSAVED),
    "result-server-error": replace(RESULT, delivery=Delivery.SERVER_ERROR),
    "result-bad-certificate": replace(RESULT, delivery=Delivery.BAD_CERTIFICATE),
    # more results than this one wait for the hub: the screen says how many
    "result-kept-waiting": replace(RESULT, waiting=3),
    "result-unreachable-waiting": replace(RESULT, delivery=Delivery.UNREACHABLE, waiting=12),
    "result-unreachable-waiting-en": replace(
        RESULT, delivery=Delivery.UNREACHABLE, waiting=12, language=Language.EN
    ),
    "result-exhausted-three": replace(  # a tie for the win at a three-seat table
        RESULT,
        ending="exhausted",
        scores=(
            SeatScore("A", "Ania", 4, 11, 1, 1),
            SeatScore("B", "Ola", 4, 11, 1, 1),
            SeatScore("C", "Łucja", 15, -11, 0, 3),
        ),
    ),
    "result-two": replace(
        RESULT, seat="A", scores=SCORES[:2], delivery=Delivery.SENT, receipt="R-77"
    ),
    "result-alert": replace(
        RESULT, delivery=Delivery.SENT, receipt="R-1234", alerts=(Alert(AlertKind.PANEL, "D"),)
    ),
    "result-en": replace(
        RESULT, language=Language.EN, ending="exhausted", delivery=Delivery.UNREACHABLE
    ),
    # A round's table of 3 at a four-seat table: D's screen says nobody sits there.
    "free": SeatView("D", "", "3", 1, Screen.FREE),
    "free-en": SeatView("D", "", "3", 1, Screen.FREE, Language.EN),
}
# The large screens (issue 40): the same moments for a player who reads large type.
LARGE: dict[str, SeatView] = {
    "move-mover": MOVER,
    "move-mover-warn": replace(MOVER, seconds_left=7, warn=True),
    "move-mover-long": replace(MOVER, seconds_left=600),
    "move-other": BASE,
    "move-other-called": replace(BASE, called_by="C"),
    "move-alert": replace(MOVER, alerts=(HUB,)),
    "move-en": replace(MOVER, language=Language.EN),
    "timed-out-mover": replace(TIMED_OUT, seat="A", name="Ania"),
    "timed-out-other": TIMED_OUT,
    "paused": replace(PAUSED, paused_by="judge"),
    "scoring": replace(COUNT, rack=25),
    "scoring-big": replace(COUNT, rack=828),
    "scoring-joker-30": replace(COUNT, rack=25, joker=30),
    "scoring-refused": replace(COUNT, refused=True),
    "waiting": replace(COUNT, screen=Screen.WAITING, rack=25, waiting_for=("A", "D")),
    "waiting-not-opened": replace(COUNT, screen=Screen.WAITING, penalty=-100),
    "waiting-winner": replace(COUNT, screen=Screen.WAITING, seat="C", name="Łucja"),
    "result": replace(RESULT, delivery=Delivery.SENT, receipt="R-1234"),
    "result-en": replace(RESULT, language=Language.EN),
}
VIEWS |= {f"large-{name}": replace(view, large=True) for name, view in LARGE.items()}

SAMPLES = {
    "text-sample-lower": "Zażółć gęślą jaźń",
    "text-sample-upper": "ZAŻÓŁĆ GĘŚLĄ JAŹŃ",
}


def sample_driver(until: float | None = None) -> Driver:
    """The bundled sample game (3 seats) played to ``until`` seconds, or to its end."""
    parsed = script.parse(
        (Path(screens.__file__).parents[2] / "samples" / "sample-game.klik").read_text()
    )
    stop = parsed.end if until is None else until
    played = Driver(new_tabletop(parsed.settings))
    for event in parsed.events:
        if event.at <= stop:
            played.apply(event)
    played.advance(stop)
    return played


def sample_game(until: float | None = None) -> tuple[SeatView, ...]:
    """The views of the sample game at ``until`` seconds, or at its end."""
    played = sample_driver(until)
    info = TableInfo(table="3", game_no=1, names=(("A", "Ania"), ("B", "Bożena"), ("C", "Ćwiek")))
    return seat_views(played.tabletop.game, played.now, info)


def game_views() -> dict[str, SeatView]:
    moving = sample_game(until=20.0)  # C is on the move with 35 s left
    done = sample_game()
    return {
        **{f"game-move-{v.seat.lower()}": v for v in moving},
        **{f"game-result-{v.seat.lower()}": v for v in done},
    }


def same_pixels(a: Image.Image, b: Image.Image) -> tuple[int, int, int, int] | None:
    """None if the pictures match, else the box where they differ. Compared in mode "L":
    Pillow keeps a lit pixel of a loaded one-bit PNG as 1 but of a drawn image as 255."""
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox()


def check_golden(name: str, image: Image.Image) -> None:
    assert (image.mode, image.size) == ("1", (128, 64))
    path = GOLDEN / f"{name}.png"
    if os.environ.get("KLIK_WRITE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
        return
    if not path.exists():
        pytest.fail(
            f"{path} is missing: write it with KLIK_WRITE_GOLDEN=1 pytest tests/table/test_screens.py"
        )
    with Image.open(path) as stored:
        golden = stored.copy()
    assert (golden.mode, golden.size) == (image.mode, image.size)
    diff = same_pixels(golden, image)
    assert diff is None, (
        f"{name}: pixels differ in {diff}; if intended, rewrite with KLIK_WRITE_GOLDEN=1"
    )


def assert_on_screen(view: SeatView) -> None:
    drawing = screens.layout(view)
    for x0, y0, x1, y1 in [*drawing.bars, *(d.box for d in drawing.texts)]:
        assert 0 <= x0 <= x1 <= 128, (view, (x0, y0, x1, y1))
        assert 0 <= y0 <= y1 <= 64, (view, (x0, y0, x1, y1))


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_screen_matches_its_golden(name: str) -> None:
    check_golden(name, screens.render(VIEWS[name]))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_polish_letters_match_their_golden(name: str) -> None:
    check_golden(name, screens.render_text_sample(SAMPLES[name]))


def test_screens_of_a_real_game_match_their_goldens() -> None:
    views = game_views()
    assert [v.screen for v in views.values()] == [Screen.MOVE] * 3 + [Screen.RESULT] * 3
    for name, view in views.items():
        check_golden(name, screens.render(view))


def test_every_screen_has_a_golden() -> None:
    assert {v.screen for v in VIEWS.values()} == set(Screen)
    assert {v.delivery for v in VIEWS.values()} == set(Delivery)
    assert {v.paused_by for v in VIEWS.values()} >= {"B", "judge", "hub", "recovery"}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_nothing_is_drawn_off_the_screen(name: str) -> None:
    assert_on_screen(VIEWS[name])


def alert_texts(view: SeatView) -> list[str]:
    say = catalogue(view.language).gettext
    return [say(screens.ALERTS[a.kind]).format(seat=a.seat or "") for a in view.alerts]


def test_alerts_are_shown_black_on_a_lit_bar() -> None:
    for name, view in VIEWS.items():
        drawn = {d.text: d.fill for d in screens.layout(view).texts}
        shown = [text for text in alert_texts(view) if text in drawn]
        assert shown[:1] == alert_texts(view)[:1], name  # the first alert, at least
        assert all(drawn[text] == 0 for text in shown), name
    assert len(alert_texts(VIEWS["move-alerts-all"])) == 3


def test_the_mover_sees_the_time_large() -> None:
    time = next(d for d in screens.layout(MOVER).texts if d.text == "0:37")
    _, top, _, bottom = time.box
    assert 22 <= bottom - top <= 26  # digits of a 30 px font
    assert time.font.size == 30


@pytest.mark.parametrize("name", sorted(LARGE))
def test_a_large_screen_is_one_large_number_and_one_line_of_words(name: str) -> None:
    view = VIEWS[f"large-{name}"]
    texts = screens.layout(view).texts
    number = max(texts, key=lambda d: d.font.size)
    _, top, _, bottom = number.box
    assert number.font.size >= 44, name  # "10:00" fits at 44 px, anything shorter at 52
    assert bottom - top >= 29, name  # a third of the panel's height and more
    if view.screen is Screen.RESULT:
        return
    words = [d for d in texts if d is not number]
    alerts = len(alert_texts(view)) + (view.called_by is not None)
    assert len(words) <= 1 + alerts, (name, [d.text for d in words])  # nothing else
    assert all(d.font.size >= 14 for d in words if d.fill == 1 or not alerts), name


def test_a_large_screen_shows_the_clock_as_it_runs() -> None:
    drawn = {d.text: d.font.size for d in screens.layout(VIEWS["large-move-mover"]).texts}
    assert drawn == {"0:37": 52, "TWÓJ RUCH": 16}
    drawn = {d.text for d in screens.layout(VIEWS["large-move-other"]).texts}
    assert drawn == {"0:37", "Ruch: A"}  # the mover's clock, and whose it is


def test_fit_cuts_with_an_ellipsis_only_when_it_must() -> None:
    assert screens.fit("Ola", screens.SMALL, 128)[0] == "Ola"
    text, font = screens.fit("Konstanty Ildefons Gałczyński", screens.SMALL, 60)
    assert text.endswith("…")
    assert screens.text_width(text, font) <= 60
    text, font = screens.fit("10:00", screens.BIG, 60)
    assert text == "10:00"
    assert font.size < 30  # shrunk, not cut
    assert screens.fit("Ola", screens.SMALL, 2)[0] == ""


def glyph(font: screens.Font, text: str) -> bytes:
    image = Image.new("1", (24, 24))
    ImageDraw.Draw(image).text((4, 4), text, font=font, fill=1)
    return image.tobytes()


def test_fonts_have_the_polish_letters_and_the_check_mark() -> None:
    for bold in (False, True):
        font = screens.font(bold, 11)
        missing = glyph(font, "\U000f0000")  # a private-use code point: the .notdef box
        for letter in "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ✓…—−×":
            assert glyph(font, letter) != missing, letter


def test_oriented_turns_as_luma_does() -> None:
    image = screens.render(MOVER)
    for rotate in range(4):
        turned = screens.oriented(image, rotate)
        luma = image.rotate(rotate * -90, expand=True)  # luma.core.mixin.capabilities/preprocess
        assert turned.size == luma.size
        assert same_pixels(turned, luma) is None


names = st.text(alphabet="AaBbĄąĆćĘęŁłŃńÓóŚśŹźŻżZz -.WMmw", max_size=20)
seats = st.sampled_from("ABCD")
scores = st.builds(
    SeatScore,
    seats,
    names,
    st.integers(0, 999),
    st.integers(-999, 999),
    st.integers(0, 4),
    st.integers(0, 4),
)
views = st.builds(
    SeatView,
    seat=seats,
    name=names,
    table=st.text(alphabet="0123456789AB", min_size=1, max_size=4),
    game_no=st.integers(1, 99),
    screen=st.sampled_from(Screen),
    language=st.sampled_from(Language),
    mover=st.none() | seats,
    mover_name=names,
    seconds_left=st.none() | st.integers(0, 5999),
    warn=st.booleans(),
    tiles_left=st.integers(0, 78),
    final_round=st.booleans(),
    starter=st.none() | seats,
    opener=st.none() | seats,
    paused_by=st.none() | seats | st.sampled_from(["judge", "hub", "recovery"]),
    rack=st.integers(0, 9999),
    refused=st.booleans(),
    waiting_for=st.lists(seats, max_size=4, unique=True).map(tuple),
    scores=st.lists(scores, max_size=4).map(tuple),
    ending=st.none() | st.sampled_from(["rummikub", "exhausted"]),
    delivery=st.sampled_from(Delivery),
    receipt=st.none() | st.text(alphabet="R-0123456789", max_size=12),
    large=st.booleans(),
    alerts=st.lists(
        st.sampled_from(
            [
                Alert(AlertKind.STUCK, "A"),
                Alert(AlertKind.STUCK, "D"),
                Alert(AlertKind.PANEL, "B"),
                Alert(AlertKind.PANEL, "C"),
                Alert(AlertKind.CARD_FULL),
                Alert(AlertKind.CARD_READ_ONLY),
                HUB,
            ]
        ),
        max_size=3,
        unique=True,
    ).map(tuple),
)


@pytest.mark.slow  # a hundred screens drawn
@given(views)
def test_any_view_renders_on_the_screen(view: SeatView) -> None:
    image = screens.render(view)
    assert (image.mode, image.size) == ("1", (128, 64))
    assert_on_screen(view)
    drawn = {d.text for d in screens.layout(view).texts}
    assert set(alert_texts(view)[:1]) <= drawn  # the first alert is always on screen


# --- what a real game shows (issue 9: the count, the result, guidance) ------------------


def texts(view: SeatView) -> list[str]:
    return [d.text for d in screens.layout(view).texts]


def test_after_a_rummikub_every_screen_says_who_went_out_and_nobody_waits_for_them() -> None:
    views = sample_game(until=145.0)  # A went out at 140.0; C counts
    assert [v.screen for v in views] == [Screen.WAITING, Screen.WAITING, Screen.SCORING]
    for view in views:
        assert "Rummikub! A · Ania" in texts(view), view.seat
    assert "Wygrana!" in texts(views[0])
    assert "Czekamy na: C" in texts(views[0])
    # B never opened: charged the penalty whatever it holds, so it is not asked (000 n)
    assert {"Bez wyłożenia", "kara −100, bez liczenia"} <= set(texts(views[1]))


def test_the_movers_screen_has_hints_in_the_first_round_only() -> None:
    first = sample_game(until=3.0)[0]  # A's first move
    assert (first.seat, first.is_mover, first.first_round) == ("A", True, True)
    assert {"klik = gotowe", "trzymaj = dobieram"} <= set(texts(first))
    later = sample_game(until=137.0)[0]  # A's second move (from 135.0)
    assert (later.is_mover, later.first_round) == (True, False)
    assert "klik = gotowe" not in texts(later)


def test_an_exhausted_game_says_so_on_every_screen_before_the_count() -> None:
    game = replace(g.new_game(g.Settings(seats=("A", "B", "C"))), pile=DrawPile.with_tiles(1))
    game, _ = g.step(game, g.Order(g.Action.START, 0.0))
    game, _ = g.step(game, Held("A", 6.0, 5.0, frozenset({Mark.HOLD})))  # the last tile
    for view in seat_views(game, 7.0, TableInfo()):
        assert {"Koniec puli —", "OSTATNIA RUNDA"} <= set(texts(view)), view.seat
    for seat, at in (("B", 8.0), ("C", 9.0), ("A", 10.0)):
        game, _ = g.step(game, Tap(seat, at))
    assert game.phase is g.Phase.SCORING
    for view in seat_views(game, 11.0, TableInfo()):
        assert "Koniec gry" in texts(view), view.seat


def test_a_refused_0_shows_the_gestures_again_with_why_until_the_sum_changes() -> None:
    """Issue 37: C went out; B, who opened, double-tapped 0. Its screen stays the count's,
    the gestures with it, and says why in the line above; A's screen is the count as ever."""
    game, _ = g.step(g.new_game(g.Settings(seats=("A", "B", "C"))), g.Order(g.Action.START, 0.0))
    for seat, at in (("A", 1.0), ("B", 2.0), ("C", 3.0)):
        game, _ = g.step(game, Tap(seat, at))
    game, _ = g.step(game, DoubleTap("C", 3.2, 3.0))  # C's tap was the first of a Rummikub
    game, _ = g.step(game, DoubleTap("B", 10.2, 10.0))
    a, b, _c = seat_views(game, 11.0, TableInfo())
    assert (b.screen, b.rack, b.refused) == (Screen.SCORING, 0, True)
    assert {"Zostaje min. 1 kostka", "klik +1", "2× klik = OK"} <= set(texts(b))
    assert "Suma na tabliczce:" not in texts(b)
    assert (a.screen, a.refused) == (Screen.SCORING, False)
    assert "Suma na tabliczce:" in texts(a)
    game, _ = g.step(game, Tap("B", 12.0))
    b = seat_views(game, 13.0, TableInfo())[1]
    assert (b.screen, b.rack, b.refused) == (Screen.SCORING, 1, False)
    assert "Suma na tabliczce:" in texts(b)


def test_after_the_judges_undo_every_screen_says_what_happened() -> None:
    game, _ = g.step(g.new_game(g.Settings()), g.Order(g.Action.START, 0.0))
    game, _ = g.step(game, Tap("A", 5.0))
    game, _ = g.step(game, g.Order(g.Action.UNDO, 8.0))
    for view in seat_views(game, 9.0, TableInfo()):
        assert "Sędzia cofnął ruch A" in texts(view), view.seat


def test_the_own_result_gives_small_points_place_and_why_and_a_tap_shows_the_table() -> None:
    b = sample_game()[1]  # B never opened
    assert (b.screen, b.whole_table) == (Screen.RESULT, False)
    assert {"−100", "3. miejsce", "bez wyłożenia: −100", "klik = cały stół"} <= set(texts(b))
    table = texts(replace(b, whole_table=True))
    assert {"małe pkt", "duże", "miejsce", "+117", "−100", "−17"} <= set(table)


def test_a_seat_holding_to_call_the_judge_sees_the_bar_fill() -> None:
    game = sample_driver(30.0).tabletop.game  # B pressed at 30.0 to call the judge over A's move
    pressed = {"B": 30.0}
    steps = [calling_step(game, 30.0 + t, "B", pressed) for t in (0.1, 0.3, 1.0, 1.9, 2.0)]
    assert steps == [None, 2, 5, STEPS, None]  # nothing for a tap; full just before 2 s
    assert calling_step(game, 31.0, "A", {"A": 30.0}) is None  # the mover is not calling
