"""The redactor: one pass over one decoded string, every rule at once.

`Redactor.text(value)` returns the string with secrets and personal data replaced and the
`Hit`s it made: where (the span in the *returned* string), which rule, whether it was replaced
(``redacted``) or only marked for a person to look at (``flagged``: high-entropy strings, which
are never silently rewritten), a keyed fingerprint and a masked preview. The secret itself is
never kept in a hit.

Cost: Python's regular expressions scan at 15-25 M characters/s, its substring searches and
byte translations at 300-1000, so no expression scans a long string. A string is viewed as
bytes, one per character (`_view`), then: token rules run only on runs of 20+ token characters
(found with one `bytes.translate` and `bytes.find`), literal rules only where their literal
occurs (one alternation over the lowercased view of a short string, one `find` per literal in
a long one), and the entropy check only on runs of 20+ base64 characters.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from sts.redact.rules import RULES, SECRET_NAME_END, Rule, plausible_value

Action = Literal["redacted", "flagged"]

#: Environment variable names whose values are secrets (their exact values are redacted).
SECRET_NAME = re.compile(r"(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
                         r"|AUTH(?!OR)|CREDENTIAL)")
#: Values shorter than this are never treated as secrets by exact value (too many false hits).
MIN_VALUE = 8
USER_PLACEHOLDER = "<user>"
#: User names too generic to replace as words (they are still replaced inside home paths).
GENERIC_USERS = frozenset(
    ("root", "user", "users", "admin", "home", "runner", "ubuntu", "node", "app", "test", "dev",
     "shared", "public", "default", "guest", "vagrant", "ec2-user", "build", "me", "www", "git",
     "codespace", "jovyan")
)
#: E-mail addresses left alone: documentation domains and well-known bot addresses.
DEFAULT_ALLOWED_EMAILS = (
    r"[^@\s]+@(?:[A-Za-z0-9\-]+\.)*example\.(?:com|org|net)",
    r"noreply@anthropic\.com",
    r"git@[A-Za-z0-9.\-]+",
    r"[^@\s]+@localhost",
)
_HOME = re.compile(r"(?:/home/|/Users/|\\Users\\+)([^/\\\s\"'<>:*?|`]+)")
_HEX = re.compile(r"[0-9a-fA-F\-]+")
#: Machine-made ids that fill traces and are not secrets: tool-call, message and request ids of
#: model APIs, and package integrity hashes.
_ID = re.compile(r"(?:toolu|srvtoolu|msg|req|call|resp|fc|rs|run|asst|thread|file|batch|evt"
                 r"|ft|org|proj|user|chatcmpl|cmpl|ws|item|sess)(?:_bdrk|_vrtx)?[_\-]"
                 r"|sha(?:1|256|384|512)-")
#: A match before overlaps are resolved: start, end, rule, replacement, priority (0 secrets).
_Match = tuple[int, int, str, str, int]
#: A rule anchored on a literal: the rule, its compiled expression, the literal's length.
_Handler = tuple[Rule, re.Pattern[str], int]


@dataclass(slots=True)
class Hit:
    """One finding in one string: `start`/`end` index the returned (redacted) string."""

    rule: str
    action: Action
    start: int
    end: int
    fingerprint: str
    preview: str


@dataclass(eq=False)
class RedactionConfig:
    """What to redact. The defaults are what `sts publish` uses.

    `secrets` are exact values to remove (``--secret``, ``--secrets-file``); `environment`
    (default: this process's) gives the values of variables whose names say TOKEN, KEY, SECRET,
    PASSWORD... `user_names` are replaced as words besides every home path's user. `allow`
    holds exact strings never redacted nor flagged, `allow_patterns` regular expressions for
    the same. `key` keys the fingerprints (random per run unless given), so a report never lets
    anyone test a guess against it.
    """

    patterns: bool = True
    secrets: tuple[str, ...] = ()
    environment: Mapping[str, str] | None = None
    user_names: tuple[str, ...] | None = None
    home_paths: bool = True
    emails: bool = True
    entropy: bool = True
    allow: tuple[str, ...] = ()
    allow_patterns: tuple[str, ...] = ()
    key: bytes = field(default_factory=lambda: os.urandom(16))


class Redactor:
    """Redacts strings by a `RedactionConfig`; build once, use for every string of a run."""

    def __init__(self, config: RedactionConfig | None = None) -> None:
        self.config = config = config or RedactionConfig()
        rules = RULES if config.patterns else ()
        token_rules = [r for r in rules if r.anchor == "token"]
        self._token_names = [r.name for r in token_rules]
        self._tokens = (
            re.compile("|".join(f"(?P<t{i}>{r.pattern})" for i, r in enumerate(token_rules)))
            if token_rules else None
        )
        # Every other rule is anchored on literals, all looked for in the lowercased view (a
        # case-sensitive rule's expression then checks the case): `_own` maps each literal to
        # the handlers anchored on exactly it; `_dispatch` maps it to those of every literal
        # inside it, with their offset (the alternation reports one literal per place, the
        # longest, and none inside it).
        self._own: dict[bytes, list[_Handler]] = {}
        for rule in rules:
            if rule.anchor == "token":
                continue
            pattern = rule.compile()
            for literal in rule.literals:
                key = literal.lower().encode("latin-1")
                self._own.setdefault(key, []).append((rule, pattern, len(key)))
        self._dispatch = {
            key: [(offset, handler) for other, handlers in self._own.items()
                  for offset in _occurrences(key, other) for handler in handlers]
            for key in self._own
        }
        self._anchors = (
            re.compile(b"|".join(re.escape(k) for k in sorted(self._own, key=len, reverse=True)))
            if self._own else None
        )
        user_values = sorted({v for v in config.secrets if len(v) >= MIN_VALUE}, key=len)
        env = os.environ if config.environment is None else config.environment
        env_values = sorted({
            value for name, value in env.items()
            if SECRET_NAME.search(name) and len(value) >= MIN_VALUE and value not in user_values
            and not _looks_like_path(value)
        }, key=len)
        # longest first, so that a value containing another is replaced whole
        self._values = [(v, "user-secret") for v in reversed(user_values)]
        self._values += [(v, "env-value") for v in reversed(env_values)]
        names = config.user_names if config.user_names is not None else _local_user_names()
        self.user_names = sorted(
            {n for n in names if len(n) >= 3 and n.lower() not in GENERIC_USERS},
            key=len, reverse=True,
        )
        self._allowed = frozenset(config.allow)
        allow = list(config.allow_patterns)
        if config.emails:
            allow += [f"(?:{p})" for p in DEFAULT_ALLOWED_EMAILS]
        self._allow = re.compile("|".join(f"(?:{p})" for p in allow)) if allow else None

    # -- one string --------------------------------------------------------------------------

    def text(self, value: str) -> tuple[str, list[Hit]]:
        """`value` redacted, and the hits (spans in the returned string)."""
        size = len(value)
        if size < 6:
            return value, []
        found: list[_Match] = []
        view = _view(value)
        for secret, rule in self._values:
            if secret in value:
                for start in _occurrences(value, secret):
                    found.append((start, start + len(secret), rule, f"[REDACTED:{rule}]", 0))
        if self._tokens is not None and size >= _MIN_TOKEN:
            self._token_rules(value, view, found)
        if self._anchors is not None:
            self._anchored_rules(value, view.translate(_LOWER), found)
        if self.config.home_paths and ("/home/" in value or "Users" in value):
            self._home_paths(value, found)
        for name in self.user_names:
            if name in value:
                for start in _occurrences(value, name):
                    end = start + len(name)
                    if _word_edge(value, start - 1) and _word_edge(value, end):
                        found.append((start, end, "user-name", USER_PLACEHOLDER, 1))
        if self.config.emails and "@" in value:
            self._emails(value, found)
        hits: list[Hit] = []
        if found:
            value = self._replace(value, found, hits)
            if hits:
                view = _view(value)
        if self.config.entropy and size >= _MIN_ENTROPY:
            self._flag_entropy(value, view, hits)
        return value, hits

    def _token_rules(self, value: str, view: bytes, found: list[_Match]) -> None:
        # A token secret starts where a run of token characters starts, or after a dot in it
        # (the rules' boundary makes - and _ part of a token): one match attempt each.
        tokens = self._tokens
        assert tokens is not None
        for start, end in _runs(view.translate(_TOKEN_CHARS), _MIN_TOKEN):
            at = start
            while at >= 0:
                match = tokens.match(value, at, end)
                if match is not None:
                    rule = self._token_names[int(match.lastgroup[1:])]  # type: ignore[index]
                    found.append((match.start(), match.end(), rule, f"[REDACTED:{rule}]", 0))
                    at = view.find(b".", match.end(), end)
                else:
                    at = view.find(b".", at, end)
                if at >= 0:
                    at += 1

    def _anchored_rules(self, value: str, lowered: bytes, found: list[_Match]) -> None:
        # Short strings: one pass of the literals' alternation (few calls); long ones: one
        # `find` per literal (each far faster than the alternation over a long text).
        if len(value) <= _ALTERNATION_UP_TO:
            assert self._anchors is not None
            for match in self._anchors.finditer(lowered):
                start = match.start()
                for offset, handler in self._dispatch[match.group()]:
                    self._anchored(value, start + offset, handler, found)
            return
        for literal, handlers in self._own.items():
            find = lowered.find
            at = find(literal)
            while at >= 0:
                for handler in handlers:
                    self._anchored(value, at, handler, found)
                at = find(literal, at + len(literal))

    def _anchored(self, value: str, at: int, handler: _Handler, found: list[_Match]) -> None:
        rule, pattern, length = handler
        if rule.anchor == "literal":
            match = pattern.match(value, at)
            if match is not None:
                self._add(rule, match, found)
            return
        after = at + length  # an assignment: the name ends with the literal
        if after < len(value) and value[after] in "sS":
            return  # tokens, keys, secrets: a count or a list, not one secret
        match = pattern.match(value, after)
        if match is None:
            return
        name = _NAME_BEFORE.search(value, max(0, at - 40), after)
        if name is not None and SECRET_NAME_END.search(name.group()):
            self._add(rule, match, found)

    def _add(self, rule: Rule, match: re.Match[str], found: list[_Match]) -> None:
        start, end = match.span(rule.group)
        if start < 0 or start == end:
            return
        if rule.screened and not plausible_value(match.group(rule.group)):
            return
        found.append((start, end, rule.name, f"[REDACTED:{rule.name}]", 0))

    def _home_paths(self, value: str, found: list[_Match]) -> None:
        for literal in _HOME_LITERALS:
            for at in _occurrences(value, literal):
                match = _HOME.match(value, at)
                if match is not None:
                    found.append((match.start(1), match.end(1), "home-path", USER_PLACEHOLDER, 1))

    def _emails(self, value: str, found: list[_Match]) -> None:
        for at in _occurrences(value, "@"):
            local = _LOCAL_PART.search(value, max(0, at - 64), at)
            domain = _DOMAIN.match(value, at + 1)
            if local is None or domain is None:
                continue
            start = local.start()
            if start > 0 and value[start - 1] in _LOCAL_CHARS:
                continue  # longer than an address can be
            found.append((start, domain.end(), "email", "[REDACTED:email]", 1))

    def _allowed_value(self, secret: str) -> bool:
        if secret in self._allowed or secret == USER_PLACEHOLDER:
            return True
        return self._allow is not None and self._allow.fullmatch(secret) is not None

    def _replace(self, value: str, found: list[_Match], hits: list[Hit]) -> str:
        found.sort(key=lambda f: (f[0], f[4], -f[1]))  # secrets before personal data
        pieces: list[str] = []
        position = 0  # in the input
        length = 0  # of the output so far
        for start, end, rule, replacement, _ in found:
            if start < position:
                continue  # overlaps a longer or earlier match
            secret = value[start:end]
            if self._allowed_value(secret):
                pieces.append(value[position:end])  # kept whole: nothing inside is replaced
                length += end - position
                position = end
                continue
            if rule in ("home-path", "user-name") and secret.lower() in GENERIC_USERS:
                continue
            pieces.append(value[position:start])
            length += start - position
            hits.append(Hit(rule, "redacted", length, length + len(replacement),
                            self.fingerprint(secret), mask(secret, rule)))
            pieces.append(replacement)
            length += len(replacement)
            position = end
        if not hits:
            return value
        pieces.append(value[position:])
        return "".join(pieces)

    def _flag_entropy(self, value: str, view: bytes, hits: list[Hit]) -> None:
        flagged = False
        classes = None
        for start, end in _runs(view.translate(_BASE64_CHARS), _MIN_ENTROPY):
            if end - start > _MAX_ENTROPY:
                continue
            if classes is None:
                classes = view.translate(_CLASSES)
            kinds = classes[start:end]
            if kinds.count(b"d") < 2 or kinds.count(b"U") < 2 or kinds.count(b"l") < 2:
                continue
            token = value[start:end]
            if not high_entropy(token) or self._allowed_value(token):
                continue
            if any(h.start < end and start < h.end for h in hits):
                continue
            hits.append(Hit("high-entropy", "flagged", start, end, self.fingerprint(token),
                            mask(token, "high-entropy")))
            flagged = True
        if flagged:
            hits.sort(key=lambda h: h.start)

    def fingerprint(self, secret: str) -> str:
        """A short keyed hash of `secret`: equal secrets of one run share it; it cannot be
        reversed or checked against a guess without the run's key."""
        digest = hmac.new(self.config.key, secret.encode("utf-8", "replace"), hashlib.sha256)
        return digest.hexdigest()[:16]


def _view(value: str) -> bytes:
    """`value` as bytes, one per character (characters past Latin-1 become ``?``), so that
    byte offsets are character offsets and the fast bytes methods apply."""
    return value.encode("latin-1", "replace")


def _table(chars: str) -> bytes:
    return bytes(0x61 if chr(i) in chars else 0x20 for i in range(256))


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_TOKEN_CHARS = _table(_ALNUM + "_-.")
_BASE64_CHARS = _table(_ALNUM + "+/_-=")
_CLASSES = bytes(
    0x64 if 48 <= i <= 57 else 0x55 if 65 <= i <= 90 else 0x6C if 97 <= i <= 122 else 0x20
    for i in range(256)
)  # digit d, upper U, lower l
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_MIN_TOKEN = 20
_ALTERNATION_UP_TO = 4096
#: Rules whose secrets start with a public vendor prefix (``ghp_``, ``AKIA``), which a preview
#: may show.
_PREFIXED_RULES = frozenset(rule.name for rule in RULES if rule.anchor == "token")
_MIN_ENTROPY = 20
_MAX_ENTROPY = 120
_HOME_LITERALS = ("/home/", "/Users/", "\\Users\\")
_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_LOCAL_PART = re.compile(r"[A-Za-z0-9._%+\-]{1,64}\Z")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b")
_NAME_BEFORE = re.compile(r"[A-Za-z0-9_.\-]+\Z")


def _runs(classes: bytes, minimum: int):
    """(start, end) of each run of at least `minimum` ``a`` bytes in `classes`."""
    needle = b"a" * minimum
    find = classes.find
    at = find(needle)
    while at >= 0:
        end = find(b" ", at + minimum)
        if end < 0:
            end = len(classes)
        yield at, end
        at = find(needle, end)


def _occurrences(text, literal):
    """Every index of `literal` in `text` (str or bytes), left to right."""
    find = text.find
    at = find(literal)
    step = len(literal)
    while at >= 0:
        yield at
        at = find(literal, at + step)


def _word_edge(text: str, index: int) -> bool:
    return index < 0 or index >= len(text) or not (text[index].isalnum() or text[index] == "_")


def high_entropy(token: str) -> bool:
    """Whether a 20+ character token looks machine-made: upper, lower and digits mixed, high
    Shannon entropy, not a hex hash or a UUID (commit ids and checksums fill traces)."""
    if _HEX.fullmatch(token) or _ID.match(token):
        return False
    upper = lower = digit = 0
    for c in token:
        if c.isdigit():
            digit += 1
        elif c.isupper():
            upper += 1
        elif c.islower():
            lower += 1
    if upper < 2 or lower < 2 or digit < 2:
        return False
    if "/" in token and token.count("/") > 2:
        return False  # a path
    counts = Counter(token)
    size = len(token)
    entropy = -sum(n / size * math.log2(n / size) for n in counts.values())
    return entropy >= min(4.2, math.log2(size) - 0.3)


def mask(secret: str, rule: str) -> str:
    """A preview that never shows the secret: a known public prefix at most, and the length."""
    shown = ""
    if rule in _PREFIXED_RULES:
        shown = secret[: min(4, len(secret) // 5)]
    elif rule == "email":
        domain = secret.rsplit("@", 1)[-1].rsplit(".", 1)[-1]
        return f"***@***.{domain}"
    return f"{shown}{'*' * 4}…({len(secret)} chars)"


def _looks_like_path(value: str) -> bool:
    return value.startswith(("/", "./", "~")) or value.lower() in ("true", "false")


def _local_user_names() -> tuple[str, ...]:
    names = {os.environ.get(v, "") for v in ("USER", "LOGNAME", "USERNAME")}
    home = os.path.expanduser("~")
    if home not in ("~", "/", "/root"):
        names.add(os.path.basename(home.rstrip("/")))
    return tuple(n for n in names if n)
