"""Recognising the injected context Codex stores as ``role: "user"`` message parts.

Codex writes configuration and runtime markers (AGENTS.md instructions, the environment, skills,
``!cmd`` shell runs, aborted-turn and sub-agent notices, ...) as user-role text parts. They are
not user intent. Like Codex itself (``contextual_user_message.rs``), a part is context when its
trimmed text starts with a known open marker and ends with the matching close marker, compared
case-insensitively. Only texts starting with ``<`` or ``#`` are looked at, so ordinary prompts
cost one character test.
"""

from __future__ import annotations

import re

# (open marker, close marker), lower case.
MARKERS: tuple[tuple[str, str], ...] = (
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("# agents.md instructions for ", "</instructions>"),
    ("<instructions>", "</instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagents>", "</subagents>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<plugins>", "</plugins>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
    ("<child_agents_instructions>", "</child_agents_instructions>"),
    ("<hook_prompt", "</hook_prompt>"),
)
_LONGEST_OPEN = max(len(open_) for open_, _ in MARKERS)
_LONGEST_CLOSE = max(len(close) for _, close in MARKERS)


def is_injected(text: str) -> bool:
    """True when `text` is one of Codex's injected-context fragments."""
    trimmed = text.strip()
    if not trimmed or trimmed[0] not in "<#":
        return False
    head = trimmed[:_LONGEST_OPEN].lower()
    tail = trimmed[-_LONGEST_CLOSE:].lower()
    return any(head.startswith(open_) and tail.endswith(close) for open_, close in MARKERS)


def user_instructions(text: str) -> str | None:
    """The text inside a ``<user_instructions>`` fragment, stripped; None for other texts."""
    trimmed = text.strip()
    open_, close = "<user_instructions>", "</user_instructions>"
    if trimmed[: len(open_)].lower() != open_ or trimmed[-len(close):].lower() != close:
        return None
    return trimmed[len(open_): -len(close)].strip()


_CWD = re.compile(r"<cwd>\s*(.*?)\s*</cwd>", re.DOTALL)


def environment_cwd(text: str) -> str | None:
    """The ``<cwd>`` an ``<environment_context>`` fragment tells the model, if any."""
    if "<cwd>" not in text or "<environment_context>" not in text[:64].lower():
        return None
    match = _CWD.search(text)
    return match.group(1) or None if match else None
