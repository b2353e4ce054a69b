"""`sts view` pages in a real browser (headless Chromium through Playwright).

For every format (the samples, each folder of tests/cases, each folder of ../shared/corpus a
converter reads) the page is opened and checked as a person would: how many sessions the index
lists and how many messages a session shows, that a tool call's result is one click away and
back, that search finds a word, that no console error appears; a screenshot of each, at desktop
and phone width, goes to ``test-artifacts/`` (git-ignored). A hostile session must run no code.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sts.view import write_page
from sts.view.adapter import flatten, link_calls
from sts.view.cli import _Inputs, run_view
from sts.view.redaction import marks_from_findings
from tests.browser import ARTIFACTS, browser, missing, wait_until
from tests.support import CASES, CORPUS, SAMPLES
from tests.view_cases import redacted_session, write_hostile

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def _formats() -> list[tuple[str, Path]]:
    found = [("samples", SAMPLES)]
    # case folders of SQL scripts only (databases their tests build) hold no input to view
    found += [(f"cases-{d.name}", d) for d in sorted(CASES.iterdir()) if d.is_dir()
              and any(f.suffix != ".sql" for f in d.rglob("*") if f.is_file())]
    if CORPUS.is_dir():
        found += [(f"corpus-{d.name}", d) for d in sorted(CORPUS.iterdir())
                  if d.is_dir() and not d.name.startswith("_")]
    return found


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with browser() as context:
        yield context


class Page:
    """A page of the viewer, with the console errors it printed."""

    def __init__(self, context: Any, path: Path, hash: str = "") -> None:
        self.errors: list[str] = []
        self.page = context.new_page()
        self.page.set_default_timeout(8000)
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.errors.append("dialog: " + d.message), d.dismiss()))
        self.page.goto(path.as_uri() + hash)
        wait_until(self.page, "window.__stsReady === true")

    def in_view(self, selector: str) -> bool:
        return self.page.evaluate(
            """s => { const e = document.querySelector(s); if (!e) return false;
                      const r = e.getBoundingClientRect();
                      return r.bottom > 0 && r.top < innerHeight && r.height > 0; }""",
            selector,
        )

    def scroll_to_end(self, last: str) -> int:
        """Scroll down as a reader does until message `last` shows; how many distinct messages
        passed by (the page keeps only a window of them at a time)."""
        seen: set[str] = set()
        deadline = time.monotonic() + 60
        while last not in seen and time.monotonic() < deadline:
            seen.update(self.page.evaluate("[...document.querySelectorAll('.msg')].map(e => e.id)"))
            self.page.mouse.wheel(0, 4000)
            self.page.wait_for_timeout(40)
        return len(seen)

    def close(self) -> list[str]:
        self.page.close()
        return self.errors


def _sessions(folder: Path) -> list[tuple[int, Any]]:
    """The top-level sessions of a folder as `sts view` reads them, with their page numbers."""
    sources = _Inputs([str(folder)], None, quiet=True)
    numbered, number = [], 0
    for _, sessions in sources.sources():
        for session in sessions:
            numbered.append((number, session))
            number += sum(1 for _ in flatten([session]))
    return numbered


def _word(session: Any) -> str | None:
    """A word of the last message with text, to search for."""
    for message in reversed(session.messages):
        words = re.findall(r"[A-Za-z]{6,}", message.text)
        if words:
            return words[-1].lower()
    return None


@pytest.mark.parametrize(("name", "folder"), _formats(), ids=[n for n, _ in _formats()])
def test_page_shows_each_format(context, tmp_path, name, folder):
    sessions = _sessions(folder)
    if not sessions:
        pytest.skip(f"no converter reads {folder.name} yet")
    out = tmp_path / f"{name}.html"
    run_view([str(folder)], str(out), None, False, None, True)
    ARTIFACTS.mkdir(exist_ok=True)
    view = Page(context, out)
    page = view.page
    if len(sessions) > 1:
        assert page.locator("tbody tr").count() == len(sessions)
        page.screenshot(path=str(ARTIFACTS / f"view-{name}-index.png"))
    with_calls = [s for s in sessions if link_calls(s[1]).results]
    number, session = max(with_calls or sessions, key=lambda s: len(s[1].messages))
    if len(sessions) > 1:
        page.click(f'a.open[href="#s{number}"]')
    assert page.locator(".shead h1").inner_text().strip() != ""
    total = len(session.messages)
    assert total == 0 or view.scroll_to_end(f"s{number}-m{total - 1}") == total
    page.evaluate("window.scrollTo(0, 0)")

    if with_calls:
        page.locator("a.toresult").first.click()
        target = page.evaluate("location.hash")
        assert re.fullmatch(rf"#s{number}-m\d+", target)
        assert view.in_view(target)
        page.locator(f"{target} a.tocall").click()
        back = page.evaluate("location.hash")
        assert re.fullmatch(rf"#s{number}-m\d+-c\d+", back)
        assert view.in_view(back)

    word = _word(session)
    if word:
        page.fill("#bar input", word)
        page.press("#bar input", "Enter")
        wait_until(page, r"/^\d+ \/ \d+$/.test(document.querySelector('#bar .count').textContent)")
        hit = page.evaluate("location.hash")
        assert view.in_view(f"{hit} mark") or view.in_view(hit)
        assert word in page.locator(hit).inner_text().lower()
    page.screenshot(path=str(ARTIFACTS / f"view-{name}.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
    page.screenshot(path=str(ARTIFACTS / f"view-{name}-phone.png"))
    assert view.close() == []


def test_sub_agent_is_reachable_from_its_call(context, tmp_path):
    folder = CASES / "claude-code"
    numbered = _sessions(folder)
    found = None
    for number, session in numbered:
        calls = {c.id: (i, k) for i, m in enumerate(session.messages)
                 for k, c in enumerate(m.tool_calls)}
        for offset, child in enumerate(session.children, 1):
            where = calls.get(child.metadata.get("parentToolCallId"))
            if where is not None and not child.children:
                found = number, where, number + offset, child
                break
        if found:
            break
    assert found, "the claude-code cases hold a sub-agent linked to its call"
    number, (index, position), child_number, child = found
    out = tmp_path / "agents.html"
    run_view([str(folder)], str(out), None, False, None, True)
    view = Page(context, out, f"#s{number}-m{index}-c{position}")  # a deep link
    page = view.page
    assert view.in_view(f"#s{number}-m{index}-c{position}")
    page.locator(f"#s{number}-m{index}-c{position} a.tochild").click()
    assert page.evaluate("location.hash") == f"#s{child_number}"
    assert page.locator(".msg").count() == min(len(child.messages), 60)
    page.locator("a.toparent").click()
    assert view.in_view(f"#s{number}-m{index}-c{position}")
    page.go_back()
    wait_until(page, f"location.hash === '#s{child_number}'")
    assert page.locator(".shead h1").inner_text() != ""
    assert view.close() == []


def test_hostile_session_runs_no_code(context, tmp_path):
    out = tmp_path / "evil.html"
    run_view([str(write_hostile(tmp_path / "evil.jsonl"))], str(out), None, False, None, True)
    view = Page(context, out)
    page = view.page
    page.locator("details.reasoning summary").first.click()
    page.fill("#bar input", "needle-word")
    page.press("#bar input", "Enter")
    wait_until(page, "document.querySelector('#bar .count').textContent === '1 / 1'")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    text = page.locator("#app").inner_text()
    assert "<script>window.__pwned = 'script'</script>" in text
    assert "javascript:" in text
    assert page.locator("#app a[href^='javascript']").count() == 0
    assert page.locator("#app img:not(.inline), #app svg, #app script").count() == 0
    page.screenshot(path=str(ARTIFACTS / "view-hostile.png"))
    assert view.close() == []


def test_findings_list_links_to_each_highlighted_span(context, tmp_path):
    session, findings = redacted_session()
    out = tmp_path / "redacted.html"
    with out.open("wb") as stream:
        write_page([("redacted.jsonl", iter([session]))], stream, "redacted",
                   lambda s: marks_from_findings(s, findings))
    view = Page(context, out)
    page = view.page
    assert page.locator(".findings li").count() == len(findings)
    assert page.locator("mark.red").count() == 3  # the session-level one is in the header
    page.locator(".findings a.tofinding", has_text="bearer-token").click()
    assert view.in_view("#f1")
    assert page.locator("#f1").inner_text() == "[REDACTED:bearer]"
    assert page.locator("#f1").get_attribute("title") == "redacted: bearer-token"
    assert page.locator("#f1").evaluate("e => e.closest('.call') !== null")
    page.screenshot(path=str(ARTIFACTS / "view-redaction.png"))
    assert view.close() == []


def test_index_sorts_and_filters(context, tmp_path):
    folder = CASES / "codex"
    sessions = [session for _, session in _sessions(folder)]
    out = tmp_path / "codex.html"
    run_view([str(folder)], str(out), None, False, None, True)
    view = Page(context, out)
    page = view.page

    def column(index: int) -> list[str]:
        return page.evaluate(
            "i => [...document.querySelectorAll('tbody tr:not([hidden])')]"
            ".map(r => r.children[i].textContent)", index)

    page.click("th[data-key=n]")  # most messages first
    counts = [int(c.replace(",", "")) for c in column(3)]
    assert counts == sorted((len(s.messages) for s in sessions), reverse=True)
    page.click("th[data-key=n]")
    assert [int(c.replace(",", "")) for c in column(3)] == sorted(counts)
    title = max(sessions, key=lambda s: len(s.messages)).name
    assert title
    page.fill("#bar input", title)
    wait_until(page, "document.querySelectorAll('tbody tr[hidden]').length > 0")
    assert title in column(0)
    assert len(column(0)) < len(sessions)
    assert view.close() == []

