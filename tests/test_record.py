"""``@record`` behaves as ``@dataclass(frozen=True)`` (issue 33, 2: the fast path proven equal
to the definition).

A record is made without compiling its methods (``sglang_logscope/_record.py``); every check
here builds the same class both ways, from the same field specs, and holds each method's
answer equal: ``==`` and ``!=``, ``hash`` (or its ``TypeError``), ``repr``, assignment and
deletion refused with the same message, ``replace``, ``fields``, ``asdict``, ``astuple``,
``__match_args__``, pickling, and the constructor's errors.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
import re
from dataclasses import FrozenInstanceError, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope._record import is_record, record

PKG = Path(__file__).resolve().parent.parent / "sglang_logscope"

#: Field values: hashable and not (a list), equal across types (1 == 1.0 == True), and no NaN
#: (tuples compare NaN by identity, field by field comparison on Python 3.13 does not).
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2, allow_nan=False).map(lambda f: round(f, 1))
    | st.text("ab", max_size=2),
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=2),
    max_leaves=4,
)

#: One field: its options (``hash`` None follows ``compare``), and whether it has a default.
FIELD = st.fixed_dictionaries(
    {
        "compare": st.booleans(),
        "hash": st.sampled_from([None, True, False]),
        "repr": st.booleans(),
        "default": st.booleans(),
    }
)


def _pair(specs: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The same class as a record and as a frozen dataclass (defaults last, as they must be)."""
    specs = sorted(specs, key=lambda s: s["default"])

    def namespace() -> dict[str, Any]:
        names = {f"f{i}": s for i, s in enumerate(specs)}
        ns: dict[str, Any] = {"__annotations__": dict.fromkeys(names, "Any")}
        for name, s in names.items():
            options = {k: s[k] for k in ("compare", "hash", "repr")}
            ns[name] = field(default=0, **options) if s["default"] else field(**options)
        return ns

    made: Any = record(type("Thing", (), namespace()))
    plain: Any = dataclass(frozen=True)(type("Thing", (), namespace()))
    return made, plain


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as e:  # the kind and message of a refusal are part of the behaviour
        return type(e).__name__, str(e)


def _built(cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    return list(vars(cls(*args, **kwargs)).items())


def _assign(obj: object, name: str) -> None:
    setattr(obj, name, 1)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(FIELD, max_size=4),
    st.lists(VALUES, min_size=4, max_size=4),
    st.lists(VALUES, min_size=4, max_size=4),
)
def test_a_record_answers_as_a_frozen_dataclass(
    specs: list[dict[str, Any]], left: list[Any], right: list[Any]
) -> None:
    made, plain = _pair(specs)
    n = len(specs)
    a, b = made(*left[:n]), made(*right[:n])
    pa, pb = plain(*left[:n]), plain(*right[:n])
    assert (a == b, a != b, a == a) == (pa == pb, pa != pb, pa == pa)
    assert (a == object(), a == pa) == (False, False)
    assert repr(a) == repr(pa)
    assert _outcome(lambda: hash(a)) == _outcome(lambda: hash(pa))
    assert dataclasses.asdict(a) == dataclasses.asdict(pa)
    assert dataclasses.astuple(b) == dataclasses.astuple(pb)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(pa)]
    assert made.__match_args__ == plain.__match_args__
    for name in [*(f.name for f in dataclasses.fields(a)), "other"]:
        for change in (_assign, delattr):
            assert _outcome(partial(change, a, name)) == _outcome(partial(change, pa, name))
    if n:
        changed = dataclasses.replace(a, f0=right[0])
        assert dataclasses.astuple(changed) == dataclasses.astuple(
            dataclasses.replace(pa, f0=right[0])
        )
    assert made.__doc__ == plain.__doc__
    assert str(inspect.signature(made)) == str(inspect.signature(plain))
    last = f"f{n - 1}"
    calls = [
        ((), {}),
        (tuple(left[:n]), {}),
        (tuple(left[: n + 1]), {}),
        (tuple(left[: n - 1]), {last: right[0]}),
        ((), {f"f{i}": v for i, v in enumerate(right[:n])}),
        ((), dict(reversed([(f"f{i}", v) for i, v in enumerate(left[:n])]))),
        (tuple(left[:1]), {"f0": right[0]}),
        (tuple(left[:n]), {"nope": 1}),
        ((), {**{f"f{i}": v for i, v in enumerate(left[: n - 1])}, "nope": 1}),
    ]
    for args, kwargs in calls:  # the same binding, errors word for word, fields in order
        built = _outcome(partial(_built, made, args, kwargs))
        assert built == _outcome(partial(_built, plain, args, kwargs))


@record
class _Picked:
    """A module-level record, so pickle can name its class."""

    name: str
    sizes: tuple[int, ...] = ()
    notes: list[str] = field(default_factory=list)


def test_a_record_pickles_copies_and_matches() -> None:
    thing = _Picked("a", (1, 2), ["x"])
    back = pickle.loads(pickle.dumps(thing))
    assert back == thing and back is not thing
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'name'"):
        back.name = "b"
    match thing:
        case _Picked(name, sizes):
            assert (name, sizes) == ("a", (1, 2))
        case _:
            pytest.fail("a record's positional pattern did not match")
    assert _Picked("a").notes == [] and _Picked("a").notes is not _Picked("a").notes


