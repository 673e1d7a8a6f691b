"""The message catalog mechanism: declarative specs of SGLang messages and fast matching.

A :class:`MessageSpec` is data: a regex over the message text (after the header), the typed
fields its named groups produce, the SGLang releases that print it, and real sample lines.
The entries themselves live in :mod:`sglang_logscope.parse.messages`; adding a message is adding
one entry there. Matching dispatches on the first characters of the message, so each line is
tried only against the few specs that can match it.
"""

from __future__ import annotations

import ast
import math
import re
from bisect import bisect_right
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from dataclasses import field
from functools import cached_property
from typing import Any, Literal

from .._record import record
from .._text import lazy_re, lazy_regex, own_pattern
from ..events import EventKind
from ..limits import Rejected, clean, problem, shape_problem
from ..limits import rules as limit_rules
from .versions import release_key

#: How many leading message characters index the dispatch table.
KEY_LEN = 4

FieldType = Literal["int", "float", "str", "bool", "list", "gib", "mib", "dict"]
BlockMode = Literal["traceback", "indented", "allocator"]


@record
class Ref:
    """In :attr:`MessageSpec.sets`, the value of a captured field (e.g. the new page size)."""

    field: str


@record
class Sample:
    """A real line the spec must parse, the fields it must yield, and where it came from."""

    line: str
    fields: Mapping[str, Any]
    source: str


