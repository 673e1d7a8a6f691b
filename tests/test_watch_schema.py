"""The records of ``watch`` / ``launch --format jsonl`` against their schema (``watch``):
every note kind and every outcome, written by the watch loop through the JSON-lines sink on
the setups of test_watch.py (the stand-in server's output, the earlier run, a launch record),
on a fake clock. The CLI's own output (test_launch.py, a real ``launch`` or ``watch`` process)
is checked against the schema by that module's ``jsonl`` helper, through :func:`records`.
"""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.render.live import JsonlSink
from sglang_logscope.render.schema import check_text, errors, load_schema
from sglang_logscope.watch import loop as watch_mod
from sglang_logscope.watch.launch import LaunchRecord, record_path, write_record
from sglang_logscope.watch.watcher import WatchOptions
from tests.test_watch import OLD_RUN, _long_ago, _opts, append, server_output

ROOT = Path(__file__).resolve().parent.parent
WATCH = ROOT / "sglang_logscope" / "watch"
CRASH_KEYS = ("failure", "arg_diff", "oom", "budget", "findings", "next_steps")


def records(text: str) -> list[dict[str, Any]]:
    """The JSON lines of a watch, each checked against the ``watch`` schema by ``logscope
    schema check``'s checker and by ``jsonschema``; the last one is the result."""
    assert check_text("watch", text) == []
    validator = jsonschema.Draft202012Validator(load_schema("watch"))
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    for row in rows:
        validator.validate(row)
    assert rows and [r["event"] for r in rows].index("result") == len(rows) - 1
    return rows


def _watch(
    log: Path,
    options: WatchOptions,
    writes: Mapping[int, Callable[[], None]] | None = None,
    *,
    step: float = 0.1,
    preamble: Iterable[str] = (),
) -> str:
    """The watch loop's JSON lines, its clock moving ``step`` s a poll; ``writes[i]`` runs
    while the loop sleeps after poll ``i`` (what the server writes meanwhile)."""
    out = io.StringIO()
    now = [0.0]
    polls = [0]

    def sleep(_seconds: float) -> None:
        action = (writes or {}).get(polls[0])
        polls[0] += 1
        now[0] = polls[0] * step
        if action is not None:
            action()

    watch_mod.watch(
        log, options, JsonlSink(out), clock=lambda: now[0], sleep=sleep, preamble=preamble
    )
    return out.getvalue()


def _ready(tmp: Path) -> str:
    """A fresh log of a server that starts (args adjusted, a weights bar) and is ready."""
    log = tmp / "serve.log"
    log.write_text(server_output("ready"))
    return _watch(log, _opts(fresh_file=True))


def _recorded_launch(tmp: Path) -> str:
    """``watch`` of a log beside a launch record (another host's: no pid to follow), an
    earlier run in the file, the launch's run appended."""
    log = tmp / "serve.log"
    log.write_text(OLD_RUN)
    launched = (datetime.now() - timedelta(seconds=1)).astimezone().isoformat()
    argv = ("python", "-m", "sglang.launch_server", "--model-path", "/m", "--tp", "2")
    record = LaunchRecord(1, argv, str(tmp), {}, launched, "elsewhere", str(log))
    write_record(record, record_path(log))
    prepared = watch_mod.prepare(log, timeout=30.0, quiet_after=5.0, settle=0.5)
    assert prepared.notes
    ready = server_output("ready")
    return _watch(log, prepared.options, {0: lambda: append(log, ready)}, preamble=prepared.notes)


def _crash_after_old_content(tmp: Path) -> str:
    """No launch time: what the file held is ignored; the relaunch appended runs out of memory
    (the check of it against the intended command is in the result)."""
    log = tmp / "serve.log"
    log.write_text(OLD_RUN + _long_ago(server_output("ready")))  # long before (issue 27)
    model = "--model-path /root/models/Qwen3.6-27B --tp 2"  # a bundled profile: a budget
    intended = parse_launch_command(
        f"python -m sglang.launch_server {model} --mem-fraction-static 0.92"
    )
    crash = server_output("crash", "not_enough_memory", args=f"{model} --mem-fraction-static 0.85")
    return _watch(log, _opts(expect=intended), {0: lambda: append(log, crash)})


def _nothing_written(tmp: Path) -> str:
    log = tmp / "serve.log"
    log.write_text(OLD_RUN)
    return _watch(log, _opts(timeout=10.0, quiet_after=3.0), step=0.5)


def _stalled_in_weights(tmp: Path) -> str:
    log = tmp / "serve.log"
    out = server_output("ready")
    head = out[: out.index("Load weight end")]
    head = head[: head.rindex("\n") + 1]
    return _watch(log, _opts(timeout=2.0, quiet_after=1.0), {0: lambda: append(log, head)})


def _replaced_mid_watch(tmp: Path) -> str:
    log = tmp / "serve.log"
    first = server_output("ready")
    other = server_output("crash", "cuda_oom", args="--model-path /other --tp 2")

    def replace() -> None:
        os.rename(log, tmp / "serve.log.1")
        log.write_text(other)

    writes = {0: lambda: append(log, first[: first.index("Load weight begin")]), 1: replace}
    return _watch(log, _opts(), writes)


def _exited_without_a_run(tmp: Path) -> str:
    log = tmp / "serve.log"
    log.write_text("")
    alive = [True]

    def dies() -> None:
        append(log, "bash: python: command not found\n")
        alive[0] = False

    options = _opts(fresh_file=True, pid=4242, alive=lambda: alive[0])
    return _watch(log, options, {0: dies})


