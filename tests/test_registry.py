"""The converter registry: built-ins, third-party entry points, and detection."""

from __future__ import annotations

import importlib.metadata
import io
from collections.abc import Iterator

import pytest

from sts.converters import registry
from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.model import Message, Session, TextPart
from sts.problems import Problems
from tests.support import SAMPLES


class FakeConverter(Converter):
    """A third-party format: lines that start with ``FAKE``."""

    name = "fake"
    harness = "fake-agent"
    description = "a plug-in format for tests"

    def sniff(self, peek: Peek) -> float:
        return 1.0 if peek.data.startswith(b"FAKE") else 0.0

    def read(self, stream, context: ReadContext) -> Iterator[Session]:
        text = stream.read().decode()
        yield Session("fake-1", [Message("user", [TextPart(text[5:].strip())])], harness="fake")


@pytest.fixture
def plugins(monkeypatch):
    """Install entry points for the duration of a test (and reset the registry's caches)."""

    def install(*values: str) -> None:
        points = importlib.metadata.EntryPoints(
            importlib.metadata.EntryPoint(f"p{i}", value, registry.ENTRY_POINT_GROUP)
            for i, value in enumerate(values)
        )
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: points)
        registry.converters.cache_clear()

    yield install
    registry.converters.cache_clear()


def test_builtins_are_registered():
    """Every built-in loads, under its own name (none is missing or shadowed)."""
    found = registry.builtin_converters()
    assert len(found) == len(registry.BUILTINS)
    assert {"claude-code", "codex", "openai", "pi", "sharegpt", "sts", "github-copilot",
            "gemini-cli", "kimi-cli"} <= set(found)


def test_a_plugin_adds_a_format(plugins):
    plugins("tests.test_registry:FakeConverter")
    converter = registry.get_converter("fake")
    assert converter.harness == "fake-agent"
    assert registry.detect(Peek(b"FAKE hello", "x.fake", True)) is converter
    context = ReadContext(Problems("x", sink=None))
    [session] = converter.read(io.BytesIO(b"FAKE hello"), context)
    assert session.messages[0].text == "hello"


def test_a_broken_plugin_is_reported_and_skipped(plugins, capsys):
    plugins("tests.no_such_module:Nothing", "tests.test_registry:FakeConverter")
    assert "fake" in registry.converters()
    assert "pi" in registry.converters()
    assert "plug-in tests.no_such_module:Nothing not loaded" in capsys.readouterr().err


class BrokenOptionsConverter(FakeConverter):
    """A plug-in whose options class is named by a target that does not load."""

    name = "broken-options"
    Options = OptionsFrom("tests.no_such_module:Options")  # type: ignore[assignment]


def test_a_plugin_whose_options_do_not_load_is_reported_and_skipped(plugins, capsys):
    """Loaded lazily, a broken options class made every ``--option`` check a traceback and
    every input the plug-in claimed an internal error: it is a broken plug-in."""
    plugins("tests.test_registry:BrokenOptionsConverter", "tests.test_registry:FakeConverter")
    assert "broken-options" not in registry.converters()
    assert "fake" in registry.converters()
    assert ("plug-in tests.test_registry:BrokenOptionsConverter not loaded: "
            "ModuleNotFoundError") in capsys.readouterr().err
    registry.check_options({"all_branches": True})
    with pytest.raises(KeyError, match="unknown source format 'broken-options'"):
        registry.get_converter("broken-options")


def test_unknown_format_names_the_known_ones():
    with pytest.raises(KeyError, match=r"known: .*claude-code"):
        registry.get_converter("nope")


@pytest.mark.parametrize(
    ("sample", "expected"),
    [("pi-v3-session.jsonl", "pi"), ("pi-v1-session.jsonl", "pi"), ("hello.sts.jsonl", "sts")],
)
def test_samples_are_detected(sample, expected):
    data = (SAMPLES / sample).read_bytes()
    assert registry.detect(Peek(data, sample, True)).name == expected


def test_nothing_is_detected_in_prose():
    assert registry.detect(Peek(b"just some notes\n", "notes.txt", True)) is None