@record
class MessageSpec:
    """One SGLang message: how to recognise it and what it means.

    ``sets`` (auto-adjust warnings) maps each server argument the message changes to the value
    it sets (a constant or a :class:`Ref` to a field). ``block`` makes the message open a
    multi-line record (a traceback, an argparse usage block). ``anywhere`` lets the pattern
    match inside the message instead of at its start (kept rare: such specs are tried on every
    line that reaches the fallback). ``bulk`` marks a high-volume serving line (batch, access):
    whole blocks of such lines are parsed at once by their shape (:mod:`.bulk`).
    """

    name: str
    kind: EventKind
    pattern: str
    releases: str
    samples: tuple[Sample, ...]
    fields: Mapping[str, FieldType] = field(default_factory=dict)
    sets: Mapping[str, Any] = field(default_factory=dict)
    level: str | None = None
    block: BlockMode | None = None
    anywhere: bool = False
    pairs: Mapping[str, str] | None = None
    description: str = ""
    bulk: bool = False

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return own_pattern(self.pattern)

    @cached_property
    def aliased(self) -> bool:
        """Whether a field has more than one group (:data:`ALIAS`)."""
        return _ALIASED.search(self.pattern) is not None

    @cached_property
    def prefix(self) -> str:
        """The literal text every match starts with ('' when the pattern starts variably)."""
        return "" if self.anywhere else literal_prefix(self.pattern)

    @cached_property
    def needle(self) -> str:
        """Literal text every match contains (a cheap ``in`` test before the regex; may be '')."""
        return required_literal(self.pattern)

    @cached_property
    def release_range(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return parse_release_range(self.releases)

    def convert(self, groups: Mapping[str, str | None]) -> dict[str, Any]:
        """Typed fields from a match's named groups (unset groups are left out)."""
        if self.aliased:
            groups = _merged(groups)
        out: dict[str, Any] = {}
        for name, raw in groups.items():
            if raw is None or name.startswith("_"):
                continue
            out[name] = _CONVERTERS[self.fields.get(name, "str")](raw)
        if self.pairs is not None:
            rest = groups.get("_pairs")
            if rest:
                out.update(read_pairs(rest, self.pairs))
        for arg, value in self.sets.items():
            if isinstance(value, Ref):
                value = out.get(value.field)
            out.setdefault("sets", {})[arg] = value
        return _guarded(out, [a for a, v in self.sets.items() if isinstance(v, Ref)])


#: A group named ``name__2`` (``__3``, ...) is another place of field ``name`` in a spec's
#: pattern (``re`` takes a group name once; alternatives that capture the same field each
#: have one): the fields hold it as ``name``, in the place ``name`` first has.
ALIAS = "__"
_ALIASED = lazy_re(rf"\(\?P<[A-Za-z]\w{{0,80}}?{ALIAS}\d")


def _field_of(group: str) -> str:
    """The field a group holds: ``name`` for ``name__2``, the group's own name otherwise."""
    name, alias, number = group.rpartition(ALIAS)
    return name if alias and name and number.isdigit() else group


def _merged(groups: Mapping[str, str | None]) -> dict[str, str | None]:
    """A match's groups with each alias (:data:`ALIAS`) folded into its field."""
    out: dict[str, str | None] = {}
    for name, raw in groups.items():
        field_name = _field_of(name)
        if out.get(field_name) is None:
            out[field_name] = raw
    return out


def _guarded(out: dict[str, Any], from_log: list[str]) -> dict[str, Any]:
    """Fields named like a ServerArgs field (``mem_fraction_static`` of a ``Current value:``)
    and the values SGLang says it set that come from the line (``from_log``; the catalog's
    own constants are trusted) checked against :mod:`..limits`; one out of range is dropped
    and kept under ``rejected`` (issue 20)."""
    table = limit_rules()
    rejected: list[Rejected] = []
    sets = out.get("sets") or {}
    for where, names in ((out, [n for n in out if n in table]), (sets, from_log)):
        for name in names:
            if name in where and problem(name, where[name]) is not None:
                rejected.extend(clean({name: where.pop(name)}, "log line")[1])
    if rejected:
        out["rejected"] = tuple(dict.fromkeys(rejected))  # a set value is often a field too
    return out


_META = set(".^$*+?{}[]|()")
_QUANT = set("*+?{")


def literal_prefix(pattern: str) -> str:
    """The literal characters a regex must start with, e.g. ``Load weight begin. avail mem=``."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt.isalnum():  # \d, \s, \w, \b ...: a class, not a literal
                break
            out.append(nxt)
            i += 2
        elif ch in _META:
            break
        else:
            out.append(ch)
            i += 1
        if i < len(pattern) and pattern[i] in _QUANT and out:
            out.pop()
            break
    return "".join(out)


def required_literal(pattern: str) -> str:
    """The longest literal run outside every group of a regex without top-level ``|``.

    ``(?P<b>FlashMLA|Cutlass MLA) only supports a page_size of (?P<p>...)`` gives
    `` only supports a page_size of ``: a message without it cannot match. Character classes,
    escapes such as ``\\d`` and quantified characters end a run; '' when nothing is certain.
    """
    best = ""
    run: list[str] = []
    depth = 0
    for kind, ch in _regex_pieces(pattern):
        if kind == "lit" and depth == 0:
            run.append(ch)
            continue
        if kind == "alt" and depth == 0:
            return ""
        if kind == "quant" and run:
            run.pop()  # the quantified character is optional or repeated
        if len(run) > len(best):
            best = "".join(run)
        run.clear()
        depth += 1 if kind == "open" else -1 if kind == "close" else 0
    return max(best, "".join(run), key=len)


def _regex_pieces(pattern: str) -> Iterator[tuple[str, str]]:
    """A regex cut into pieces: ``lit`` (one certain character), ``open``/``close`` (a group),
    ``alt`` (``|``), ``quant`` (``*+?{m,n}``) and ``other`` (a class, an escape class, ``.^$``)."""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            yield ("other", "") if nxt.isalnum() else ("lit", nxt)
            i += 2
        elif ch == "[":
            yield "other", ""
            i = _class_end(pattern, i) + 1
        elif ch in "()|":
            yield {"(": "open", ")": "close", "|": "alt"}[ch], ch
            i += 1
        elif ch in "*+?{":
            yield "quant", ch
            i = (pattern.find("}", i) + 1 or n) if ch == "{" else i + 1
        else:
            yield ("other", "") if ch in ".^$" else ("lit", ch)
            i += 1


def _class_end(pattern: str, i: int) -> int:
    """The index of the ``]`` closing the character class that opens at ``i``."""
    j, n = i + 1, len(pattern)
    if j < n and pattern[j] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j


#: Released SGLang versions this project knows, oldest first.
KNOWN_RELEASES: tuple[str, ...] = (
    "0.1.18", "0.2.0", "0.2.9", "0.2.14", "0.3.0", "0.3.3", "0.3.6", "0.4.0", "0.4.5",
    "0.4.6", "0.4.8", "0.4.10", "0.5.3", "0.5.6", "0.5.9", "0.5.10", "0.5.11", "0.5.12",
    "0.5.13", "0.5.15", "0.5.23",
)  # fmt: skip


def parse_release_range(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``"0.5.9"``, ``"0.4.6-0.5.6"``, ``"0.5.15-"`` or ``"all"`` → (low, high) inclusive."""
    text = text.strip()
    if text in ("", "all"):
        return (0,), (999,)
    if "-" in text:
        low, high = text.split("-", 1)
        return (release_key(low) if low else (0,)), (release_key(high) if high else (999,))
    return release_key(text), release_key(text)


