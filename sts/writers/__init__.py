"""Target writers: Session → STS-Format or Pi session JSONL.

`WRITERS` maps a target name to its writer; each writer module is imported when first looked
up (start-up: a run to STS never loads the Pi writer). ``from sts.writers import write_pi``
works too.
"""

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, BinaryIO, Protocol

from sts.imports import load_target
from sts.model import Message, Session
from sts.problems import Problems

if TYPE_CHECKING:
    from sts.writers.pi import write_pi
    from sts.writers.sts import write_sts


class Writer(Protocol):
    """A target writer: see `write_sts` for the arguments."""

    def __call__(
        self, session: Session, out: BinaryIO, harness: str | None = None, *,
        messages: Iterable[Message] | None = None, problems: Problems | None = None,
    ) -> None: ...


class _Writers(Mapping[str, Writer]):
    """Target name → writer, named by ``"module:function"`` and imported on first use."""

    def __init__(self, targets: dict[str, str]) -> None:
        self._targets = targets

    def __getitem__(self, name: str) -> Writer:
        writer: Writer = load_target(self._targets[name])
        return writer

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)


WRITERS: Mapping[str, Writer] = _Writers(
    {"sts": "sts.writers.sts:write_sts", "pi": "sts.writers.pi:write_pi"}
)


def __getattr__(name: str) -> Writer:
    if name.startswith("write_") and name.removeprefix("write_") in WRITERS:
        return WRITERS[name.removeprefix("write_")]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["WRITERS", "Writer", "write_pi", "write_sts"]
