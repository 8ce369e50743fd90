"""Frozen records: `@record` is `@dataclass(frozen=True)` without compiling code at import.

`dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`
and `__delattr__` as source text and compiles it with `exec` every time the module is
imported: about 0.4 ms a class, a quarter of a `blueprint validate` process before this
module existed. A record gets the same methods, written once here and bound to the class's
fields, so they come from the bytecode cache like the rest of the package.

A record is still a dataclass: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
work on it, field specifiers (`field(default_factory=…)`, `repr=False`, `compare=False`,
`init=False`) mean what they mean there, and type checkers read it as a frozen dataclass
(`dataclass_transform`). `order=True` adds the comparisons `sorted` needs, by field order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)


@overload
def record(cls: T, /) -> T: ...
@overload
def record(*, eq: bool = True, order: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: Any = None, /, *, eq: bool = True, order: bool = False) -> Any:
    """Make `cls` a frozen dataclass whose methods are shared, not generated. `eq=False`
    keeps identity for equality and hashing; `order=True` adds `<`, `<=`, `>`, `>=`."""

    def wrap(cls: Any) -> Any:
        return _make_record(cls, eq=eq, order=order)

    return wrap if cls is None else wrap(cls)


def _make_record(cls: Any, *, eq: bool, order: bool) -> Any:
    own = set(cls.__dict__)
    if not cls.__dict__.get("__doc__"):  # what dataclass would write, without inspect.signature
        cls.__doc__ = f"{cls.__name__}({', '.join(cls.__dict__.get('__annotations__', ()))})"  # noqa: RUF063 - no inspect at start-up
    dataclass(init=False, repr=False, eq=False)(cls)
    members = fields(cls)
    compared = _getter(tuple(f.name for f in members if f.compare))
    methods: dict[str, Any] = {
        "__init__": _initializer(cls, members),
        "__repr__": _representation(tuple(f.name for f in members if f.repr)),
        "__setattr__": _refuse_setattr,
        "__delattr__": _refuse_delattr,
    }
    if eq:
        hashed = _getter(tuple(f.name for f in members if (f.compare if f.hash is None else f.hash)))
        methods.update(__eq__=_equality(compared), __hash__=_hashing(hashed))
    if order:
        methods.update(_ordering(compared))
    for name, method in methods.items():
        if name not in own:
            if method.__qualname__.endswith(f"<locals>.{name}"):  # made for this class
                method.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, method)
    return cls


def _getter(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The values a record compares by, as a tuple (a lone value for one field: the same
    equality, and faster)."""
    return attrgetter(*names) if names else (lambda _record: ())


def _initializer(cls: Any, members: tuple[Field[Any], ...]) -> Callable[..., None]:
    """One `__init__` for every record: a merge of the keywords over a template of the
    defaults, checked against the field names in one set operation; errors are worded as
    Python words them for a written-out `__init__`."""
    parameters = tuple(f.name for f in members if f.init)
    template: dict[str, Any] = {}
    required: set[str] = set()
    factories: list[tuple[str, Callable[[], Any]]] = []
    for f in members:
        if f.default is not MISSING:
            template[f.name] = f.default
        elif f.default_factory is not MISSING:
            template[f.name] = None
            factories.append((f.name, f.default_factory))
        elif f.init:
            template[f.name] = None
            required.add(f.name)
        else:
            template[f.name] = None  # set by __post_init__
    accepted = frozenset(parameters)
    post_init = getattr(cls, "__post_init__", None) is not None
    name = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            kwargs = _positional(name, parameters, args, kwargs)
        values = {**template, **kwargs}
        if not required <= kwargs.keys() <= accepted:
            _argument_error(name, accepted, required, kwargs)
        for key, factory in factories:
            if key not in kwargs:
                values[key] = factory()
        self.__dict__.update(values)
        if post_init:
            self.__post_init__()

    return __init__


def _positional(
    name: str, parameters: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    if len(args) > len(parameters):
        raise TypeError(
            f"{name}.__init__() takes {len(parameters) + 1} positional arguments but {len(args) + 1} were given"
        )
    merged = dict(zip(parameters, args, strict=False))
    for key in kwargs:
        if key in merged:
            raise TypeError(f"{name}.__init__() got multiple values for argument {key!r}")
    merged.update(kwargs)
    return merged


def _argument_error(name: str, accepted: frozenset[str], required: set[str], kwargs: dict[str, Any]) -> None:
    unknown = [key for key in kwargs if key not in accepted]
    if unknown:
        raise TypeError(f"{name}.__init__() got an unexpected keyword argument {unknown[0]!r}")
    missing = [key for key in required if key not in kwargs]
    raise TypeError(
        f"{name}.__init__() missing required argument{'s' if len(missing) > 1 else ''}: {', '.join(map(repr, missing))}"
    )


def _representation(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{key}={getattr(self, key)!r}" for key in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _equality(compared: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    return __eq__


def _hashing(hashed: Callable[[Any], Any]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    return __hash__


def _ordering(compared: Callable[[Any], Any]) -> dict[str, Callable[[Any, Any], Any]]:
    def __lt__(self: Any, other: Any) -> Any:
        return compared(self) < compared(other) if other.__class__ is self.__class__ else NotImplemented

    def __le__(self: Any, other: Any) -> Any:
        return compared(self) <= compared(other) if other.__class__ is self.__class__ else NotImplemented

    def __gt__(self: Any, other: Any) -> Any:
        return compared(self) > compared(other) if other.__class__ is self.__class__ else NotImplemented

    def __ge__(self: Any, other: Any) -> Any:
        return compared(self) >= compared(other) if other.__class__ is self.__class__ else NotImplemented

    return {"__lt__": __lt__, "__le__": __le__, "__gt__": __gt__, "__ge__": __ge__}


def _refuse_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