def _to_bool(raw: str) -> bool:
    return raw.strip().lower() in ("true", "1", "yes")


def _to_list(raw: str) -> Any:
    """A printed list or dict as data; the text itself when it is none, or holds what no log
    value may (an unbounded int, infinity, a complex, deep nesting: :func:`.shape_problem`)."""
    try:
        value = ast.literal_eval(raw) if len(raw) < 100_000 else raw
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return raw
    return raw if shape_problem(value) is not None else value


def _to_number(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def convert(raw: str) -> Any:
        try:
            value = kind(raw.replace(",", "").strip())
        except ValueError:
            return raw
        if isinstance(value, float) and not math.isfinite(value):
            return raw  # (the catalog's patterns bound digits; this is the backstop)
        return value

    return convert


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "int": _to_number(int),
    "float": _to_number(float),
    "gib": _to_number(float),
    "mib": _to_number(float),
    "str": str,
    "bool": _to_bool,
    "list": _to_list,
    "dict": _to_list,
}


#: ``label=value`` / ``label: value`` pairs separated by ``, `` or ``. `` (a label is a few
#: words, each matched possessively, and never spans
#: a sentence end, a value stops at one: ``Time elapsed: 1.0 s. mem usage=0.03 GB.``). A
#: bracketed value is flat (no nested brackets), so an unclosed ``[`` costs at most the distance
#: to the next bracket: linear time on adversarial lines.
_PAIR = lazy_regex(
    r"(?:^|, |\. |\s)(?P<k>#?[A-Za-z_][\w#/()-]*+(?:\.[\w#/()-]++)*+"
    r"(?: [\w#/()-]++(?:\.[\w#/()-]++)*+){0,6}?)(?:=|: )"
    r"(?P<v>\[[^\]\[]{0,100000}+\]|\{[^}{]{0,100000}+\}|(?:[^,\[{.]|\.(?! ))*+)"
)
_INT = lazy_regex(r"-?\d++")
_FLOAT = lazy_regex(r"-?\d++\.\d*+(?:[eE][-+]?\d++)?|-?\.\d++|-?\d++[eE][-+]?\d++")
_UNIT = lazy_regex(r"\s?+(?:GB|GiB|MB|MiB|s|%)\.?$")
_LABEL = lazy_regex(r"[^a-z0-9]++")


def normalise_label(label: str) -> str:
    """``#running-req`` → ``running_req``; ``gen throughput (token/s)`` → ``gen_throughput``."""
    label = label.split("(")[0]
    return _LABEL.sub("_", label.lower()).strip("_")


def auto_value(text: str) -> Any:
    """Type a printed value: int, float (units dropped), bool, list, or the string itself."""
    bare = text.strip()
    if bare.isascii():  # the commonest values first: '47', '0.05' (what the rules below give)
        if bare.isdigit():
            return int(bare) if len(bare) <= _MAX_DIGITS else bare
        whole, dot, frac = bare.partition(".")
        if dot and whole.isdigit() and frac.isdigit():
            return _finite(bare)
    return _typed_value(text)


#: Digits of the longest int a log value becomes (below 2**63; longer stays text: issue 20).
_MAX_DIGITS = 18


def _finite(text: str) -> Any:
    """``float(text)``, or ``text`` when that is infinite (400 digits are ``inf``)."""
    value = float(text)
    return value if math.isfinite(value) else text


def _typed_value(text: str) -> Any:
    """:func:`auto_value` by its rules: a trailing '.' and a unit dropped, then int, float,
    bool, list or the text."""
    text = text.strip().rstrip(".") if not text.strip().endswith("..") else text.strip()
    bare = _UNIT.sub("", text)
    if _INT.fullmatch(bare):
        return int(bare) if len(bare.lstrip("-")) <= _MAX_DIGITS else text
    if _FLOAT.fullmatch(bare):
        return _finite(bare)
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "[{" and len(text) < 100_000:
        return _to_list(text)
    return text


