"""sts-convert: AI agent session traces → STS-Format or Pi sessions for the Hugging Face Hub.

The Python API::

    import sts
    for session in sts.read("session.jsonl"):          # format detected
        sts.write(session, "out.jsonl", to="pi", harness="my-agent")
    sts.convert("rollout.jsonl", "out/", to="sts")      # read + write in one call
    problems = sts.validate("out.jsonl")               # [] when valid
"""

from sts.api import convert, detect, read, validate, write
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

__all__ = [
    "ConversionFailed",
    "ImagePart",
    "MediaPart",
    "Message",
    "Part",
    "Problem",
    "Problems",
    "Session",
    "TextPart",
    "ThinkingPart",
    "ToolCall",
    "Usage",
    "convert",
    "detect",
    "read",
    "validate",
    "write",
]
