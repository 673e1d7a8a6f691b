"""The scan index: a check that goes on from an earlier check's index gives the full scan's
answer, on a log that grew in between, and an index that no longer holds is not used.

Logs are the generated ones of tests/test_long_run.py (both shapes; a crash in the middle of
the long run, a run without a banner, a clock jump back, an argparse launch at the end), cut
at a random point: the first check reads the head of the file, the rest is appended, the
second check goes on from the index. The index is turned on for small files here
(``INDEX_MIN_BYTES``) and takes its state a few dozen lines before the end (``RESUME_LINES``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_long_run import VARIANTS, _answer, _make

from sglang_logscope.events import Event, EventKind, Rank
from sglang_logscope.log import resume, scan_index, tail, tail_end
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.tail import CHECK_KINDS, TailLog, read_last_run
from sglang_logscope.staleness.judge import check


@pytest.fixture
def indexed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(scan_index, "INDEX_MIN_BYTES", 0)
    monkeypatch.setattr(resume, "RESUME_LINES", 40)
    monkeypatch.setattr(tail_end, "RESUME_LINES", 40)
    where = tmp_path / "index"
    monkeypatch.setenv(scan_index.CACHE_ENV, str(where))
    return where


def _fast(path: Path) -> TailLog:
    log = read_last_run(path, keep=CHECK_KINDS)
    assert isinstance(log, TailLog)
    return log


#: The full scan's reading and check of a file as it is now (its path, its bytes' digest, the
#: command): a test that checks one unchanged file several ways reads the reference once.
_FULL: dict[tuple[str, bytes, str], tuple[Any, Any]] = {}


def _full(path: Path, cmd: Path) -> tuple[Any, Any]:
    key = (str(path), hashlib.sha256(path.read_bytes()).digest(), str(cmd))
    if key not in _FULL:
        _FULL.clear()  # one file at a time: no test goes back to an earlier state
        _FULL[key] = (read_log(path), _answer(check(path, cmd, full_scan=True, live=False)))
    return _FULL[key]


def _same_as_full(path: Path, cmd: Path, log: TailLog) -> None:
    full, full_answer = _full(path, cmd)
    assert len(log.runs) == len(full.runs)
    a, b = full.runs[-1], log.runs[-1]
    assert a.to_dict() == b.to_dict()
    assert (a.failure, a.server_args, a.release_clues) == (
        b.failure,
        b.server_args,
        b.release_clues,
    )
    assert b.events == tuple(e for e in a.events if e.kind in CHECK_KINDS)
    assert _answer(check(path, cmd, live=False)) == full_answer


def _grow(path: Path, cut: float) -> bytes:
    """Leave the first ``cut`` of ``path`` (at any byte, maybe mid-line) and return the rest."""
    data = path.read_bytes()
    at = int(len(data) * cut)
    path.write_bytes(data[:at])
    return data[at:]


def _append(path: Path, rest: bytes) -> None:
    with path.open("ab") as f:
        f.write(rest)


@settings(
    max_examples=int(os.environ.get("SCAN_INDEX_EXAMPLES", examples(25))),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    shape=st.sampled_from(["long", "many"]),
    seed=st.integers(0, 10_000),
    variant=st.sampled_from(VARIANTS),
    cut=st.floats(0.5, 0.995),
)
def test_going_on_from_the_index_equals_the_full_scan(
    indexed: Path, tmp_path: Path, shape: str, seed: int, variant: str, cut: float
) -> None:
    path, cmd = _make(tmp_path, shape, seed, variant)
    rest = _grow(path, cut)
    _same_as_full(path, cmd, _fast(path))  # the first check: it writes the index
    _append(path, rest)
    _same_as_full(path, cmd, _fast(path))  # the second goes on from it
    _same_as_full(path, cmd, _fast(path))  # and a third, on the unchanged file


def test_a_long_run_is_read_from_near_its_end(indexed: Path, tmp_path: Path) -> None:
    """The second check of a grown long run parses only what grew and the last lines before."""
    path, cmd = _make(tmp_path, "long", 5, "plain")
    total = path.read_bytes().count(b"\n")
    rest = _grow(path, 0.9)
    first = _fast(path)
    assert first.resumed_from_line == 0 and list(indexed.glob("*.json"))
    head_lines = path.read_bytes().count(b"\n")
    _append(path, rest)
    second = _fast(path)
    assert head_lines - 400 <= second.resumed_from_line <= head_lines
    assert total - second.resumed_from_line < 0.2 * total  # not the run's middle again
    _same_as_full(path, cmd, second)
    scan = check(path, cmd, live=False).to_dict()["scan"]
    assert scan["index"]["resumed_from_line"] > 1 and "LOGSCOPE_NO_CACHE" in scan["index"]["note"]
    third = _fast(path)  # the index moved on with the file
    assert third.resumed_from_line > second.resumed_from_line


def _rewrite(path: Path, tmp_path: Path) -> None:
    """``> LOG`` then a new launch: same inode, other bytes."""
    other, _ = _make(tmp_path / "other", "long", 7, "crash_mid")
    with path.open("r+b") as f:
        f.truncate(0)
        f.write(other.read_bytes())


def _change_first_byte(path: Path, tmp_path: Path) -> None:
    """Same inode, same size, a byte of the first line changed: the head's hash tells."""
    with path.open("r+b") as f:
        first = f.read(1)
        f.seek(0)
        f.write(b"X" if first != b"X" else b"Y")


