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

from sts.building.content import TEXT_TYPES, openai_parts
from sts.model import Part, TextPart
from sts.problems import Problems

_HEAD = 300  # how far into an output the exit-code line is looked for


def tool_output(output: Any, line: int | None, problems: Problems
                ) -> tuple[list[Part], bool | None]:
    """The parts of a tool output and whether it failed (None when the output does not say)."""
    kind = type(output)
    if kind is str:
        return _string_output(output)
    if kind is list:
        return openai_parts(output, line, problems), None
    if kind is dict:
        if "content" in output and "success" in output:
            parts, _ = tool_output(output["content"], line, problems)
            success = output["success"]
            return parts, (not success) if type(success) is bool else None
        item_type = output.get("type")
        if type(item_type) is str and (item_type in TEXT_TYPES or item_type == "input_image"):
            return openai_parts([output], line, problems), None
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
