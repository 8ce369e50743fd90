"""Frozen records: `@record` is `@dataclass(frozen=True)` without compiling code at import.

`dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`
and `__delattr__` as source text and compiles it with `exec` every time the module is
imported: about 0.4 ms a class, a quarter of a `blueprint validate` process before this
module existed. A record gets the same methods, written once here and bound to the class's
fields, so they come from the bytecode cache like the rest of the package. Only a class
that turns out to be hot gets an `__init__` compiled for it (see `_initializer`).

A record is still a dataclass: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
work on it, field specifiers (`field(default_factory=…)`, `repr=False`, `compare=False`,
`init=False`) mean what they mean there, and type checkers read it as a frozen dataclass
(`dataclass_transform`). `order=True` adds the comparisons `sorted` needs, by field order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from itertools import repeat
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)

_set = object.__setattr__


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
    _check_parameters(members)
    compared = _getter(tuple(f.name for f in members if f.compare))
    methods: dict[str, Any] = {
        "__init__": _initializer(cls, members),
        "__signature__": _SIGNATURE,
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
            if getattr(method, "__qualname__", "").endswith(f"<locals>.{name}"):  # made for this class
                method.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, method)
    return cls


def _check_parameters(members: tuple[Field[Any], ...]) -> None:
    """What `@dataclass` refuses when it writes `__init__` (it does not write ours)."""
    after_default = False
    for f in members:
        if not f.init:
            continue
        if f.kw_only is True:
            raise TypeError(f"field {f.name!r}: a record has no keyword-only fields")
        if f.default is not MISSING or f.default_factory is not MISSING:
            after_default = True
        elif after_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _getter(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The values a record compares by, as a tuple (a lone value for one field: the same
    equality, and faster)."""
    return attrgetter(*names) if names else (lambda _record: ())


#: Calls after which a record class gets an `__init__` written for its fields (`_initializer`).
HOT = 100


def _initializer(cls: Any, members: tuple[Field[Any], ...]) -> Callable[..., None]:
    """A record's `__init__`: shared code until the class is hot, then one of its own.

    The shared one merges the keywords over a template of the defaults and checks their names
    with two set operations: it costs nothing to make, but each call does more than an
    `__init__` written for the fields. A class called more than `HOT` times (many files in
    one process, the language server, the runner) gets that written one, compiled once: what
    `@dataclass` compiles at import for every class. A call with positional arguments, or
    with wrong ones, goes to the written one as well, so a mistake is Python's own TypeError.
    """
    template: dict[str, Any] = {}
    required: set[str] = set()
    factories: list[tuple[str, Callable[[], Any]]] = []
    for f in members:
        if f.default is not MISSING:
            template[f.name] = f.default
        elif f.default_factory is not MISSING:
            template[f.name] = None  # replaced below, in its place
            factories.append((f.name, f.default_factory))
        elif f.init:
            template[f.name] = None  # always given
            required.add(f.name)
    accepted = frozenset(f.name for f in members if f.init)
    post_init = hasattr(cls, "__post_init__")
    calls = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if args or calls > HOT or not required <= kwargs.keys() <= accepted:
            cls.__init__ = written = _written_init(cls, members, post_init)
            written(self, *args, **kwargs)
            return
        values = {**template, **kwargs}
        for key, factory in factories:
            if key not in kwargs:
                values[key] = factory()
        any(map(_set, repeat(self), values, values.values()))  # field by field, at C speed
        if post_init:
            self.__post_init__()

    return __init__


def _written_init(cls: Any, members: tuple[Field[Any], ...], post_init: bool) -> Callable[..., None]:
    """The `__init__` `@dataclass(frozen=True)` writes for these fields, compiled now."""
    scope: dict[str, Any] = {"__record_set": _set, "__record_missing": MISSING}
    parameters, body = [], []
    for number, f in enumerate(members):
        default, factory = f"__record_default_{number}", f"__record_factory_{number}"
        if f.default is not MISSING:
            scope[default] = f.default
            value = f.name if f.init else default
        elif f.default_factory is not MISSING:
            scope[factory] = f.default_factory
            value = f"{factory}() if {f.name} is __record_missing else {f.name}" if f.init else f"{factory}()"
            default = "__record_missing"
        elif f.init:
            value, default = f.name, ""
        else:
            continue  # set by __post_init__
        if f.init:
            parameters.append(f"{f.name}={default}" if default else f.name)
        body.append(f"    __record_set(__record_self, {f.name!r}, {value})")
    if post_init:
        body.append("    __record_self.__post_init__()")
    source = f"def __init__(__record_self, {', '.join(parameters)}):\n" + ("\n".join(body) or "    pass")
    exec(source, scope)  # our own text, made of field names
    written = scope["__init__"]
    written.__qualname__ = f"{cls.__qualname__}.__init__"
    return written


class _Factory:
    """The default a signature shows for a field made by a factory, as dataclasses shows it."""

    def __repr__(self) -> str:
        return "<factory>"


class _Signature:
    """`inspect.signature` (and `help`) of a record class: the parameters `@dataclass` would
    show, made when asked, since `__init__` takes `*args, **kwargs` until the class is hot."""

    def __get__(self, instance: Any, owner: type) -> Any:
        import inspect

        def default(f: Field[Any]) -> Any:
            if f.default is not MISSING:
                return f.default
            return _Factory() if f.default_factory is not MISSING else inspect.Parameter.empty

        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters = [
            inspect.Parameter(f.name, kind, default=default(f), annotation=f.type) for f in fields(owner) if f.init
        ]
        return inspect.Signature(parameters, return_annotation=None)


_SIGNATURE = _Signature()


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
