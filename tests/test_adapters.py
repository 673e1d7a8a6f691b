"""Container and system log wrappings (issue #16): every real fixture log, wrapped the way
kubectl, Docker, journald and docker compose hand it over, reads as the plain file does.

The wrapped files are made here from the real logs (no real wrapped SGLang log of each kind is
public; the three real compose-prefixed logs, 033, 051 and 064, are read as they are). The
shapes follow the tools' documented output: kubectl's RFC 3339 nanosecond times and
``[pod/NAME/CONTAINER]`` prefix, Docker's json-file records (a line over 16 KiB split into
records without a newline), journalctl ``short-iso`` / ``json`` / ``export`` (binary-framed
fields included), compose's padded ``service-1  | `` prefix.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.errors import InputError
from sglang_logscope.log.reader import read_log, summarize_source
from sglang_logscope.parse.adapters import (
    AdaptedSource,
    InputFormat,
    containers,
    detect,
    iter_lines,
    parse_rfc3339,
)
from sglang_logscope.parse.lines import iter_events

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))
DEMO = ROOT / "fixtures" / "demo" / "sglang-serve.log"
COMPOSE_PREFIXED = {"033", "051", "064"}  # real logs copied with compose's prefix kept

T0 = datetime(2026, 5, 9, 9, 17, 42, 123456, tzinfo=timezone.utc)


def _when(i: int) -> datetime:
    return T0 + timedelta(milliseconds=7 * i)


def _nano(i: int) -> str:
    return _when(i).strftime("%Y-%m-%dT%H:%M:%S.%f") + "789Z"


def _usec(i: int) -> str:
    return str(int(_when(i).timestamp() * 1_000_000))


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes().split(b"\n")
    return data[:-1] if data and data[-1] == b"" else data


def _kubectl(lines: list[bytes]) -> bytes:
    return b"".join(_nano(i).encode() + b" " + ln + b"\n" for i, ln in enumerate(lines))


def _kubectl_prefix(lines: list[bytes]) -> bytes:
    return b"".join(b"[pod/sglang-7d9f8/server] " + ln + b"\n" for ln in lines)


def _kubectl_both(lines: list[bytes]) -> bytes:
    pre = b"[pod/sglang-7d9f8/server] "
    return b"".join(pre + _nano(i).encode() + b" " + ln + b"\n" for i, ln in enumerate(lines))


def _docker(lines: list[bytes]) -> bytes:
    out = []
    for i, ln in enumerate(lines):
        text = ln.decode("utf-8", "surrogateescape") + "\n"
        parts = [text[k : k + 2000] for k in range(0, len(text), 2000)]  # split, as >16 KiB
        for part in parts:
            record = {"log": part, "stream": "stderr", "time": _nano(i)}
            out.append(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape"))
    return b"\n".join(out) + b"\n"


def _short_iso(lines: list[bytes]) -> bytes:
    head = b"-- Boot 3f2c9a1e5b7d4c2a9e8f1b0d6c4a2e8f --\n"
    return head + b"".join(
        _when(i).strftime("%Y-%m-%dT%H:%M:%S+0000").encode() + b" gpu-host python3[4242]: "
        + ln + b"\n"
        for i, ln in enumerate(lines)
    )  # fmt: skip


def _journal_json(lines: list[bytes]) -> bytes:
    out = []
    for i, ln in enumerate(lines):
        try:
            message: object = ln.decode("utf-8")
        except UnicodeDecodeError:
            message = list(ln)  # journald's form for bytes that are not UTF-8
        record = {"__REALTIME_TIMESTAMP": _usec(i), "_HOSTNAME": "gpu-host", "MESSAGE": message}
        out.append(json.dumps(record).encode())
    return b"\n".join(out) + b"\n"


def _export(lines: list[bytes]) -> bytes:
    out = []
    for i, ln in enumerate(lines):
        entry = [f"__CURSOR=s=1;i={i:x}".encode(), b"__REALTIME_TIMESTAMP=" + _usec(i).encode()]
        if i % 5 == 0:  # binary framing (journald uses it for values holding a newline)
            entry.append(b"MESSAGE\n" + struct.pack("<Q", len(ln)) + ln)
        else:
            entry.append(b"MESSAGE=" + ln)
        entry.append(b"_HOSTNAME=gpu-host")
        out.append(b"\n".join(entry) + b"\n\n")
    return b"".join(out)


def _compose(lines: list[bytes]) -> bytes:
    return b"".join(b"sglang-1  | " + ln + b"\n" for ln in lines)


#: Wrappings that add no receive time (a prefix only): the log's zone stays unknown.
UNTIMED = {"kubectl-prefix", "compose"}

WRAPS: dict[str, tuple[Callable[[list[bytes]], bytes], InputFormat]] = {
    "kubectl-timestamps": (_kubectl, InputFormat.kubectl),
    "kubectl-prefix": (_kubectl_prefix, InputFormat.kubectl),
    "kubectl-both": (_kubectl_both, InputFormat.kubectl),
    "docker-json": (_docker, InputFormat.docker_json),
    "journald-short-iso": (_short_iso, InputFormat.journald_short_iso),
    "journald-json": (_journal_json, InputFormat.journald_json),
    "journald-export": (_export, InputFormat.journald_export),
    "compose": (_compose, InputFormat.compose),
}


def _summary(source: object) -> dict[str, object]:
    data = dict(summarize_source(source))  # type: ignore[arg-type]
    data.pop("log")
    return data


def _zones_dropped(summary: dict[str, object]) -> dict[str, object]:
    """The summary with each run's zone taken off its times (a wrapped log's receive times give
    its printed times a zone, which the plain file has not): the offset is the ``time_zone``."""
    runs = []
    for run in summary["runs"]:  # type: ignore[attr-defined]
        run = dict(run)
        zone = run["time_zone"]
        for key in ("started_at", "ended_at"):
            if zone is not None and run[key] is not None:
                assert run[key].endswith(zone), run
                run[key] = run[key].removesuffix(zone)
        run["time_zone"] = None
        if zone is not None:  # (where it came from: the receive times, which the plain has not)
            assert run["time_zone_source"] == "log", run
            run["time_zone_source"] = "unknown"
        runs.append(run)
    return {**summary, "runs": runs}


def test_every_real_fixture_log_is_wrapped_and_read() -> None:
    """The wrappings below cover every real fixture: each case of test_real_logs (whose list is
    the fixture folders on disk) holds a server.log found here, the compose-prefixed ones are
    among them, and each reads, plain, into the runs its case pins (a glob that finds fewer
    logs, or a log that stops parsing, would shrink what the wrapped reads are compared to)."""
    from tests.test_real_logs import CASES

    assert CASES and [p.parent.name for p in REAL] == sorted(CASES)
    assert set(CASES) >= COMPOSE_PREFIXED
    for path in REAL:
        runs = _summary(str(path))["runs"]
        assert isinstance(runs, list) and len(runs) == CASES[path.parent.name].runs, path


def test_plain_real_logs_are_detected_plain() -> None:
    for path in REAL:
        found = detect(path.read_bytes()[:65536])
        expected = InputFormat.compose if path.parent.name in COMPOSE_PREFIXED else "plain"
        assert found == expected, path


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_every_real_log_wrapped_reads_as_the_plain_file(wrap: str, tmp_path: Path) -> None:
    make, fmt = WRAPS[wrap]
    for path in [*REAL, DEMO]:
        wrapped = tmp_path / f"{path.parent.name}.log"
        wrapped.write_bytes(make(_lines(path)))
        assert detect(wrapped.read_bytes()[:65536]) == fmt, path
        plain = _summary(str(path))
        assert _zones_dropped(_summary(str(wrapped))) == plain, (wrap, path)
        assert _zones_dropped(_summary(AdaptedSource(str(wrapped), fmt))) == plain, (wrap, path)
        if path == DEMO:  # received (T0, UTC) as printed (09:17:42): the log's zone is UTC
            zones = [r["time_zone"] for r in _summary(str(wrapped))["runs"]]  # type: ignore[attr-defined]
            assert zones == ([None] if wrap in UNTIMED else ["+00:00"]), wrap


def test_the_demo_failure_stays_not_enough_memory_in_every_wrapping(tmp_path: Path) -> None:
    """The seed case: wrapped, the traceback used to break up into a bare ``exception``."""
    for wrap, (make, _) in WRAPS.items():
        wrapped = tmp_path / f"{wrap}.log"
        wrapped.write_bytes(make(_lines(DEMO)))
        run = read_log(str(wrapped)).runs[-1]
        assert run.failure is not None and run.failure.kind.value == "not_enough_memory", wrap


@pytest.mark.parametrize("wrap", ["kubectl-timestamps", "docker-json", "journald-export"])
def test_received_at_is_the_outer_time(wrap: str, tmp_path: Path) -> None:
    make, _ = WRAPS[wrap]
    wrapped = tmp_path / "w.log"
    wrapped.write_bytes(make(_lines(DEMO)))
    events = list(iter_events(str(wrapped)))
    assert events and all(e.received_at is not None for e in events)
    for e in events:
        assert e.received_at == _when(e.line - 1), e
        assert e.to_dict()["received_at"] == _when(e.line - 1).isoformat()
    assert all(e.received_at is None for e in iter_events(str(DEMO)))


def test_journald_short_iso_keeps_whole_seconds_with_the_zone(tmp_path: Path) -> None:
    wrapped = tmp_path / "w.log"
    wrapped.write_bytes(_short_iso(_lines(DEMO)))
    first = next(iter(iter_events(str(wrapped))))
    assert first.received_at == _when(0).replace(microsecond=0)
    assert first.received_at is not None and first.received_at.utcoffset() == timedelta(0)


def test_forcing_plain_reads_the_wrapping_as_log_text(tmp_path: Path) -> None:
    wrapped = tmp_path / "w.log"
    wrapped.write_bytes(_docker(_lines(DEMO)))
    forced = read_log(AdaptedSource(str(wrapped), InputFormat.plain)).runs[-1].failure
    detected = read_log(str(wrapped)).runs[-1].failure
    assert forced is not None and forced.kind.value == "exception"  # the symptom
    assert detected is not None and detected.kind.value == "not_enough_memory"


def _interleaved(a: list[bytes], b: list[bytes]) -> bytes:
    out = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            out.append(b"[pod/sglang-0/server] " + a[i] + b"\n")
        if i < len(b):
            out.append(b"[pod/sglang-1/server] " + b[i] + b"\n")
    return b"".join(out)


def test_interleaved_containers_are_one_log_each(tmp_path: Path) -> None:
    other = REAL[0]
    wrapped = tmp_path / "two.log"
    wrapped.write_bytes(_interleaved(_lines(DEMO), _lines(other)))
    with pytest.raises(InputError, match=r"several containers interleave.*--container"):
        read_log(str(wrapped))
    with wrapped.open("rb") as f:
        assert containers(f, InputFormat.kubectl) == {
            "pod/sglang-0/server": len(_lines(DEMO)),
            "pod/sglang-1/server": len(_lines(other)),
        }
    first = AdaptedSource(str(wrapped), InputFormat.auto, "pod/sglang-0/server")
    second = AdaptedSource(str(wrapped), InputFormat.auto, "pod/sglang-1/server")
    assert _zones_dropped(_summary(first)) == _summary(str(DEMO))
    assert _summary(second) == _summary(str(other))


def test_open_files_and_stdin_like_streams_are_unwrapped_too() -> None:
    data = _kubectl(_lines(DEMO))
    from_bytes = _summary(io.BytesIO(data))
    from_text = _summary(io.StringIO(data.decode("utf-8")))
    assert from_bytes == from_text
    assert _zones_dropped(from_bytes) == _summary(str(DEMO))


def test_rfc3339_times() -> None:
    assert parse_rfc3339("2026-05-09T09:17:42.123456789Z") == datetime(
        2026, 5, 9, 9, 17, 42, 123456, tzinfo=timezone.utc
    )
    east = parse_rfc3339("2026-05-09T09:17:42+0530")
    assert east is not None and east.utcoffset() == timedelta(hours=5, minutes=30)
    assert parse_rfc3339("2026-05-09T09:17:42") == datetime(2026, 5, 9, 9, 17, 42)
    assert parse_rfc3339("2026-13-09T09:17:42Z") is None
    assert parse_rfc3339("not a time") is None


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=2000))
def test_adapters_never_raise_on_arbitrary_bytes(data: bytes) -> None:
    detect(data)
    for fmt in InputFormat:
        if fmt in (InputFormat.auto, InputFormat.plain):
            continue
        for line in iter_lines(io.BytesIO(data), fmt):
            assert isinstance(line.data, bytes)


def test_cli_input_format_and_container(tmp_path: Path) -> None:
    import subprocess
    import sys

    def runs(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "sglang_logscope", "runs", "-f", "json", *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=False)

    wrapped = tmp_path / "docker.log"
    wrapped.write_bytes(_docker(_lines(DEMO)))
    detected = json.loads(runs(str(wrapped)).stdout)["runs"][-1]
    forced = json.loads(runs("--input-format", "plain", str(wrapped)).stdout)["runs"][-1]
    assert detected["failure"]["kind"] == "not_enough_memory"
    assert forced["failure"]["kind"] == "exception"
    two = tmp_path / "two.log"
    two.write_bytes(_interleaved(_lines(DEMO), _lines(REAL[0])))
    mixed = runs(str(two))
    assert mixed.returncode == 2 and mixed.stderr.count("\n") == 1
    assert "--container" in mixed.stderr
    chosen = runs("--container", "pod/sglang-0/server", str(two))
    assert chosen.returncode == 0
    assert json.loads(chosen.stdout)["runs"] == json.loads(runs(str(DEMO)).stdout)["runs"]


def test_urls_through_fsspec_and_file_urls() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/h16/demo.log", _kubectl(_lines(DEMO)))
    try:
        assert _zones_dropped(_summary("memory://h16/demo.log")) == _summary(str(DEMO))
        assert read_log("memory://h16/demo.log").runs[-1].failure is not None
    finally:
        fs.rm("/h16/demo.log")
    assert _summary(DEMO.as_uri()) == _summary(str(DEMO))
    with pytest.raises(InputError, match="no such object"):
        read_log("memory://h16/missing.log")


def test_a_url_without_fsspec_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_fsspec(name: str, *args: object, **kwargs: object) -> object:
        if name == "fsspec":
            raise ImportError("No module named 'fsspec'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_fsspec)
    with pytest.raises(InputError, match=r"pip install 'sglang-logscope\[remote\]'"):
        read_log("s3://bucket/server.log")
