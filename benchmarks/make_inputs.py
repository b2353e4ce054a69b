"""Deterministic benchmark inputs in the formats ../shared/bench/make_big_trace.py does not make.

- ``pi``: one Pi v3 session (user prompt, assistant with thinking + text + tool calls, tool
  results, turn after turn) of about the requested size;
- ``openai``: a JSONL of many independent OpenAI-style conversations (``{"messages", "tools"}``
  per line), the shape custom harnesses and datasets log;
- ``sts``: one STS session;
- ``cursor``: one Cursor Agent CLI transcript (no ids, times or results; large edit inputs);
- ``copilot``: one GitHub Copilot CLI ``events.jsonl`` (envelopes with usage records, tool
  start/complete events, reasoning and an inline sub-agent now and then);
- ``cline``: one Cline task history (``api_conversation_history.json``: one JSON array, as Cline
  writes it) with native tool use and ``<environment_details>`` in every user turn;
- ``factory-droid``: one Factory Droid session-store file;
- ``openclaw``: one OpenClaw session (a Pi v3 session with OpenClaw's custom entries);
- ``gemini-cli``: one Gemini CLI JSONL recording, replies re-appended as its writer does;
- ``kimi-cli``: one Kimi CLI session folder (``context.jsonl`` and the ``wire.jsonl`` joined
  with it);
- ``claude-code``: one Claude Code session (prompt, assistant lines split by content block and
  sharing a message id, tool results with their ``toolUseResult`` side-car), uuid-chained;
- ``batch``: a directory of many Pi sessions (400 KB each by default), for ``-j`` scaling;
- ``claude-folder``: a directory of many small Claude Code sessions (20 KB each by default), as
  ``~/.claude/projects/<dir>`` holds them.

Stdlib only; the same seed gives the same bytes. Usage::

    python benchmarks/make_inputs.py pi --size-mb 50 -o big-pi.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

WORDS = (
    "the a to of and in is for that this with on it be as are we can not function module "
    "config test build error value return import class self file path line output input "
    "request response session token cache trace parser writer reader model schema field record "
    "message tool call result update check fix refactor handle stream buffer format convert"
).split()
UNICODE = ["é", "—", "→", "✓", "日本語", "😀", "naïve", "€", '"quoted"', "back\\slash"]
START_MS = 1772442000000


def iso(ms: int) -> str:
    """Epoch ms as JavaScript's toISOString() writes it."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def dumps(obj: object) -> str:
    """Compact JSON with non-ASCII unescaped, as Node's JSON.stringify writes it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Text:
    """Pseudo prose and code from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def words(self, count: int) -> str:
        pick = self.random.choice
        out = [pick(WORDS) if self.random.random() > 0.03 else pick(UNICODE) for _ in range(count)]
        return " ".join(out)

    def block(self, size: int) -> str:
        lines = []
        total = 0
        while total < size:
            line = f"    {self.words(self.random.randint(3, 12))}  # {self.random.randint(0, 999)}"
            lines.append(line)
            total += len(line) + 1
        return "\n".join(lines)


