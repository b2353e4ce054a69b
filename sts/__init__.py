"""sts-convert: AI agent session traces → STS-Format or Pi sessions for the Hugging Face Hub.

The Python API::

    import sts
    for session in sts.read("session.jsonl"):          # format detected
        sts.write(session, "out.jsonl", to="pi", harness="my-agent")
    sts.convert("rollout.jsonl", "out/", to="sts")      # read + write in one call
    sts.convert_many(["s3://bucket/raw/"], "out/", client=dask_client)  # many, on a cluster
    problems = sts.validate("out.jsonl")               # [] when valid
    sts.publish(["~/.claude/projects"], "hub-folder/")  # redacted, ready for `hf upload`
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sts.api import convert, convert_many, detect, publish, read, validate, write
    from sts.building.context import UnknownOption
    from sts.model import (
        ImagePart,
        MediaPart,
        Message,
        Part,
        Session,
        TextPart,
        ThinkingPart,
        ToolCall,
        Usage,
    )
    from sts.problems import ConversionFailed, Problem, Problems
    from sts.redact import RedactionConfig

_EXPORTS = {
    "convert": "sts.api",
    "convert_many": "sts.api",
    "detect": "sts.api",
    "publish": "sts.api",
    "read": "sts.api",
    "validate": "sts.api",
    "write": "sts.api",
    "ImagePart": "sts.model",
    "MediaPart": "sts.model",
    "Message": "sts.model",
    "Part": "sts.model",
    "Session": "sts.model",
    "TextPart": "sts.model",
    "ThinkingPart": "sts.model",
    "ToolCall": "sts.model",
    "Usage": "sts.model",
    "ConversionFailed": "sts.problems",
    "UnknownOption": "sts.building.context",
    "Problem": "sts.problems",
    "Problems": "sts.problems",
    "RedactionConfig": "sts.redact",
}
__all__ = [
    "ConversionFailed",
    "ImagePart",
    "MediaPart",
    "Message",
    "Part",
    "Problem",
    "Problems",
    "RedactionConfig",
    "Session",
    "TextPart",
    "ThinkingPart",
    "ToolCall",
    "UnknownOption",
    "Usage",
    "convert",
    "convert_many",
    "detect",
    "publish",
    "read",
    "validate",
    "write",
]


def __getattr__(name: str) -> object:
    """Import the public API on first use, so that the `sts` command starts fast."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sts' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
