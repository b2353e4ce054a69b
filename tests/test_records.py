"""`sts.records.record`: classes declared as dataclasses, behaving as the generated ones do."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import field
from typing import ClassVar

import pytest

from sts.building.context import Options
from sts.model import FallbackTime, Message, Session, TextPart, ToolCall, Usage
from sts.problems import Problem, Problems, Tally
from sts.records import FrozenRecord, Record, field_names, record


@record(slots=True)
class Point(Record):
    """A slotted record."""

    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


@record(frozen=True)
class Frozen(FrozenRecord):
    """A frozen record with a dict, as `Options` is."""

    name: str
    size: int = 1


@record(slots=True, frozen=True)
class Checked(FrozenRecord):
    """A frozen slotted record with a check."""

    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


def test_init_takes_the_fields_in_order_with_their_defaults() -> None:
    assert (Point(1).x, Point(1).y, Point(1).tags) == (1, 0, [])
    assert Point(1, 2, ["a"]) == Point(x=1, y=2, tags=["a"])
    assert Point(1).tags is not Point(1).tags  # a new list each time, as default_factory makes
    assert list(inspect.signature(Point).parameters) == ["x", "y", "tags"]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=2)  # type: ignore[call-arg]


def test_a_slotted_record_has_no_dict_and_refuses_other_attributes() -> None:
    point = Point(1)
    assert Point.__slots__ == ("x", "y", "tags") and not hasattr(point, "__dict__")
    with pytest.raises(AttributeError):
        point.z = 3  # type: ignore[attr-defined]


def test_equality_repr_and_hashing_are_those_of_a_dataclass() -> None:
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert Point(1).__eq__(Frozen("a")) is NotImplemented
    assert repr(Point(1, tags=["a"])) == "Point(x=1, y=0, tags=['a'])"
    with pytest.raises(TypeError):
        hash(Point(1))
    assert hash(Frozen("a")) == hash(Frozen("a", 1)) and Frozen("a") == Frozen("a", 1)
    session = Session("s")
    session.children.append(session)
    assert "children=[...]" in repr(session)  # a cycle prints as a dataclass's does


def test_a_frozen_record_refuses_assignment_and_still_pickles() -> None:
    for frozen in (Frozen("a"), Checked(3)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            frozen.name = "b"  # type: ignore[misc, attr-defined]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del frozen.name  # type: ignore[misc, attr-defined]
        assert pickle.loads(pickle.dumps(frozen)) == frozen
        assert copy.deepcopy(frozen) == frozen
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_model_objects_survive_pickling_and_copies() -> None:
    message = Message("assistant", [TextPart("hi")], [ToolCall("c1", "read", {"p": 1})],
                      usage=Usage(3, 4), timestamp=5)
    session = Session("s", [message], fallback_time=FallbackTime(1, "conversion-time"))
    for made in (pickle.loads(pickle.dumps(session)), copy.deepcopy(session)):
        assert made == session and made.messages[0].tool_calls[0].arguments == {"p": 1}
    problem = Problem("f", 3, "empty", "nothing", "warning")
    assert pickle.loads(pickle.dumps(problem)) == problem


def test_records_answer_the_dataclasses_functions() -> None:
    assert dataclasses.is_dataclass(Message) and dataclasses.is_dataclass(Point(1))
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "tags"]
    tags = dataclasses.fields(Point)[2]
    assert tags.default_factory is list and dataclasses.fields(Point)[1].default == 0
    assert dataclasses.replace(Point(1, 2), y=5) == Point(1, 5)
    assert dataclasses.asdict(Point(1, tags=["a"])) == {"x": 1, "y": 0, "tags": ["a"]}
    assert dataclasses.replace(Message("user", id="a"), id="b").id == "b"
    assert field_names(Tally) == ("sample", "errors", "warnings", "codes")
    assert [f.name for f in dataclasses.fields(Problems)] == list(field_names(Problems))


def test_a_dataclass_may_extend_a_record() -> None:
    """As a converter's options extend `Options`: the record's fields come first."""

    @dataclasses.dataclass(frozen=True)
    class AcmeOptions(Options):
        keep_drafts: bool = False

    options = AcmeOptions(keep_drafts=True)
    assert (options.subagents, options.keep_drafts) == (True, True)
    assert AcmeOptions.names() == {"subagents", "keep_drafts"}
    assert AcmeOptions.of({"subagents": False, "other": 1}) == AcmeOptions(subagents=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.keep_drafts = False  # type: ignore[misc]
    with pytest.raises(TypeError, match="non-frozen"):

        @dataclasses.dataclass
        class Thawed(Options):
            extra: int = 0


def test_what_a_record_cannot_declare_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot extend another record"):

        @record
        class Deeper(Point):
            z: int = 0

    with pytest.raises(TypeError, match="every annotation is a field"):

        @record
        class Counted(Record):
            made: ClassVar[int] = 0

    with pytest.raises(TypeError, match="only a default or a default_factory"):

        @record
        class Hidden(Record):
            secret: str = field(default="", repr=False)


def test_a_slotted_record_whose_methods_see_their_class_is_refused() -> None:
    """A slotted record is a class made anew; a method's ``super()`` would still see the old."""
    with pytest.raises(TypeError, match="cannot use super"):

        @record(slots=True)
        class Greeting(Record):
            text: str

            def __repr__(self) -> str:
                return super().__repr__()

    @record
    class Plain(Record):  # not slotted: the class itself, so super() sees it
        text: str = "hi"

        def __repr__(self) -> str:
            return "<" + super().__repr__() + ">"

    assert repr(Plain()).endswith("Plain(text='hi')>") and Plain.text == "hi"
