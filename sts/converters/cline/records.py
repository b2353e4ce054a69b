"""What Cline, Roo Code and Kilo Code put in a task's text, read without building anything.

- `split_context`: the ``<environment_details>`` block Cline appends to every user turn (and
  the ``[TASK RESUMPTION]`` / ``[ERROR] You did not use a tool`` notices it writes as user
  text) told apart from what the human typed, which sits in ``<task>``, ``<feedback>``,
  ``<user_message>`` or ``<answer>`` tags or is plain text.
- `parse_xml_reply`: the tool protocol of Cline and Roo before native tool use (≤ 2025), where
  the assistant wrote its calls as XML inside its text (``<read_file><path>…</path></read_file>``)
  and its reasoning as ``<thinking>…</thinking>``. Only known tool names are calls (as in Cline's
  own ``parseAssistantMessage``), so XML the model merely quotes stays text.
- `result_header`: a legacy tool result, a user text block ``[read_file for 'x'] Result:``
  followed by the output (in the same block or the next ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sts.converters.claude_code.harness_text import tag

ENVIRONMENT_OPEN = "<environment_details>"
ENVIRONMENT_CLOSE = "</environment_details>"
#: Tags around words a human typed (first prompt, feedback, Roo's prompt, a follow-up answer).
HUMAN_TAGS = ("task", "feedback", "user_message", "answer")
#: Notices the harness writes as user text.
NOTICE_PREFIXES = ("[TASK RESUMPTION]", "[ERROR] You did not use a tool", "[TASK INTERRUPTED]")
ERROR_PREFIX = "The tool execution failed with the following error:"

#: Tool names of the XML protocol (Cline, Roo Code, Kilo Code).
XML_TOOLS = frozenset((
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files",
    "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
    "access_mcp_resource", "ask_followup_question", "attempt_completion", "plan_mode_respond",
    "new_task", "load_mcp_documentation", "web_fetch", "web_search", "condense",
    "summarize_task", "report_bug", "new_rule", "use_subagents", "apply_diff",
    "insert_content", "search_and_replace", "switch_mode", "fetch_instructions",
    "codebase_search", "update_todo_list", "run_slash_command", "generate_image",
    "edit_file", "focus_chain",
))
#: Parameters whose value may itself hold tags: closed by their LAST closing tag.
RAW_PARAMS = frozenset(("content", "diff", "result", "response", "question"))

_OPEN_TAG = re.compile(r"<([a-z_]+)>")
_RESULT = re.compile(r"\[([a-z_]+)(?: for '(.*?)')?\] Result:", re.DOTALL)


@dataclass(slots=True)
class Context:
    """A user text split, in order: ``(injected, text)`` pairs, where `injected` is True for the
    harness' text and False for the human's words."""

    segments: list[tuple[bool, str]] = field(default_factory=list)

    @property
    def human(self) -> list[str]:
        """The human's words."""
        return [text for injected, text in self.segments if not injected]


def split_context(text: str) -> Context:
    """Split one user text into the human's words and injected context, in order."""
    found = Context()
    blocks: list[str] = []
    rest = text
    while True:
        start = rest.find(ENVIRONMENT_OPEN)
        if start < 0:
            break
        end = rest.find(ENVIRONMENT_CLOSE, start)
        end = len(rest) if end < 0 else end + len(ENVIRONMENT_CLOSE)
        blocks.append(rest[start:end].strip())
        rest = rest[:start] + rest[end:]
    head = rest.strip()
    if head.startswith(NOTICE_PREFIXES):
        typed = tagged(head, "user_message")
        if typed is not None:
            start = head.find("<user_message>")
            end = head.find("</user_message>", start)
            end = len(head) if end < 0 else end + len("</user_message>")
            head = (head[:start] + head[end:]).strip()
        found.segments.append((True, head))
        if typed:
            found.segments.append((False, typed))
    elif head:
        found.segments.append((False, human_words(rest)))
    found.segments.extend((True, block) for block in blocks)
    return found