def pi_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one Pi v3 session of about `target` bytes."""
    text = Text(seed)
    now = START_MS
    yield dumps({"type": "session", "version": 3, "id": "bench-pi", "cwd": "/work/project",
                 "timestamp": "2026-03-02T09:00:00.000Z"})
    parent = None
    counter = 0
    size = 0

    def entry(message: dict) -> str:
        nonlocal parent, counter, now
        counter += 1
        now += text.random.randint(200, 9000)
        entry_id = f"{counter:08x}"
        line = dumps({"type": "message", "id": entry_id, "parentId": parent,
                      "timestamp": iso(now), "message": {**message, "timestamp": now}})
        parent = entry_id
        return line

    usage = {"input": 1200, "output": 300, "cacheRead": 9000, "cacheWrite": 0,
             "totalTokens": 10500, "cost": {"input": 0.0036, "output": 0.0045, "cacheRead":
             0.0027, "cacheWrite": 0, "total": 0.0108}}
    while size < target:
        lines = [entry({"role": "user", "content": [{"type": "text", "text": text.words(40)}]})]
        for round_ in range(text.random.randint(2, 6)):
            call_id = f"toolu_{counter:06d}_{round_}"
            lines.append(entry({
                "role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
                "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "toolUse",
                "content": [
                    {"type": "thinking", "thinking": text.words(60),
                     "thinkingSignature": "x" * 200},
                    {"type": "text", "text": text.words(30)},
                    {"type": "toolCall", "id": call_id, "name": "read",
                     "arguments": {"path": f"src/{text.random.choice(WORDS)}.py"}},
                ],
            }))
            lines.append(entry({
                "role": "toolResult", "toolCallId": call_id, "toolName": "read",
                "content": [{"type": "text", "text": text.block(text.random.randint(300, 20000))}],
                "isError": False,
            }))
        lines.append(entry({
            "role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "stop",
            "content": [{"type": "text", "text": text.words(80)}],
        }))
        for line in lines:
            size += len(line.encode()) + 1
            yield line


def openai_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of a JSONL of independent OpenAI-style conversations, about `target` bytes."""
    text = Text(seed)
    tools = [{"type": "function", "function": {"name": "search", "description": "Search.",
              "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]
    size = 0
    number = 0
    while size < target:
        number += 1
        messages: list[dict] = [{"role": "system", "content": text.words(30)},
                                {"role": "user", "content": text.words(40)}]
        for round_ in range(text.random.randint(1, 4)):
            call_id = f"call_{number}_{round_}"
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {
                    "name": "search", "arguments": dumps({"q": text.words(4)})}}]})
            messages.append({"role": "tool", "tool_call_id": call_id,
                             "content": text.block(text.random.randint(200, 4000))})
        messages.append({"role": "assistant", "content": text.words(60)})
        line = dumps({"id": f"conv-{number}", "messages": messages, "tools": tools})
        size += len(line.encode()) + 1
        yield line


def sts_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one STS session of about `target` bytes."""
    text = Text(seed)
    yield dumps({"type": "session", "harness": "bench", "id": "bench-sts"})
    size = 0
    now = START_MS
    number = 0
    while size < target:
        number += 1
        now += 5000
        call_id = f"t{number}"
        for message in (
            {"role": "user", "content": text.words(40), "timestamp": now},
            {"role": "assistant", "content": text.words(20), "reasoningContent": text.words(50),
             "toolCalls": [{"id": call_id, "function": {"name": "read", "arguments":
                            dumps({"path": "a.py"})}}], "timestamp": now + 1, "model": "m"},
            {"role": "tool", "toolCallId": call_id, "content":
             text.block(text.random.randint(300, 20000)), "timestamp": now + 2},
            {"role": "assistant", "content": text.words(60), "timestamp": now + 3, "model": "m"},
        ):
            line = dumps({"type": "message", "message": message})
            size += len(line.encode()) + 1
            yield line


def copilot_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one Copilot CLI events.jsonl of about `target` bytes."""
    text = Text(seed)
    now = START_MS
    counter = 0
    parent: str | None = None
    size = 0

    def event(kind: str, data: dict, agent: str | None = None) -> str:
        nonlocal counter, now, parent
        counter += 1
        now += text.random.randint(5, 900)
        event_id = f"00000000-0000-4000-8000-{counter:012x}"
        record = {"type": kind, "data": data, "id": event_id, "timestamp": iso(now),
                  "parentId": parent}
        if agent is not None:
            record["agentId"] = agent
        parent = event_id
        return dumps(record)

    def usage(call: str, initiator: str) -> dict:
        return {"usage": {"model": "claude-sonnet-4.5", "inputTokens": 12000,
                          "outputTokens": 300, "cacheReadTokens": 9000, "cacheWriteTokens": 0,
                          "cost": 1, "duration": 2100, "initiator": initiator,
                          "apiCallId": call, "finishReason": "tool_calls"}}

    def model_call(turn: int, agent: str | None) -> list[str]:
        call_id = f"call_{counter:08x}"
        api = f"chatcmpl-{counter:08x}"
        request = {"toolCallId": call_id, "name": "view", "type": "function",
                   "arguments": {"path": f"/work/project/src/{text.random.choice(WORDS)}.py"}}
        return [
            event("assistant.turn_start", {"turnId": str(turn)}, agent),
            event("session.usage_record", usage(api, "agent"), agent),
            event("assistant.message", {
                "messageId": f"m-{counter}", "model": "claude-sonnet-4.5",
                "content": text.words(30), "reasoningText": text.words(60),
                "toolRequests": [request], "turnId": str(turn), "apiCallId": api}, agent),
            event("tool.execution_start", {"toolCallId": call_id, "toolName": "view",
                                           "arguments": request["arguments"]}, agent),
            event("tool.execution_complete", {
                "toolCallId": call_id, "success": True, "model": "claude-sonnet-4.5",
                "result": {"content": text.block(text.random.randint(300, 20000))},
                "turnId": str(turn)}, agent),
            event("assistant.turn_end", {"turnId": str(turn)}, agent),
        ]

    lines = [event("session.start", {
        "sessionId": "bench-copilot", "version": 1, "producer": "copilot-agent",
        "copilotVersion": "1.0.102", "startTime": iso(now), "selectedModel": "claude-sonnet-4.5",
        "context": {"cwd": "/work/project", "branch": "main"}})]
    first = True
    while size < target:
        lines.append(event("user.message", {"content": text.words(40), "turnId": "0",
                                            "messageId": f"u-{counter}"}))
        if first:
            lines.append(event("system.message", {"role": "system",
                                                  "content": text.block(20000)}))
            first = False
        rounds = text.random.randint(2, 6)
        for turn in range(rounds):
            lines += model_call(turn, None)
        if text.random.random() < 0.2:  # a sub-agent, inline
            agent = f"agent-{counter:08x}"
            lines.append(event("user.message", {"content": text.words(20),
                                                "source": "agent-bench-copilot"}, agent))
            lines += model_call(0, agent)
        lines.append(event("assistant.message", {
            "messageId": f"m-{counter}", "model": "claude-sonnet-4.5", "content": text.words(80),
            "toolRequests": [], "turnId": str(rounds)}))
        for line in lines:
            size += len(line.encode()) + 1
            yield line
        lines = []


