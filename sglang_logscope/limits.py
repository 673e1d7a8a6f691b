"""What a value read from untrusted text may be before logscope computes with it.

A log's ``server_args`` banner, the ``Current value:`` of an error, a launch command and a
``--config`` YAML are text anyone can write: ``tp_size=0``, ``page_size=10**30``,
``mem_fraction_static=inf`` or a 100k-digit int are literals like any other. Rather than
guard every division of the arithmetic, each value is checked once where it enters, against
the table ``data/args/limits.json`` (types and ranges SGLang itself accepts); one outside is
dropped (treated as unknown) and reported as ``value-out-of-range`` (LS080).
``json_ready`` keeps NaN, infinity and unbounded ints out of every JSON document.
"""

from __future__ import annotations

import errno
import json
import math
import os
import reprlib
import stat
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._record import record
from .errors import InputError

if TYPE_CHECKING:
    from importlib.abc import Traversable

#: Characters shown of a rejected value.
SHOWN_CHARS = 40


@record
class Rule:
    """One field's type and range (``None``: no bound that side)."""

    type: str
    min: float | None = None
    max: float | None = None
    exclusive: bool = False


@record
class Generic:
    """Bounds for every value, whatever its field."""

    int_abs_max: int
    str_max: int
    depth_max: int
    items_max: int


@record
class Rejected:
    """A value logscope would not use: where it came from, what it was, why."""

    field: str
    shown: str
    why: str
    source: str

    def message(self) -> str:
        return f"{self.field}={self.shown} in the {self.source} {self.why}: treated as unknown."

    def to_dict(self) -> dict[str, str]:
        return {"field": self.field, "value": self.shown, "why": self.why, "source": self.source}


def package_files() -> Traversable:
    """The package's own files (``data/...``) as ``importlib.resources.files`` gives them: the
    package's folder, where it is a folder on disk (any install but a zip), without loading
    ``importlib.resources`` and what it imports (~3 % of a small check's start-up, issue 33)."""
    here = Path(__file__).parent
    if (here / "data").is_dir():
        return here
    # start-up: importlib.resources only for a package that is no folder on disk (a zip)
    from importlib import resources

    return resources.files("sglang_logscope")


@cache
def _table() -> tuple[Generic, dict[str, Rule]]:
    text = package_files().joinpath("data/args/limits.json").read_text()
    data = json.loads(text)
    rules = {name: Rule(**spec) for name, spec in data["fields"].items()}
    return Generic(**data["generic"]), rules


def rules() -> Mapping[str, Rule]:
    """The per-field table (read-only: the cached one)."""
    return _table()[1]


def generic() -> Generic:
    return _table()[0]


def problem(field: str, value: Any) -> str | None:
    """Why ``value`` cannot be used as ``field`` (``None``: it can)."""
    if value is None:
        return None
    why = _plain_problem(value) if value.__class__ in _PLAIN else shape_problem(value)
    if why is not None:
        return why
    rule = _table()[1].get(field)
    return _rule_problem(rule, value) if rule is not None else None


def shape_problem(value: Any) -> str | None:
    """Why ``value`` is no plain bounded value, whatever its field: walked without recursion,
    a shared reference counted each time it appears (a YAML alias bomb stops at the bound)."""
    bounds = generic()
    stack: list[tuple[Any, int]] = [(value, 0)]
    items = 0
    while stack:
        item, depth = stack.pop()
        items += 1
        if items > bounds.items_max:
            return f"holds more than {bounds.items_max} items"
        if depth > bounds.depth_max:
            return f"is nested deeper than {bounds.depth_max}"
        if item is None or isinstance(item, (bool, int, float, str, bytes)):
            why = _plain_problem(item, bounds)
            if why is not None:
                return why
        elif isinstance(item, (list, tuple)):
            stack.extend((e, depth + 1) for e in item)
        elif isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        else:
            return f"is a {type(item).__name__}, not a plain value"
    return None


#: The plain values :func:`problem` checks without :func:`shape_problem`'s walk (most of a
#: 325-key banner's values, each walked before: issue 30's fleet of small logs).
_PLAIN = frozenset((str, int, float, bool))


