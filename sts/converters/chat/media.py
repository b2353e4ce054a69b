"""LLaMA-Factory side lists of media: ``images``/``videos``/``audios`` next to the messages.

The text marks where each one goes with a ``<image>``/``<video>``/``<audio>`` token; the n-th
token takes the n-th path of the list. Each token becomes an image or media part at its place
in the message (the token itself is dropped); paths left over after the last token are reported
and added to the last message that holds a token, so no path is lost.
"""

from __future__ import annotations

from typing import Any

from sts.model import ImagePart, MediaPart, Message, Part, Session, TextPart
from sts.problems import Problems

SIDE_LISTS = (
    ("images", "<image>", "image"),
    ("videos", "<video>", "video"),
    ("audios", "<audio>", "audio"),
)
SIDE_KEYS = frozenset(key for key, _, _ in SIDE_LISTS)


def attach_side_media(
    session: Session, record: dict[str, Any], problems: Problems, line: int | None
) -> None:
    """Replace the media tokens of `session`'s messages by parts for the record's side lists."""
    if SIDE_KEYS.isdisjoint(record):
        return
    for key, token, kind in SIDE_LISTS:
        paths = record.get(key)
        if not paths or type(paths) is not list:
            continue
        queue = [media_part(kind, p) for p in paths]
        last: Message | None = None
        for message in session.messages:
            if any(type(p) is TextPart and token in p.text for p in message.content):
                message.content = split_tokens(message.content, token, queue)
                last = message
        if queue:
            problems.warning(line, "unplaced-media", f"{len(queue)} {key} without a {token} token")
            target = last or (session.messages[0] if session.messages else None)
            if target is None:
                session.metadata[key] = paths
            else:
                target.content.extend(queue)


def split_tokens(content: list[Part], token: str, queue: list[Part]) -> list[Part]:
    """`content` with each `token` in its texts replaced by the next part of `queue`."""
    result: list[Part] = []
    for part in content:
        if type(part) is not TextPart or token not in part.text:
            result.append(part)
            continue
        pieces = part.text.split(token)
        for index, piece in enumerate(pieces):
            if index > 0:
                result.append(queue.pop(0) if queue else TextPart(token))
            if piece:
                result.append(TextPart(piece))
    return result


def media_part(kind: str, path: Any) -> Part:
    """An image or media part for one side-list entry (a path or URL, or a ``{path}`` dict)."""
    if type(path) is dict:
        path = path.get("path", path.get("url"))
    url = path if type(path) is str else None
    return ImagePart(url=url) if kind == "image" else MediaPart(kind, url=url)
