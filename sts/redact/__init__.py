"""Redaction of secrets and personal data in sessions (``sts convert --redact``,
``sts publish``).

    from sts.redact import Redactor, RedactionConfig, redact_session
    redactor = Redactor(RedactionConfig(secrets=("my-db-password",)))
    findings = redact_session(session, redactor)    # the session is redacted in place

`rules.py` holds the curated patterns, `engine.py` the one-pass string redactor, `walk.py` the
walk over every string of the model and the `Finding` records, `report.py` the JSON report.
"""

from sts.redact.engine import Hit, RedactionConfig, Redactor
from sts.redact.rules import RULES, Rule
from sts.redact.walk import Finding, redact_session

__all__ = ["RULES", "Finding", "Hit", "RedactionConfig", "Redactor", "Rule", "redact_session"]