def _plain_problem(item: Any, bounds: Generic | None = None) -> str | None:
    """Why one ``None``, ``bool``, ``int``, ``float``, ``str`` or ``bytes`` is out of bounds:
    a leaf of :func:`shape_problem`'s walk, and the whole of it for a value that is one."""
    if item is None or isinstance(item, bool):
        return None
    bounds = bounds or generic()
    if isinstance(item, int):
        return "is an int beyond 2**63" if abs(item) > bounds.int_abs_max else None
    if isinstance(item, float):
        return None if math.isfinite(item) else "is not a finite number"
    return f"is longer than {bounds.str_max} characters" if len(item) > bounds.str_max else None


def _rule_problem(rule: Rule, value: Any) -> str | None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if rule.type == "str":
        return None if isinstance(value, str) else f"is a {type(value).__name__}, not a string"
    if rule.type == "bool":
        return None if isinstance(value, bool) else f"is a {type(value).__name__}, not a bool"
    if rule.type == "int" and not (number and isinstance(value, int)):
        return f"is a {type(value).__name__}, not an int"
    if rule.type == "float" and not number:
        return f"is a {type(value).__name__}, not a number"
    low, high = rule.min, rule.max
    if rule.exclusive:
        inside = (low is None or value > low) and (high is None or value < high)
        bounds = f"between {_num(low)} and {_num(high)} (exclusive)"
    else:
        inside = (low is None or value >= low) and (high is None or value <= high)
        bounds = f"within {_num(low)}..{_num(high)}"
    return None if inside else f"is not {bounds}"


def _num(value: float | None) -> str:
    if value is None:
        return "any"
    return str(int(value)) if float(value).is_integer() else str(value)


def clean(args: Mapping[Any, Any], source: str) -> tuple[dict[str, Any], tuple[Rejected, ...]]:
    """``args`` without the values that cannot be used, and those values (in order)."""
    kept: dict[str, Any] = {}
    rejected: list[Rejected] = []
    for key, value in args.items():
        name = str(key)
        why = problem(name, value)
        if why is None:
            kept[name] = value
        else:
            rejected.append(Rejected(name, shown(value), why, source))
    return kept, tuple(rejected)


def unreadable(field: str, text: str, source: str) -> Rejected:
    """A value that is no literal at all (``10**30``, ``-inf``), shown as written."""
    shown_text = text.encode("ascii", "backslashreplace").decode("ascii")
    if len(shown_text) > SHOWN_CHARS:
        shown_text = shown_text[:SHOWN_CHARS] + "..."
    return Rejected(field, shown_text, "is not a literal value", source)


def could_not_use(rejected: tuple[Rejected, ...] | list[Rejected]) -> tuple[str, ...]:
    """A budget's assumption line per value it could not use (it rests on the default)."""
    return tuple(
        f"could not use {r.field}={r.shown} from the {r.source} ({r.why}): SGLang's default assumed"
        for r in rejected
    )


