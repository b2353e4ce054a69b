"""Value classes declared as dataclasses are, built for a fraction of their start-up cost.

``@dataclass`` costs 3 to 5 M instructions a class when its module is imported: it reads every
field, writes and compiles ``__init__`` (and ``__eq__``, ``__repr__``), and builds a slotted class
twice. For the twenty classes a conversion imports that was about a third of what `sts convert` of
a small file cost beyond a plain orjson script. `record` takes the same declaration (annotated
fields, plain defaults, ``field(default_factory=...)``), writes only ``__init__``, and builds the
class once; `Record` and `FrozenRecord` give equality, repr and hashing, written once here and
exactly as the generated ones behave (fields in order, ``NotImplemented`` against any other
class, a frozen record hashed by its fields and refusing assignment).

A record still answers ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass``, and
a ``@dataclass`` may subclass it (converters' `Options`): its ``__dataclass_fields__`` are made by
`dataclasses` itself, from the same declaration, the first time anything asks for them.
"""

from __future__ import annotations

import inspect
import reprlib
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T", bound=type)


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: T | None = None, /, *, slots: bool = False, frozen: bool = False) -> Any:
    """``@record``, ``@record(slots=True, frozen=True)``: `cls` (a `Record` or `FrozenRecord`)
    with an ``__init__`` taking its annotated fields in order, as ``@dataclass`` would write it
    (``__post_init__`` called last when the class has one)."""

    def build(cls: T) -> T:
        return _build(cls, slots, frozen)

    return build if cls is None else build(cls)


def _build(cls: T, slots: bool, frozen: bool) -> T:
    if any(hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__qualname__}: a record cannot extend another record")
    annotations = inspect.get_annotations(cls)
    names = tuple(annotations)
    for name, annotation in annotations.items():
        if str(annotation).partition("[")[0].rpartition(".")[2] in ("ClassVar", "InitVar"):
            raise TypeError(f"{cls.__qualname__}.{name}: a record has no class or init-only "
                            "variables: every annotation is a field")
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    for name, default in defaults.items():
        if isinstance(default, Field) and (default.init, default.repr, default.compare,
                                           default.hash) != (True, True, True, None):
            raise TypeError(f"{cls.__qualname__}.{name}: a record field takes only a default "
                            "or a default_factory")
    declaration = _Declaration(annotations, defaults, frozen)
    added = {"__init__": _init(cls, names, defaults, frozen), "__record_fields__": names,
             "__match_args__": names, "__dataclass_fields__": declaration}
    if slots:  # a class of its own: the body's, less the defaults, with a slot a field
        if any(_uses_class_cell(value) for value in vars(cls).values()):
            raise TypeError(f"{cls.__qualname__}: a slotted record's methods cannot use super() "
                            "or __class__ (they would see the class before its slots)")
        namespace = {key: value for key, value in vars(cls).items()
                     if key not in defaults and key not in ("__dict__", "__weakref__")}
        namespace.update(added, __slots__=names)
        if frozen:  # unpickling assigns through __setstate__, which a frozen class must allow
            namespace.update(__getstate__=_getstate, __setstate__=_setstate)
        made = type(cls)(cls.__name__, cls.__bases__, namespace)
    else:  # the class itself, as @dataclass does: plain defaults stay class attributes
        for name, default in defaults.items():
            if isinstance(default, Field) and default.default is MISSING:
                delattr(cls, name)
            elif isinstance(default, Field):
                setattr(cls, name, default.default)
        for key, value in added.items():
            setattr(cls, key, value)
        made = cls
    declaration.record = made
    return made


def _uses_class_cell(value: Any) -> bool:
    """Whether a class attribute is a function (or property, class or static method) whose code
    refers to the class it was defined in (``super()``, ``__class__``)."""
    functions = (value.fget, value.fset, value.fdel) if isinstance(value, property) else (
        getattr(value, "__func__", value),)
    return any("__class__" in getattr(getattr(f, "__code__", None), "co_freevars", ())
               for f in functions)


def field_names(cls: type) -> tuple[str, ...]:
    """The field names of a record or of a dataclass, in order; a record's dataclass metadata is
    not made for it."""
    own = vars(cls).get("__record_fields__")
    return own if own is not None else tuple(f.name for f in fields(cls))


#: The default of a field with a default factory: the factory is called when it is passed.
_FACTORY = type("_FactoryDefault", (), {"__repr__": lambda self: "<factory>"})()


def _init(cls: type, names: tuple[str, ...], defaults: dict[str, Any], frozen: bool) -> Any:
    """The ``__init__`` of a record with these fields, compiled once."""
    scope: dict[str, Any] = {"__name__": cls.__module__, "_FACTORY": _FACTORY,
                            "_set": object.__setattr__}
    parameters, lines = ["self"], []
    for name in names:
        default = defaults.get(name, MISSING)
        value = name
        if isinstance(default, Field) and default.default_factory is not MISSING:
            scope[f"_make_{name}"] = default.default_factory
            parameters.append(f"{name}=_FACTORY")
            value = f"_make_{name}() if {name} is _FACTORY else {name}"
        elif default is not MISSING:
            scope[f"_default_{name}"] = (default.default if isinstance(default, Field)
                                         else default)
            parameters.append(f"{name}=_default_{name}")
        else:
            parameters.append(name)
        lines.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    source = (f"def __init__({', '.join(parameters)}):\n    "
              + "\n    ".join(lines or ["pass"]) + "\n")
    exec(source, scope)  # the one method written per class, as ``@dataclass`` writes it
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.__record_fields__)


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, name, value)


class _Declaration:
    """A record's ``__dataclass_fields__`` before anything asks for them: on first use,
    ``@dataclass`` reads the record's declaration in a class of its own, and the record gets
    that class's ``__dataclass_fields__`` and ``__dataclass_params__``."""

    record: type

    def __init__(self, annotations: dict[str, Any], defaults: dict[str, Any],
                 frozen: bool) -> None:
        self.annotations = annotations
        self.defaults = defaults
        self.frozen = frozen

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        record = self.record
        declared = type(record.__name__, (), {
            "__annotations__": self.annotations, "__module__": record.__module__,
            "__qualname__": record.__qualname__, **self.defaults})
        described: type = dataclass(declared, frozen=self.frozen, eq=False, repr=False)
        type.__setattr__(record, "__dataclass_fields__", vars(described)["__dataclass_fields__"])
        type.__setattr__(record, "__dataclass_params__", vars(described)["__dataclass_params__"])
        return vars(record)["__dataclass_fields__"]


class _Fields:
    """A record's ``__eq__`` and ``__repr__``, from its fields."""

    __slots__ = ()
    __record_fields__: tuple[str, ...]

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__record_fields__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
        return f"{self.__class__.__qualname__}({shown})"


class Record(_Fields):
    """The base of a `record`: unhashable, as a dataclass with a generated ``__eq__`` that is
    not frozen."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]


class FrozenRecord(_Fields):
    """The base of a ``record(frozen=True)``: hashed by its fields, and no field can be set or
    deleted once made, as a frozen dataclass."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
