"""Facts of pi's session format (``shared/formats/pi.md``) that our Pi writer, the Pi reader and
the validator share.

- ``stopReason`` words: `STOP_REASONS` (what pi writes; ``deferred`` since N16) and the canonical
  `StopReason` each stands for.
- pi's types need ``api``, ``provider`` and ``model`` strings on every assistant message (and a
  ``toolName`` on every result): where the source named none, our writer writes `UNKNOWN`, and
  reading a Pi file, `UNKNOWN` there means "not named" (`named`), never a model called so.
- pi before 1.x has no system role: a system message is stored as a displayed
  ``custom_message`` whose ``customType`` is ``system`` (a plain system message) or
  ``system:<kind>`` (a system message of that `MessageKind`). pi shows it to the model as user
  text on resume; reading such a file back gives the system message again.
"""

from __future__ import annotations

from typing import TypeGuard

from sts.model import MessageKind, StopReason

#: Every ``stopReason`` pi writes.
STOP_REASONS = frozenset(("stop", "length", "toolUse", "error", "aborted", "deferred"))
#: Canonical stop reason → pi's word.
STOP_WORDS: dict[StopReason, str] = {
    StopReason.STOP: "stop",
    StopReason.LENGTH: "length",
    StopReason.TOOL_USE: "toolUse",
    StopReason.ERROR: "error",
    StopReason.ABORTED: "aborted",
}
#: pi's word → canonical stop reason (``deferred`` has none: the turn's own shape decides).
CANONICAL_STOP: dict[str, StopReason] = {word: reason for reason, word in STOP_WORDS.items()}



def canonical_stop(word: object) -> StopReason | None:
    """The canonical stop reason of a pi ``stopReason`` (None for ``deferred`` and non-words)."""
    return CANONICAL_STOP.get(word) if type(word) is str else None


#: What stands where pi's types need a name and the source gave none.
UNKNOWN = "unknown"


def named(value: object) -> str | None:
    """A model, provider, api or tool name read from a Pi file: None when absent, empty or the
    `UNKNOWN` placeholder."""
    return value if type(value) is str and value and value != UNKNOWN else None


SYSTEM_TYPE = "system"
_SYSTEM_PREFIX = "system:"


def system_custom_type(kind: MessageKind | None) -> str:
    """The ``customType`` a system message of `kind` is stored under."""
    if kind is None or kind == MessageKind.SYSTEM:
        return SYSTEM_TYPE
    return f"{_SYSTEM_PREFIX}{kind}"


def is_system_custom_type(custom_type: object) -> TypeGuard[str]:
    """True for a ``customType`` that stores a system message (``system``, ``system:<kind>``)."""
    return custom_type == SYSTEM_TYPE or (
        type(custom_type) is str and custom_type.startswith(_SYSTEM_PREFIX)
    )


def system_kind(custom_type: str) -> MessageKind | None:
    """The `MessageKind` a system ``customType`` names (None for plain ``system`` and for a kind
    the model does not know; the caller keeps the ``customType`` then)."""
    name = custom_type[len(_SYSTEM_PREFIX):]
    try:
        return MessageKind(name) if name else None
    except ValueError:
        return None


#: An entry id as a key: pi's own ids (a few lowercase hex digits) as numbers, which take half
#: the memory of their strings (millions of tiny entries are mostly ids); any other id as it is.
Key = str | int
_HEX = "0123456789abcdef"


def id_key(own: str) -> Key:
    """The key of the entry id `own`: a lowercase hex id of at most 14 digits (pi makes 8) as the
    number of ``1`` and its digits (leading zeros kept apart), any other id as it is."""
    if own and len(own) <= 14 and not own.strip(_HEX):
        return int("1" + own, 16)
    return own


def key_id(key: Key) -> str:
    """The entry id of the key `key`."""
    return key if type(key) is str else format(key, "x")[1:]
