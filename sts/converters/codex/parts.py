"""Codex content parts and tool outputs → model parts.

Tool outputs are strings or arrays of ``input_text`` / ``input_image`` parts. Two string shapes
say whether the tool failed, and are read deliberately:

- JSON-in-string ``{"output": "...", "metadata": {"exit_code": N, ...}}`` (``shell`` in 2025,
  ``apply_patch`` still in 2026): the text becomes ``output`` and ``exit_code != 0`` an error.
  Any other string is kept exactly as written, even when it happens to be JSON (``cat
  package.json`` output must not be re-serialised).
- ``Exit code: N`` (``shell_command``) or ``Process exited with code N`` (``exec_command`` /
  ``write_stdin``) in the first lines: the text stays as is, ``N != 0`` is an error.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.model import ImagePart, Part, TextPart

TEXT_TYPES = frozenset(("input_text", "output_text", "text", "summary_text", "reasoning_text"))
_HEAD = 300  # how far into an output the exit-code line is looked for


def image_part(url: Any) -> ImagePart:
    """An image from a Codex ``image_url`` (a ``data:`` URL, a plain URL, or nothing)."""
    if type(url) is not str or not url:
        return ImagePart()
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        media_type = header[5:].split(";", 1)[0] or None
        if header.endswith(";base64"):
            return ImagePart(media_type=media_type, data=data)
        return ImagePart(media_type=media_type, url=url)
    return ImagePart(url=url)


def content_parts(content: Any) -> list[Part]:
    """Text and image parts of a message's ``content`` list (or a bare string)."""
    if type(content) is str:
        return [TextPart(content)]
    if type(content) is not list:
        return []
    parts: list[Part] = []
    for item in content:
        if type(item) is not dict:
            if type(item) is str:
                parts.append(TextPart(item))
            continue
        kind = item.get("type")
        if type(kind) is not str:
            continue
        if kind in TEXT_TYPES:
            text = item.get("text")
            if type(text) is str:
                parts.append(TextPart(text))
        elif kind == "refusal":
            parts.append(TextPart(str(item.get("refusal") or "")))
        elif kind == "input_image" or kind == "output_image":
            parts.append(image_part(item.get("image_url")))
    return parts


def text_of(parts: list[Any]) -> str:
    """The ``text`` fields of a list of dicts joined by blank lines (summaries, reasoning)."""
    texts = [p["text"] for p in parts if type(p) is dict and type(p.get("text")) is str]
    texts = [t for t in texts if t]
    return texts[0] if len(texts) == 1 else "\n\n".join(texts)


def tool_output(output: Any) -> tuple[list[Part], bool | None]:
    """The parts of a tool output and whether it failed (None when the output does not say)."""
    kind = type(output)
    if kind is str:
        return _string_output(output)
    if kind is list:
        return content_parts(output), None
    if kind is dict:
        if "content" in output and "success" in output:
            parts, _ = tool_output(output["content"])
            success = output["success"]
            return parts, (not success) if type(success) is bool else None
        item_type = output.get("type")
        if type(item_type) is str and (item_type in TEXT_TYPES or item_type == "input_image"):
            return content_parts([output]), None
        return [TextPart(orjson.dumps(output).decode())], None
    if output is None:
        return [], None
    return [TextPart(orjson.dumps(output).decode())], None


def _string_output(text: str) -> tuple[list[Part], bool | None]:
    if text.startswith('{"output"') or text.startswith('{"metadata"'):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
        if type(value) is dict and type(value.get("output")) is str:
            metadata = value.get("metadata")
            code = metadata.get("exit_code") if type(metadata) is dict else None
            return [TextPart(value["output"])], _failed(code)
    return [TextPart(text)], _exit_code_in(text)


def _exit_code_in(text: str) -> bool | None:
    head = text[:_HEAD]
    for marker in ("Exit code: ", "Process exited with code "):
        start = head.find(marker)
        if start == -1 or (start and head[start - 1] != "\n"):
            continue
        digits = head[start + len(marker):].split("\n", 1)[0].strip()
        if digits.lstrip("-").isdigit():
            return int(digits) != 0
    return None


def _failed(code: Any) -> bool | None:
    return code != 0 if type(code) is int else None
