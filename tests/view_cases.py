"""Sessions built for the viewer tests: a hostile one whose text tries to run code."""

from __future__ import annotations

import json
from pathlib import Path

HOSTILE_TEXTS = [
    "<script>window.__pwned = 'script'</script>",
    "</script><script>window.__pwned = 'close'</script>",
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    "[click me](javascript:window.__pwned='link') <a href=\"javascript:window.__pwned='a'\">a</a>",
    "<!-- <script> --> <svg onload=\"window.__pwned='svg'\"></svg> &lt;b&gt; \u2028 \u2029",
]


def write_hostile(path: Path) -> Path:
    """An STS file whose every field a page shows holds markup and script."""
    evil = " ".join(HOSTILE_TEXTS)
    lines = [
        {"type": "session", "harness": "<b>evil</b>", "id": "</script>", "name": evil},
        {"type": "message", "message": {"role": "user", "content": evil}},
        {"type": "message", "message": {
            "role": "assistant", "content": evil, "reasoningContent": evil,
            "model": "<script>window.__pwned='model'</script>",
            "toolCalls": [{"id": "</script>", "function": {
                "name": "<img src=x onerror=\"window.__pwned='name'\">",
                "arguments": json.dumps({"html": evil, "</script>": evil})}}]}},
        {"type": "message",
         "message": {"role": "tool", "toolCallId": "</script>", "content": evil}},
        {"type": "message", "message": {"role": "assistant", "content": "done: needle-word"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
