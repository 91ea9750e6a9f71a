"""A projector everyone in the hall can read (issue 40, point 5), in real headless Chromium at
1920 × 1080: white on black, every text at least 7:1 against what is behind it (computed from
the page's own CSS, as the browser applies it), names never below 28 px, and no scrolling for
a screen that asks for reduced motion."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from klik_hub.storage.store import Store
from tests.helpers.browser import chromium_page
from tests.hub.test_projector import a_round

Hub = tuple[str, Store]
HALL = {"width": 1920, "height": 1080}

# Every element with text of its own: its colour, the first opaque background behind it
# (itself or an ancestor's), its font size, and whether it is a name.
TEXTS = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(el);
    if (!own || style.visibility === "hidden" || el.offsetParent === null && style.position !== "fixed") continue;
    let back = null;
    for (let up = el; up; up = up.parentElement) {
      const c = rgb(getComputedStyle(up).backgroundColor);
      if (c.length === 3 || c[3] === 1) { back = c.slice(0, 3); break; }
    }
    out.push({text: el.textContent.trim().slice(0, 40), color: rgb(style.color).slice(0, 3),
              back: back || [255, 255, 255], size: parseFloat(style.fontSize),
              name: el.closest("#rows") !== null && el.matches("td:nth-child(2), td:nth-child(2) *")});
  }
  return out;
}"""


def luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.fixture
def hall_screen() -> Iterator[Page]:
    with chromium_page(viewport=HALL) as page:
        yield page


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_every_text_on_the_projector_is_7_to_1_and_names_are_28_px(
    hall_screen: Page, hub: Hub
) -> None:
    url, store = hub
    a_round(url, store, players=40, reported=6)  # results, a round running, the clock
    hall_screen.goto(f"{url}/projector")
    hall_screen.wait_for_selector("#rows tr")
    texts = hall_screen.evaluate(TEXTS)
    body = hall_screen.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (body, hall_screen.evaluate("getComputedStyle(document.body).color")) == (
        "rgb(0, 0, 0)", "rgb(255, 255, 255)",
    )  # fmt: skip
    low = [(t["text"], round(contrast(t["color"], t["back"]), 2)) for t in texts
           if contrast(t["color"], t["back"]) < 7]  # fmt: skip
    assert low == []
    names = [t for t in texts if t["name"]]
    assert len(names) >= 10
    assert min(t["size"] for t in names) >= 28, [t for t in names if t["size"] < 28][:3]
    assert contrast([159, 179, 200], [27, 45, 69]) < 7  # the old header's grey: the test bites


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_a_screen_that_asks_for_reduced_motion_does_not_scroll(hub: Hub, motion: str) -> None:
    url, store = hub
    a_round(url, store, players=60, reported=15)  # more lines than the screen holds
    with chromium_page(viewport=HALL, reduced_motion=motion) as page:
        page.goto(f"{url}/projector")
        page.wait_for_selector("#rows tr")
        overflow = page.evaluate(
            "(v => v.scrollHeight - v.clientHeight)(document.getElementById('viewport'))"
        )
        assert overflow > 0
        page.wait_for_timeout(2500)  # the list scrolls 2 px every 50 ms, after its first pause
        moved = page.evaluate("document.getElementById('viewport').scrollTop")
    assert (moved == 0) == (motion == "reduce"), moved
