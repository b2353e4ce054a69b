"""Facts of STS-Format (``shared/formats/STS.md``) that our STS writer, the STS reader and the
validator share."""

from __future__ import annotations

#: The fields of an STS message object; nothing else may appear in one.
MESSAGE_FIELDS = frozenset(
    ("role", "content", "reasoningContent", "toolCalls", "toolCallId", "timestamp", "model")
)