class _Short(reprlib.Repr):
    """``repr`` cut short, safe on ints of any size (``repr`` of a 5000-digit int raises)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = self.maxother = self.maxlong = SHOWN_CHARS

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT = _Short()


def shown(value: Any) -> str:
    """A value as a short, printable string: at most :data:`SHOWN_CHARS` characters (+ '...')."""
    try:
        text = _SHORT.repr(value)
    except (ValueError, RecursionError, MemoryError):  # pragma: no cover - reprlib bounds depth
        text = f"<{type(value).__name__}>"
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def json_ready(value: Any, default: Callable[[Any], Any] = str) -> Any:
    """``value`` as plain JSON data: every float that is not finite becomes ``None`` and every
    int beyond 2**63 a short string (JSON has no NaN or infinity, and readers lose big ints);
    anything else not plain goes through ``default`` first. Nesting is bounded by the values
    themselves (:func:`problem` refuses deep ones where they enter)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int):
        return value if abs(value) <= generic().int_abs_max else shown(value)
    if isinstance(value, Mapping):
        return {
            k if isinstance(k, str) else str(json_ready(k, default)): json_ready(v, default)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [json_ready(v, default) for v in value]
    converted = default(value)
    if isinstance(converted, str):
        return converted
    return json_ready(converted, default)


#: Bytes a ``--config`` YAML may have (SGLang's own are a few hundred bytes).
CONFIG_MAX_BYTES = 4 << 20


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, by its ``st_mode`` (from ``lstat``: a link)."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


#: Compressed logs by their first bytes, one table for every reader: ``parse/source.py`` opens
#: the ones logscope decompresses (stdlib: gzip, xz, bzip2), and every reader that seeks by
#: offset, counts a file's bytes as its lines' or sniffs a wrapping leaves all of them to it.
#: Each row: the format, its magic numbers, and the command that writes it out where logscope
#: does not (``None``: logscope reads it).
COMPRESSED: tuple[tuple[str, tuple[bytes, ...], str | None], ...] = (
    ("gzip", (b"\x1f\x8b",), None),
    ("xz", (b"\xfd7zXZ\x00",), None),
    ("bzip2", tuple(b"BZh" + bytes([c]) for c in b"123456789"), None),
    ("zstd", (b"\x28\xb5\x2f\xfd",), "zstdcat"),
    ("lz4", (b"\x04\x22\x4d\x18",), "lz4cat"),
    ("zip", (b"PK\x03\x04",), "unzip -p"),
)
#: The bytes :func:`compression_of` needs to see.
MAGIC_BYTES = max(len(m) for _, magics, _ in COMPRESSED for m in magics)


def compression_of(head: bytes) -> str | None:
    """The compressed format a file starting with ``head`` is in (``None``: not compressed)."""
    for name, magics, _ in COMPRESSED:
        if head.startswith(magics):
            return name
    return None


#: Bytes a command file may have (a launch command is a few hundred).
COMMAND_MAX_BYTES = 1 << 20


def read_regular(
    path: str | os.PathLike[str],
    limit: int,
    what: str,
    *,
    pipes: bool = False,
    follow: bool = True,
) -> bytes:
    """The bytes of a small regular file, or :class:`InputError` in one line: a FIFO, a device
    or a directory is refused without waiting on it (opened non-blocking, checked by
    ``fstat``), and a file over ``limit`` bytes is refused before it is read whole. With
    ``pipes``, a FIFO or pipe (``<(echo ...)``) is read too, up to ``limit`` bytes: one with no
    writer reads as empty instead of waiting for ever. ``follow=False`` (a file named by
    untrusted input: a command's ``--config``, a launch record) refuses a symbolic link."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise InputError(
                f"{os.fspath(path)}: {what} is a symbolic link; logscope does not follow it"
            ) from None
        raise InputError(f"{os.fspath(path)}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd)
        if pipes and stat.S_ISFIFO(mode.st_mode):
            os.set_blocking(fd, True)  # a writer that has not written yet is waited for
        elif not stat.S_ISREG(mode.st_mode):
            allowed = "a regular file or a pipe" if pipes else "a regular file"
            raise InputError(
                f"{os.fspath(path)}: {what} must be {allowed}, not {file_kind(mode.st_mode)}"
            )
        if mode.st_size > limit:
            raise InputError(f"{os.fspath(path)}: {what} is over {limit >> 10} KiB")
        parts: list[bytes] = []
        size = 0
        while size <= limit:
            part = os.read(fd, min(1 << 20, limit + 1 - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
    except OSError as exc:
        raise InputError(f"{os.fspath(path)}: cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputError(f"{os.fspath(path)}: {what} is over {limit >> 10} KiB")
    return b"".join(parts)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (through links too); ``False`` when either is absent."""
    try:
        one, two = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def refuse_overwriting(output: str | os.PathLike[str], *inputs: object) -> None:
    """:class:`InputError` when ``output`` is one of the ``inputs`` (``report LOG --html LOG``
    would replace the log with its own report); inputs that are no path are ignored."""
    for given in inputs:
        path = os.fspath(given) if isinstance(given, (str, os.PathLike)) else "-"
        if path != "-" and same_file(output, path):
            raise InputError(f"{os.fspath(output)}: is an input ({path}); not overwritten")
