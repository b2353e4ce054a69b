"""Objects named by ``"module:attribute"`` targets, their modules imported when first needed:
converters, their options and the writers are found this way, so that start-up loads only
what the job uses."""

from importlib import import_module
from typing import Any


def load_target(target: str) -> Any:
    """The object ``"module:attribute"`` names (its module imported if it is not yet)."""
    module, _, attribute = target.partition(":")
    return getattr(import_module(module), attribute)