def cursor_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one Cursor Agent CLI transcript of about `target` bytes."""
    text = Text(seed)
    size = 0
    while size < target:
        lines = [dumps({"role": "user", "message": {"content": [{"type": "text", "text":
                 f"<user_query>\n{text.words(40)}\n</user_query>\n\n<context>\n"
                 f"{text.block(2000)}\n</context>"}]}})]
        for _ in range(text.random.randint(2, 6)):
            path = f"src/{text.random.choice(WORDS)}.py"
            lines.append(dumps({"role": "assistant", "message": {"content": [
                {"type": "thinking", "thinking": text.words(60)},
                {"type": "text", "text": text.words(30)},
                {"type": "tool_use", "name": "read_file", "input": {"path": path}},
                {"type": "tool_use", "name": "edit_file", "input": {
                    "path": path, "contents": text.block(text.random.randint(300, 20000))}},
            ]}}))
        lines.append(dumps({"role": "assistant", "message": {"content": [
            {"type": "text", "text": text.words(80)}]}}))
        lines.append(dumps({"type": "turn_ended", "status": "success"}))
        for line in lines:
            size += len(line.encode()) + 1
            yield line


def gemini_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one Gemini CLI JSONL recording (v0.39+) of about `target` bytes, as its writer
    appends them: each model reply written again once its tool calls finish, each result also
    recorded as a ``functionResponse`` user record, ``$set`` updates between."""
    text = Text(seed)
    now = START_MS
    yield dumps({"sessionId": "bench-gemini-0000-4000-8000-000000000000", "projectHash": "0" * 64,
                 "startTime": iso(now), "lastUpdated": iso(now), "kind": "main"})
    bootstrap = f"<session_context>\n{text.words(60)}\n</session_context>"
    yield dumps({"$set": {"messages": [{"id": "0" * 32, "timestamp": iso(now), "type": "user",
                                        "content": [{"text": bootstrap}]}]}})
    size = 0
    number = 0
    tokens = {"input": 12000, "output": 300, "cached": 9000, "thoughts": 120, "tool": 0,
              "total": 12420}
    while size < target:
        number += 1
        now += 5000
        lines = [dumps({"id": f"u{number}", "timestamp": iso(now), "type": "user",
                        "content": [{"text": text.words(40)}]})]
        for round_ in range(text.random.randint(2, 6)):
            now += text.random.randint(200, 9000)
            call_id = f"read_file_{now}_{round_}"
            reply = {"id": f"g{number}_{round_}", "timestamp": iso(now), "type": "gemini",
                     "content": text.words(30), "thoughts": [
                         {"subject": text.words(3), "description": text.words(60),
                          "timestamp": iso(now)}],
                     "tokens": tokens, "model": "gemini-3-pro-preview"}
            response = [{"functionResponse": {"id": call_id, "name": "read_file", "response": {
                "output": text.block(text.random.randint(300, 20000))}}}]
            lines.append(dumps(reply))
            lines.append(dumps({"$set": {"lastUpdated": iso(now)}}))
            lines.append(dumps({**reply, "toolCalls": [{
                "id": call_id, "name": "read_file",
                "args": {"file_path": f"src/{text.random.choice(WORDS)}.py"},
                "result": response, "status": "success", "timestamp": iso(now + 5),
                "displayName": "ReadFile", "renderOutputAsMarkdown": True}]}))
            lines.append(dumps({"id": f"r{number}_{round_}", "timestamp": iso(now + 5),
                                "type": "user", "content": response}))
        lines.append(dumps({"id": f"f{number}", "timestamp": iso(now + 9), "type": "gemini",
                            "content": text.words(80), "thoughts": [], "tokens": tokens,
                            "model": "gemini-3-pro-preview"}))
        lines.append(dumps({"$set": {"lastUpdated": iso(now + 9)}}))
        for line in lines:
            size += len(line.encode()) + 1
            yield line
