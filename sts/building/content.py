"""Content the sources share, mapped once: OpenAI-style parts and Anthropic-style blocks.

A new adapter whose source speaks one of these dialects calls these functions instead of
writing its own mapping.

**OpenAI-style parts** (`openai_parts`): Chat Completions parts (``text``, ``image_url``,
``input_audio``, ``file``, ``refusal``), Responses API parts (``input_text``, ``output_text``,
``input_image``, ``output_image``, ``input_file``, ``summary_text``, ``reasoning_text``),
LLaMA-Factory parts that carry their payload under ``value`` (``{"type":
"text"|"reasoning"|"image_url", "value": ...}``) and bare strings in a parts list. Media
payloads are not kept (neither target can hold them); an inline image keeps its base64 data,
which Pi can show. Opaque ``encrypted_content`` parts are left out without a report.

**Anthropic-style blocks** (`anthropic_image`, `anthropic_document`, `anthropic_media`,
`anthropic_texts`, `anthropic_result`): the Messages API's ``image`` (base64 or url source),
``document`` and ``text`` blocks, and a ``tool_result``'s content. Blocks that need the session
(``tool_use``, ``thinking``) go through `sts.building.SessionBuilder.anthropic_blocks`.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.model import ImagePart, MediaPart, Part, TextPart, ThinkingPart, base64_size
from sts.problems import Problems

TEXT_TYPES = frozenset(("text", "input_text", "output_text", "summary_text", "reasoning_text"))
IMAGE_TYPES = frozenset(("image_url", "input_image", "output_image", "image"))
REFUSAL = "refusal"
#: Part types that hold nothing readable (opaque encrypted payloads): left out, silently.
OPAQUE_TYPES = frozenset(("encrypted_content",))


def openai_parts(content: Any, line: int | None, problems: Problems) -> list[Part]:
    """The parts of a message `content`: a string, None, or a list of parts."""
    if content is None:
        return []
    if type(content) is str:
        return [TextPart(content)] if content else []
    if type(content) is dict:
        content = [content]
    elif type(content) is not list:
        problems.warning(line, "content-not-string", "content is not text or parts: kept as text")
        return [TextPart(str(content))]
    parts: list[Part] = []
    for item in content:
        part = one_part(item, line, problems)
        if part is not None:
            parts.append(part)
    return parts


def one_part(item: Any, line: int | None, problems: Problems) -> Part | None:
    """One content part, or None (reported when something was lost)."""
    if type(item) is str:
        return TextPart(item) if item else None
    if type(item) is not dict:
        problems.error(line, "unknown-block", f"content part is not an object: {item!r:.40}")
        return None
    kind = item.get("type")
    if kind is not None and type(kind) is not str:  # a list or object would not even hash
        return unknown_part(item, kind, line, problems)
    if kind in OPAQUE_TYPES:
        return None
    if kind in TEXT_TYPES or (kind is None and "text" in item):
        text = item.get("text", item.get("value"))
        return TextPart(text) if type(text) is str and text else None
    if kind == REFUSAL:
        text = item.get("refusal", item.get("text", item.get("value")))
        return TextPart(text) if type(text) is str and text else None
    if kind == "reasoning":
        text = item.get("value", item.get("text"))
        return ThinkingPart(text) if type(text) is str and text else None
    if kind in IMAGE_TYPES:
        return image_part(item)
    if kind == "input_audio":
        return audio_part(item.get("input_audio") or item)
    if kind in ("file", "input_file"):
        file = item.get("file")
        return file_part(file if type(file) is dict else item)
    return unknown_part(item, kind, line, problems)


def unknown_part(item: dict[str, Any], kind: Any, line: int | None, problems: Problems
                 ) -> Part | None:
    """A part of unknown type: its ``text`` (warned) when it has one, else nothing (an error)."""
    text = item.get("text")
    if type(text) is str:
        problems.warning(line, "unknown-part", f"content part type {kind!r} read as text")
        return TextPart(text)
    problems.error(line, "unknown-block", f"content part type {kind!r} skipped")
    return None


def image_part(item: dict[str, Any]) -> ImagePart:
    """An image part: ``image_url`` as ``{url, detail}`` or a string, or a LLaMA-Factory value."""
    source = item.get("image_url", item.get("value", item.get("url")))
    if type(source) is dict:
        source = source.get("url")
    if type(source) is not str or not source:
        file_id = item.get("file_id")
        return ImagePart(url=f"file_id:{file_id}" if file_id else None)
    return image_from_url(source)


def image_from_url(url: str) -> ImagePart:
    """An ImagePart from an https URL, a path, or a ``data:`` URI (base64 data kept inline)."""
    media_type, data = split_data_uri(url)
    if data is not None:
        return ImagePart(media_type=media_type, data=data)
    return ImagePart(media_type=media_type, url=url)


def split_data_uri(url: str) -> tuple[str | None, str | None]:
    """``(media_type, base64 data)`` of a base64 ``data:`` URI, else ``(None, None)``."""
    if not url.startswith("data:"):
        return None, None
    header, comma, payload = url.partition(",")
    if not comma or not header.endswith(";base64"):
        return header[5:].split(";", 1)[0] or None, None
    return header[5:].split(";", 1)[0] or None, payload


def audio_part(audio: Any) -> MediaPart:
    """An ``input_audio`` part ``{data, format}``."""
    if type(audio) is not dict:
        return MediaPart("audio")
    fmt = audio.get("format")
    data = audio.get("data")
    return MediaPart(
        "audio",
        media_type=f"audio/{fmt}" if type(fmt) is str and fmt else None,
        size=base64_size(data) if type(data) is str else None,
    )


def file_part(file: dict[str, Any]) -> MediaPart:
    """A ``file``/``input_file`` part: ``file_data`` (data URI or base64), ``file_id``, name."""
    name = file.get("filename")
    data = file.get("file_data")
    media_type = None
    size = None
    if type(data) is str:
        uri_type, payload = split_data_uri(data)
        media_type = uri_type
        size = base64_size(payload if payload is not None else data)
    url = file.get("file_url")
    if url is None and file.get("file_id"):
        url = f"file_id:{file['file_id']}"
    return MediaPart(
        "file",
        media_type=media_type,
        name=name if type(name) is str else None,
        size=size,
        url=url if type(url) is str else None,
    )


def json_text(value: Any) -> str:
    """Any JSON value as compact JSON text (a string stays as it is)."""
    if type(value) is str:
        return value
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def texts_of(items: Any) -> str:
    """The ``text`` fields of a list of objects joined by blank lines (reasoning summaries,
    text blocks); empty texts left out."""
    if type(items) is not list:
        return ""
    texts = [t for p in items if type(p) is dict and type(t := p.get("text")) is str and t]
    return texts[0] if len(texts) == 1 else "\n\n".join(texts)


def anthropic_texts(content: Any) -> list[TextPart]:
    """The text of an Anthropic content value: a string, or the ``text`` blocks of a list."""
    if type(content) is str:
        return [TextPart(content)]
    if type(content) is not list:
        return []
    return [
        TextPart(block["text"]) for block in content
        if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str
    ]


def anthropic_image(block: dict[str, Any]) -> ImagePart:
    """An Anthropic ``image`` block (base64 or url source)."""
    source = block.get("source")
    if type(source) is not dict:
        return ImagePart()
    media_type = source.get("media_type")
    media_type = media_type if type(media_type) is str else None
    if source.get("type") == "url":
        url = source.get("url")
        return ImagePart(media_type, url=url if type(url) is str else None)
    data = source.get("data")
    return ImagePart(media_type, data if type(data) is str else None)


def anthropic_document(block: dict[str, Any]) -> MediaPart:
    """An Anthropic ``document`` block (PDF ...) as a placeholder: neither target holds it."""
    source = block.get("source")
    source = source if type(source) is dict else {}
    data = source.get("data")
    media_type = source.get("media_type")
    size = len(data) * 3 // 4 if type(data) is str else None
    title = block.get("title")
    return MediaPart("document", media_type if type(media_type) is str else None,
                     title if type(title) is str else None, size)


def anthropic_media(block: Any) -> Part | None:
    """An Anthropic ``image`` or ``document`` block as a part; None for any other block."""
    kind = block.get("type") if type(block) is dict else None
    if kind == "image":
        return anthropic_image(block)
    if kind == "document":
        return anthropic_document(block)
    return None


def anthropic_result(content: Any) -> list[Part]:
    """A ``tool_result`` block's ``content``: a string, or text, image and document blocks
    (other blocks hold nothing a target shows and are left out)."""
    if type(content) is str:
        return [TextPart(content)] if content else []
    parts: list[Part] = []
    for block in content if type(content) is list else ():
        if type(block) is dict and block.get("type") == "text":
            text = block.get("text")
            if type(text) is str:
                parts.append(TextPart(text))
        elif (media := anthropic_media(block)) is not None:
            parts.append(media)
    return parts
