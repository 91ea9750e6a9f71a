"""Debian's headless Chromium for the page tests, driven by Playwright: one place for where it
is, the flags it runs with, and a page that is closed after its test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Headless, and quiet: no update checks, sync or other calls out of a test machine.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


@contextmanager
def chromium_page(**context: Any) -> Iterator[Page]:
    """A new page in a browser context made with ``context`` (viewport, downloads, a phone's
    scale), closed with its browser at the end."""
    assert Path(CHROMIUM).exists(), "Chromium is missing: apt-get install chromium (.ci/run does)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield browser.new_context(**context).new_page()
        finally:
            browser.close()


def no_then_yes(page: Page) -> list[str]:
    """The judge answers the page's first question (``confirm``) no and every later one yes;
    the questions asked, as they come."""
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss() if len(asked) == 1 else dialog.accept()

    page.on("dialog", answer)
    return asked
