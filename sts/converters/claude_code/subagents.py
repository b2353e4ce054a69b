"""Sub-agent discovery (claude-code.md §1, §7).

- 1.0.x writes sidechains inline (`isSidechain: true`, each rooted at `parentUuid: null`):
  `inline_sidechains` groups them by root; they are linked to the Task call whose
  `input.prompt` equals the root prompt.
- 2.0.x writes `agent-<id>.jsonl` next to the session (it belongs to the session whose id its
  lines carry); 2.1.x writes `<session>/subagents/agent-<id>.jsonl`. Both are linked through
  `toolUseResult.agentId`, the `agentId:` tail of the Task result, `agent_progress` lines, or
  `agent-<id>.meta.json`'s `toolUseId`.
- `agent-acompact-*` files are compaction runs, not sub-agents: never children.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from sts.converters.claude_code.records import Line

AGENT_PREFIX = "agent-"
COMPACT_PREFIX = "agent-acompact-"
COMPANION_DIRS = frozenset(("subagents", "tool-results"))
HEAD_LINES = 20
#: The session id of an agent file whose head cannot be read.
UNREADABLE = "\0unreadable"


def is_agent_file(path: Path) -> bool:
    """`agent-<id>.jsonl` or its `.meta.json`."""
    name = path.name
    return name.startswith(AGENT_PREFIX) and name.endswith((".jsonl", ".meta.json"))


def is_companion(path: Path, root: Path | None = None) -> bool:
    """True for files read through their main session: agent files and a session's folders.

    A file counts only where a main session that claims it is converted in the same run: a
    2.1.x ``subagents`` folder beside its session file (inside `root`, the folder being walked,
    when given), or a 2.0.x session file beside it whose ``sessionId`` the agent file carries.
    Any other agent file is converted as a session of its own, never passed over.
    """
    if path.name.startswith(AGENT_PREFIX) and path.name.endswith(".meta.json"):
        return path.with_name(path.name.removesuffix(".meta.json") + ".jsonl").is_file()
    if is_agent_file(path) and path.parent.name != "subagents":
        return _session_of(path) in _main_sessions(path.parent)
    parent = path.parent
    while parent.name:
        session_dir = parent.parent
        if parent.name in COMPANION_DIRS and session_dir.name:
            main = session_dir.with_name(session_dir.name + ".jsonl")
            if main.is_file():
                return root is None or main.resolve().is_relative_to(root.resolve())
        parent = parent.parent
    return False


#: Per folder (with its mtime): agent files by the session id they carry, and the session ids
#: of its main session files. Each file's head is read once per run, however many sessions
#: share the folder (a 2.0.x project folder holds sessions and four times as many agents).
_AGENTS: dict[Path, tuple[int, dict[str | None, list[Path]]]] = {}
_MAINS: dict[Path, tuple[int, set[str | None]]] = {}


def _folder_stamp(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return -1


def _agents_by_session(folder: Path) -> dict[str | None, list[Path]]:
    stamp = _folder_stamp(folder)
    cached = _AGENTS.get(folder)
    if cached is None or cached[0] != stamp:
        found: dict[str | None, list[Path]] = {}
        for sibling in sorted(folder.glob("agent-*.jsonl")):
            if _is_task_agent(sibling):
                found.setdefault(_session_of(sibling), []).append(sibling)
        cached = _AGENTS[folder] = (stamp, found)
    return cached[1]


def _main_sessions(folder: Path) -> set[str | None]:
    stamp = _folder_stamp(folder)
    cached = _MAINS.get(folder)
    if cached is None or cached[0] != stamp:
        ids: set[str | None] = set()
        try:
            siblings = sorted(folder.iterdir())
        except OSError:
            siblings = []
        for sibling in siblings:
            if sibling.suffix == ".jsonl" and not is_agent_file(sibling) and sibling.is_file():
                ids.add(_session_of(sibling))
        ids.difference_update((None, UNREADABLE))
        cached = _MAINS[folder] = (stamp, ids)
    return cached[1]


def agent_id_of(path: Path) -> str:
    """The agent id in an agent file's name (`agent-a881341.jsonl` → `a881341`)."""
    return path.name.removeprefix(AGENT_PREFIX).removesuffix(".jsonl")


def agent_files(path: Path, session_id: str | None) -> list[Path]:
    """The sub-agent files of the session in `path`, in name order, compaction runs left out."""
    found: list[Path] = []
    folder = path.parent / path.name.removesuffix(".jsonl") / "subagents"
    if folder.is_dir():
        found.extend(p for p in sorted(folder.glob("agent-*.jsonl")) if _is_task_agent(p))
    if session_id is not None and not is_agent_file(path):
        agents = _agents_by_session(path.parent)
        # an agent file that cannot be read may be this session's: reading it reports it
        found.extend(sorted((*agents.get(session_id, ()), *agents.get(UNREADABLE, ()))))
    return found


def meta_tool_use_id(agent_file: Path) -> str | None:
    """`toolUseId` from the agent's `.meta.json`, when there is one."""
    meta = agent_file.with_name(agent_file.name.removesuffix(".jsonl") + ".meta.json")
    try:
        value = orjson.loads(meta.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    tool_id = value.get("toolUseId") if type(value) is dict else None
    return tool_id if type(tool_id) is str else None


def inline_sidechains(entries: list[Line]) -> list[list[Line]]:
    """The inline sidechain lines grouped by the root they descend from, in file order."""
    root_of: dict[str, int] = {}
    groups: dict[int, list[Line]] = {}
    for entry in entries:
        if not entry.sidechain:
            continue
        root = root_of.get(entry.parent) if entry.parent is not None else None
        if root is None:
            root = entry.index
            groups[root] = []
        groups[root].append(entry)
        if entry.uuid is not None:
            root_of[entry.uuid] = root
    return list(groups.values())


def _is_task_agent(path: Path) -> bool:
    return path.is_file() and not path.name.startswith(COMPACT_PREFIX)


def _session_of(path: Path) -> str | None:
    try:
        with path.open("rb") as stream:
            for _, raw in zip(range(HEAD_LINES), stream, strict=False):
                try:
                    record = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                session = record.get("sessionId") if type(record) is dict else None
                if type(session) is str:
                    return session
    except OSError:
        return UNREADABLE
    return None
