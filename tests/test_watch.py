"""`watch`: following a file like tail -F, the phase view, and the watcher's decisions.

Everything here runs in-process on a fake clock: no sleeping. The end-to-end runs with a
stand-in server are in test_launch.py.
"""

from __future__ import annotations

import io
import json
import os
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fake_sglang_server import Server
from rich.console import Console

from sglang_logscope.errors import LogscopeError
from sglang_logscope.events import Event, EventKind
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.render.live import (
    JsonlSink,
    LiveSink,
    PlainSink,
    make_sink,
    phase_table,
    render_result,
)
from sglang_logscope.timing import parse_launched_at
from sglang_logscope.watch import loop as watch_mod
from sglang_logscope.watch.follow import Chunk, EventStream, Follower, Reset, parse_partial
from sglang_logscope.watch.loop import parse_duration
from sglang_logscope.watch.phases import Phase, PhaseTracker
from sglang_logscope.watch.result import Note, WatchOutcome, WatchResult
from sglang_logscope.watch.watcher import Watcher, WatchOptions

# An earlier run, long before any launch in these tests: it crashed for lack of memory.
OLD_RUN = """\
[2026-05-09 09:17:42] server_args=ServerArgs(model_path='/m', tp_size=2, mem_fraction_static=0.85)
[2026-05-09 09:17:50 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:18:30 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/x/scheduler.py", line 3918, in run_scheduler_process
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85

[2026-05-09 09:18:32] Received sigquit from a child process. It usually means the child failed.
"""


def server_output(
    mode: str = "ready", failure: str | None = None, args: str = "--model-path /m --tp 2"
) -> str:
    """What the stand-in server prints, generated in-process (no delay, stamped now)."""
    srv = Server(args.split())
    srv.delay = 0.0
    srv.hold = 0.0
    srv.out = io.StringIO()
    srv.run(mode, failure)
    return srv.out.getvalue()


