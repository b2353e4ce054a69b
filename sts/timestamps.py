"""Times from any source as epoch milliseconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sts.problems import Reporter, shorten

# Numbers below this are seconds: 1e11 seconds is the year 5138, 1e11 milliseconds is 1973.
_SECONDS_LIMIT = 1e11
# Times outside years 1..9999 cannot be written as ISO dates (or as 64-bit integers): not a time.
_MIN_MS = -62_135_596_800_000
_MAX_MS = 253_402_300_799_999
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_ms(value: object) -> int | None:
    """Epoch ms from epoch seconds or ms (int, float or numeric string) or an ISO-8601 string.

    Returns None for anything else (booleans, empty or unparseable strings, times outside the
    years 1 to 9999, and those of 1970-01-11..02-17, see `epoch_ms`): never a guess.
    """
    if type(value) is int or type(value) is float:
        if value != value or value in (float("inf"), float("-inf")):  # NaN, infinities
            return None
        return epoch_ms(round(value * 1000) if abs(value) < _SECONDS_LIMIT else value)
    if type(value) is str and value:
        if value[4:5] == "-" and value[:4].isdigit():  # a date: no number, skip float()'s raise
            found = iso_to_ms(value.rstrip())
        else:
            text = value.strip()
            try:
                return to_ms(float(text))
            except ValueError:
                found = iso_to_ms(text)
        return None if found is None or reads_as_seconds(found) else found
    return None


def checked_ms(value: object, problems: Reporter, lineno: int | None, what: str,
               outcome: str = "left out") -> int | None:
    """`to_ms(value)`; a value that is there but no time is reported ``bad-timestamp`` (the
    message ends with `outcome`: what the reader does instead)."""
    found = to_ms(value)
    if found is None and value is not None:
        problems.warning(lineno, "bad-timestamp", f"{what} {shorten(repr(value))} not a time: "
                         f"{outcome}")
    return found


# Epoch seconds of 2000-01-01 and 2100-01-01: a number between them in a field that holds
# milliseconds is a time in seconds (as milliseconds it would be January 1970).
SECONDS_2000 = 946_684_800
SECONDS_2100 = 4_102_444_800


def stated_ms(value: object, problems: Reporter, lineno: int | None, what: str,
              outcome: str = "left out") -> int | None:
    """A time from a field whose spec says epoch milliseconds (STS): a number is taken as
    milliseconds as it is, so converting a converted file never scales it again; a number that
    reads as seconds of 2000-2100 is scaled and reported ``timestamp-in-seconds``; an ISO
    string is read as such; anything else is left out, reported ``bad-timestamp``."""
    if type(value) is int or type(value) is float:
        if SECONDS_2000 <= value <= SECONDS_2100:
            problems.warning(lineno, "timestamp-in-seconds", f"{what} {value} is in seconds, "
                             "not milliseconds: read as seconds")
            return epoch_ms(round(value * 1000))
        found = epoch_ms(value)
        if found is None:
            problems.warning(lineno, "bad-timestamp", f"{what} {value!r} not a time: {outcome}")
        return found
    return checked_ms(value, problems, lineno, what, outcome)


def reads_as_seconds(ms: float) -> bool:
    """True for epoch ms of 1970-01-11..02-17, which read as seconds of 2000-2100: no output
    can hold them (`sts validate` rejects such a time in STS and in Pi messages), and no agent
    ran then, so readers take them for no time."""
    return SECONDS_2000 <= ms <= SECONDS_2100


def epoch_ms(value: int | float) -> int | None:
    """A number already in epoch ms as an int; None for NaN, infinities, times outside the
    years 1 to 9999 and those that read as seconds (`reads_as_seconds`)."""
    # NaN compares false: None too
    if value != value or not _MIN_MS <= value <= _MAX_MS or SECONDS_2000 <= value <= SECONDS_2100:
        return None
    return int(value)


#: Times read as ISO text already in the form `iso_from_ms` writes (JavaScript's), and times it
#: wrote, by their ms: writing them again reuses the text (a Codex rollout's thousands of times,
#: a Pi entry's time carried forward, a stream's one fallback time). Bounded.
_WRITTEN_AS: dict[int, str] = {}
_REMEMBERED = 1 << 14
_CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def iso_to_ms(text: str) -> int | None:
    """Epoch ms from an ISO-8601 string (``Z`` or an offset; naive times are taken as UTC)."""
    original = text
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    # an offset can carry a time past year 9999 or before year 1 (9999-12-31T23:59:59-14:00)
    ms = round(moment.timestamp() * 1000)
    if not _MIN_MS <= ms <= _MAX_MS:
        return None
    if _CANONICAL.fullmatch(original):
        remember(ms, original)
    return ms


def remember(ms: int, text: str) -> None:
    """Keep `text` as what `iso_from_ms(ms)` gives (a bounded map)."""
    if len(_WRITTEN_AS) >= _REMEMBERED:
        _WRITTEN_AS.clear()
    _WRITTEN_AS[ms] = text


def iso_from_ms(ms: int) -> str:
    """Epoch milliseconds → ISO-8601 UTC with milliseconds and ``Z``, as JavaScript writes it
    (always four year digits: ``0500-06-01T00:00:00.000Z``). Exact integer arithmetic."""
    known = _WRITTEN_AS.get(ms)
    if known is not None:
        return known
    moment = _EPOCH + timedelta(milliseconds=ms)
    text = (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
            f"{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z")
    remember(ms, text)  # a time carried forward, or a fallback, is written again and again
    return text
