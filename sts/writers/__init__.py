"""Target writers: Session → STS-Format or Pi session JSONL."""

from collections.abc import Iterable
from typing import BinaryIO, Protocol

from sts.model import Message, Session
from sts.problems import Problems
from sts.writers.pi import write_pi
from sts.writers.sts import write_sts


class Writer(Protocol):
    """A target writer: see `write_sts` for the arguments."""

    def __call__(
        self, session: Session, out: BinaryIO, harness: str | None = None, *,
        messages: Iterable[Message] | None = None, problems: Problems | None = None,
    ) -> None: ...


WRITERS: dict[str, Writer] = {"sts": write_sts, "pi": write_pi}

__all__ = ["WRITERS", "Writer", "write_pi", "write_sts"]
