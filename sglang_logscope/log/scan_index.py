"""What an earlier ``check`` of a big log learnt about it, kept between runs.

A pre-flight ``check`` runs before every launch, on a log that only grows in between. Its
byte-level pass (run starters, newlines) and its parse of the last run cost what the file
costs; both are kept here, so the next check of the same file reads only what was appended
since (plus the last few thousand lines, parsed again):

- the run starters and the newline count of the file up to ``scanned_to`` (a line boundary);
- where the last run's parse stood near the file's end: the line and offset to go on from, and
  the folded state of the run there (:class:`~.runs.StreamState`, its kept events as JSON
  with every value tagged by its type).

An index is used only for the same file (device, inode, path), not shorter than when it was
kept and, at the same size, with the same mtime and ctime (a write in place moves ctime), whose
first ``scanned_to`` bytes still look the same (their head, the bytes before ``scanned_to`` and
16 samples between, by SHA-256) and by the same code (the package's files); anything else,
including an index that does not read back exactly, is ignored. What it cannot see: a log that
was edited in place outside the sampled bytes *and* then grew (the append moves size, mtime and
ctime as the edit did); ``LOGSCOPE_NO_CACHE=1`` reads the whole file. A state is kept only once it has been read back and
found equal to the one the parse held, and going on from it gave the parse's own runs.

Index files live in ``$LOGSCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/sglang-logscope/scan``,
else ``~/.cache/sglang-logscope/scan``, one small JSON file per log (at most
:data:`MAX_FILES`); ``LOGSCOPE_NO_CACHE=1`` turns them off. The log itself is only read.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import field, fields, replace
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from .._record import record
from .._text import lazy_re
from ..events import Event, EventKind, Rank
from .runs import FailureKind, StreamState

CACHE_ENV = "LOGSCOPE_CACHE_DIR"
OFF_ENV = "LOGSCOPE_NO_CACHE"
#: Logs smaller than this get no index (they are read whole faster than an index is kept).
INDEX_MIN_BYTES = 4 << 20
#: Index files kept; the oldest go first.
MAX_FILES = 64
#: A run state holding more events than this is not kept (each is parsed again on use).
MAX_STATE_EVENTS = 4096
_FORMAT = 2  # 2: the log's size, mtime_ns and ctime_ns when kept
#: An index file larger than this is not read (a real one is well under 1 MiB).
MAX_INDEX_BYTES = 32 << 20
_PREFIX = "logscope-scan-"
_OURS = lazy_re(r"logscope-scan-[0-9a-f]{40}\.json")
_HEAD = 1 << 16
_SAMPLE = 1 << 12
_SAMPLES = 16


@record
class Starter:
    """A run-starter line: its number, offset and bytes."""

    line: int
    offset: int
    raw: bytes


@record
class Resume:
    """Where the last run's parse can go on: from ``line`` at ``offset``, in ``state``."""

    starter_offset: int  # the last run starter when the state was taken
    parsed_from_line: int  # where that parse started (the window before the starter)
    parsed_from_offset: int
    first_index: int  # the index (in that parse) of the starter's run: the runs reported
    run_offset: int  # where the first line of the state's run starts
    line: int
    offset: int
    ready: bool  # the parser's "run said it is ready" there
    state: StreamState
    #: the resume as the index file holds it (once written or read)
    doc: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)


@record
class Index:
    """The byte-level pass up to ``scanned_to`` and, maybe, a :class:`Resume`."""

    scanned_to: int
    newlines: int  # newlines in the first ``scanned_to`` bytes
    starters: tuple[Starter, ...]
    resume: Resume | None = None


def cache_dir() -> Path | None:
    """Where index files go, or ``None`` when they are turned off."""
    if os.environ.get(OFF_ENV, "").strip() not in ("", "0"):
        return None
    own = os.environ.get(CACHE_ENV)
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "sglang-logscope" / "scan"


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


def _sha256(data: bytes) -> _Digest:
    # start-up: hashlib loads only when an index is read or kept (a big log)
    import hashlib

    return hashlib.sha256(data)


def _file_key(path: str) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return os.path.realpath(path), st.st_dev, st.st_ino


