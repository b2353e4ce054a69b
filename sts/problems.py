"""Problems found in input, and the policy that decides what happens next.

Every converter reports what it could not read through one `Problems` object, with a stable
code and the line number. The policy is the user's `--on-error` choice:

- ``skip``: report and go on (the default);
- ``fail``: stop at the first error (raises `ConversionFailed`);
- ``keep``: like skip, and the raw text of an unreadable line is kept in the session header.

A problem is an ``error`` when input was skipped or lost, a ``warning`` when it was repaired
without loss of meaning (a lone surrogate replaced by U+FFFD, say). Errors make the command exit
with 1; warnings are only reported.

Each problem reaches the sink as it happens and is counted (`Tally`), but only the first `KEEP`
of an input are kept: an input with a million bad lines costs no more memory than one with a
thousand. Where problems are passed on later rather than as they happen (from a worker process
to the one printing them), the rest are summed up by `Tally.note_not_kept`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import field
from typing import Literal, Protocol

from sts import codes
from sts.records import FrozenRecord, Record, record

Policy = Literal["skip", "fail", "keep"]
MAX_TEXT = 300  # a message quoting a 20 MB string keeps only its head and tail
POLICIES: tuple[str, ...] = ("skip", "fail", "keep")
KEPT_NOTE = "kept raw in the session header (unparsedLines)"
#: Problems an input keeps (`Tally.sample`); every one is still counted and reaches the sink.
KEEP = 1000


@record(slots=True, frozen=True)
class Problem(FrozenRecord):
    """One thing wrong with the input: where (file, line), a stable code, and what."""

    file: str
    line: int | None
    code: str
    text: str
    severity: Literal["error", "warning"] = "error"

    def __post_init__(self) -> None:
        if codes.STRICT and self.code not in codes.CODES:
            raise codes.UnknownCode(f"problem code {self.code!r} is not registered in sts/codes.py")

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return printable(f"{where}: {self.severity}: {self.text} [{self.code}]")


class ConversionFailed(Exception):
    """Raised under ``--on-error fail`` at the first error."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


# C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides and isolates
# (compiled when first needed, by re's cache: start-up)
_CONTROL = "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"


