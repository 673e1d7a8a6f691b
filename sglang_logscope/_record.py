"""``@record``: a frozen dataclass, made without compiling code for each class.

``@dataclass(frozen=True)`` writes six methods per class as source text and compiles each with
``exec`` (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): 0.36 ms a class on Python 3.11, 0.43 ms on 3.12, where a record takes
0.04 ms (``python benchmarks/startup_breakdown.py records``). A ``check`` makes 86
classes, and that was a third of its start-up (issue 33, 2). A record lets ``dataclasses``
process its fields and nothing more; its six methods are the functions below, shared by every
record, reading what each class keeps (its fields' names, defaults and factories). What a
record does is what the dataclass does, proven by ``tests/test_record.py``: built from the same
arguments into the same fields (or refused with the same ``TypeError``, word for word), equal
and unequal, its hash, its repr, no assignment or deletion after ``__init__``, ``replace``,
``fields``, ``asdict``, its signature, pickling and ``match``. Building one costs about what a
generated ``__init__`` does (the same command: 3 fields by position 0.52 µs against 0.37 µs,
12 fields 0.73 µs against 1.12 µs, on Python 3.11). ``@record(frozen=False)`` is
``@dataclass`` made the same way (a builder's state: equal by its fields, unhashable,
assignable).

What a record does not take: an ``__init__`` or ``__post_init__`` of its own, ``InitVar``,
``kw_only`` and ``field(init=False)`` (refused when the class is made; no class of the package
needs them). Its ``__dataclass_params__`` says ``init=False, eq=False, frozen=False``:
:func:`is_record` says what it is. The hot per-line types (``Event``, ``Rows``, ...) stay
``@dataclass(frozen=True, slots=True)``; ``tests/test_record.py`` holds every other class of
the package to ``@record``.
"""

from __future__ import annotations

import dataclasses
import inspect  # (dataclasses imports it: no cost of its own)
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
#: What a record class keeps: its ``__init__``'s plan (:class:`_Init`), and how its compared,
#: hashed and shown fields are read (each a tuple of the field values, read in C by
#: ``attrgetter``).
_INIT = "__record_init__"
_COMPARED = "__record_compared__"
_HASHED = "__record_hashed__"
_SHOWN = "__record_shown__"
_MISSING: Any = dataclasses.MISSING


class _Factory:
    """How ``inspect.signature`` shows a field's ``default_factory``, as for a dataclass."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


class _Init:
    """What a record's ``__init__`` takes: its fields by position or keyword, the required ones
    first (each default a value or a factory), and how Python words a call that does not fit."""

    def __init__(self, cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
        self.call = f"{cls.__qualname__}.__init__()"
        self.names = tuple(f.name for f in fields)
        self.known = frozenset(self.names)
        self.defaults: dict[str, tuple[Any, Any]] = {
            f.name: (f.default, f.default_factory)
            for f in fields
            if f.default is not _MISSING or f.default_factory is not _MISSING
        }
        self.least = len(self.names) - len(self.defaults)
        if any(name in self.defaults for name in self.names[: self.least]):
            late = next(n for n in self.names[self.least :] if n not in self.defaults)
            raise TypeError(f"non-default argument {late!r} follows default argument")
        self.fields = fields

    def too_many(self, given: int) -> str:
        most = len(self.names) + 1  # self counts, as Python counts it
        if self.defaults:
            takes = f"from {self.least + 1} to {most} positional arguments"
        else:
            takes = f"{most} positional argument{'s' if most != 1 else ''}"
        return f"{self.call} takes {takes} but {given + 1} were given"

    def missing(self, names: list[str]) -> str:
        quoted = [repr(n) for n in names]
        if len(quoted) > 2:
            listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        else:
            listed = " and ".join(quoted)
        plural = "s" if len(names) > 1 else ""
        return f"{self.call} missing {len(names)} required positional argument{plural}: {listed}"

    def signature(self) -> inspect.Signature:
        """``inspect.signature`` of the class: what dataclass's generated ``__init__`` shows."""
        given = inspect.Parameter.POSITIONAL_OR_KEYWORD
        params = [
            inspect.Parameter(
                f.name,
                given,
                annotation=f.type,
                default=inspect.Parameter.empty
                if f.name not in self.defaults
                else (f.default if f.default is not _MISSING else _FACTORY),
            )
            for f in self.fields
        ]
        return inspect.Signature(params, return_annotation=None)


