"""Hostile and broken input: no traceback, no runaway regex, no code run, no markup, files untouched."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import stat
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_run import run_captured as _run
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope import iter_events
from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.errors import LogscopeError
from sglang_logscope.memory.gpus import parse_size_mib
from sglang_logscope.parse.messages import CATALOG
from sglang_logscope.staleness.judge import _launch_record
from sglang_logscope.timing import parse_launched_at

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = [
    *sorted((ROOT / "fixtures" / "real").glob("*/server.log")),
    ROOT / "fixtures" / "demo" / "sglang-serve.log",
]


def _digest(path: Path) -> tuple[str, float]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime


# ------------------------------------------------------------------ the user's files are never touched


@pytest.mark.parametrize("log", FIXTURES, ids=lambda p: p.parent.name)
def test_every_command_leaves_a_read_only_log_untouched(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    copy = tmp_path / "server.log"
    copy.write_bytes(log.read_bytes())
    os.utime(copy, (1_700_000_000, 1_700_000_000))
    copy.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    command = log.parent / "command.txt"
    before = _digest(copy)
    runs = [
        ["events", "--format", "jsonl", str(copy)],
        ["runs", str(copy)],
        ["summary", "--format", "json", str(copy)],
        ["summary", str(copy)],
        ["check", str(copy)],
        ["budget", "--log", str(copy), "--format", "json"],
    ]
    if command.is_file():
        runs.append(
            ["check", "--expect-args", str(command), "--launched-at", "2030-01-01 00:00", str(copy)]
        )
    for argv in runs:
        code, _out, err = _run(argv, capsys)
        assert code in (0, 1, 2), (argv, code)
        assert "Traceback" not in err, (argv, err)
        if code == 2:
            assert err.count("\n") == 1, (argv, err)
    assert _digest(copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.log"]


# ------------------------------------------------------------------ broken and odd inputs


def test_odd_paths_give_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    cases = [str(tmp_path), str(tmp_path / "missing.log"), str(loop)]
    if os.geteuid() != 0:  # root reads anything: permission denied cannot be staged
        locked = tmp_path / "locked.log"
        locked.write_text("x\n")
        locked.chmod(0)
        cases.append(str(locked))
    for path in cases:
        for command in ("summary", "events", "runs", "check"):
            code, out, err = _run([command, path], capsys)
            assert code == 2, (command, path, out)
            assert err.startswith("logscope: error:") and err.count("\n") == 1, err


def test_empty_nul_mixed_encoding_and_cr_only_logs_parse(tmp_path: Path) -> None:
    samples = {
        "empty.log": b"",
        "nul.log": b"[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=\x0010.00 GB\n\x00\x00\x00\n",
        "latin1.log": "[2026-01-01 00:00:00] Warnung: Gerät überlastet\n".encode("latin-1")
        + b"\xff\xfe\n",
        "cr-only.log": b"[2026-01-01 00:00:00 TP0] Init torch distributed begin.\r[2026-01-01 00:00:01 TP0] Load weight begin. avail mem=10.00 GB\r",
    }
    for name, data in samples.items():
        path = tmp_path / name
        path.write_bytes(data)
        events = list(iter_events(path))
        lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        assert sum(e.line_count for e in events) == lines, name


def test_truncated_gzip_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = gzip.compress((ROOT / "fixtures" / "demo" / "sglang-serve.log").read_bytes())
    path = tmp_path / "cut.log.gz"
    path.write_bytes(data[: len(data) // 2])
    code, _out, err = _run(["summary", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_gzip_bomb_is_stopped_by_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sglang_logscope.parse import source as _source

    monkeypatch.setattr(_source, "UNPACKED_MIN_CAP", 1 << 20)
    path = tmp_path / "bomb.log.gz"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        chunk = b"x" * ((1 << 20) - 1) + b"\n"  # few lines: without the cap this is slow, not stuck
        for _ in range(64):
            fh.write(chunk)
    assert path.stat().st_size < (1 << 20) // 8
    code, _out, err = _run(["runs", str(path)], capsys)
    assert code == 2 and "gzip" in err and err.count("\n") == 1


def test_fifo_is_read_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    text = (ROOT / "fixtures" / "demo" / "sglang-serve.log").read_bytes()

    def writer() -> None:
        with open(fifo, "wb") as fh:
            fh.write(text)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    events = list(iter_events(fifo))
    thread.join(timeout=5)
    assert sum(e.line_count for e in events) == text.count(b"\n")


def test_sparse_2gb_file_streams_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    with open(path, "wb") as fh:
        fh.write(b"[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=10.00 GB\n")
        fh.truncate(2 * 1024**3)  # 2 GiB, the rest NUL bytes with no newline: one giant line
    events = iter_events(path)
    first = next(events)
    assert first.fields["avail_gib"] == 10.0
    rest = list(events)
    assert len(rest) == 1 and rest[0].truncated


# ------------------------------------------------------------------ regexes cannot run away


#: (head, unit, repeats): the hostile bodies, each ``head + unit * repeats`` (200k characters).
_ADVERSARIAL = [
    ("", " ", 200_000),
    ("", ",", 200_000),
    ("", ", ", 100_000),
    ("", "=", 200_000),
    ("", "9", 200_000),
    ("", "[", 200_000),
    ("", "]", 200_000),
    ("", "(", 200_000),
    ("", "a=", 100_000),
    ("", "#x: ", 50_000),
    ("", "1.", 100_000),
    ("[2026-01-01 00:00:00", " TP0", 50_000),
]


def _work(spec: Any, text: str) -> float:
    """CPU seconds this thread spends matching and converting ``text`` (best of two).
    Thread CPU time, not wall time: other processes on a loaded machine do not count, and
    the regex module's timeout is only a tripwire for a pattern that would never return."""
    best = float("inf")
    # regex's timeout where regex compiled it (Python 3.10); re (3.11+) has none
    tripwire = {"timeout": 60} if type(spec.compiled).__module__.startswith("regex") else {}
    for _ in range(2):
        start = time.thread_time()
        if spec.anywhere:
            spec.compiled.search(text, **tripwire)
        else:
            spec.compiled.match(text, **tripwire)
        spec.convert({"_pairs": text} if spec.pairs is not None else {})
        best = min(best, time.thread_time() - start)
    return best