SCENARIOS: dict[str, Callable[[Path], str]] = {
    "ready": _ready,
    "recorded_launch": _recorded_launch,
    "crash_after_old_content": _crash_after_old_content,
    "nothing_written": _nothing_written,
    "stalled_in_weights": _stalled_in_weights,
    "replaced_mid_watch": _replaced_mid_watch,
    "exited_without_a_run": _exited_without_a_run,
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each scenario's JSON lines, as the watch wrote them."""
    return {name: make(tmp_path_factory.mktemp(name)) for name, make in SCENARIOS.items()}


def _kinds_in_the_code() -> set[str]:
    """Every note kind the watch can write, read from its source: the literal first argument
    of ``Note(...)`` / ``self._note(...)``, and the kinds ``_change_note`` maps changes to."""
    kinds: set[str] = set()
    for name in ("watcher.py", "loop.py"):
        tree = ast.parse((WATCH / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                first = node.args[0]
                if called in ("Note", "_note") and isinstance(first, ast.Constant):
                    kinds.add(first.value)
            if isinstance(node, ast.FunctionDef) and node.name == "_change_note":
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Dict):
                        kinds |= {v.value for v in sub.values if isinstance(v, ast.Constant)}
    return kinds


def test_the_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema("watch"))


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_record_holds_the_schema(scenario: str, written: dict[str, str]) -> None:
    records(written[scenario])


def test_every_record_kind_and_outcome_is_written(written: dict[str, str]) -> None:
    """The scenarios write every kind the schema names, and the schema names every kind the
    code writes; every outcome ends one of them; a crash carries the check of its run."""
    rows = [row for text in written.values() for row in records(text)]
    schema = load_schema("watch")
    named = set(schema["properties"]["event"]["enum"])
    assert {r["event"] for r in rows} == named
    assert named == _kinds_in_the_code() | {"result"}
    results = [r for r in rows if r["event"] == "result"]
    outcomes = schema["$defs"]["result"]["properties"]["outcome"]["enum"]
    assert sorted({r["outcome"] for r in results}) == sorted(outcomes)
    crashed = [r for r in results if r["outcome"] == "crashed"]
    assert crashed and all(set(CRASH_KEYS) <= set(r) for r in crashed)
    assert any(r["arg_diff"] and r["oom"] and r["budget"] for r in crashed)
    assert all(not set(CRASH_KEYS) & set(r) for r in results if r["outcome"] != "crashed")
    ignoring = [r for r in rows if r["event"] == "ignoring"]
    assert any("earlier_runs" in r for r in ignoring) and any(
        "earlier_runs" not in r for r in ignoring
    )
    assert any(r.get("figures") for r in rows if r["event"] in ("phase_done", "progress"))


def test_the_enums_are_the_codes() -> None:
    """A new outcome, phase or reset in the code is a new value in the schema; the crash keys
    have the shapes of ``check --format json``."""
    from sglang_logscope.log.runs import Outcome
    from sglang_logscope.watch.follow import Reset
    from sglang_logscope.watch.phases import Phase
    from sglang_logscope.watch.result import WatchOutcome

    defs = load_schema("watch")["$defs"]
    assert defs["result"]["properties"]["outcome"]["enum"] == [o.value for o in WatchOutcome]
    assert defs["run"]["properties"]["outcome"]["enum"] == [o.value for o in Outcome]
    assert defs["phase_name"]["enum"] == [p.value for p in Phase]
    assert defs["reset"]["properties"]["reset"]["enum"] == [r.value for r in Reset]
    check = load_schema("check")
    for key in CRASH_KEYS:
        want = check["properties"][key]
        assert defs["result"]["properties"][key] == want, key
    for name in ("failure", "finding", "time", "time_zone"):
        assert defs[name] == check["$defs"][name], name


def test_the_check_finds_what_is_wrong(written: dict[str, str]) -> None:
    rows = records(written["crash_after_old_content"])
    schema = load_schema("watch")
    result = dict(rows[-1])
    del result["failure"]  # a crash without the check of its run
    result["outcome"] = "crashed"
    result["run"] = dict(result["run"], started_at="2026-05-09 09:17:42")  # schema_version 1
    assert sorted(errors(result, schema)) == [
        "$.run.started_at: '2026-05-09 09:17:42' does not match "
        + schema["$defs"]["time"]["pattern"],
        "$: no 'failure'",
    ]
    phase = next(dict(r) for r in rows if r["event"] == "phase")
    phase["phase"] = "warmup"
    del phase["line"]
    assert sorted(errors(phase, schema)) == [
        "$.phase: 'warmup' is not one of " + str(schema["$defs"]["phase_name"]["enum"]),
        "$: no 'line'",
    ]
    assert sorted(errors({"event": "launched", "elapsed_s": -1, "message": "x"}, schema)) == [
        "$.elapsed_s: -1 is below 0",
        f"$.event: 'launched' is not one of {schema['properties']['event']['enum']}",
    ]
    for bad in (result, phase):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_cli_schema_show_and_check_watch(written: dict[str, str], tmp_path: Path) -> None:
    run = [sys.executable, "-m", "sglang_logscope", "schema"]
    shown = subprocess.run([*run, "show", "watch"], capture_output=True, text=True)
    assert shown.returncode == 0 and json.loads(shown.stdout) == load_schema("watch")
    good = tmp_path / "watch.jsonl"
    good.write_text(written["ready"], encoding="utf-8")
    ok = subprocess.run([*run, "check", "watch", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == "ok: a valid watch document\n"
    lines = written["ready"].splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:-1], lines[-1].replace('"ready"', '"up"', 1)]) + "\n")
    wrong = subprocess.run([*run, "check", "watch", str(bad)], capture_output=True, text=True)
    assert wrong.returncode == 1 and wrong.stdout.startswith(f"line {len(lines)}: $.outcome: 'up'")
