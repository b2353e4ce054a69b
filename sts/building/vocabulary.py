"""The source vocabulary the converters share: stop-reason words of the model APIs the sources
record (Anthropic Messages, OpenAI Chat Completions and Responses, and pi's own), mapped to the
canonical `StopReason`. A source with other words adds them here; writers never see them."""

from __future__ import annotations

from typing import Any

from sts.model import StopReason

STOP_WORDS: dict[str, StopReason] = {
    # canonical and pi's own words
    "stop": StopReason.STOP,
    "length": StopReason.LENGTH,
    "tool_use": StopReason.TOOL_USE,
    "toolUse": StopReason.TOOL_USE,
    "error": StopReason.ERROR,
    "aborted": StopReason.ABORTED,
    # Anthropic
    "end_turn": StopReason.STOP,
    "stop_sequence": StopReason.STOP,
    "pause_turn": StopReason.STOP,
    "max_tokens": StopReason.LENGTH,
    "model_context_window_exceeded": StopReason.LENGTH,
    # OpenAI
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    # harnesses (OpenCode writes the AI SDK's words)
    "tool-calls": StopReason.TOOL_USE,
    "cancelled": StopReason.ABORTED,
    "interrupted": StopReason.ABORTED,
}


def stop_reason(word: Any) -> StopReason | None:
    """The canonical stop reason for a source's word; None for words with no clear meaning
    (``content_filter``, ``refusal``, ...): writers then derive one from the message."""
    return STOP_WORDS.get(word) if type(word) is str else None