def _superlinear(spec: Any, head: str, unit: str, small: int) -> str | None:
    """Why ``spec`` is not linear on ``head + unit * n`` (``None`` if it is): eight times the
    text may cost at most twenty times the work (linear: ~8x, quadratic: ~64x), plus 5 ms
    of clock granularity."""
    for prefix in ("", spec.prefix):
        little, big = (prefix + head + unit * n for n in (small, 8 * small))
        cost_little, cost_big = _work(spec, little), _work(spec, big)
        if cost_big > 20 * cost_little + 0.005:
            return f"{cost_little:.4f}s -> {cost_big:.4f}s on 8x {little[:30]!r}..."
    return None


@pytest.mark.parametrize("spec", CATALOG.specs, ids=lambda s: s.name)
def test_each_catalog_pattern_is_linear_on_adversarial_input(spec: Any) -> None:
    """A ratio measured within one process, not a wall-clock limit: a loaded machine slows
    both sides alike, so it cannot fail this (issue 20, item 4)."""
    for head, unit, repeats in _ADVERSARIAL:
        why = _superlinear(spec, head, unit, repeats // 32)
        assert why is None, f"{spec.name}: {why}"


class _RescanningPattern:
    """A matcher that rescans the rest of the text from every position (quadratic by
    construction, whatever the regex module's release optimises away)."""

    def search(self, text: str, timeout: float | None = None) -> None:
        for i in range(len(text)):
            for _char in text[i:]:
                pass

    match = search


class _OnePassPattern:
    """A matcher that reads the text once (linear by construction)."""

    def search(self, text: str, timeout: float | None = None) -> None:
        for _char in text:
            pass

    match = search


def test_the_linearity_check_catches_a_quadratic_pattern() -> None:
    """The check above can fail: a quadratic matcher is caught, a linear one is not (both
    built by hand: which patterns the regex module runs in linear time depends on its release)."""
    spec = SimpleNamespace(
        compiled=_RescanningPattern(), anywhere=True, prefix="", pairs=None, convert=dict
    )
    assert _superlinear(spec, "", " ", 500) is not None
    spec.compiled = _OnePassPattern()
    assert _superlinear(spec, "", " ", 500) is None


# ------------------------------------------------------------------ nothing from the log is ever run or rendered


def test_banner_and_config_are_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    banner = f"[2026-01-01 00:00:00] server_args=ServerArgs(model_path=__import__('os').system('touch {marker}'), tp_size=2)\n"
    events = list(iter_events(io.StringIO(banner)))
    assert events[0].fields["args"].get("tp_size") == 2
    config = tmp_path / "evil.yaml"
    config.write_text(f'model-path: !!python/object/apply:os.system ["touch {marker}"]\n')
    with pytest.raises(LogscopeError):
        parse_launch_command(f"python -m sglang.launch_server --config {config}", base_dir=tmp_path)
    assert not marker.exists()


def test_markup_and_terminal_escapes_from_the_log_are_shown_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    log = tmp_path / "evil.log"
    log.write_text(
        "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='[bold red]/m[/]\\x1b]8;;http://x\\x1b\\\\', tp_size=1)\n"
        "[2026-01-01 00:00:01 TP0] [link=http://evil]click[/link] \x1b]8;;http://evil\x1b\\here\x1b]8;;\x1b\\ \x1b[2J\x07\n"
        "[2026-01-01 00:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "RuntimeError: [bold]boom[/bold] \x1b[31mred\n"
    )
    for argv in (
        ["events", str(log)],
        ["summary", str(log)],
        ["check", str(log)],
        ["runs", str(log)],
    ):
        code, out, _err = _run(argv, capsys)
        assert code in (0, 1)
        assert "\x1b" not in out and "\x07" not in out, argv
    code, out, _err = _run(["events", str(log)], capsys)
    assert "[link=http://evil]click[/link]" in out.replace("\n", "")


# ------------------------------------------------------------------ every parser entry point: only LogscopeError


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=80))
def test_launched_at_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(LogscopeError):
        parse_launched_at(text)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=40))