class _Signature:
    """A record class's ``__signature__``, made when ``inspect`` first asks for it."""

    def __get__(self, obj: object, owner: type) -> Any:
        return getattr(owner, _INIT).signature()


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """A record's ``__init__``: the fields bound as Python binds a generated ``__init__``'s
    parameters (the same errors, word for word), written straight into the instance's dict."""
    plan: _Init = type(self).__record_init__
    names = plan.names
    if not kwargs and len(args) == len(names):  # every field by position: nothing to check
        self.__dict__.update(zip(names, args))  # noqa: B905 (as long: checked; a keyword costs 0.1 µs)
        return
    if not args and len(kwargs) == len(names):  # every field by keyword, unless one is unknown
        try:
            self.__dict__.update({name: kwargs[name] for name in names})
            return
        except KeyError:
            pass  # (an unknown keyword: said below)
    values = dict(zip(names, args, strict=False))  # (the fields past them: bound below)
    for key, value in kwargs.items():  # Python reads the keywords before it counts
        if key in values:
            raise TypeError(f"{plan.call} got multiple values for argument {key!r}")
        if key not in plan.known:
            raise TypeError(f"{plan.call} got an unexpected keyword argument {key!r}")
        values[key] = value
    if len(args) > len(names):
        raise TypeError(plan.too_many(len(args)))
    if len(values) < len(names):
        missing = [name for name in names[: plan.least] if name not in values]
        if missing:
            raise TypeError(plan.missing(missing))
        for name, (default, factory) in plan.defaults.items():
            if name not in values:
                values[name] = default if factory is _MISSING else factory()
    if kwargs or len(args) < len(names):
        values = {name: values[name] for name in names}  # in field order, as __init__ sets them
    self.__dict__.update(values)


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A reader of these fields' values as a tuple (``attrgetter`` gives one name bare)."""
    if len(names) != 1:
        return attrgetter(*names) if names else (lambda _: ())
    one = attrgetter(names[0])
    return lambda obj: (one(obj),)


def _setattr(self: Any, name: str, value: Any) -> None:
    cls = type(self)
    if _INIT in cls.__dict__ or name in cls.__record_init__.known:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)  # a plain subclass's own attribute


def _delattr(self: Any, name: str) -> None:
    cls = type(self)
    if _INIT in cls.__dict__ or name in cls.__record_init__.known:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


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
    if "__post_init__" in own or "__init__" in own:
        raise TypeError(f"{cls.__name__}: a record's __init__ takes its fields, no more")
    documented = own.get("__doc__") is not None
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    pseudo = cls.__dataclass_fields__.values()  # type: ignore[attr-defined]
    if any(f.init is False or f.kw_only is True for f in fields) or any(
        "InitVar" in str(f.type) for f in pseudo
    ):
        raise TypeError(f"{cls.__name__}: a record's fields are all positional __init__ fields")
    plan = _Init(cls, fields)
    setattr(cls, _INIT, plan)
    setattr(cls, _COMPARED, staticmethod(_values(tuple(f.name for f in fields if f.compare))))
    setattr(cls, _HASHED, staticmethod(_values(tuple(f.name for f in fields if _hashed(f)))))
    setattr(cls, _SHOWN, tuple(f.name for f in fields if f.repr))
    cls.__signature__ = _Signature()  # type: ignore[attr-defined]
    if not documented:  # as dataclass documents a class without a docstring
        cls.__doc__ = cls.__name__ + str(plan.signature()).replace(" -> None", "")
    explicit_hash = own.get("__hash__") is not None or (
        "__hash__" in own and "__eq__" not in own  # `__hash__ = None` written in the class
    )
    methods = {"__init__": _init, "__eq__": _eq, "__repr__": _repr}
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
    return _INIT in cls.__dict__