def append(path: Path, text: str | bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(text.encode() if isinstance(text, str) else text)


def run_until(w: Watcher, t0: float, texts: list[str], path: Path, step: float = 0.1) -> float:
    """Append each text then step once; return the fake time reached."""
    t = t0
    for text in texts:
        append(path, text)
        t += step
        w.step(t)
    return t


# ------------------------------------------------------------------------------ durations


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("20m", 1200),
        ("90s", 90),
        ("1h", 3600),
        ("1h30m", 5400),
        ("45", 45),
        ("2.5", 2.5),
        (" 0.5s ", 0.5),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "0", "-5", "5x", "m", "1d"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(LogscopeError):
        parse_duration(text, "--timeout")


# ------------------------------------------------------------------------------ follower


def test_follower_skips_existing_and_joins_partial_lines(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_bytes(b"old 1\nold 2\nold partial")
    with Follower(log, skip_existing=True) as f:
        assert f.poll().lines == ()
        assert f.skipped_lines == 3
        append(log, " still old\nnew 1\nnew ")
        assert f.poll().lines == (b"new 1",)  # the rest of the old line is not ours
        assert f.partial == b"new "
        append(log, "2\n")
        chunk = f.poll()
        assert chunk.lines == (b"new 2",) and chunk.reset is None


def test_follower_from_start_and_missing_file(tmp_path: Path) -> None:
    log = tmp_path / "b.log"
    with Follower(log, skip_existing=True) as f:
        assert f.poll() == Chunk()
        assert not f.is_open and not f.existed_at_start
        log.write_text("first\nsecond\n")
        chunk = f.poll()  # appeared after the start: all of it is new
        assert chunk.lines == (b"first", b"second") and chunk.reset is None


def test_follower_truncation(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    log.write_text("one\ntwo\nthree\n")
    with Follower(log) as f:
        assert len(f.poll().lines) == 3
        log.write_text("x\n")  # '>' again: shorter
        chunk = f.poll()
        assert chunk.reset is Reset.TRUNCATED and chunk.lines == (b"x",)


def test_follower_rewritten_in_place_longer(tmp_path: Path) -> None:
    log = tmp_path / "d.log"
    log.write_text("short\n")
    with Follower(log) as f:
        assert f.poll().lines == (b"short",)
        log.write_text("a different and longer content\nmore\n")  # truncated, then grew past us
        chunk = f.poll()
        assert chunk.reset is Reset.REWRITTEN
        assert chunk.lines == (b"a different and longer content", b"more")


def test_follower_rotation_drains_old_then_follows_new(tmp_path: Path) -> None:
    log = tmp_path / "e.log"
    log.write_text("old a\n")
    with Follower(log) as f:
        assert f.poll().lines == (b"old a",)
        with open(log, "a") as old:  # the old writer keeps its descriptor
            os.rename(log, tmp_path / "e.log.1")
            log.write_text("new a\n")
            old.write("old b\nold tail")
        first = f.poll()
        assert first.lines == (b"old b", b"old tail") and first.reset is None and first.more
        second = f.poll()
        assert second.reset is Reset.REPLACED and second.lines == (b"new a",)
        append(log, "new b\n")
        assert f.poll().lines == (b"new b",)


def test_follower_removed_then_recreated(tmp_path: Path) -> None:
    log = tmp_path / "f.log"
    log.write_text("x\n")
    with Follower(log) as f:
        f.poll()
        log.unlink()
        assert f.poll().lines == ()  # gone: keep waiting
        log.write_text("y\n")
        chunks = [f.poll(), f.poll()]
        assert any(c.reset is Reset.REPLACED and c.lines == (b"y",) for c in chunks)


def test_follower_cuts_overlong_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sglang_logscope.watch.follow.MAX_LINE_BYTES", 10)
    log = tmp_path / "g.log"
    log.write_text("0123456789ABCDEF\nok\n")
    with Follower(log) as f:
        assert f.poll().lines == (b"0123456789", b"ok")


def test_follower_refuses_directory(tmp_path: Path) -> None:
    with pytest.raises(LogscopeError, match="directory"), Follower(tmp_path) as f:
        f.poll()


# ------------------------------------------------------------------------------ events


def test_event_stream_matches_one_parse_at_every_split() -> None:
    text = OLD_RUN + server_output("crash", "cuda_oom")
    lines = [ln.encode() for ln in text.split("\n")[:-1]]
    whole = [(e.line, e.end_line, e.kind) for e in iter_events(io.StringIO(text))]
    for cut in range(1, len(lines)):
        stream = EventStream()
        got = stream.feed(lines[:cut]) + stream.feed(lines[cut:])
        assert stream.provisional is not None
        got.append(stream.provisional)
        assert [(e.line, e.end_line, e.kind) for e in got] == whole, cut


def test_event_stream_line_numbers_start_after_skipped_lines() -> None:
    stream = EventStream(first_line=101)
    stream.feed([b"[2026-05-09 09:17:50 TP0] Load weight begin. avail mem=47.00 GB", b"x"])
    assert stream.provisional is not None and stream.provisional.line == 102


# ------------------------------------------------------------------------------ phases


def _events(text: str) -> list[Event]:
    return list(iter_events(io.StringIO(text)))


def test_phase_tracker_walks_every_phase_with_figures() -> None:
    tracker = PhaseTracker()
    changes = tracker.consume_all(_events(server_output("ready", args="--model-path /m --tp 2")))
    entered = [c.phase for c in changes if c.kind == "enter"]
    assert entered == list(Phase)
    assert tracker.ready
    figs = {p: tracker.states[p].figures for p in Phase}
    assert figs[Phase.ARGS]["tp_size"] == 2 and figs[Phase.ARGS]["model_path"] == "/m"
    assert figs[Phase.WEIGHTS]["free_before_gib"] > 0 and figs[Phase.WEIGHTS]["shards"] == "2/2"
    assert tracker.states[Phase.WEIGHTS].progress == 1.0
    assert "kv_tokens" in figs[Phase.POOLS] and "free_after_gib" in figs[Phase.CUDA_GRAPH]
    assert all(tracker.states[p].done for p in Phase)
    assert any(c.kind == "progress" and c.phase is Phase.WEIGHTS for c in changes)


def test_phase_tracker_never_goes_backwards_and_keeps_lowest_free_memory() -> None:
    text = (
        "[2026-05-09 09:17:50 TP0] Load weight begin. avail mem=47.00 GB\n"
        "[2026-05-09 09:17:50 TP1] Init torch distributed begin.\n"
        "[2026-05-09 09:17:51 TP1] Load weight begin. avail mem=39.50 GB\n"
    )
    tracker = PhaseTracker()
    tracker.consume_all(_events(text))
    assert tracker.current is Phase.WEIGHTS
    assert tracker.states[Phase.WEIGHTS].figures["free_before_gib"] == 39.5
    assert not tracker.states[Phase.DIST_INIT].entered


def test_phase_tracker_progress_from_a_bar_still_being_drawn() -> None:
    tracker = PhaseTracker()
    tracker.consume_all(
        _events("[2026-05-09 09:17:50 TP0] Load weight begin. avail mem=47.00 GB\n")
    )
    partial = (
        b"\rLoading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01, 1.00it/s]"
    )
    event = parse_partial(partial, 2)
    assert event is not None and event.kind is EventKind.WEIGHT_PROGRESS
    tracker.consume(event)
    assert tracker.states[Phase.WEIGHTS].progress == 0.5
    assert parse_partial(b"[2026-05-09 09:17:50] some other text", 3) is None


# ------------------------------------------------------------------------------ the watcher


def _opts(**kw: object) -> WatchOptions:
    base: dict[str, object] = {"timeout": 30.0, "quiet_after": 5.0, "settle": 0.5}
    base.update(kw)
    return WatchOptions(**base)  # type: ignore[arg-type]


def _kinds(notes: list[Note]) -> list[str]:
    return [n.kind for n in notes]


def _long_ago(text: str) -> str:
    """Output stamped now, moved to the day of ``OLD_RUN`` (long before any watch)."""
    return re.sub(r"\d{4}-\d{2}-\d{2} ", "2026-05-09 ", text)


def test_without_launch_time_everything_already_there_is_ignored(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    # even a ready run: it was there long before (issue 27: a run that started just before the
    # watch is joined instead, test_a_run_just_started_is_joined_from_its_first_line)
    log.write_text(OLD_RUN + _long_ago(server_output("ready")))
    w = Watcher(log, _opts(), start=0.0)
    notes = w.step(0.0)
    assert "ignoring" in _kinds(notes)
    assert w.result is None and w.run is None
    append(log, server_output("crash", "not_enough_memory"))
    notes = w.step(0.1)
    assert "run_started" in _kinds(notes)
    assert w.result is None  # a failure is declared once the log settles
    w.step(0.3)
    assert w.result is None
    w.step(0.7)
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED
    assert w.result.run is not None and w.result.run.first_line > OLD_RUN.count("\n")
    assert w.result.check is not None
    failure = w.result.check.to_dict()["failure"]
    assert failure["kind"] == "not_enough_memory"


def test_launch_time_ignores_runs_before_it_and_follows_the_new_one(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_RUN)
    launched = parse_launched_at((datetime.now() - timedelta(seconds=1)).isoformat())
    w = Watcher(log, _opts(launched_at=launched), start=0.0)
    notes = w.step(0.0)
    ignoring = [n for n in notes if n.kind == "ignoring"]
    assert (
        ignoring
        and "1 earlier run" in ignoring[0].message
        and "not_enough_memory" in ignoring[0].message
    )
    assert w.run is None
    out = server_output("ready")
    half = len(out) // 2
    cut = out.index("\n", half) + 1
    t = run_until(w, 0.0, [out[:cut], out[cut:]], log)
    assert w.result is not None and w.result.outcome is WatchOutcome.READY, t
    assert w.result.exit_code == 0


def test_a_run_after_the_launch_already_in_the_file_counts(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_RUN + server_output("ready"))
    launched = parse_launched_at((datetime.now() - timedelta(seconds=30)).isoformat())
    w = Watcher(log, _opts(launched_at=launched), start=0.0)
    w.step(0.0)
    assert w.result is not None and w.result.outcome is WatchOutcome.READY


def test_argparse_death_without_timestamps_counts_when_written_after_the_launch(
    tmp_path: Path,
) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_RUN + server_output("crash", "argparse_error"))
    launched = parse_launched_at((datetime.now() - timedelta(seconds=30)).isoformat())
    w = Watcher(log, _opts(launched_at=launched), start=0.0)
    w.step(0.0)
    w.step(1.0)
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED
    assert w.result.run is not None and w.result.run.failure is not None
    assert w.result.run.failure.kind.value == "argparse_error"
    # The same file, not written since long before the launch: stale, not this launch.
    old = (datetime.now() - timedelta(hours=1)).timestamp()
    os.utime(log, (old, old))
    w2 = Watcher(log, _opts(launched_at=launched, timeout=2.0), start=0.0)
    w2.step(0.0)
    w2.step(2.5)
    assert w2.result is not None and w2.result.outcome is WatchOutcome.STALE


def test_nothing_written_says_so_then_times_out_stale(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_RUN)
    w = Watcher(log, _opts(timeout=10.0, quiet_after=3.0), start=100.0)
    w.begin()
    assert w.step(101.0) and w.result is None  # the 'ignoring' note
    notes = w.step(103.5)
    quiet = [n for n in notes if n.kind == "quiet"]
    assert quiet and "nothing has started writing" in quiet[0].message
    assert w.step(105.0) == []  # said once
    w.step(110.5)
    assert w.result is not None and w.result.outcome is WatchOutcome.STALE
    assert w.result.exit_code == 1 and "nothing has started writing" in w.result.message


def test_written_but_no_run_is_told_apart_from_silence(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text("")
    w = Watcher(log, _opts(timeout=4.0, quiet_after=1.0), start=0.0)
    w.step(0.0)
    append(log, "/usr/bin/python3: No module named sglang\n")
    w.step(1.5)
    # issue 28: the line is a launch that failed for its environment, not silence
    w.step(2.0)
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED
    assert "environment at line 1" in w.result.message


def test_timeout_during_a_phase(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    w = Watcher(log, _opts(timeout=2.0, quiet_after=1.0), start=0.0)
    w.step(0.0)
    out = server_output("ready")
    head = out[: out.index("Load weight end")]
    head = head[: head.rindex("\n") + 1]
    append(log, head)
    w.step(0.2)
    assert w.tracker is not None and w.tracker.current is Phase.WEIGHTS
    notes = w.step(1.5)
    assert "stall" in _kinds(notes)
    w.step(2.1)
    assert w.result is not None and w.result.outcome is WatchOutcome.TIMEOUT
    assert "weights" in w.result.message


@pytest.mark.parametrize("how", ["replace", "truncate"])
def test_log_replaced_or_truncated_mid_watch(tmp_path: Path, how: str) -> None:
    log = tmp_path / "serve.log"
    w = Watcher(log, _opts(), start=0.0)
    w.step(0.0)
    first = server_output("ready")
    append(log, first[: first.index("Load weight begin")])
    w.step(0.1)
    assert w.run is not None
    if how == "replace":
        os.rename(log, tmp_path / "serve.log.1")
    # A new launch writes a new file (another command: a different banner).
    log.write_text(server_output("crash", "cuda_oom", args="--model-path /other --tp 2"))
    notes: list[Note] = []
    for i in range(2, 12):
        notes += w.step(i / 10)
    resets = [n for n in notes if n.kind == "reset"]
    assert resets and resets[0].data["reset"] in ("replaced", "truncated", "rewritten")
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED
    assert w.result.run is not None and w.result.run.first_line == 1
    assert w.result.run.failure is not None and w.result.run.failure.kind.value == "cuda_oom"


def test_process_gone_without_a_run(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text("")
    alive = [True]
    w = Watcher(log, _opts(fresh_file=True, pid=4242, alive=lambda: alive[0]), start=0.0)
    w.step(0.0)
    append(log, "bash: python: command not found\n")
    alive[0] = False
    w.step(0.1)
    assert w.result is not None and w.result.outcome is WatchOutcome.EXITED
    assert "pid 4242" in w.result.message and w.result.tail == ("bash: python: command not found",)


def test_dead_process_settles_a_crash_at_once(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(server_output("crash", "not_enough_memory"))
    w = Watcher(log, _opts(fresh_file=True, settle=60.0, alive=lambda: False), start=0.0)
    w.step(0.0)
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED


def test_old_server_still_serving_is_not_a_launch(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(_long_ago(server_output("ready")))  # started long ago (issue 27: not joined)
    w = Watcher(log, _opts(timeout=1.0), start=0.0)
    w.step(0.0)
    decode = (
        f"[{datetime.now():%Y-%m-%d %H:%M:%S} TP0] Decode batch, #running-req: 1, #full token: 1009, full token usage: 0.00, "
        "mamba num: 2, mamba usage: 0.05, cuda graph: False, gen throughput (token/s): 4.87, #queue-req: 0\n"
    )
    append(log, decode * 3)
    w.step(0.5)
    assert w.run is None
    w.step(1.1)
    assert w.result is not None and w.result.outcome is WatchOutcome.STALE


# ------------------------------------------------------------------------------ rendering


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=200, color_system=None, markup=False, highlight=False), buf


def test_crash_summary_shows_failure_and_arg_diff_and_renders_log_text_literally(
    tmp_path: Path,
) -> None:
    from sglang_logscope.command.parse import parse_launch_command

    log = tmp_path / "serve.log"
    intended = parse_launch_command(
        "python -m sglang.launch_server --model-path /m --tp 2 --mem-fraction-static 0.92"
    )
    w = Watcher(log, _opts(expect=intended, alive=lambda: False, fresh_file=True), start=0.0)
    log.write_text(
        server_output(
            "crash", "not_enough_memory", args="--model-path /m --tp 2 --mem-fraction-static 0.85"
        )
    )
    w.step(0.0)
    assert w.result is not None and w.result.check is not None
    diff = {d.arg: d for d in w.result.check.arg_diff}
    assert diff["mem_fraction_static"].effective == 0.85
    con, buf = _console()
    render_result(con, w.result)
    text = buf.getvalue()
    assert "CRASHED" in text and "not_enough_memory" in text and "mem_fraction_static" in text
    assert "0.92" in text and "0.85" in text
    # Untrusted text: markup is shown as typed, escapes made visible.
    hostile = WatchResult(
        WatchOutcome.EXITED,
        str(log),
        "exited",
        1.0,
        tail=("[bold red]boom[/] \x1b[2J\x1b]8;;http://x\x07",),
    )
    con, buf = _console()
    render_result(con, hostile)
    out = buf.getvalue()
    assert "[bold red]boom[/]" in out and "\x1b" not in out and "\\x1b" in out


def test_plain_and_jsonl_sinks(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.write_text(server_output("ready"))
    clock = iter([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    out = io.StringIO()
    result = watch_mod.watch(
        log,
        _opts(fresh_file=True),
        JsonlSink(out),
        clock=lambda: next(clock),
        sleep=lambda _s: None,
    )
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows[0]["event"] == "waiting"
    assert [r["phase"] for r in rows if r["event"] == "phase"] == [p.value for p in Phase]
    assert (
        rows[-1]["event"] == "result" and rows[-1]["outcome"] == "ready" and result.exit_code == 0
    )
    con, buf = _console()
    clock = iter([0.0, 0.1, 0.2])
    watch_mod.watch(
        log,
        _opts(fresh_file=True),
        PlainSink(con),
        clock=lambda: next(clock),
        sleep=lambda _s: None,
    )
    text = buf.getvalue()
    assert "READY" in text and "weights" in text and "KV / mamba pools" in text


def test_phase_table_marks_the_failed_phase() -> None:
    tracker = PhaseTracker()
    tracker.consume_all(_events(server_output("crash", "cuda_oom")))
    con, buf = _console()
    con.print(phase_table(tracker.view(), failed=True))
    rows = buf.getvalue().splitlines()
    assert any(r.startswith("✗") and "CUDA graphs" in r for r in rows)
    assert any(r.startswith("✓") and "weights" in r for r in rows)


def test_live_view_on_a_terminal(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    out = server_output("crash", "cuda_oom")
    cut = out.index("Memory pool end")
    log.write_text(out[: out.rindex("\n", 0, cut) + 1])
    buf = io.StringIO()
    con = Console(file=buf, width=160, force_terminal=True, color_system=None, markup=False)
    sink = make_sink("text", con)
    assert isinstance(sink, LiveSink)
    steps = iter(range(100))

    def sleep(_s: float) -> None:
        if next(steps) == 2:  # the rest arrives while the live view is up
            append(log, out[out.rindex("\n", 0, cut) + 1 :])

    result = watch_mod.watch(
        log, _opts(fresh_file=True, settle=0.0), sink, clock=lambda: float(next(steps)), sleep=sleep
    )
    text = buf.getvalue()
    assert result.outcome is WatchOutcome.CRASHED
    assert "KV / mamba pools" in text and "CUDA graphs" in text and "CRASHED" in text
    assert "Failure cuda_oom" in text


def test_a_run_just_started_is_joined_from_its_first_line(tmp_path: Path) -> None:
    """Issue 27: ``watch`` started a few seconds after the launch (no launch time, no record)
    reads the run already in the file from its banner, not a "new run" from its middle."""
    log = tmp_path / "serve.log"
    out = server_output("crash", "not_enough_memory")
    lines = out.splitlines(keepends=True)
    log.write_text(OLD_RUN + "".join(lines[:4]))  # the banner and the first lines are written
    w = Watcher(log, _opts(), start=0.0)
    notes = w.step(0.0)
    started = [n for n in notes if n.kind == "run_started"]
    assert started and started[0].message.startswith("joined the run already in the file")
    assert started[0].data["line"] == OLD_RUN.count("\n") + 1 and started[0].data["joined"]
    ignoring = [n for n in notes if n.kind == "ignoring"]
    assert ignoring and "1 earlier run" in ignoring[0].message
    t = run_until(w, 0.0, ["".join(lines[4:])], log)
    w.step(t + 1.0)
    assert w.result is not None and w.result.outcome is WatchOutcome.CRASHED
    assert w.result.run is not None and w.result.run.first_line == OLD_RUN.count("\n") + 1
    later = [n for n in w.step(t + 2.0)]
    assert not [n for n in later if n.kind == "run_started"]
    assert w.result.check is not None and w.result.check.oom is not None  # with its arithmetic