def test_a_record_repr_of_itself_is_an_ellipsis() -> None:
    thing = _Picked("a")
    thing.notes.append(thing)  # type: ignore[arg-type]
    assert repr(thing) == "_Picked(name='a', sizes=(), notes=[...])"


def test_what_a_class_writes_itself_is_kept_or_refused_as_dataclass_does() -> None:
    def own(self: Any, other: Any) -> bool:
        return True

    for made in (record, dataclass(frozen=True)):
        kept: Any = made(type("K", (), {"__annotations__": {"a": "int"}, "__eq__": own}))
        assert kept(1) == kept(2) and hash(kept(1)) == hash((1,))
        unhashable: Any = made(type("U", (), {"__annotations__": {"a": "int"}, "__hash__": None}))
        with pytest.raises(TypeError, match="unhashable"):
            hash(unhashable(1))
        for name in ("__setattr__", "__delattr__"):
            with pytest.raises(TypeError, match=f"Cannot overwrite attribute {name}"):
                made(type("S", (), {"__annotations__": {"a": "int"}, name: own}))


def test_is_record_names_records_only() -> None:
    plain: Any = dataclass(frozen=True)(type("P", (), {"__annotations__": {"a": "int"}}))
    assert is_record(_Picked) and not is_record(plain) and not is_record(int)
    sub = type("Sub", (_Picked,), {})
    assert not is_record(sub)


def test_the_package_makes_its_classes_with_record() -> None:
    """A dataclass in the package is a record, or a hot per-line type with slots."""
    pattern = re.compile(r"^ *@(?:dataclasses\.)?dataclass\b(\([^)]*\))?", re.MULTILINE)
    slow = [
        f"{path.relative_to(PKG)}:{text[: m.start()].count(chr(10)) + 1}"
        for path in sorted(PKG.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for m in pattern.finditer(text)
        if "slots=True" not in (m.group(1) or "")
    ]
    assert not slow, f"use @record (sglang_logscope/_record.py) for: {slow}"


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(FIELD, max_size=3), st.lists(VALUES, min_size=3, max_size=3))
def test_a_mutable_record_answers_as_a_dataclass(
    specs: list[dict[str, Any]], values: list[Any]
) -> None:
    """``@record(frozen=False)`` is ``@dataclass``: equal, unhashable, shown, and assigned."""
    specs = sorted(specs, key=lambda s: s["default"])
    fields = {f"f{i}": s for i, s in enumerate(specs)}

    def made(decorate: Any) -> Any:
        ns: dict[str, Any] = {"__annotations__": dict.fromkeys(fields, "Any")}
        for name, s in fields.items():
            options = {k: s[k] for k in ("compare", "repr")}
            ns[name] = field(default=0, **options) if s["default"] else field(**options)
        return decorate(type("Mutable", (), ns))

    ours, theirs = made(record(frozen=False)), made(dataclass)
    n = len(specs)
    a, b, pa, pb = ours(*values[:n]), ours(*values[:n]), theirs(*values[:n]), theirs(*values[:n])
    assert (a == b, repr(a)) == (pa == pb, repr(pa))
    assert _outcome(lambda: hash(a)) == _outcome(lambda: hash(pa))
    for obj in (a, pa):
        obj.extra = 1  # mutable: any attribute, as a plain dataclass takes it
        if n:
            obj.f0 = "changed"
    assert (a == b, repr(a)) == (pa == pb, repr(pa))


def test_every_record_of_the_package_says_what_it_is() -> None:
    """A record without a docstring is documented by its signature, which ``dataclasses``
    builds at import through ``inspect`` (with ``ast.parse``): 16 of them were 1-2 ms of a
    check's start-up (issue 33, 2). Each says, in a line, what it is instead."""
    silent = []
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            recorded = isinstance(node, ast.ClassDef) and any(
                "record" in ast.unparse(d) for d in node.decorator_list
            )
            if recorded and not ast.get_docstring(node):  # type: ignore[arg-type]
                silent.append(f"{path.relative_to(PKG)}: {node.name}")  # type: ignore[attr-defined]
    assert not silent, silent


def test_what_a_record_does_not_take_is_refused_when_the_class_is_made() -> None:
    """An ``__init__``/``__post_init__`` of its own, ``InitVar``, ``kw_only``, ``init=False``:
    each would need a generated ``__init__``, so each is one clear ``TypeError``; and a field
    without a default after one with a default is refused as ``dataclass`` refuses it."""

    def hook(self: Any) -> None:
        return None

    refused = [
        {"__annotations__": {"a": "int"}, "__post_init__": hook},
        {"__annotations__": {"a": "int"}, "__init__": hook},
        {"__annotations__": {"a": "InitVar[int]"}},
        {"__annotations__": {"a": "int"}, "a": field(kw_only=True)},
        {"__annotations__": {"a": "int"}, "a": field(default=0, init=False)},
    ]
    for ns in refused:
        with pytest.raises(TypeError, match="a record's"):
            record(type("R", (), ns))
    late = {"__annotations__": {"a": "int", "b": "int"}, "a": 0}
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        dataclass(frozen=True)(type("D", (), dict(late)))
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        record(type("R", (), dict(late)))
