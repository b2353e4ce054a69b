"""Target writers: Session → STS-Format or Pi session JSONL."""

from collections.abc import Callable
from typing import BinaryIO

from sts.model import Session
from sts.writers.pi import write_pi
from sts.writers.sts import write_sts

Writer = Callable[[Session, BinaryIO, "str | None"], None]

WRITERS: dict[str, Writer] = {"sts": write_sts, "pi": write_pi}

__all__ = ["WRITERS", "Writer", "write_pi", "write_sts"]