def printable(text: str) -> str:
    """`text` safe to print on a terminal: control characters (escape sequences, newlines,
    bidirectional overrides) written as ``\\xNN`` / ``\\uNNNN``, so that no file name or input
    value can move the cursor, recolour the terminal or fake a message line."""
    return re.sub(_CONTROL, _escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shorten(text: str) -> str:
    """`text` cut in the middle to at most about `MAX_TEXT` characters."""
    if len(text) <= MAX_TEXT:
        return text
    half = MAX_TEXT // 2
    return f"{text[:half]}…({len(text) - 2 * half} characters)…{text[-half:]}"


def print_to_stderr(problem: Problem) -> None:
    """The default problem sink: one line on stderr."""
    print(problem, file=sys.stderr)


@record(slots=True)
class Tally(Record):
    """The problems of one input: every one counted, by severity and by code; the first
    `KEEP` kept (`sample`)."""

    sample: list[Problem] = field(default_factory=list)
    errors: int = 0
    warnings: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def add(self, problem: Problem) -> None:
        if problem.severity == "error":
            self.errors += 1
        else:
            self.warnings += 1
        codes = self.codes
        codes[problem.code] = codes.get(problem.code, 0) + 1
        if len(self.sample) < KEEP:
            self.sample.append(problem)

    @property
    def not_kept(self) -> int:
        """How many problems were counted but not kept."""
        return self.errors + self.warnings - len(self.sample)

    def note_not_kept(self, file: str) -> Problem | None:
        """What to say after the kept problems when they are passed on late: how many more
        there were (None when all were kept)."""
        if not self.not_kept:
            return None
        errors = self.errors - sum(1 for p in self.sample if p.severity == "error")
        text = (f"{self.not_kept} more problem(s) ({errors} error(s)) not listed: only the "
                f"first {KEEP} are kept")
        return Problem(file, None, "problems-not-kept", text, "warning")


class Reporter(Protocol):
    """What a reader reports problems to: `Problems`, or a log replayed into one later."""

    def error(self, line: int | None, code: str, text: str) -> None: ...

    def warning(self, line: int | None, code: str, text: str) -> None: ...


@record
class Problems(Record):
    """Collects problems for one input file and applies the policy.

    `file` is the name shown in messages. `sink` is called for each problem as it happens (stderr
    by default; tests pass `list.append`); `tally` counts them and keeps the first `KEEP`
    (`problems`). Kept raw lines (policy ``keep``) wait in `kept` until the driver attaches them
    to the session they belong to.
    """

    file: str = "<input>"
    policy: Policy = "skip"
    sink: Callable[[Problem], None] | None = print_to_stderr
    tally: Tally = field(default_factory=Tally)
    kept: list[dict[str, object]] = field(default_factory=list)
    # what -> [line of the first, how many, line of the second]: well-formed records of unknown type
    unknown: dict[str, list[int | None]] = field(default_factory=dict)
    companions: list[Problems] = field(default_factory=list)  # by `for_file`, closed by `close`

    def error(self, line: int | None, code: str, text: str, raw: bytes | None = None) -> None:
        """Report input that was skipped or lost. Under ``fail`` this raises; under ``keep`` the
        `raw` text is kept for the session header (and the message says so)."""
        codes.check(code, "error", "reading")
        keep = self.policy == "keep" and raw is not None
        if keep:
            text = text.removesuffix(": line skipped") + f"; {KEPT_NOTE}"
        problem = Problem(self.file, line, code, shorten(text), "error")
        self._emit(problem)
        if keep:
            self.kept.append({"line": line, "raw": raw.decode("utf-8", "replace")})  # type: ignore[union-attr]
        if self.policy == "fail":
            raise ConversionFailed(problem)

    def warning(self, line: int | None, code: str, text: str) -> None:
        """Report input that was repaired without losing its meaning."""
        codes.check(code, "warning", "reading")
        self._emit(Problem(self.file, line, code, shorten(text), "warning"))

    def unknown_type(self, line: int | None, what: str) -> None:
        """A well-formed record of a type the converter does not know (`what`, such as
        ``event type 'hook.fired'``), most likely from a newer harness version: skipped with a
        warning for the first of each type; the others are counted and reported by `close`."""
        seen = self.unknown.get(what)
        if seen is None:
            self.unknown[what] = [line, 1, None]
            self.warning(line, "unknown-type", f"{what} skipped: not known to this version of sts "
                         "(a newer harness version?)")
            return
        seen[1] += 1  # type: ignore[operator]
        if seen[2] is None:
            seen[2] = line

    def close(self) -> None:
        """Report what was only counted while reading: the further records of each unknown type,
        this input's and then its companion files' (`for_file`)."""
        companions, self.companions = self.companions, []
        for companion in companions:
            companion.close()
        unknown, self.unknown = self.unknown, {}
        for what, (_, count, second) in unknown.items():
            if count > 1:  # type: ignore[operator]
                self.warning(second, "unknown-type",
                             f"{count - 1} more record(s) of {what} skipped")  # type: ignore[operator]

    def _emit(self, problem: Problem) -> None:
        self.tally.add(problem)
        if self.sink is not None:
            self.sink(problem)

    @property
    def problems(self) -> list[Problem]:
        """The problems kept: the first `KEEP` reported."""
        return self.tally.sample

    @property
    def count(self) -> int:
        """How many problems were reported (kept or not)."""
        return self.tally.errors + self.tally.warnings

    @property
    def error_count(self) -> int:
        """How many errors (not warnings) were reported."""
        return self.tally.errors

    def for_file(self, file: object) -> Problems:
        """The problems of a companion file read with this input (a sub-agent transcript, a
        wire log): reported under its own name, with this input's policy, sink and tally, and
        closed with it."""
        companion = Problems(str(file), self.policy, self.sink, self.tally, self.kept)
        self.companions.append(companion)
        return companion

    def take_kept(self) -> list[dict[str, object]]:
        """Hand over the raw lines kept so far and forget them."""
        kept, self.kept = self.kept, []
        return kept