ENVIRONMENT = ("<environment_details>\n# VSCode Visible Files\nsrc/app.py\n\n# Current Working "
               "Directory (/work/project) Files\nsrc/\ntests/\n\n# Current Mode\nACT MODE\n"
               "</environment_details>")


def anthropic_turns(target: int, seed: int) -> Iterator[tuple[str, list[dict], int]]:
    """(role, Anthropic content blocks, epoch ms) of a tool-using session of about `target`
    bytes: a prompt, rounds of thinking + text + tool_use answered by tool_result, a reply."""
    text = Text(seed)
    now = START_MS
    size = 0
    counter = 0
    while size < target:
        turns: list[tuple[str, list[dict]]] = [
            ("user", [{"type": "text", "text": text.words(40)}])]
        for _ in range(text.random.randint(2, 6)):
            counter += 1
            call_id = f"toolu_{counter:06d}"
            turns.append(("assistant", [
                {"type": "thinking", "thinking": text.words(60), "signature": "x" * 200},
                {"type": "text", "text": text.words(30)},
                {"type": "tool_use", "id": call_id, "name": "read_file",
                 "input": {"path": f"src/{text.random.choice(WORDS)}.py"}}]))
            turns.append(("user", [{"type": "tool_result", "tool_use_id": call_id, "content":
                                    text.block(text.random.randint(300, 20000))}]))
        turns.append(("assistant", [{"type": "text", "text": text.words(80)}]))
        for role, blocks in turns:
            now += text.random.randint(200, 9000)
            size += len(dumps(blocks).encode()) + 200
            yield role, blocks, now


def cline_lines(target: int, seed: int) -> Iterator[str]:
    """One line: a Cline task history of about `target` bytes."""
    history = []
    for role, blocks, now in anthropic_turns(target, seed):
        message: dict = {"role": role, "content": blocks, "ts": now}
        if role == "user":
            blocks.append({"type": "text", "text": ENVIRONMENT})
        else:
            message["modelInfo"] = {"modelId": "claude-sonnet-4-5", "providerId": "anthropic",
                                    "mode": "act"}
            message["metrics"] = {"tokens": {"prompt": 10200, "completion": 300, "cached": 9000},
                                  "cost": 0.0108}
        history.append(message)
    yield dumps(history)