@pytest.mark.parametrize("change", [_rewrite, _change_first_byte])
def test_a_log_changed_in_place_is_read_again(
    indexed: Path, tmp_path: Path, change: Callable[[Path, Path], None]
) -> None:
    path, cmd = _make(tmp_path, "long", 8, "plain")
    _fast(path)
    change(path, tmp_path)
    log = _fast(path)
    assert log.resumed_from_line == 0
    _same_as_full(path, cmd, log)


def test_a_damaged_index_is_ignored(indexed: Path, tmp_path: Path) -> None:
    path, cmd = _make(tmp_path, "long", 9, "plain")
    _fast(path)
    (entry,) = indexed.glob("*.json")
    doc = json.loads(entry.read_text())
    for damage in (
        lambda d: d["resume"].__setitem__("offset", -5),
        lambda d: d["resume"]["settled"][0].__setitem__(1, ["k", "no such kind"]),
        lambda d: d["resume"].__setitem__("kinds", [["l", []]]),
        lambda d: d.__setitem__("starters", [[1, 2, "not base64!"]]),
        lambda d: d.__setitem__("code", "another release"),
        lambda d: d["resume"]["settled"][0].__setitem__(2, ["__import__", "os"]),
    ):
        broken = json.loads(json.dumps(doc))
        damage(broken)
        entry.write_text(json.dumps(broken))
        log = _fast(path)
        assert log.resumed_from_line == 0
        _same_as_full(path, cmd, log)
    entry.write_bytes(b"\x00not json")
    assert _fast(path).resumed_from_line == 0


def test_an_index_is_only_used_for_the_log_it_was_made_for(indexed: Path, tmp_path: Path) -> None:
    path, _ = _make(tmp_path, "long", 10, "plain")
    _fast(path)
    (entry,) = indexed.glob("*.json")
    copy = tmp_path / "copy.log"
    copy.write_bytes(path.read_bytes())
    os.link(entry, scan_index._entry(str(copy)))  # type: ignore[arg-type]
    assert _fast(copy).resumed_from_line == 0  # another inode and path


