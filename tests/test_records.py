"""`compiler.records.dataclass` makes the same classes as `dataclasses.dataclass`.

Each case defines one class body twice, once with each decorator, and compares what a user of
the class can see: construction, defaults, repr, equality, hashing, ordering, frozen
assignment and deletion, `replace`, `fields`, pickling, the generated docstring.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import threading
from typing import Any, Callable

import pytest

from compiler import records
from compiler.records import dataclass as deferred_dataclass


def both(options: dict[str, Any], body: Callable[[], dict[str, Any]], name: str = "Record") -> tuple[type, type]:
    """The class `name` with the namespace `body()` made by each decorator."""

    def make(decorator: Callable[..., Any]) -> type:
        namespace = body()
        namespace.setdefault("__module__", __name__)
        namespace.setdefault("__qualname__", name)
        return decorator(**options)(type(name, (), namespace))

    return make(dataclasses.dataclass), make(deferred_dataclass)


def fields_body() -> dict[str, Any]:
    return {
        "__annotations__": {"name": "str", "count": "int", "tags": "tuple[str, ...]", "extra": "list[int]"},
        "count": 0,
        "tags": (),
        "extra": dataclasses.field(default_factory=list, compare=False, repr=False),
    }


OPTIONS = [
    {"frozen": True},
    {"frozen": True, "order": True},
    {"frozen": True, "slots": True},
    {"frozen": False},
    {"frozen": True, "eq": False},
    {"unsafe_hash": True},
    {"frozen": True, "kw_only": True},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_a_deferred_record_behaves_as_a_standard_dataclass(options: dict[str, Any]) -> None:
    standard, deferred = both(options, fields_body)
    args = {"name": "a", "count": 2, "tags": ("x",)}
    one, two = standard(**args), deferred(**args)
    assert repr(one) == repr(two)
    assert dataclasses.asdict(one) == dataclasses.asdict(two)
    assert [f.name for f in dataclasses.fields(one)] == [f.name for f in dataclasses.fields(two)]
    assert (two == deferred(**args)) == (one == standard(**args))
    assert (two == deferred(**{**args, "extra": [1]})) == (one == standard(**{**args, "extra": [1]}))
    assert (two == deferred(**{**args, "count": 3})) == (one == standard(**{**args, "count": 3}))
    assert (two == one) is False and (one == two) is False
    assert (standard.__hash__ is None) == (deferred.__hash__ is None)
    if standard.__hash__ is not None and options.get("eq", True):
        assert hash(two) == hash(deferred(**args)) == hash(one)
    if options.get("order"):
        assert (deferred(**args) < deferred(**{**args, "count": 3})) is True
        assert sorted([deferred(name="b"), deferred(name="a")])[0].name == "a"
    assert dataclasses.replace(two, count=9).count == 9
    assert standard.__doc__ == deferred.__doc__
    assert copy.deepcopy(two) == two or not options.get("eq", True)


@pytest.mark.parametrize("options", [{"frozen": True}, {"frozen": True, "slots": True}])
def test_a_frozen_record_refuses_assignment_and_deletion_the_same_way(options: dict[str, Any]) -> None:
    standard, deferred = both(options, fields_body)
    messages = []
    for cls in (standard, deferred):
        record = cls(name="a")
        with pytest.raises(dataclasses.FrozenInstanceError) as assigning:
            record.count = 1
        with pytest.raises(dataclasses.FrozenInstanceError) as deleting:
            del record.name
        messages += [str(assigning.value), str(deleting.value)]
    assert messages[:2] == messages[2:]


def test_post_init_field_init_false_and_pickling() -> None:
    def body() -> dict[str, Any]:
        def __post_init__(self: Any) -> None:
            object.__setattr__(self, "size", len(self.name))

        return {
            "__annotations__": {"name": "str", "size": "int"},
            "size": dataclasses.field(init=False, default=0),
            "__post_init__": __post_init__,
            "__doc__": "A record with a derived field.",
        }

    standard, deferred = both({"frozen": True}, body, name="Derived")
    globals()["Derived"] = deferred  # pickle finds the class by its module and name
    try:
        record = deferred(name="abc")
        assert record.size == standard(name="abc").size == 3
        assert pickle.loads(pickle.dumps(record)) == record
        assert deferred.__doc__ == "A record with a derived field."
    finally:
        del globals()["Derived"]


def test_a_subclass_of_a_deferred_record_gets_its_own_methods() -> None:
    @deferred_dataclass(frozen=True)
    class Base:
        name: str

    @deferred_dataclass(frozen=True)
    class Child(Base):
        size: int = 0

    assert Child("a", 1) == Child("a", 1) != Base("a")
    assert (
        repr(Child("a", 1))
        == "test_a_subclass_of_a_deferred_record_gets_its_own_methods.<locals>.Child(name='a', size=1)"
    )
    assert hash(Child("a", 1)) == hash(("a", 1))


def test_a_method_is_compiled_on_first_use_and_then_is_the_standard_one() -> None:
    if records._standard_create_fn is None:
        pytest.skip("this Python builds dataclass methods without `_create_fn`: nothing is deferred")

    @deferred_dataclass(frozen=True)
    class Point:
        x: int
        y: int

    stub = Point.__dict__["__eq__"]
    assert Point(1, 2) == Point(1, 2)
    real = Point.__dict__["__eq__"]
    assert real is not stub and real.__qualname__.endswith("Point.__eq__")
    assert real.__code__.co_name == "__eq__" and "other" in real.__code__.co_varnames


def test_another_thread_gets_standard_methods_while_a_class_is_being_made() -> None:
    """The stand-in helper defers only for the thread that installed it; the standard helper
    is back once a class is made."""
    if records._standard_create_fn is None:
        pytest.skip("this Python builds dataclass methods without `_create_fn`: nothing is deferred")
    arguments = {"globals": {}, "locals": {}}
    records._deferring["thread"] = threading.get_ident() + 1  # as if another thread were making a class
    try:
        method = records._create_fn("__eq__", ("self", "other"), ["return 42"], **arguments)
    finally:
        records._deferring["thread"] = None
    assert method.__code__.co_name == "__eq__" and method(None, None) == 42
    both({"frozen": True}, fields_body)
    assert dataclasses._create_fn is records._standard_create_fn


@pytest.mark.parametrize(
    ("body", "args"),
    [
        (lambda: {"__annotations__": {}}, ()),
        (lambda: {"__annotations__": {"seed": "dataclasses.InitVar[int]", "name": "str"}, "name": "n"}, (1,)),
        (lambda: {"__annotations__": {"a": int, "b": "list[str]"}, "b": dataclasses.field(default_factory=list)}, (1,)),
        (lambda: {"__annotations__": {"a": int}, "__init__": lambda self, a=1: object.__setattr__(self, "a", a)}, ()),
    ],
    ids=["no-fields", "init-var", "real-types", "own-init"],
)
def test_the_generated_docstring_and_signature_are_the_standard_ones(
    body: Callable[[], dict[str, Any]], args: tuple[Any, ...]
) -> None:
    standard, deferred = both({"frozen": True}, body)
    assert deferred.__doc__ == standard.__doc__
    assert repr(deferred(*args)) == repr(standard(*args))  # compiles __init__
    assert str(inspect.signature(deferred)) == str(inspect.signature(standard))


def test_a_record_made_while_another_is_being_made_is_a_standard_one() -> None:
    """A class made while the decorator is busy with another in the same thread (here, from
    inside the annotations the decorator reads) gets the standard decorator, whole."""
    made: dict[str, type] = {}

    class Reading(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            inner = type("Inner", (), {"__annotations__": {"x": "int"}, "__module__": __name__})
            made["inner"] = deferred_dataclass(frozen=True)(inner)
            return super().items()

    outer = deferred_dataclass(frozen=True)(
        type("Outer", (), {"__annotations__": Reading({"a": "int"}), "__module__": __name__})
    )
    inner = made["inner"]
    assert "x" in inner.__dict__["__init__"].__code__.co_varnames  # compiled at once, not a stub
    assert inner.__doc__ == "Inner(x: 'int')" and outer.__doc__ == "Outer(a: 'int')"
    assert inner(1) == inner(1) and outer(2) == outer(2) and repr(inner(1)) == "Inner(x=1)"


RECORD_MODULES = [
    "compiler.ir.model",
    "compiler.diagnostics",
    "compiler.config",
    "compiler.pipeline",
    "compiler.parse.source",
    "compiler.installation",
    "compiler.graph.model",
    "compiler.suppress",
    "compiler.parse.positions",
]


def test_the_projects_records_carry_the_standard_docstring() -> None:
    """Every record on the validate path without a docstring of its own has the one the
    standard decorator writes: its name and the signature of its (compiled) `__init__`."""
    import importlib

    checked = 0
    for module_name in RECORD_MODULES:
        module = importlib.import_module(module_name)
        for cls in vars(module).values():
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module_name):
                continue
            if not (cls.__doc__ or "").startswith(f"{cls.__name__}("):
                continue  # a docstring of its own
            records.compile_now(cls)
            assert cls.__doc__ == cls.__name__ + str(inspect.signature(cls)).replace(" -> None", ""), cls
            checked += 1
    assert checked >= 20  # the IR model alone has more