def droid_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one Factory Droid session-store file of about `target` bytes."""
    yield dumps({"type": "session_start", "id": "bench-droid", "title": "bench",
                 "sessionTitle": "Bench", "owner": "bench", "version": 2, "cwd": "/work/project"})
    parent = None
    for number, (role, blocks, now) in enumerate(anthropic_turns(target, seed)):
        line = {"type": "message", "id": f"m{number}", "timestamp": iso(now),
                "message": {"role": role, "content": blocks}}
        if parent is not None:
            line["parentId"] = parent
        parent = line["id"]
        yield dumps(line)


def openclaw_lines(target: int, seed: int) -> Iterator[str]:
    """Lines of one OpenClaw session: a Pi session in an OpenClaw workspace, with a cache-TTL
    custom entry after every assistant message (as OpenClaw writes them)."""
    lines = pi_lines(target, seed)
    header = json.loads(next(lines))
    yield dumps({**header, "id": "bench-openclaw", "cwd": "/home/bench/.openclaw/workspace"})
    custom_id = previous = None
    for number, line in enumerate(lines):
        if custom_id is not None:  # chained after the custom entry, as OpenClaw writes it
            line = line.replace(f'"parentId":"{previous}"', f'"parentId":"{custom_id}"', 1)
            custom_id = None
        yield line
        if '"role":"assistant"' in line:
            entry = json.loads(line)
            previous, custom_id = entry["id"], f"c{number:07x}"
            yield dumps({"type": "custom", "customType": "openclaw.cache-ttl", "id": custom_id,
                         "parentId": previous, "timestamp": entry["timestamp"],
                         "data": {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}})


def write_kimi(directory: Path, target: int, seed: int) -> None:
    """One Kimi CLI session folder of about `target` bytes: ``context.jsonl`` (prompts, replies
    with reasoning and a tool call, results, ``_usage`` and ``_checkpoint`` lines) and the
    ``wire.jsonl`` events the converter joins with it for times and usage."""
    text = Text(seed)
    directory.mkdir(parents=True, exist_ok=True)
    seconds = START_MS / 1000
    size = 0
    checkpoint = 0
    with open(directory / "context.jsonl", "w", encoding="utf-8") as context, \
            open(directory / "wire.jsonl", "w", encoding="utf-8") as wire:
        def event(kind: str, payload: dict) -> None:
            nonlocal seconds
            seconds += text.random.randint(5, 3000) / 1000
            wire.write(dumps({"timestamp": seconds, "message": {"type": kind,
                                                                "payload": payload}}) + "\n")

        def line(record: dict) -> None:
            nonlocal size
            row = dumps(record) + "\n"
            size += len(row.encode())
            context.write(row)

        wire.write(dumps({"type": "metadata", "protocol_version": "1.10"}) + "\n")
        line({"role": "_system_prompt", "content": text.words(300)})
        while size < target:
            prompt = text.words(40)
            line({"role": "_checkpoint", "id": checkpoint})
            checkpoint += 1
            line({"role": "user", "content": prompt})
            event("TurnBegin", {"user_input": prompt})
            for round_ in range(text.random.randint(2, 6)):
                call_id = f"ReadFile:{checkpoint}_{round_}"
                event("StepBegin", {"n": round_ + 1})
                think, words = text.words(60), text.words(30)
                arguments = dumps({"path": f"src/{text.random.choice(WORDS)}.py"})
                event("ContentPart", {"type": "think", "think": think, "encrypted": None})
                event("ContentPart", {"type": "text", "text": words})
                event("ToolCall", {"type": "function", "id": call_id, "function": {
                    "name": "ReadFile", "arguments": arguments}})
                line({"role": "_usage", "token_count": 12000 + size % 5000})
                line({"role": "assistant", "content": [
                    {"type": "think", "think": think, "encrypted": None},
                    {"type": "text", "text": words}], "tool_calls": [
                    {"type": "function", "id": call_id, "function": {
                        "name": "ReadFile", "arguments": arguments}}]})
                output = text.block(text.random.randint(300, 20000))
                event("ToolResult", {"tool_call_id": call_id, "return_value": {
                    "is_error": False, "output": output, "message": "", "display": []}})
                event("StatusUpdate", {"token_usage": {"input_other": 1200, "output": 300,
                                                       "input_cache_read": 9000,
                                                       "input_cache_creation": 0},
                                       "message_id": f"chatcmpl-{checkpoint}-{round_}"})
                line({"role": "tool", "content": [{"type": "text", "text": output}],
                      "tool_call_id": call_id})
            answer = text.words(80)
            event("StepBegin", {"n": 99})
            event("ContentPart", {"type": "text", "text": answer})
            line({"role": "assistant", "content": answer})
            event("TurnEnd", {})


def claude_lines(target: int, seed: int, session: str = "bench-claude") -> Iterator[str]:
    """Lines of one Claude Code session of about `target` bytes, each line chained to the
    previous by parentUuid."""
    text = Text(seed)
    now = START_MS
    size = 0
    number = 0
    parent: str | None = None
    base = {"isSidechain": False, "userType": "external", "cwd": "/work/project",
            "sessionId": session, "version": "2.0.76", "gitBranch": "main"}

    def line(kind: str, message: dict, **extra: object) -> str:
        nonlocal parent, number, now, size
        number += 1
        now += text.random.randint(200, 5000)
        uuid = f"{seed:08x}-{number:04x}-4000-8000-{number:012x}"
        record = {"parentUuid": parent, **base, "type": kind, "message": message, "uuid": uuid,
                  "timestamp": iso(now), **extra}
        parent = uuid
        encoded = dumps(record)
        size += len(encoded.encode()) + 1
        return encoded

    turn = 0
    while size < target:
        turn += 1
        yield line("user", {"role": "user", "content": text.words(30)})
        message_id = f"msg_{seed:x}_{turn}"
        usage = {"input_tokens": 1200, "output_tokens": 300, "cache_read_input_tokens": 800}
        reply = {"id": message_id, "type": "message", "role": "assistant",
                 "model": "claude-sonnet-4-5", "stop_reason": None, "usage": usage}
        yield line("assistant", {**reply, "content": [{"type": "text", "text": text.words(40)}]},
                   requestId=f"req_{turn}")
        call_id = f"toolu_{seed:x}_{turn}"
        yield line("assistant", {**reply, "content": [{"type": "tool_use", "id": call_id,
                   "name": "Read", "input": {"file_path": f"/work/project/f{turn}.py"}}]},
                   requestId=f"req_{turn}")
        output = text.block(text.random.randint(300, 3000))
        yield line("user", {"role": "user", "content": [{"type": "tool_result",
                   "tool_use_id": call_id, "content": output}]},
                   toolUseResult={"type": "text", "file": {"filePath": f"f{turn}.py",
                                                           "content": output}})
        yield line("assistant", {**reply, "id": message_id + "b", "stop_reason": "end_turn",
                   "content": [{"type": "text", "text": text.words(50)}]})


def write_claude_folder(directory: Path, count: int, size: int, seed: int) -> None:
    """`count` Claude Code sessions of about `size` bytes each in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        session = f"{seed:08x}-0000-4000-8000-{index:012x}"
        lines = claude_lines(size, seed + index, session)
        (directory / f"{session}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")


