"""Planted secrets for the redaction tests: fake values that match each rule, built here from
parts (so that no complete key-shaped string sits in the repository), and the rendering of the
templates in ``tests/cases/redact/``.

A template holds ``{{rule}}`` or ``{{rule:mode}}`` inside JSON strings. Modes: none (plain JSON
string text), ``u`` (every third character written as a ``\\uXXXX`` escape and ``/`` as
``\\/``, so the secret is split by escapes in the file), ``2`` (inside a JSON string that is
itself inside a JSON string, as tool-call arguments are), ``2u`` (both).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from tests.support import CASES

TEMPLATES = CASES / "redact"
USER = "qz" + "elda"


@dataclass(frozen=True)
class Planted:
    """What a placeholder renders (`text`) and the part that must never reach an output."""

    text: str
    secret: str


def _p(text: str, secret: str | None = None) -> Planted:
    return Planted(text, secret if secret is not None else text)


_KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAA" + "FAKEKEYMATERIAL" + "0123456789abcdefghij"
_AZURE = "FaKe" + "Azure" * 16 + "x" * 2
_AWS_SECRET = "FaKe" + "/Secret+" + "Key" * 8 + "0123"
_BASIC = "ZmFrZTpm" + "YWtlcGFzc3dvcmQx"
_PASSWORD = "Fake" + "Passw0rd" + "99"
_TELEGRAM = ":AA" + "FAKEfake" * 4 + "0"

PLANTED: dict[str, Planted] = {
    "private-key": _p(
        "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + _KEY_BODY + "\n" + _KEY_BODY[::-1]
        + "\n-----END OPENSSH " + "PRIVATE KEY-----",
        _KEY_BODY,
    ),
    "aws-access-key-id": _p("AK" + "IA" + "FAKE7TEST" + "0000000"),
    "aws-secret-access-key": _p(_AWS_SECRET),
    "gcp-api-key": _p("AI" + "za" + "Fake" + "GoogleKey" + "0" * 22),
    "google-oauth-token": _p("ya" + "29." + "fake_oauth_" + "token" * 4),
    "azure-storage-key": _p("Account" + "Key=" + _AZURE + "==", _AZURE),
    "anthropic-api-key": _p("sk-" + "ant-" + "api03-" + "FAKEfake" * 5),
    "openai-api-key": _p("sk-" + "proj-" + "FAKEfake0123" * 3),
    "huggingface-token": _p("hf" + "_" + "FAKEfakeFAKEfake" * 2),
    "model-provider-key": _p("gsk" + "_" + "FAKE" * 10 + "fake"),
    "github-token": _p("gh" + "p_" + "FAKEfake" * 4 + "0000"),
    "gitlab-token": _p("glpat" + "-" + "FAKEfake0000FAKEfake"),
    "npm-token": _p("npm" + "_" + "FAKE" * 9),
    "pypi-token": _p("pypi-" + "AgE" + "FAKEfake" * 7),
    "package-registry-token": _p("dckr" + "_pat_" + "FAKEfake" * 4),
    "slack-token": _p("xo" + "xb-" + "000000000-" + "FAKEfakeFAKE"),
    "slack-webhook": _p("https://hooks.slack" + ".com/services/" + "T0000/B0000/" + "FAKEfake" * 3),
    "discord-webhook": _p("https://discord" + ".com/api/webhooks/" + "0" * 18 + "/"
                          + "FAKE-fake_" * 3),
    "telegram-bot-token": _p("123456789" + _TELEGRAM, _TELEGRAM),
    "stripe-key": _p("sk" + "_live_" + "FAKEfake" * 3),
    "sendgrid-key": _p("SG" + "." + "FAKEfake" * 2 + "FAKEfa" + "." + "FAKEfake" * 5 + "FAK"),
    "jwt": _p("ey" + "JhbGciOiJub25lIn0" + "." + "ey" + "JzdWIiOiJmYWtlIn0" + "."
              + "ZmFrZXNpZ25hdHVyZQ"),
    "bearer-token": _p("FAKEfake" + "Token0123456789"),
    "basic-auth": _p(_BASIC),
    "url-credentials": _p("postgres://admin:" + _PASSWORD + "@db.example.internal/app",
                          _PASSWORD),
    "secret-assignment": _p("fakePass" + "w0rd42"),
    "user-secret": _p("my-own-" + "fake-secret-42"),
    "env-value": _p("fake-env-" + "token-value-99"),
    "home-path": _p("/home/" + USER, "/" + USER),
    "user-name": _p(USER),
    "email": _p(USER + ".fake" + "@" + "corp-mail.test"),
    "high-entropy": _p("Zq8Xw3Lm" + "9Rt2Vb7K" + "p4Ny6Hd1"),
}
SECRETS = (PLANTED["user-secret"].text,)
ENVIRONMENT = {"MY_SERVICE_TOKEN": PLANTED["env-value"].text, "HOME": "/root"}
PLACEHOLDER = re.compile(r"\{\{([a-z0-9-]+)(?::(\w+))?\}\}")


def _escaped(text: str) -> str:
    """JSON string content with every third character as a \\uXXXX escape and / as \\/."""
    pieces = []
    for index, char in enumerate(text):
        if char == "/":
            pieces.append("\\/")
        elif index % 3 == 1 and char.isalnum():
            pieces.append(f"\\u{ord(char):04x}")
        else:
            pieces.append(json.dumps(char)[1:-1])
    return "".join(pieces)


def render(template: str) -> str:
    """The template with every placeholder replaced by its JSON-escaped fake secret."""

    def replace(match: re.Match[str]) -> str:
        planted = PLANTED[match.group(1)]
        mode = match.group(2) or ""
        inner = _escaped(planted.text) if "u" in mode else json.dumps(planted.text)[1:-1]
        if "2" in mode:
            inner = json.dumps(inner)[1:-1]
        return inner

    return PLACEHOLDER.sub(replace, template)


def planted_rules(template: str) -> list[str]:
    """The rule of each placeholder in a template, in order."""
    return [m.group(1) for m in PLACEHOLDER.finditer(template)]


def rendered_cases(directory: Path) -> list[Path]:
    """Every template rendered into `directory` (same names); the rendered files."""
    files = []
    for template in sorted(TEMPLATES.iterdir()):
        path = directory / template.name
        path.write_text(render(template.read_text(encoding="utf-8")), encoding="utf-8")
        files.append(path)
    return files