def read_pairs(text: str, names: Mapping[str, str]) -> dict[str, Any]:
    """Read ``a=1, b: 2 GB, ...`` into typed fields, renaming labels found in ``names``.

    Batch lines repeat one *shape* millions of times: the same text but for the plain numbers
    that are whole values (``: 47,``). A shape is read once by :func:`_read_pairs` and kept as
    a template (which number fills which field, the other fields' values); a line of a known
    shape only has its numbers typed. Same result: the numbers replaced are digits the pair
    pattern only ever takes as a whole value, so the pairs are cut the same way
    (``tests/test_catalog.py`` holds the two equal)."""
    parts = _VALUE_NUMBER.split(text)
    if len(parts) == 1:
        return _read_pairs(text, names)
    key = (id(names), "\x00".join(parts[0::2]))
    known = _TEMPLATES.get(key)
    if known is None or known[0] is not names:
        known = (names, _template(text, names))  # (names held: its id stays its own)
        if len(_TEMPLATES) >= 4096:
            _TEMPLATES.clear()
        _TEMPLATES[key] = known
    template = known[1]
    if template is False:
        return _read_pairs(text, names)
    numbers = parts[1::2]
    return {
        name: (float(numbers[slot]) if "." in numbers[slot] else int(numbers[slot]))
        if slot >= 0
        else value
        for name, slot, value in template
    }


def _read_pairs(text: str, names: Mapping[str, str]) -> dict[str, Any]:
    """:func:`read_pairs` by the pair pattern itself (the reference)."""
    out: dict[str, Any] = {}
    for m in _PAIR.finditer(text):
        label, value = m.group("k", "v")
        label = label.strip()
        name = names.get(label) or _label_name(label)
        if name and name not in out:
            out[name] = auto_value(value)
    return out


#: A plain number that is a whole pair value: after ``: ``, before ``,`` or the end, maybe
#: with a unit :func:`auto_value` drops (ASCII digits, at most 18 before and after the point,
#: so ``int`` and ``float`` read it exactly as :func:`auto_value` does).
_VALUE_NUMBER = lazy_re(  # no possessive quantifiers: Python 3.10's re has none
    r"(?<=: )([0-9]{1,18}(?:\.[0-9]{1,18})?)(?=(?:%|\s?(?:GB|GiB|MB|MiB|s))?(?:,|\Z))"
)
#: Templates by (names, text without its value numbers): the names mapping and, per field,
#: ``(field, number index or -1, value)``, or ``False`` for a shape read the reference way.
_TEMPLATES: dict[
    tuple[int, str], tuple[Mapping[str, str], tuple[tuple[str, int, Any], ...] | Literal[False]]
] = {}


def _template(
    text: str, names: Mapping[str, str]
) -> tuple[tuple[str, int, Any], ...] | Literal[False]:
    """Which value number fills which field in texts of ``text``'s shape (the rest typed
    once); ``False`` when a field's value is mutable (a list) and must be made each time."""
    starts = [m.start() for m in _VALUE_NUMBER.finditer(text)]
    slot_at = {at: i for i, at in enumerate(starts)}
    out: list[tuple[str, int, Any]] = []
    seen: set[str] = set()
    for m in _PAIR.finditer(text):
        v0, v1 = m.span("v")
        inside = bisect_right(starts, v0)  # the first number after v0 (starts is sorted)
        if inside < len(starts) and starts[inside] < v1:
            return False  # a number inside a value, not the value: read each text itself
        label = m.group("k").strip()
        name = names.get(label) or _label_name(label)
        if not name or name in seen:
            continue
        seen.add(name)
        slot = slot_at.get(v0, -1)
        value = None if slot >= 0 else auto_value(m.group("v"))
        if isinstance(value, (list, dict, set)):
            return False
        out.append((name, slot, value))
    return tuple(out)


#: normalise_label by label (batch lines repeat a dozen labels millions of times).
_LABEL_NAMES: dict[str, str] = {}