def test_no_index_where_it_is_turned_off_or_cannot_be_written(
    indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, cmd = _make(tmp_path, "long", 12, "plain")
    monkeypatch.setenv(scan_index.OFF_ENV, "1")
    _fast(path)
    assert not indexed.exists()
    monkeypatch.delenv(scan_index.OFF_ENV)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv(scan_index.CACHE_ENV, str(blocked / "index"))  # under a file: unwritable
    _same_as_full(path, cmd, _fast(path))


def test_the_log_is_never_written(indexed: Path, tmp_path: Path) -> None:
    path, _ = _make(tmp_path, "many", 13, "plain")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    for _ in range(3):
        _fast(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_the_index_is_bounded(
    indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan_index, "MAX_FILES", 3)
    for seed in range(5):
        path, _ = _make(tmp_path, "long", 20 + seed, "plain")
        _fast(path)
    assert len(list(indexed.glob("*.json"))) == 3


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.sampled_from(list(EventKind))
    | st.datetimes(timezones=st.sampled_from([None, timezone.utc, timezone(timedelta(hours=2))])),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(fields=st.dictionaries(st.text(max_size=8), _VALUES, max_size=5), text=st.text())
def test_an_event_reads_back_equal(fields: dict[str, Any], text: str) -> None:
    event = Event(
        line=3,
        kind=EventKind.SERVER_ARGS,
        message=text,
        end_line=5,
        timestamp=datetime(2026, 1, 2, 3, 4, 5, 678),
        rank=Rank("DP0 TP1", dp=0, tp=1),
        fields=fields,
        text=text,
    )
    back = scan_index._event_of(json.loads(json.dumps(scan_index._event_doc(event))))
    assert back == event
    assert type(back.fields) is dict and back.rank == event.rank


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_second_check_goes_on_from_the_index(
    indexed: Path, tmp_path: Path, variant: str
) -> None:
    """Every variant of the property test above resumes on a long last run (the property
    does not pass by reading the file again): a second check of a grown log, and a third of
    the same file. (The many-runs shape ends in a run of a few lines: nothing to resume.)"""
    path, cmd = _make(tmp_path, "long", 41, variant)
    data = path.read_bytes()
    banner = data.rindex(b"server_args=")
    rest = _grow(path, (banner + 0.7 * (len(data) - banner)) / len(data))  # in the last run
    _fast(path)
    _append(path, rest)
    second = _fast(path)
    if variant == "argparse":  # a new launch after the indexed run: that run is read anew
        assert second.resumed_from_line == 0
    else:
        assert second.resumed_from_line > 0
    _same_as_full(path, cmd, second)
    third = _fast(path)
    assert (third.resumed_from_line > 0) is (variant != "argparse")  # a 2-line run: no state
    _same_as_full(path, cmd, third)


def test_watch_leaves_checks_state_in_the_index(indexed: Path, tmp_path: Path) -> None:
    """``watch`` on an existing file reads two runs back and keeps no state of its own: the
    index it leaves still lets the next check go on."""
    path, cmd = _make(tmp_path, "long", 14, "plain")
    _fast(path)
    watched = read_last_run(path, keep=CHECK_KINDS, back=2, first_row=True)
    assert len(watched.runs) == len(read_log(path).runs)
    again = _fast(path)
    assert again.resumed_from_line > 0
    _same_as_full(path, cmd, again)


def test_only_index_files_are_trimmed(
    indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index directory may be one the user shares with other files: only files named as
    index files are ever removed."""
    monkeypatch.setattr(scan_index, "MAX_FILES", 1)
    indexed.mkdir(parents=True)
    theirs = indexed / "results.json"
    theirs.write_text("{}")
    for seed in range(3):
        path, _ = _make(tmp_path, "long", 50 + seed, "plain")
        _fast(path)
    assert theirs.read_text() == "{}"
    assert len(list(indexed.glob("logscope-scan-*.json"))) == 1


def test_an_index_others_may_write_is_not_used(indexed: Path, tmp_path: Path) -> None:
    path, _ = _make(tmp_path, "long", 15, "plain")
    _fast(path)
    (entry,) = indexed.glob("*.json")
    assert _fast(path).resumed_from_line > 0
    entry.chmod(0o666)
    assert _fast(path).resumed_from_line == 0


def _machine_state_out(doc: dict[str, Any]) -> None:
    """The live evidence counts this machine's other processes (LS047: "N process(es) could not
    be looked at"), which come and go between two checks: that count is the machine's state,
    not the index's answer. The finding itself (code, severity, the rest of its text) stays."""
    for finding in doc["findings"]:
        if finding["code"] == "LS047":
            finding["message"] = re.sub(
                r"; \d+ process\(es\) could not be looked at", "", finding["message"]
            )


def test_the_cli_says_when_it_went_on_from_the_index(tmp_path: Path) -> None:
    """End to end, at the real size threshold: the second ``logscope check`` of a 5 MB log
    says next to its verdict that it went on from the index, and answers as the first did."""
    from cli_run import run_cli

    from benchmarks.generate import generate_long

    paths = generate_long(tmp_path / "log", size_mb=5, seed=2, hours=2.0)
    big, cmd = str(paths["big"]), str(paths["cmd"])
    assert paths["big"].stat().st_size >= scan_index.INDEX_MIN_BYTES
    first = json.loads(run_cli("check", "-e", cmd, big, "-f", "json"))
    second = json.loads(run_cli("check", "-e", cmd, big, "-f", "json"))
    assert first["scan"].pop("index") is None
    assert second["scan"].pop("index")["resumed_from_line"] > 1
    for doc in (first, second):
        doc.pop("log_mtime", None)
        _machine_state_out(doc)
    assert first == second
    assert "Index: lines" in run_cli("check", "-e", cmd, big)


def test_a_log_written_to_while_it_is_checked_still_gets_its_state(
    indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live server writes on while ``check`` reads: the state is verified against what the
    parse read, not against the file's new end, so it is kept (the busy log checked again is
    read from near its end) and the next check still gives the full scan's answer."""
    path, cmd = _make(tmp_path, "long", 16, "plain")
    rest = _grow(path, 0.9)
    cut = rest.index(b"\n", rest.index(b"\n") + 1) + 1  # the cut line's end and one more
    real = tail_end.resume_of

    def writing_meanwhile(*args: Any, **kwargs: Any) -> Any:
        _append(path, rest[:cut])  # the server's next lines, written during the check
        return real(*args, **kwargs)

    monkeypatch.setattr(tail_end, "resume_of", writing_meanwhile)
    _fast(path)
    monkeypatch.setattr(tail_end, "resume_of", real)
    _append(path, rest[cut:])
    again = _fast(path)
    assert again.resumed_from_line > 0
    _same_as_full(path, cmd, again)


def test_a_state_whose_runs_before_cannot_be_had_again_is_read_anew(
    indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state is of a run after the starter's (no banner: a clock jump began it); the runs
    between are parsed again on use, and where that is refused (too much to read) the check
    reads the run from its window instead, with the same answer."""
    path, cmd = _make(tmp_path, "long", 41, "no_banner")
    data = path.read_bytes()
    rest = _grow(path, 0.9)
    _fast(path)
    _append(path, rest)
    assert _fast(path).resumed_from_line > 0  # the runs before parsed again
    assert path.read_bytes() == data
    monkeypatch.setattr(resume, "_REREAD_LIMIT", 0)
    log = _fast(path)
    assert log.resumed_from_line == 0
    _same_as_full(path, cmd, log)
