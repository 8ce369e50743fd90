"""`dataclass` whose generated methods compile on first use: a cheaper start-up.

The standard decorator compiles each method it writes with `exec` (on Python 3.11 every
method separately), and that is most of what defining a dataclass costs: the ~66 classes on
the `validate` path took about 29 ms of a ~100 ms run, most of it for methods a run never
calls (`__repr__`, `__setattr__`/`__delattr__` that only raise on a frozen record,
`__eq__`/`__hash__` of records nobody compares, `__init__` of records a file does not use).

This decorator is `dataclasses.dataclass`. While it runs, the standard helper that compiles
a method (`dataclasses._create_fn`) hands out stubs; called the first time, a stub asks that
helper, with the same arguments, for the real method, puts it on the class and calls it. So
the methods are the standard ones, built from the same source and values, only later. A
class without a docstring gets the standard one (`Name(field: type = default, ...)`), written
from the decorator's arguments instead of the compiled `__init__`. tests/test_records.py
compares the classes of both decorators.

Where the standard module has no such helper (Python 3.13 builds methods another way), or
while another thread is making a class, this is `dataclasses.dataclass` itself. Type
checkers see `dataclasses.dataclass`.
"""

import dataclasses
import inspect
import threading
from typing import TYPE_CHECKING, Any, Callable

__all__ = ["compile_now", "dataclass"]

_standard_create_fn: "Callable[..., Any] | None" = getattr(dataclasses, "_create_fn", None)


def _standard(*args: Any, **kwargs: Any) -> Any:
    """The standard helper (only called where it exists)."""
    assert _standard_create_fn is not None
    return _standard_create_fn(*args, **kwargs)


#: The methods compiled on first use (all the standard decorator writes).
DEFERRED = frozenset(
    {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__", "__le__", "__gt__", "__ge__"}
)
#: Held while `dataclasses._create_fn` is replaced, so one class at a time defers its methods.
_lock = threading.Lock()
_deferring: "dict[str, Any]" = {"thread": None, "stubs": []}


class _Deferred:
    """What the stub of one method needs: the helper's arguments, then the class and the
    real method once known."""

    __slots__ = ("arguments", "owner", "real", "stub")

    def __init__(self, arguments: "dict[str, Any]") -> None:
        self.arguments = arguments
        self.owner: "type | None" = None
        self.real: "Callable[..., Any] | None" = None
        self.stub: "Callable[..., Any] | None" = None

    def resolve(self) -> "Callable[..., Any]":
        real = self.real
        if real is None:
            real = self.real = _standard(**self.arguments)
            owner = self.owner
            if owner is not None:
                real.__qualname__ = f"{owner.__qualname__}.{real.__name__}"
                name = real.__name__
                if vars(owner).get(name) is self.stub:  # a repr stub sits inside its recursion guard
                    type.__setattr__(owner, name, real)
        return real


def _stub(deferred: _Deferred, name: str) -> "Callable[..., Any]":
    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        return deferred.resolve()(self, *args, **kwargs)

    stub.__name__ = name
    stub.__qualname__ = name
    stub.__deferred__ = deferred  # type: ignore[attr-defined]
    deferred.stub = stub
    return stub


def compile_now(cls: type) -> None:
    """Compile every method of `cls` still waiting for its first use (tests; a process about
    to fork many workers)."""
    for value in list(vars(cls).values()):
        deferred = getattr(getattr(value, "__wrapped__", value), "__deferred__", None)
        if isinstance(deferred, _Deferred):
            deferred.resolve()


def _create_fn(
    name: str,
    args: "list[str]",
    body: "list[str]",
    *,
    globals: "dict[str, Any] | None" = None,
    locals: "dict[str, Any] | None" = None,
    return_type: Any = dataclasses.MISSING,
) -> Any:
    """Stands in for the standard helper while a class is made: a stub for a deferred
    method, the standard result for anything else (and for any other thread)."""
    if name not in DEFERRED or _deferring["thread"] != threading.get_ident():
        return _standard(name, args, body, globals=globals, locals=locals, return_type=return_type)
    deferred = _Deferred(
        {"name": name, "args": args, "body": body, "globals": globals, "locals": locals, "return_type": return_type}
    )
    _deferring["stubs"].append(deferred)
    return _stub(deferred, name)


def _deferred_dataclass(cls: type, options: "dict[str, Any]") -> type:
    if _standard_create_fn is None:
        made: type = dataclasses.dataclass(cls, **options)
        return made
    if not _lock.acquire(blocking=False):  # another class is being made: this one the standard way
        return _standard_dataclass(cls, options)
    had_doc = bool(getattr(cls, "__doc__", None))
    if not had_doc:  # written below, from the arguments of __init__ (the stub's signature is not it)
        cls.__doc__ = cls.__name__
    try:
        _deferring["thread"], _deferring["stubs"] = threading.get_ident(), []
        vars(dataclasses)["_create_fn"] = _create_fn
        try:
            made = dataclasses.dataclass(cls, **options)
        finally:
            vars(dataclasses)["_create_fn"] = _standard_create_fn
            stubs, _deferring["thread"], _deferring["stubs"] = _deferring["stubs"], None, []
    finally:
        _lock.release()
    for deferred in stubs:
        deferred.owner = made
    if not had_doc:
        made.__doc__ = made.__name__ + _init_signature(made, stubs).replace(" -> None", "")
    return made


def _standard_dataclass(cls: type, options: "dict[str, Any]") -> type:
    """`dataclasses.dataclass` while a deferring one is under way: in another thread the
    stand-in helper already passes through; in this one (a class made while another is being
    made) it is told to."""
    if _deferring["thread"] != threading.get_ident():
        made: type = dataclasses.dataclass(cls, **options)
        return made
    _deferring["thread"] = None
    try:
        made = dataclasses.dataclass(cls, **options)
    finally:
        _deferring["thread"] = threading.get_ident()
    return made


def _init_signature(cls: type, stubs: "list[_Deferred]") -> str:
    """`str(inspect.signature(cls))` for the standard `__init__`, written from the arguments
    the decorator gave for it (`name:_type_name=_dflt_name`, `*`) without compiling it, as
    `inspect.Signature` writes a signature: `name: annotation = default`, `*` before the
    keyword-only ones."""
    init = next((d for d in stubs if d.arguments["name"] == "__init__"), None)
    if init is None or vars(cls).get("__init__") is not init.stub:  # no generated __init__
        return _signature_text(cls)
    values = init.arguments["locals"] or {}
    parts = []
    for argument in init.arguments["args"][1:]:  # after self
        if argument == "*":
            parts.append("*")
            continue
        name, _, rest = argument.partition(":")
        annotation, _, default = rest.partition("=")
        if not name.isidentifier() or annotation not in values or (default and default not in values):
            return _signature_text(cls)  # not the form this reads
        text = f"{name}: {inspect.formatannotation(values[annotation])}"
        parts.append(f"{text} = {values[default]!r}" if default else text)
    return f"({', '.join(parts)}) -> None"


def _signature_text(cls: type) -> str:
    try:
        return str(inspect.signature(cls))
    except (TypeError, ValueError):  # as the standard decorator: no signature, no text
        return ""


if TYPE_CHECKING:
    from dataclasses import dataclass
else:

    def dataclass(cls=None, /, **options):
        """`dataclasses.dataclass(cls, **options)`, its generated methods compiled on first use."""
        if cls is None:
            return lambda cls: _deferred_dataclass(cls, options)
        return _deferred_dataclass(cls, options)
