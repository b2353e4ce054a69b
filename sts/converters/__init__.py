"""Source format converters: one module per format, plus the registry and detection."""

from sts.converters.base import Converter, Peek, ReadContext
from sts.converters.registry import converters, detect, get_converter

__all__ = ["Converter", "Peek", "ReadContext", "converters", "detect", "get_converter"]
