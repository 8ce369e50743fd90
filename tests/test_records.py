"""`@record` behaves as `@dataclass(frozen=True)` does, without compiling code at import."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import pydoc
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.ir.model import Edge
from compiler.records import HOT, record


def _point() -> type:
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: tuple[str, ...] = ()
        notes: list[str] = field(default_factory=list, compare=False, repr=False)

    return Point


def _twins(**options: Any) -> tuple[type, type]:
    """The same class body as a record and as a frozen dataclass."""
    return record(**options)(_point()), dataclass(frozen=True, **options)(_point())


Record, Dataclass = _twins()
OrderedRecord, OrderedDataclass = _twins(order=True)
values = st.integers(-3, 3)
tags = st.tuples(st.sampled_from("ab")) | st.just(())


@given(values, values, tags, values, values, tags)
def test_equality_hash_order_and_repr_agree_with_a_frozen_dataclass(x1, y1, t1, x2, y2, t2) -> None:
    ours = OrderedRecord(x1, y=y1, tags=t1), OrderedRecord(x=x2, y=y2, tags=t2)
    theirs = OrderedDataclass(x1, y=y1, tags=t1), OrderedDataclass(x=x2, y=y2, tags=t2)
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) == (theirs[0] != theirs[1])
    assert (ours[0] < ours[1], ours[0] <= ours[1], ours[0] > ours[1], ours[0] >= ours[1]) == (
        theirs[0] < theirs[1],
        theirs[0] <= theirs[1],
        theirs[0] > theirs[1],
        theirs[0] >= theirs[1],
    )
    if ours[0] == ours[1]:
        assert hash(ours[0]) == hash(ours[1])
    assert repr(ours[0]).replace("OrderedRecord", "X") == repr(theirs[0]).replace("OrderedDataclass", "X")
    assert dataclasses.astuple(ours[0]) == dataclasses.astuple(theirs[0])


def test_a_record_is_a_dataclass_to_the_dataclasses_module() -> None:
    point = Record(1, tags=("a",))
    assert dataclasses.is_dataclass(Record)
    assert [f.name for f in dataclasses.fields(Record)] == ["x", "y", "tags", "notes"]
    assert dataclasses.asdict(point) == {"x": 1, "y": 0, "tags": ("a",), "notes": []}
    moved = dataclasses.replace(point, y=5)
    assert (moved.x, moved.y, moved.tags) == (1, 5, ("a",))
    assert Record.__match_args__ == ("x", "y", "tags", "notes")
    assert Record.__doc__ == "A point."


def test_signature_and_help_show_the_fields_as_for_a_dataclass() -> None:
    """`__init__` takes `*args, **kwargs` until the class is hot; what the class shows
    `inspect` and `help` is its fields all the same."""
    assert str(inspect.signature(Record)) == str(inspect.signature(Dataclass))
    shown = pydoc.render_doc(Record, renderer=pydoc.plaintext)
    assert f"Point{inspect.signature(Record)}" in shown and "x: 'int'" in shown


def test_fields_cannot_be_assigned_or_deleted() -> None:
    point = Record(1)
    with pytest.raises(FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del point.x  # type: ignore[misc]
    assert point.x == 1


def test_each_instance_gets_its_own_default_from_a_factory() -> None:
    first, second = Record(1), Record(2)
    assert first.notes == [] and first.notes is not second.notes
    given_list = ["kept"]
    assert Record(1, notes=given_list).notes is given_list


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing 1 required positional argument: 'x'"),
        ((), {"x": 1, "z": 2}, "got an unexpected keyword argument 'z'"),
        ((1,), {"x": 1}, "got multiple values for argument 'x'"),
        ((1, 2, (), [], 5), {}, "takes from 2 to 5 positional arguments but 6 were given"),
    ],
)
def test_wrong_arguments_are_pythons_own_type_error(args, kwargs, message) -> None:
    for cls in (record(_point()), dataclass(frozen=True)(_point())):
        with pytest.raises(TypeError, match=f"Point.__init__\\(\\) {message}"):
            cls(*args, **kwargs)


def test_fields_out_of_order_are_refused_as_dataclass_refuses_them() -> None:
    class Wrong:
        x: int = 0
        y: int

    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):
        record(Wrong)


def test_eq_false_keeps_identity() -> None:
    @record(eq=False)
    class Token:
        name: str

    a, b = Token("a"), Token("a")
    assert a != b and a == a
    assert len({a, b}) == 2


def test_post_init_and_fields_outside_init() -> None:
    @record
    class Sized:
        items: tuple[int, ...]
        size: int = field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "size", len(self.items))

    assert Sized((1, 2)).size == 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'size'"):
        Sized(items=(), size=3)  # type: ignore[call-arg]


def test_methods_the_class_writes_itself_are_kept() -> None:
    @record
    class Loud:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Loud("x")) == "<x>"
    assert Loud.__init__.__qualname__.endswith("Loud.__init__")


def test_records_copy_and_pickle() -> None:
    point = Record(3, y=4, tags=("b",))
    assert copy.copy(point) == point and copy.deepcopy(point) == point
    edge = Edge(target="review", hint="when done")
    assert pickle.loads(pickle.dumps(edge)) == edge


def test_no_code_is_compiled_until_a_class_is_hot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the module: making a record class, and using it a little, compiles
    nothing (`@dataclass` compiles every method it writes); a hot class compiles its
    `__init__`, once."""
    compiled: list[str] = []
    real_exec = exec
    monkeypatch.setattr("builtins.exec", lambda *a, **k: compiled.append(a[0]) or real_exec(*a, **k))
    cls = record(order=True)(_point())
    shared = cls.__init__
    cold = [cls(x=n, notes=[]) for n in range(HOT)]
    assert compiled == []
    hot = [cls(x=n) for n in range(HOT, HOT + 50)]
    assert len(compiled) == 1 and cls.__init__ is not shared
    assert [p.x for p in cold + hot] == list(range(HOT + 50))
    assert hot[0].notes == [] and hot[0].notes is not hot[1].notes
    dataclass(frozen=True)(_point())
    assert len(compiled) > 1


def hot(cls: type) -> type:
    """`cls` once it has been called often enough to have its own `__init__`."""
    for _ in range(HOT + 1):
        cls(x=0)
    return cls


HotRecord = hot(record(order=True)(_point()))


@given(values, values, tags)
def test_a_hot_record_is_made_as_a_cold_one_is(x, y, t) -> None:
    cold = record(order=True)(_point())
    made = cold(x, y=y, tags=t), HotRecord(x, y=y, tags=t), HotRecord(x=x, y=y, tags=t, notes=[])
    assert [repr(p) for p in made] == [repr(made[0])] * 3
    assert [dataclasses.astuple(p) for p in made] == [dataclasses.astuple(made[0])] * 3
