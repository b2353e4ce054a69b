"""Headless Chromium for the viewer tests and benchmark, driven by Playwright.

Uses the system's Chromium (Debian's ``chromium`` package; ``STS_CHROMIUM`` names another
binary); Playwright never downloads a browser here. Tests skip with a reason when either is
missing; CI installs both (``tests/install-chromium``, the ``test`` extra).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str | None:
    """The Chromium binary to drive, or None."""
    named = os.environ.get("STS_CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    if chromium_path() is None:
        return "no chromium binary (apt-get install chromium, or tests/install-chromium)"
    return None


def wait_until(page: Any, expression: str, timeout: float = 10.0) -> Any:
    """Poll `expression` from outside until it is truthy (the page's CSP forbids Playwright's
    in-page polling, which evaluates strings)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(25)


@contextmanager
def browser() -> Iterator[Any]:
    """A Playwright browser context on the system Chromium with a fresh profile."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="sts-chromium-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=chromium_path(),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 860},
        )
        try:
            yield context
        finally:
            context.close()
