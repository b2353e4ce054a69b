"""Write one self-contained HTML page for sessions, streaming.

The page is a small HTML shell, the session data as JSON inside ``<script
type="application/json">`` blocks (``<``, ``>`` and ``&`` escaped, so no text can close the
block), the stylesheet and one inline script, allowed by a Content-Security-Policy that names
their hashes and nothing else: no network, no remote anything, no inline handlers. Messages go
out in chunks of `CHUNK` as they are converted; the script renders them lazily in the browser.
Only a short summary per session (for the index) is kept until the end.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from sts.model import Session
from sts.view import adapter

CHUNK = 64  # messages per JSON block; the script parses a block when it needs one of them
_ESCAPES = ((b"&", b"\\u0026"), (b"<", b"\\u003c"), (b">", b"\\u003e"))


@dataclass(frozen=True)
class Mark:
    """A span the redaction replaced: `text` (the replacement as it stands in the message at
    index `message`, -1 for the session's own fields) is highlighted with its `rule` and listed
    among the findings, which link to it."""

    message: int
    text: str
    rule: str


Marks = Callable[[Session], Iterable[Mark]]


def _asset(name: str) -> str:
    return resources.files("sts.view").joinpath(name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


SCRIPT = _asset("page.js")
STYLE = _asset("page.css")
assert "<script" not in SCRIPT and "</" not in SCRIPT and "<!--" not in SCRIPT
POLICY = (
    "default-src 'none'; img-src data:; "
    f"style-src 'sha256-{_digest(STYLE)}'; script-src 'sha256-{_digest(SCRIPT)}'; "
    "base-uri 'none'; form-action 'none'"
)


def json_block(value: Any) -> bytes:
    """JSON that is inert inside a script element: no ``<``, ``>`` or ``&`` survive."""
    data = orjson.dumps(value)
    for raw, escaped in _ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


class PageWriter:
    """Writes the page to a binary stream, one session at a time."""

    def __init__(self, out: BinaryIO, title: str, marks: Marks | None = None) -> None:
        self.out = out
        self.title = title
        self.marks = marks
        self.next_number = 0
        self.index: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []
        self.script_written = False

    def start(self, single: bool) -> None:
        """The head, the stylesheet and the page's settings."""
        self.out.write(
            (
                '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n'
                f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
                '<meta name="referrer" content="no-referrer">\n'
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                '<link rel="icon" href="data:,">\n'
                f"<title>{html.escape(self.title)}</title>\n<style>{STYLE}</style></head>\n"
                '<body><header id="bar"></header><main id="app">'
                "<noscript>This page needs JavaScript to show the sessions.</noscript></main>\n"
            ).encode()
        )
        self._block("meta", {"title": self.title, "single": single, "chunk": CHUNK})

    def add(self, session: Session, source: str) -> None:
        """Write a top-level session and its sub-agents."""
        tree = list(adapter.flatten([session]))
        marks = {id(s): list(self.marks(s)) for s, _ in tree} if self.marks is not None else {}
        numbers = {id(s): self.next_number + i for i, (s, _) in enumerate(tree)}
        self.next_number += len(tree)
        spawned: dict[int, tuple[int, int, int]] = {}
        for parent, _ in tree:
            links = adapter.link_calls(parent)
            children = {}
            for child in parent.children:
                call = adapter.subagent_call(child)
                if call is not None and call in links.calls:
                    children[call] = numbers[id(child)]
                    spawned[id(child)] = (numbers[id(parent)], *links.calls[call])
            self._session(parent, numbers, links, children, spawned.get(id(parent)), source,
                          marks.get(id(parent), []))
        top = tree[0][0]
        self.index.append({
            "s": numbers[id(top)],
            "title": adapter.session_title(top),
            "harness": top.harness or top.source_format or "",
            "ts": adapter.session_time(top),
            "n": len(top.messages),
            "calls": adapter.count_calls(top),
            "sub": len(tree) - 1,
            "file": source,
        })

    def _session(
        self,
        session: Session,
        numbers: dict[int, int],
        links: adapter.Links,
        children: dict[str, int],
        spawned: tuple[int, int, int] | None,
        source: str,
        session_marks: list[Mark],
    ) -> None:
        number = numbers[id(session)]
        marks: dict[int, list[list[Any]]] = {}
        for mark in session_marks:
            finding = len(self.findings)
            self.findings.append(
                {"f": finding, "s": number, "m": mark.message, "rule": mark.rule,
                 "text": mark.text}
            )
            marks.setdefault(mark.message, []).append([mark.text, mark.rule, finding])
        self._block(f"h{number}", {
            "id": session.id,
            "title": adapter.session_title(session),
            "harness": session.harness or "",
            "format": session.source_format or "",
            "file": source,
            "cwd": session.cwd or "",
            "model": adapter.session_model(session) or "",
            "ts": adapter.session_time(session),
            "n": len(session.messages),
            "calls": adapter.count_calls(session),
            "usage": adapter.total_usage(session),
            "parent": list(spawned) if spawned is not None else None,
            "children": [
                [numbers[id(c)], adapter.session_title(c)] for c in session.children
            ],
        })
        if not session.messages:
            self._script()
        for start in range(0, len(session.messages), CHUNK):
            views = []
            for index in range(start, min(start + CHUNK, len(session.messages))):
                view = adapter.message_view(session.messages[index], index, links, children)
                if index in marks:
                    view["f"] = marks[index]
                views.append(view)
            self._block(f"c{number}-{start // CHUNK}", views)
            self._script()

    def _block(self, name: str, value: Any) -> None:
        self.out.write(f'<script type="application/json" id="{name}">'.encode())
        self.out.write(json_block(value))
        self.out.write(b"</script>\n")

    def _script(self) -> None:
        """The script goes right after the first data, so the first messages show early."""
        if not self.script_written:
            self.script_written = True
            self.out.write(f"<script>{SCRIPT}</script>\n".encode())

    def finish(self) -> None:
        self._script()
        self._block("index", self.index)
        self._block("findings", self.findings)
        self._block("end", {"sessions": self.next_number})
        self.out.write(b"</body></html>\n")


def write_page(
    sources: Iterable[tuple[str, Iterator[Session]]],
    out: BinaryIO,
    title: str = "sessions",
    marks: Marks | None = None,
) -> int:
    """Write every session of `sources` (name, sessions) as one page; return how many."""
    writer = PageWriter(out, title, marks)
    pending: list[tuple[str, Session]] = []
    stream = ((name, s) for name, sessions in sources for s in sessions)
    for item in stream:  # hold two back: a page of one session opens on it, not on an index
        pending.append(item)
        if len(pending) == 2:
            break
    writer.start(single=len(pending) == 1)
    for name, session in pending:
        writer.add(session, name)
    pending.clear()
    for name, session in stream:
        writer.add(session, name)
    writer.finish()
    return len(writer.index)


def default_output(inputs: list[str]) -> Path:
    """``<name>.html`` in the current folder, after the first input."""
    first = Path(inputs[0]) if inputs else Path("sessions")
    name = first.resolve().name if first.is_dir() else first.name
    for suffix in (".jsonl", ".json", ".ndjson"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return Path(f"{name or 'sessions'}.html")
