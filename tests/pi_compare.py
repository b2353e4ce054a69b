"""How a message looks for comparison with what the real pi sees (tests of the Pi reader/writer).

The mapping from pi's active branch (``getBranch()`` entries) to our messages, one rule per
entry kind; anything not listed yields no message:

- ``message`` user → user; toolResult → tool; assistant → assistant (failed turns too);
- ``message`` bashExecution → user with pi's ``bashExecutionToText`` rendering (re-implemented
  here from pi's source); custom / hookMessage → user; system → system (content, else sections);
  branchSummary / compactionSummary → system (the summary);
- ``custom_message`` entry → user, except our writer's ``customType`` ``system``/``system:*``
  (a system message pi has no role for) → system;
- ``compaction`` and non-empty ``branch_summary`` entries → system (the summary).
"""

from __future__ import annotations

from typing import Any

from sts.model import Message

View = tuple[Any, ...]


def ours(message: Message, with_id: bool = True) -> View:
    """The comparable view of one of our messages."""
    return (
        message.role,
        message.text,
        tuple(call.id for call in message.tool_calls),
        message.tool_call_id,
        bool(message.is_error) if message.role == "tool" else None,
        message.reasoning,
        message.id if with_id else None,
    )


def text_of(content: Any) -> str:
    if type(content) is str:
        return content
    texts = [b.get("text", "") for b in content or [] if b.get("type") == "text"]
    return texts[0] if len(texts) == 1 else "\n\n".join(texts)


def bash_text(m: dict[str, Any]) -> str:
    """pi's bashExecutionToText (dist/core/messages.js)."""
    text = f"Ran `{m['command']}`\n"
    text += f"```\n{m['output']}\n```" if m.get("output") else "(no output)"
    if m.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif m.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {m['exitCode']}"
    if m.get("truncated") and m.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {m['fullOutputPath']}]"
    return text


def reasoning_of(content: list[dict[str, Any]]) -> str | None:
    texts = [
        b["thinking"] for b in content
        if b.get("type") == "thinking" and not b.get("redacted") and b.get("thinking")
    ]
    return "\n\n".join(texts) if texts else None


def expected(branch: list[dict[str, Any]], with_id: bool = True) -> list[View]:
    """What our reader must produce for pi's active branch, per the mapping above."""
    views: list[View] = []

    def add(role: str, text: str, entry: dict[str, Any], calls=(), call_id=None, error=None,
            reasoning=None) -> None:
        views.append((role, text, calls, call_id, error, reasoning,
                      entry.get("id") if with_id else None))

    for entry in branch:
        kind = entry["type"]
        if kind == "message":
            m = entry["message"]
            role = m.get("role")
            if role == "user":
                add("user", text_of(m.get("content")), entry)
            elif role == "assistant":
                content = m.get("content") or []
                calls = tuple(b["id"] for b in content if b.get("type") == "toolCall")
                text = text_of(content)
                reasoning = reasoning_of(content)
                add("assistant", text, entry, calls, None, None, reasoning)
            elif role == "toolResult":
                add("tool", text_of(m.get("content")), entry, (), m["toolCallId"],
                    m.get("isError") is True)
            elif role == "bashExecution":
                add("user", bash_text(m), entry)
            elif role in ("custom", "hookMessage"):
                add("user", text_of(m.get("content")), entry)
            elif role == "system":
                text = text_of(m.get("content")) or "\n\n".join(
                    v for v in (m.get("sections") or {}).values() if v
                )
                if text:
                    add("system", text, entry)
            elif role in ("branchSummary", "compactionSummary") and m.get("summary"):
                add("system", m["summary"], entry)
        elif kind == "custom_message":
            custom = entry.get("customType", "")
            role = "system" if custom == "system" or custom.startswith("system:") else "user"
            add(role, text_of(entry.get("content")), entry)
        elif kind in ("compaction", "branch_summary") and entry.get("summary"):
            add("system", entry["summary"], entry)
    return views