def _label_name(label: str) -> str:
    name = _LABEL_NAMES.get(label)
    if name is None:
        name = normalise_label(label)
        if len(_LABEL_NAMES) >= 4096:
            _LABEL_NAMES.clear()
        _LABEL_NAMES[label] = name
    return name


class LazyFields(Mapping[str, Any]):
    """A spec's typed fields, converted on first access.

    Batch lines carry a dozen ``label: value`` pairs; most readers (run splitting, summaries)
    never look at them, so the parser keeps the match's raw groups and converts them only when
    the fields are read. Behaves as a read-only mapping equal to the converted ``dict``.
    """

    __slots__ = ("_data", "_groups", "_spec")

    def __init__(self, spec: MessageSpec, groups: Mapping[str, str | None]) -> None:
        self._spec: MessageSpec | None = spec
        self._groups: Mapping[str, str | None] | None = groups
        self._data: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        data = self._data
        if data is None:
            assert self._spec is not None and self._groups is not None
            data = self._data = self._spec.convert(self._groups)
            self._spec = self._groups = None
        return data

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __contains__(self, key: object) -> bool:
        return key in self._load()

    def get(self, key: str, default: Any = None) -> Any:
        return self._load().get(key, default)

    def items(self) -> ItemsView[str, Any]:
        return self._load().items()  # the dict's own view, not a lookup per key

    def keys(self) -> KeysView[str]:
        return self._load().keys()

    def values(self) -> ValuesView[Any]:
        return self._load().values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyFields):
            other = other._load()
        return self._load() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._load())

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self._load(),))


class Catalog:
    """An index over specs: ``match(message)`` returns the first spec that matches, in order."""

    def __init__(self, specs: Sequence[MessageSpec]) -> None:
        self.specs = tuple(specs)
        names = [s.name for s in self.specs]
        duplicates = {n for n in names if names.count(n) > 1}
        if duplicates:
            raise ValueError(f"duplicate catalog names: {sorted(duplicates)}")
        self._by_key: dict[str, list[MessageSpec]] = {}
        floating: list[MessageSpec] = []
        for spec in self.specs:
            prefix = spec.prefix
            if len(prefix) >= KEY_LEN:
                self._by_key.setdefault(prefix[:KEY_LEN], []).append(spec)
            else:
                floating.append(spec)
        # High-volume lines first: an access line then costs one pattern, not a needle test
        # per spec before it (bulk specs are disjoint from the rest: tests/test_catalog.py).
        self._floating = [s for s in floating if s.bulk] + [s for s in floating if not s.bulk]

    @property
    def buckets(self) -> Mapping[str, Sequence[MessageSpec]]:
        """Specs with a literal prefix by its first :data:`KEY_LEN` characters, in the order
        :meth:`match` tries them."""
        return self._by_key

    @property
    def floating(self) -> Sequence[MessageSpec]:
        """Specs without such a prefix, in the order :meth:`match` tries them (after the
        bucket of the message's first characters)."""
        return self._floating

    def _find(self, message: str) -> tuple[MessageSpec, re.Match[str]] | None:
        bucket = self._by_key.get(message[:KEY_LEN])
        if bucket is not None:
            for spec in bucket:
                if message.startswith(spec.prefix):
                    m = spec.compiled.match(message)
                    if m is not None:
                        return spec, m
        for spec in self._floating:
            needle = spec.needle
            if needle and needle not in message:
                continue
            m = spec.compiled.search(message) if spec.anywhere else spec.compiled.match(message)
            if m is not None:
                return spec, m
        return None

    def match(self, message: str) -> tuple[MessageSpec, dict[str, Any]] | None:
        """The first spec matching ``message`` and its typed fields, or ``None``."""
        found = self._find(message)
        if found is None:
            return None
        spec, m = found
        return spec, spec.convert(m.groupdict())

    def match_lazy(self, message: str) -> tuple[MessageSpec, Mapping[str, Any]] | None:
        """As :meth:`match`, but the fields of specs with ``pairs`` are converted on first read."""
        found = self._find(message)
        if found is None:
            return None
        spec, m = found
        if spec.pairs is not None:
            return spec, LazyFields(spec, m.groupdict())
        return spec, spec.convert(m.groupdict())

    def by_kind(self, kind: EventKind) -> list[MessageSpec]:
        return [s for s in self.specs if s.kind is kind]