def write_batch(directory: Path, count: int, size: int, seed: int) -> None:
    """`count` Pi sessions of about `size` bytes each in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        lines = pi_lines(size, seed + index)
        (directory / f"session-{index:04d}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")


GENERATORS = {"pi": pi_lines, "claude-code": claude_lines, "openai": openai_lines, "sts": sts_lines,
              "copilot": copilot_lines, "cursor": cursor_lines, "cline": cline_lines,
              "factory-droid": droid_lines, "openclaw": openclaw_lines, "gemini-cli": gemini_lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=[*GENERATORS, "batch", "kimi-cli", "claude-folder"])
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--count", type=int, default=400, help="batch: number of sessions")
    parser.add_argument("--session-kb", type=int, default=None,
                        help="batch: size of each session (400 KB; claude-folder 20 KB)")
    parser.add_argument("--seed", type=int, default=20260302)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    if args.kind == "batch":
        write_batch(args.output, args.count, (args.session_kb or 400) * 1000, args.seed)
        return
    if args.kind == "claude-folder":
        write_claude_folder(args.output, args.count, (args.session_kb or 20) * 1000, args.seed)
        return
    if args.kind == "kimi-cli":  # a session folder: -o names the folder
        write_kimi(args.output, int(args.size_mb * 1_000_000), args.seed)
        return
    with open(args.output, "w", encoding="utf-8") as out:
        for line in GENERATORS[args.kind](int(args.size_mb * 1_000_000), args.seed):
            out.write(line)
            out.write("\n")


if __name__ == "__main__":
    main()