def _entry(path: str) -> Path | None:
    where, key = cache_dir(), _file_key(path)
    if where is None or key is None:
        return None
    name = _sha256("\0".join(map(str, key)).encode("utf-8", "surrogatepass")).hexdigest()
    return where / f"{_PREFIX}{name[:40]}.json"


@cache
def code_stamp() -> str:
    """The package's files, by name, size and modification time: an index written by other
    code (another release, an edited checkout) is not used."""
    root = Path(__file__).resolve().parent.parent
    digest = _sha256(str(root).encode("utf-8", "surrogatepass"))
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            st = os.stat(os.path.join(dirpath, name))
            digest.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def fingerprint(path: str, upto: int) -> str:
    """SHA-256 of the first ``upto`` bytes' head, of the bytes before ``upto`` and of
    :data:`_SAMPLES` samples between: what tells a grown log from a rewritten one."""
    digest = _sha256(str(upto).encode())
    spots = [0, max(0, upto - _HEAD)] + [upto * k // (_SAMPLES + 1) for k in range(1, _SAMPLES + 1)]
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        for i, at in enumerate(spots):
            want = min(_HEAD if i < 2 else _SAMPLE, upto - at)
            digest.update(os.pread(fd, want, at))
    finally:
        os.close(fd)
    return digest.hexdigest()


def load(path: str) -> Index | None:
    """The index kept for ``path``, when it still holds for the file as it is now.

    The entry is opened without following a link and without blocking (a FIFO planted at its
    name is refused, not waited on), and checked with ``fstat`` before a byte is read: a
    regular file of this user, not writable by others, at most :data:`MAX_INDEX_BYTES`. Any
    content that is not an index this code wrote (deep JSON included) is ignored."""
    entry = _entry(path)
    if entry is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(entry, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None  # none, a link, or not openable: the check reads the file
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or _foreign(st) or st.st_size > MAX_INDEX_BYTES:
                return None
            doc = json.loads(f.read(MAX_INDEX_BYTES + 1))
        return _checked(path, doc)
    except (
        OSError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        RecursionError,
        OverflowError,
    ):
        return None  # one that does not read back: the check reads the file


def _foreign(st: os.stat_result) -> bool:
    """An index file another user owns, or others may write: not trusted (a shared
    ``LOGSCOPE_CACHE_DIR`` would let them plant an answer)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # platform: no owners to compare (Windows)
        return False
    return st.st_uid != getuid() or bool(st.st_mode & 0o022)


def _checked(path: str, doc: Mapping[str, Any]) -> Index | None:
    key = _file_key(path)
    if doc["format"] != _FORMAT or doc["code"] != code_stamp() or key is None:
        return None
    if [doc["path"], doc["dev"], doc["ino"]] != list(key):
        return None
    upto = _int(doc["scanned_to"])
    if not _same_or_grown(path, doc) or fingerprint(path, upto) != doc["fingerprint"]:
        return None
    starters = tuple(
        Starter(_int(line), _int(off), base64.b64decode(raw, validate=True))
        for line, off, raw in doc["starters"]
    )
    resume = _resume_of(doc["resume"]) if doc["resume"] is not None else None
    return Index(upto, _int(doc["newlines"]), starters, resume)


def _stamp(path: str) -> tuple[int, int, int] | None:
    """(size, mtime_ns, ctime_ns) of the log now."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _same_or_grown(path: str, doc: Mapping[str, Any]) -> bool:
    """The log is the one the index was kept for, by ``stat``: not shorter than it was, and,
    where its size is the same, untouched since (same mtime and ctime; a write in place moves
    ctime, which no user can set back). A log that grew was written to: from then on only the
    sampled bytes tell an append from an edit in place plus an append (docs/check.md)."""
    now = _stamp(path)
    size, mtime_ns, ctime_ns = _int(doc["size"]), _int(doc["mtime_ns"]), _int(doc["ctime_ns"])
    if now is None or now[0] < max(size, _int(doc["scanned_to"])):
        return False
    return now[0] > size or now == (size, mtime_ns, ctime_ns)


def save(path: str, index: Index) -> None:
    """Keep ``index`` for ``path`` (atomically; a cache that cannot be written is skipped)."""
    entry, key, stamp = _entry(path), _file_key(path), _stamp(path)
    if entry is None or key is None or stamp is None:
        return
    doc = {
        "format": _FORMAT,
        "code": code_stamp(),
        "path": key[0],
        "dev": key[1],
        "ino": key[2],
        "scanned_to": index.scanned_to,
        "size": stamp[0],
        "mtime_ns": stamp[1],
        "ctime_ns": stamp[2],
        "newlines": index.newlines,
        "fingerprint": fingerprint(path, index.scanned_to),
        "starters": [
            [s.line, s.offset, base64.b64encode(s.raw).decode("ascii")] for s in index.starters
        ],
        "resume": None if index.resume is None else index.resume.doc or _resume_doc(index.resume),
    }
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # start-up: tempfile loads only when an index is kept (a big log)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".index-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, separators=(",", ":")))  # (``dump`` encodes in Python)
        os.replace(tmp, entry)
        _trim(entry.parent)
    except (OSError, ValueError):
        Path(tmp).unlink(missing_ok=True)  # a full disk leaves no half-written file behind


def _trim(where: Path) -> None:
    """Only index files go (named as :func:`_entry` names them): the directory may be shared."""
    files = [p for p in where.glob(f"{_PREFIX}*.json") if _OURS.fullmatch(p.name)]
    files.sort(key=lambda p: p.stat().st_mtime)
    for old in files[: max(0, len(files) - MAX_FILES)]:
        old.unlink(missing_ok=True)


def _int(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("not a count")
    return value


# -- the run state as JSON ------------------------------------------------------------------


def _resume_doc(resume: Resume) -> dict[str, Any]:
    s = resume.state
    return {
        "starter_offset": resume.starter_offset,
        "parsed_from_line": resume.parsed_from_line,
        "parsed_from_offset": resume.parsed_from_offset,
        "first_index": resume.first_index,
        "run_offset": resume.run_offset,
        "line": resume.line,
        "offset": resume.offset,
        "ready": resume.ready,
        "index": s.index,
        "last_ts": _time(s.last_ts),
        "settled": [_event_doc(e) for e in s.settled],
        "tail": [_event_doc(e) for e in s.tail],
        "count": s.count,
        "first_line": s.first_line,
        "last_line": s.last_line,
        "oldest": _time(s.oldest),
        "newest": _time(s.newest),
        "banner": s.banner,
        "best": None if s.best is None else [s.best[0], s.best[1], s.best[2].value],
        "kinds": sorted(k.value for k in s.kinds),
        "releases": [list(s.releases[0]), list(s.releases[1]), s.releases[2], s.releases[3]],
        "clues": [list(c) for c in s.clues],
        "seen": sorted([list(k) for k in s.seen], key=lambda k: (k[0], k[1] or "")),
        "stopping": s.stopping,
        "has_args": s.has_args,
        "last_kind": None if s.last_kind is None else s.last_kind.value,
        "loaders": sorted(s.loaders),
        "nodes": sorted(s.nodes),
        "launch": None if s.launch is None else [s.launch[0], s.launch[1]],
        "up": s.up,
        "output": s.output,
    }


def round_trip(resume: Resume) -> tuple[Resume, Resume]:
    """``resume`` as the index will hold it (its ``doc`` set), and that read back."""
    doc = json.loads(json.dumps(_resume_doc(resume)))
    return replace(resume, doc=doc), _resume_of(doc)


def _launch(value: Any) -> tuple[int, str | None] | None:
    return None if value is None else (_int(value[0]), _text_or_none(value[1]))


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _parse_time(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(str(value))


def _resume_of(doc: Mapping[str, Any]) -> Resume:
    if len(doc["settled"]) + len(doc["tail"]) > MAX_STATE_EVENTS:
        raise ValueError("too many events")
    settled = tuple(_event_of(e) for e in doc["settled"])
    best = doc["best"]
    state = StreamState(
        index=_int(doc["index"]),
        last_ts=_parse_time(doc["last_ts"]),
        settled=settled,
        tail=tuple(_event_of(e) for e in doc["tail"]),
        count=_int(doc["count"]),
        first_line=_int(doc["first_line"]),
        last_line=_int(doc["last_line"]),
        oldest=_parse_time(doc["oldest"]),
        newest=_parse_time(doc["newest"]),
        banner=None if doc["banner"] is None else _position(doc["banner"], settled),
        best=None
        if best is None
        else (_int(best[0]), _position(best[1], settled), FailureKind(best[2])),
        kinds=frozenset(EventKind(k) for k in doc["kinds"]),
        releases=(
            tuple(map(_int, doc["releases"][0])),
            tuple(map(_int, doc["releases"][1])),
            bool(doc["releases"][2]),
            None if doc["releases"][3] is None else str(doc["releases"][3]),
        ),
        clues=tuple((_int(c[0]), str(c[1]), _text_or_none(c[2])) for c in doc["clues"]),
        seen=frozenset((str(k[0]), _text_or_none(k[1])) for k in doc["seen"]),
        stopping=bool(doc["stopping"]),
        has_args=bool(doc["has_args"]),
        last_kind=None if doc["last_kind"] is None else EventKind(doc["last_kind"]),
        loaders=frozenset(str(k) for k in doc.get("loaders", ())),
        nodes=frozenset(_int(k) for k in doc.get("nodes", ())),
        launch=_launch(doc.get("launch")),
        up=bool(doc.get("up", False)),
        output=_int(doc.get("output", 0)),
    )
    return Resume(
        doc=doc,
        starter_offset=_int(doc["starter_offset"]),
        parsed_from_line=_int(doc["parsed_from_line"]),
        parsed_from_offset=_int(doc["parsed_from_offset"]),
        first_index=_int(doc["first_index"]),
        run_offset=_int(doc["run_offset"]),
        line=_int(doc["line"]),
        offset=_int(doc["offset"]),
        ready=bool(doc["ready"]),
        state=state,
    )


def _position(value: Any, settled: Sequence[Event]) -> int:
    at = _int(value)
    if at >= len(settled):
        raise IndexError("no such event")
    return at


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


# -- events as JSON: every value tagged with its type, so it reads back equal ----------------

_EVENT_FIELDS = tuple(f.name for f in fields(Event))
_RANK_FIELDS = tuple(f.name for f in fields(Rank))


def _event_doc(event: Event) -> list[Any]:
    return [_value_doc(getattr(event, name)) for name in _EVENT_FIELDS]


def _event_of(doc: Any) -> Event:
    if not isinstance(doc, list) or len(doc) != len(_EVENT_FIELDS):
        raise ValueError("not an event")
    event = Event(**{name: _value_of(v) for name, v in zip(_EVENT_FIELDS, doc, strict=True)})
    if not isinstance(event.kind, EventKind) or type(event.line) is not int:
        raise ValueError("not an event")
    return event


def _value_doc(value: Any) -> Any:
    """``value`` as JSON, lists tagged by what they stand for (a raw list is always a tag)."""
    if isinstance(value, EventKind):
        return ["k", value.value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return ["dt", value.isoformat()]
    if isinstance(value, Rank):
        return ["r", [_value_doc(getattr(value, n)) for n in _RANK_FIELDS]]
    if isinstance(value, tuple):
        return ["t", [_value_doc(v) for v in value]]
    if isinstance(value, list):
        return ["l", [_value_doc(v) for v in value]]
    if isinstance(value, Mapping):
        return ["d", [[_value_doc(k), _value_doc(v)] for k, v in value.items()]]
    raise ValueError(f"cannot keep a {type(value).__name__}")


def _value_of(doc: Any) -> Any:
    if not isinstance(doc, list):
        return doc
    tag, body = doc
    if tag == "k":
        return EventKind(body)
    if tag == "dt":
        return datetime.fromisoformat(body)
    if tag == "r":
        return Rank(**dict(zip(_RANK_FIELDS, map(_value_of, body), strict=True)))
    if tag == "t":
        return tuple(map(_value_of, body))
    if tag == "l":
        return list(map(_value_of, body))
    if tag == "d":
        return {_value_of(k): _value_of(v) for k, v in body}
    raise ValueError("unknown tag")