def human_words(text: str) -> str:
    """`text` without the tag it is wrapped in (``<task>``, ``<feedback>``, ...), if any."""
    head = text.strip()
    for name in HUMAN_TAGS:
        if head.startswith(f"<{name}>"):
            close = head.find(f"</{name}>")
            inner = head[len(name) + 2: close if close >= 0 else len(head)].strip()
            after = head[close + len(name) + 3:].strip() if close >= 0 else ""
            return "\n\n".join(x for x in (inner, after) if x)
    return text


def tagged(text: str, name: str) -> str | None:
    """The stripped text between ``<name>`` and ``</name>``, or None when there is no such tag."""
    inner = tag(text, name)
    return None if inner is None else inner.strip()


# -- the XML tool protocol --------------------------------------------------------------------


@dataclass(slots=True)
class XmlCall:
    """One tool call written as XML: its name and parameters (all strings)."""

    name: str
    params: dict[str, str]


Segment = tuple[str, str] | XmlCall  # ("text" | "thinking", text) or a call


def parse_xml_reply(text: str) -> list[Segment]:
    """An assistant text in the XML protocol as text, thinking and call segments in order.

    A text with no known tool tag and no ``<thinking>`` comes back as one text segment.
    """
    if "<" not in text:
        return [("text", text)]
    segments: list[Segment] = []
    position = 0
    plain_from = 0
    while True:
        match = _OPEN_TAG.search(text, position)
        if match is None:
            break
        name = match.group(1)
        if name != "thinking" and name not in XML_TOOLS:
            position = match.end()
            continue
        close = f"</{name}>"
        end = text.find(close, match.end())
        body = text[match.end(): end if end >= 0 else len(text)]
        _plain(segments, text[plain_from: match.start()])
        if name == "thinking":
            if body.strip():
                segments.append(("thinking", body.strip()))
        else:
            segments.append(XmlCall(name, xml_params(body)))
        position = plain_from = len(text) if end < 0 else end + len(close)
    _plain(segments, text[plain_from:])
    return segments


def _plain(segments: list[Segment], text: str) -> None:
    if text.strip():
        segments.append(("text", text.strip()))


def xml_params(body: str) -> dict[str, str]:
    """The ``<param>value</param>`` children of one XML call (values with one newline trimmed)."""
    params: dict[str, str] = {}
    position = 0
    while True:
        match = _OPEN_TAG.search(body, position)
        if match is None:
            return params
        name = match.group(1)
        close = f"</{name}>"
        end = body.rfind(close) if name in RAW_PARAMS else body.find(close, match.end())
        if end < match.end():
            end = len(body)
        value = body[match.end(): end]
        params[name] = value.removeprefix("\n").removesuffix("\n") if name in RAW_PARAMS else \
            value.strip()
        position = end + len(close)


def is_xml_reply(text: str) -> bool:
    """True when an assistant text holds a known XML tool tag or a ``<thinking>`` block."""
    if "<" not in text:
        return False
    return any(m.group(1) == "thinking" or m.group(1) in XML_TOOLS
               for m in _OPEN_TAG.finditer(text))


# -- legacy tool results ----------------------------------------------------------------------


@dataclass(slots=True)
class ResultHeader:
    """``[name for 'target'] Result:`` at the start of a user text block, and the rest of it."""

    name: str
    target: str | None
    rest: str


def result_header(text: str) -> ResultHeader | None:
    """The legacy tool-result header starting `text`, or None."""
    if not text.startswith("["):
        return None
    match = _RESULT.match(text)
    if match is None:
        return None
    return ResultHeader(match.group(1), match.group(2), text[match.end():].strip())


def is_error_result(text: str) -> bool:
    """True for the text Cline writes when a tool failed."""
    return text.lstrip().startswith(ERROR_PREFIX)
