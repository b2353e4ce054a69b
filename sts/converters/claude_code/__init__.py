"""Claude Code session transcripts (``~/.claude/projects/<cwd>/<session>.jsonl``) → `Session`.

Modules: `records` (line parsing), `thread` (main-thread selection), `harness_text` and
`messages` (lines → messages), `subagents` (sub-agent discovery), `session` (assembly).

Roles and kinds chosen for harness text (never counted as a human prompt, never merged):

====================================  ========  ====================
source                                role      kind
====================================  ========  ====================
typed prompt                          user      (none)
``<command-name>`` wrapper            user      ``command`` (text ``/cmd args``)
isMeta expanded slash-command prompt  user      ``command_prompt``
``<bash-input>``                      user      ``bash_input``
queued steering (queue/attachment)    user      ``queued``
other isMeta text                     system    ``meta``
local-command caveat                  system    ``caveat``
``<local-command-stdout>``            system    ``command_output``
``<bash-stdout>``/``<bash-stderr>``   system    ``bash_output``
interrupt markers                     system    ``interrupt``
``<task-notification>``               system    ``task_notification``
compaction summary                    system    ``compaction`` (extras ``tokens_before``)
``<synthetic>`` assistant line        system    ``synthetic``
API error line / system api_error     system    ``api_error`` (error_message set)
====================================  ========  ====================

Left out on purpose (silent): progress, file-history-snapshot, attachments other than
``queued_command``, system lines other than local_command/api_error/compact_boundary, summary
and metadata lines (read for the title), queue operations other than ``enqueue`` (and a
``remove`` whose text no enqueue carried, as 2.1.205 and later write it), the
``toolUseResult`` side-car, and the ``agentId:`` tail of Task results (kept as linkage).
Sub-agents become `Session.children` (keys ``agent-<id>`` or ``sidechain-<n>``) with header
metadata ``parentSessionId``/``parentToolCallId``/``agentId``; the parent lists them in
``subagentLinks``. A file that yields no message and no sub-agent (empty, blank, metadata
lines only) yields no session: the driver reports ``no-sessions``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.model import Session, StreamedSession

FORMAT = "claude-code"
HARNESS = "claude-code"

LINE_TYPES = frozenset((
    "user", "assistant", "system", "progress", "attachment", "summary",
    "file-history-snapshot", "queue-operation", "custom-title", "ai-title",
))


#: Keys that mark Claude Code's lines without a uuid.
SIGNATURE_KEYS = {"summary": "leafUuid", "file-history-snapshot": "snapshot",
                  "queue-operation": "operation"}


def is_unchained_turn(record: dict, kind: str) -> bool:
    """A user or assistant line as every Claude Code line has it (its ``message`` with the same
    role, a ``uuid`` or ``sessionId``), even written without ``parentUuid``/``isSidechain`` (as
    tools writing Claude-Code-shaped transcripts do)."""
    message = record.get("message")
    return (kind in ("user", "assistant") and type(message) is dict
            and message.get("role") == kind and ("uuid" in record or "sessionId" in record))


class ClaudeCodeConverter(Converter):
    """Reads Claude Code JSONL transcripts, with their sub-agents."""

    name = FORMAT
    harness = HARNESS
    description = "Claude Code session transcripts (~/.claude/projects/*/*.jsonl)"
    priority = 10

    def sniff(self, peek: Peek) -> float:
        objects = peek.objects
        if not objects:
            head = peek.data[:65536]
            return 0.6 if b'"parentUuid"' in head and b'"sessionId"' in head else 0.0
        score = 0.0
        for record in islice(objects, 20):  # parsed as far as looked at
            kind = record.get("type")
            if type(kind) is not str or kind not in LINE_TYPES:
                continue
            if "parentUuid" in record and "sessionId" in record and "uuid" in record:
                return 0.95
            if SIGNATURE_KEYS.get(kind, "") in record or is_unchained_turn(record, kind):
                score = 0.8
        return score

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        # the reading modules are loaded only when used: detection stays cheap at start-up
        from sts.converters.base import gc_paused
        from sts.converters.claude_code.records import bytes_left, read_transcript
        from sts.converters.claude_code.session import STREAMED_FROM, build_main

        subagents = self.options(context).subagents
        left = bytes_left(stream) if context.deferred else None
        again = left is not None and left >= STREAMED_FROM  # a big file: stream its messages
        with gc_paused():
            transcript = read_transcript(stream, context.problems, again)
            session = build_main(transcript, context, subagents)
            del transcript  # what a streamed session still reads, it holds
        if session.messages or session.children or isinstance(session, StreamedSession):
            yield session  # else nothing: the driver reports it

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        from sts.converters.claude_code.subagents import is_companion

        return is_companion(path, root)
