"""``@record``: a frozen dataclass, made without compiling code for each class.

``@dataclass(frozen=True)`` writes six methods per class as source text and compiles each with
``exec`` (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): 0.36 ms a class on Python 3.11, 0.45 ms on 3.12. A ``check`` makes 86
classes, and that was a third of its start-up (issue 33, 2). A record lets ``dataclasses``
process its fields and write ``__init__`` alone; the other five methods are the functions
below, shared by every record, reading the field names each class keeps. What a record does
is what the frozen dataclass does, proven by ``tests/test_record.py``: equal and unequal, its
hash, its repr, no assignment or deletion after ``__init__``, ``replace``, ``fields``,
``asdict``, pickling and ``match``. ``@record(frozen=False)`` is ``@dataclass`` made the same
way (a builder's state: equal by its fields, shown by them, unhashable, assignable).

Two differences, neither visible through a record's own methods:
- ``__init__`` sets each field through ``__setattr__``, which lets a field be set once, while
  it is unset (a frozen dataclass's ``__init__`` writes past its ``__setattr__``): building a
  record of 12 fields costs 1.47 µs against 1.15 µs on Python 3.11, 1.60 µs against 1.59 µs on
  3.12. The hot per-line types (``Event``, ``Rows``, ...)
  stay ``@dataclass(frozen=True, slots=True)`` (``tests/test_record.py`` holds every other
  class of the package to ``@record``).
- ``__dataclass_params__`` says ``frozen=False, eq=False``; :func:`is_record` says what it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        """Typing only (PEP 681): mypy reads a record as a frozen dataclass."""
        return lambda decorator: decorator


__all__ = ["is_record", "record"]

_T = TypeVar("_T")
#: What a record class keeps: its field names, and how its compared, hashed and shown fields
#: are read (each a tuple of the field values, read in C by ``attrgetter``).
_FIELDS = "__record_fields__"
_COMPARED = "__record_compared__"
_HASHED = "__record_hashed__"
_SHOWN = "__record_shown__"


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A reader of these fields' values as a tuple (``attrgetter`` gives one name bare)."""
    if len(names) != 1:
        return attrgetter(*names) if names else (lambda _: ())
    one = attrgetter(names[0])
    return lambda obj: (one(obj),)


def _setattr(self: Any, name: str, value: Any) -> None:
    """``__init__`` setting a field, once. A field is a plain attribute, written straight into
    the instance's dict: as fast as a frozen dataclass's ``__init__`` on Python 3.12."""
    values = self.__dict__
    if name in values or name not in type(self).__record_fields__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    values[name] = value


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    compared = getattr(self, _COMPARED)
    return bool(compared(self) == compared(other))


def _hash(self: Any) -> int:
    return hash(getattr(self, _HASHED)(self))


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(self, _SHOWN))
    return f"{self.__class__.__qualname__}({shown})"


def _hashed(f: dataclasses.Field[Any]) -> bool:
    return f.compare if f.hash is None else f.hash


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(*, frozen: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[_T] | None = None, /, *, frozen: bool = True) -> Any:
    """``@dataclass(frozen=True)``, for a class that is not built per line of a log;
    ``@record(frozen=False)``: ``@dataclass``, a builder's mutable state."""
    if cls is None:
        return lambda made: _make(made, frozen)
    return _make(cls, frozen)


def _make(cls: type[_T], frozen: bool) -> type[_T]:
    own = cls.__dict__
    for name in ("__setattr__", "__delattr__"):
        if frozen and name in own:  # as dataclass(frozen=True) refuses them
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    cls = dataclasses.dataclass(cls, repr=False, eq=False)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    setattr(cls, _FIELDS, frozenset(f.name for f in fields))
    setattr(cls, _COMPARED, staticmethod(_values(tuple(f.name for f in fields if f.compare))))
    setattr(cls, _HASHED, staticmethod(_values(tuple(f.name for f in fields if _hashed(f)))))
    setattr(cls, _SHOWN, tuple(f.name for f in fields if f.repr))
    explicit_hash = own.get("__hash__") is not None or (
        "__hash__" in own and "__eq__" not in own  # `__hash__ = None` written in the class
    )
    methods = {"__eq__": _eq, "__repr__": _repr}
    if frozen:
        methods |= {"__setattr__": _setattr, "__delattr__": _delattr}
    for name, method in methods.items():
        if name not in own:
            setattr(cls, name, method)
    if not explicit_hash:  # frozen: hashed by its fields; else unhashable, as dataclass does
        cls.__hash__ = _hash if frozen else None  # type: ignore[method-assign,assignment]
    return cls


def is_record(cls: type) -> bool:
    """Whether ``cls`` was made by :func:`record` (itself, not a base)."""
    return _FIELDS in cls.__dict__