def test_sizes_never_raise_anything_else(text: str) -> None:
    try:
        value = parse_size_mib(text)
    except LogscopeError:
        return
    assert value > 0


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=400))
def test_launch_records_are_data_only(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    base = tmp_path_factory.mktemp("rec") / "x.log"
    (base.parent / "x.log.launch.json").write_bytes(data)
    record = _launch_record(str(base))
    assert set(record) <= {"launched_at", "command"}


@settings(max_examples=examples(100), deadline=None)
@given(st.text(max_size=300))
def test_yaml_configs_never_raise_anything_else(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    folder = tmp_path_factory.mktemp("cfg")
    (folder / "c.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    with contextlib.suppress(LogscopeError):
        parse_launch_command(
            "python -m sglang.launch_server --config c.yaml --model-path /m", base_dir=folder
        )


def test_no_shell_or_eval_in_the_package() -> None:
    for path in (ROOT / "sglang_logscope").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for banned in ("eval(", "exec(", "shell=True", "os.system(", "pickle.load"):
            hits = [
                line
                for line in source.splitlines()
                if banned in line and "literal_eval(" not in line
            ]
            assert not hits, f"{path.name}: {banned} in {hits}"


_ = sys


@pytest.mark.parametrize(
    "text", ["ServerArgs(a=1, , b=2)", "{,}", "X(,)", "(", "{'a': 1,   ,", ")"]
)
def test_banner_scanner_survives_empty_items(text: str) -> None:
    """Found by the atheris harness (benchmarks/fuzz): an empty item crashed the fallback scanner."""
    from sglang_logscope.parse.banner import parse_banner

    assert isinstance(parse_banner(text), dict)


# ------------------------------------------------------------------ no program from the user's folders


def test_nvidia_smi_is_never_taken_from_a_relative_path_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20, item 0 (the subprocess audit): ``PATH=:/usr/bin`` or ``PATH=.:...`` would run
    an ``nvidia-smi`` planted in the current directory; only absolute entries are searched."""
    from sglang_logscope.machine import gpu_readers

    planted = tmp_path / "nvidia-smi"
    marker = tmp_path / "planted-ran"
    planted.write_text(f"#!/bin/sh\ntouch {marker}\n")
    planted.chmod(0o755)
    good = tmp_path / "abs"
    good.mkdir()
    (good / "nvidia-smi").write_text("#!/bin/sh\necho 'No devices were found'\nexit 6\n")
    (good / "nvidia-smi").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    for path in (f".:{good}", f":{good}", f"{good}:."):
        monkeypatch.setenv("PATH", path)
        assert gpu_readers.absolute_which("nvidia-smi") == str(good / "nvidia-smi")
        assert gpu_readers.NvidiaSmiReader().read().gpus == ()
    monkeypatch.setenv("PATH", ".")
    with pytest.raises(gpu_readers.GpuReadError, match="not found"):
        gpu_readers.NvidiaSmiReader().read()
    assert not marker.exists()
