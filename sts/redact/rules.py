"""The curated secret patterns: each a name, a regular expression and the literal text any match
must contain (the cheap pre-screen: a string holding none of a rule's literals is never searched
with its expression).

Written for this project (no pattern list copied from elsewhere); each rule aims at a shape a
vendor documents, so ordinary prose and code rarely match. A rule's ``group`` is the part that
is the secret (the rest, such as ``Bearer `` or a URL's user name, is kept). Rules are tried in
order; where two matches overlap the earlier, longer one wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret pattern and how it is found.

    ``anchor="token"``: the pattern starts with one of `literals` and matches a run of token
    characters; it is tried only on runs of 20+ such characters (few in prose and code).
    ``anchor="literal"``: the pattern starts with its literal and is tried only where the literal
    occurs (literals are looked for in any case; the pattern decides). ``anchor="assignment"``:
    the pattern follows a name ending in one of the literals. `group` is the part that is the
    secret; `screened` values must also pass `plausible_value`.
    """

    name: str
    pattern: str
    literals: tuple[str, ...]
    description: str
    anchor: str = "token"
    group: int = 0
    screened: bool = False

    def compile(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


_B = r"(?<![A-Za-z0-9_\-])"  # a token boundary that treats - and _ as token characters
_E = r"(?![A-Za-z0-9_\-])"

RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
        ("-----BEGIN",),
        "PEM private keys (RSA, EC, OpenSSH, PGP), to their END line or the end of the text",
        anchor="literal",
    ),
    Rule("aws-access-key-id", rf"{_B}(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{{16}}{_E}",
         ("AKIA", "ASIA", "ABIA", "ACCA"), "AWS access key ids"),
    Rule(
        "aws-secret-access-key",
        r"(?i:secret_?access_?key)[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
        r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("secret_access_key", "secretaccesskey"),
        "AWS secret access keys given with their name",
        anchor="literal", group=1,
    ),
    Rule("gcp-api-key", rf"{_B}AIza[0-9A-Za-z_\-]{{35}}{_E}", ("AIza",),
         "Google Cloud / Gemini API keys"),
    Rule("google-oauth-token", rf"{_B}ya29\.[0-9A-Za-z_\-]{{20,}}", ("ya29.",),
         "Google OAuth access tokens"),
    Rule("azure-storage-key", r"AccountKey=([A-Za-z0-9+/]{86}==)", ("AccountKey=",),
         "Azure storage account keys in connection strings", anchor="literal", group=1),
    Rule("anthropic-api-key", rf"{_B}sk-ant-(?:api|admin|oat)\d{{2}}-[A-Za-z0-9_\-]{{20,}}",
         ("sk-ant-",), "Anthropic API keys"),
    Rule("openai-api-key", rf"{_B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{{20,}}",
         ("sk-",), "OpenAI-style sk- keys (OpenAI, OpenRouter, DeepSeek and others)"),
    Rule("huggingface-token", rf"{_B}hf_[A-Za-z0-9]{{30,}}{_E}", ("hf_",),
         "Hugging Face access tokens"),
    Rule(
        "model-provider-key",
        rf"{_B}(?:gsk_[A-Za-z0-9]{{40,}}|xai-[A-Za-z0-9]{{40,}}|r8_[A-Za-z0-9]{{37}}"
        rf"|pplx-[A-Za-z0-9]{{40,}}|fw_[A-Za-z0-9]{{20,}}){_E}",
        ("gsk_", "xai-", "r8_", "pplx-", "fw_"),
        "Groq, xAI, Replicate, Perplexity and Fireworks keys",
    ),
    Rule("github-token",
         rf"{_B}(?:gh[pousr]_[A-Za-z0-9]{{36,}}|github_pat_[A-Za-z0-9_]{{50,}}){_E}",
         ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
         "GitHub personal, OAuth, app and refresh tokens"),
    Rule("gitlab-token", rf"{_B}(?:glpat|gldt|glrt|glptt|glsoat)-[A-Za-z0-9_\-]{{20,}}{_E}",
         ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-"),
         "GitLab personal, deploy, runner and trigger tokens"),
    Rule("npm-token", rf"{_B}npm_[A-Za-z0-9]{{36}}{_E}", ("npm_",), "npm access tokens"),
    Rule("pypi-token", rf"{_B}pypi-AgE[A-Za-z0-9_\-]{{50,}}", ("pypi-AgE",),
         "PyPI upload tokens"),
    Rule("package-registry-token",
         rf"{_B}(?:rubygems_[a-f0-9]{{48}}|dckr_pat_[A-Za-z0-9_\-]{{27,}}"
         rf"|oy2[a-z0-9]{{43}}){_E}",
         ("rubygems_", "dckr_pat_", "oy2"), "RubyGems, Docker Hub and NuGet keys"),
    Rule("slack-token", rf"{_B}xox[abposr]-[A-Za-z0-9\-]{{10,}}", ("xox",),
         "Slack bot, user and app tokens"),
    Rule("slack-webhook", r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]{20,}",
         ("hooks.slack.com/",), "Slack webhook URLs", anchor="literal"),
    Rule("discord-webhook", r"discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}",
         ("discord",), "Discord webhook URLs", anchor="literal"),
    Rule("telegram-bot-token", r"(?<=[0-9]{8}):AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])",
         (":AA",), "Telegram bot tokens (the part after the bot id)", anchor="literal"),
    Rule("stripe-key", rf"{_B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}{_E}",
         ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
         "Stripe secret and restricted keys"),
    Rule("sendgrid-key", rf"{_B}SG\.[A-Za-z0-9_\-]{{22}}\.[A-Za-z0-9_\-]{{43}}{_E}", ("SG.",),
         "SendGrid API keys"),
    Rule("jwt",
         rf"{_B}eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}",
         ("eyJ",), "JSON Web Tokens"),
    Rule("bearer-token", r"(?<![A-Za-z0-9_])(?i:bearer)\s+([A-Za-z0-9_\-.~+/]{16,}=*)",
         ("bearer",), "Bearer tokens (HTTP Authorization headers, curl -H lines)",
         anchor="literal", group=1),
    Rule(
        "basic-auth",
        r"(?i:authorization)[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?(?i:basic)\s+"
        r"([A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])",
        ("authorization",), "HTTP Basic credentials in an Authorization header",
        anchor="literal", group=1,
    ),
    Rule(
        "url-credentials",
        r"://[^\s/:@\"'<>]{1,100}:([^\s/@\"'<>]{1,200})@",
        ("://",), "passwords in URLs (https://user:PASSWORD@host, database URLs)",
        anchor="literal", group=1, screened=True,
    ),
    Rule(
        "secret-assignment",
        r"[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?([^\s\"'`,;&|(){}\[\]<>]{8,}+)(?!\()",
        ("password", "passwd", "secret", "token", "key", "credential", "credentials"),
        "values assigned to names ending in password, secret, token, api/access/private/auth "
        "key or credentials (export X_TOKEN=..., \"password\": \"...\")",
        anchor="assignment", group=1, screened=True,
    ),
)

#: The name before an assignment must end like this for `secret-assignment` to apply.
SECRET_NAME_END = re.compile(
    r"(?i)(?:passw(?:or)?d|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key"
    r"|auth[_\-]?key|credentials?)\Z"
)

#: Values of `secret-assignment` that are not secrets: placeholders and plain words.
NOT_SECRET_VALUES = frozenset(
    ("true", "false", "null", "none", "undefined", "redacted", "password", "changeme",
     "your_api_key", "required", "optional", "string", "boolean", "integer", "number")
)


def plausible_value(value: str) -> bool:
    """Whether a free-form value (an assignment's, a URL password) looks like a secret rather
    than a placeholder (``$TOKEN``, ``<key>``, ``***``), a word or a code expression: letters
    and digits mixed, or a long number. (A password of letters only is missed: pass it with
    ``--secret``.)"""
    if value[0] in "$<*%{[(#:@" or value.lower() in NOT_SECRET_VALUES:
        return False
    digits = sum(c.isdigit() for c in value)
    if digits == len(value):
        return len(value) >= 12
    return digits > 0 and any(c.isalpha() for c in value)
