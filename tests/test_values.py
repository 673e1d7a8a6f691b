"""Hostile values, not just hostile text (issue 20): every crafted banner or command value
the red team found, and any Python literal in any field, gives an answer or a one-line error
through every subcommand — never a traceback, a hang or invalid JSON.

The banners are the demo log's real ``server_args`` line with one field replaced; the
commands are the demo's real launch command with one flag added (both synthetic variations
of real data: no real log holds such values)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sglang_logscope import cli, limits
from sglang_logscope._text import to_json
from sglang_logscope.errors import LogscopeError
from sglang_logscope.log.reader import read_log
from sglang_logscope.memory import suggest
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.from_run import budget_for_run
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.messages import CATALOG

ROOT = Path(__file__).resolve().parent.parent
DEMO = (ROOT / "fixtures" / "demo" / "sglang-serve.log").read_text(encoding="utf-8")
DEMO_COMMAND = (ROOT / "fixtures" / "demo" / "command.txt").read_text(encoding="utf-8")
#: The demo command as its author meant it: its flattened paste passes ``\ --flag`` words
#: (a space first) that SGLang's argparse does not know.
MEANT_COMMAND = DEMO_COMMAND.replace("\\ ", "")

#: The crafted banner values of issue 20 that crashed or hung a command (field, literal).
CRASHERS = [
    ("tp_size", "0"),
    ("tp_size", "[2]"),
    ("tp_size", "1j"),
    ("tp_size", "0x" + "f" * 100_000),
    ("pp_size", "0"),
    ("page_size", "0"),
    ("page_size", "10**30"),
    ("max_running_requests", "0"),
    ("max_running_requests", "-1"),
    ("max_running_requests", "0x" + "f" * 2000),
    ("context_length", "inf"),
    ("context_length", "0x" + "f" * 3000),
    ("mem_fraction_static", "inf"),
    ("mem_fraction_static", "5.0"),
    ("mem_fraction_static", "'high'"),
    ("mem_fraction_static", "{}"),
    ("mamba_full_memory_ratio", "inf"),
    ("kv_cache_dtype", "8"),
    ("model_path", "os.system('id')"),
    ("trust_remote_code", "[" * 400 + "]" * 400),
    ("served_model_name", "__import__('os').system('id')"),
    ("speculative_num_draft_tokens", "10**9"),
]

#: Every subcommand that reads a log; ``LOG`` is replaced by the crafted log.
LOG_COMMANDS = [
    ["summary", "LOG"],
    ["summary", "-f", "json", "LOG"],
    ["events", "-f", "json", "LOG"],
    ["events", "-f", "jsonl", "LOG"],
    ["events", "-f", "csv", "LOG"],
    ["runs", "-f", "json", "LOG"],
    ["check", "-f", "json", "LOG"],
    ["check", "--expect-args", "CMD", "LOG"],
    ["check", "--expect-args", "CMD", "-f", "json", "LOG"],
    ["budget", "--log", "LOG"],
    ["budget", "-f", "json", "--log", "LOG"],
    ["report", "LOG", "--html", "HTML"],
]


def with_field(field: str, literal: str) -> str:
    """The demo log with ``field`` of its banner set to ``literal`` (added if absent)."""
    pattern = rf"(?<=[(, ]){field}=[^,]*(?=, )"
    text, n = re.subn(pattern, lambda _: f"{field}={literal}", DEMO, count=1)
    if n == 0:
        text = DEMO.replace(
            "server_args=ServerArgs(", f"server_args=ServerArgs({field}={literal}, ", 1
        )
    return text


def _strict(text: str) -> Any:
    """JSON with NaN/Infinity refused (Python's reader accepts them by default)."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def _every_command(
    log: Path, tmp: Path, commands: list[list[str]] | None = None
) -> list[dict[str, Any]]:
    """Run ``commands`` (all of :data:`LOG_COMMANDS`) on ``log``; return the JSON they printed."""
    command = tmp / "command.txt"
    command.write_text(DEMO_COMMAND, encoding="utf-8")
    docs = []
    for template in LOG_COMMANDS if commands is None else commands:
        subs = {"LOG": str(log), "CMD": str(command), "HTML": str(tmp / "report.html")}
        argv = [subs.get(a, a) for a in template]
        code, out, err = run_cli(argv)
        assert code in (0, 1, 2), (argv, code, err)
        assert "Traceback" not in err and len(err.splitlines()) <= 1, (argv, err)
        if "-f" in argv and code in (0, 1) and argv[argv.index("-f") + 1] != "csv":
            lines = out.splitlines() if "jsonl" in argv else [out]
            docs.extend(_strict(line) for line in lines if line.strip())
    return docs


@pytest.mark.parametrize(("field", "literal"), CRASHERS, ids=lambda v: str(v)[:24])
def test_crafted_banner_values_answer_every_command(
    field: str, literal: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    log.write_text(with_field(field, literal), encoding="utf-8")
    docs = _every_command(log, tmp_path)
    check = next(d for d in docs if "verdict" in d)
    out_of_range = [f for f in check["findings"] if f["code"] == "LS080"]
    assert out_of_range and field in out_of_range[0]["message"]
    assert len(out_of_range[0]["message"]) < 400  # the value is shown truncated


def test_a_refused_value_is_unknown_and_the_budget_says_so(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(with_field("tp_size", "0"), encoding="utf-8")
    run = read_log(log).runs[-1]
    assert run.server_args is not None and "tp_size" not in run.server_args
    b = budget_for_run(run)
    assert any("could not use tp_size=0" in a for a in b.assumptions)
    assert b.inputs.get("tp_size") in (None, 1)  # SGLang's default, not 0


def test_a_value_in_range_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(with_field("tp_size", "4"), encoding="utf-8")
    run = read_log(log).runs[-1]
    assert run.server_args is not None and run.server_args["tp_size"] == 4
    assert "rejected" not in run.first(run.events[0].kind).fields  # type: ignore[union-attr]


# ------------------------------------------------------------------ commands

#: Flags added to the demo's real command; each either passes argparse and is refused by the
#: limits, or argparse itself rejects it (a one-line problem, not a traceback).
CRAFTED_FLAGS = [
    "--tp-size 0",
    "--tp-size 99999999999999999999999",
    "--page-size 0",
    "--mem-fraction-static inf",
    "--mem-fraction-static nan",
    "--mem-fraction-static 1e400",
    "--context-length " + "9" * 5000,
    "--max-running-requests 0",
    "--speculative-num-draft-tokens 1000000000",
    "--chunked-prefill-size -7",
    "--mamba-full-memory-ratio inf",
    "--port 99999999",
]


@pytest.mark.parametrize("flag", CRAFTED_FLAGS, ids=lambda f: f[:30])
def test_crafted_command_values_answer_every_command(flag: str, tmp_path: Path) -> None:
    command = tmp_path / "command.txt"
    command.write_text(
        DEMO_COMMAND.rstrip().replace(" > /root", f" {flag} > /root"), encoding="utf-8"
    )
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    for argv in (
        ["args", "-f", "json", str(command)],
        ["budget", "-e", str(command), "-f", "json"],
        ["check", "--expect-args", str(command), "-f", "json", str(log)],
    ):
        code, out, err = run_cli(argv)
        assert code in (0, 1, 2) and "Traceback" not in err, (argv, err)
        if code != 2:
            _strict(out)


def test_the_out_of_range_command_value_is_named(tmp_path: Path) -> None:
    command = tmp_path / "command.txt"
    command.write_text(
        MEANT_COMMAND.replace("--mem-fraction-static 0.88", "--mem-fraction-static 5"),
        encoding="utf-8",
    )
    _, out, _ = run_cli(["args", "-f", "json", str(command)])
    doc = _strict(out)
    assert [r["field"] for r in doc["out_of_range"]] == ["mem_fraction_static"]
    assert "mem_fraction_static" not in doc["explicit"]
    _, out, _ = run_cli(["budget", "-e", str(command), "-f", "json"])
    assert any("could not use mem_fraction_static=5" in a for a in _strict(out)["assumptions"])


# ------------------------------------------------------------------ bounded work


def test_the_suggestion_search_is_bounded_whatever_the_inputs() -> None:
    """A budget that fits nowhere, with a draft-token count the limits would refuse, passed
    straight to the search: it recomputes at most MAX_RERUNS budgets."""
    b = budget(
        {"model_path": "Qwen/Qwen3.6-27B", "tp_size": 1, "speculative_algorithm": "EAGLE"},
        gpus=None,
    )
    calls = []

    def rerun(changed: Any, gpus_override: Any = None) -> Any:
        calls.append(changed)
        return b  # never fits: the search would go on for ever without its limit

    inputs = {**b.inputs, "speculative_num_draft_tokens": 10**9, "max_running_requests": 10**9}
    fake = type(b)(**{**{f: getattr(b, f) for f in b.__dataclass_fields__}, "inputs": inputs})
    assert suggest.suggestions(fake, inputs, rerun) == []
    assert 0 < len(calls) <= suggest.MAX_RERUNS


# ------------------------------------------------------------------ the layer itself


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("tp_size", 1, True),
        ("tp_size", 4096, True),
        ("tp_size", 4097, False),
        ("tp_size", 0, False),
        ("tp_size", True, False),
        ("tp_size", 2.0, False),
        ("tp_size", None, True),
        ("mem_fraction_static", 0.88, True),
        ("mem_fraction_static", 1, False),
        ("mem_fraction_static", 0.0, False),
        ("mem_fraction_static", float("nan"), False),
        ("page_size", 2**20, True),
        ("page_size", 2**20 + 1, False),
        ("context_length", 2**40 - 1, True),
        ("context_length", 2**40, False),
        ("chunked_prefill_size", -1, True),
        ("kv_cache_dtype", "fp8_e4m3", True),
        ("kv_cache_dtype", 8, False),
        ("any_field", 1j, False),
        ("any_field", float("inf"), False),
        ("any_field", 2**64, False),
        ("any_field", "x" * 70_000, False),
        ("any_field", [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]], False),
        ("any_field", list(range(20_000)), False),
        ("any_field", {"max_bs": 256, "__type__": "CudaGraphConfig"}, True),
    ],
)
def test_problem(field: str, value: Any, ok: bool) -> None:
    assert (limits.problem(field, value) is None) is ok


def test_shown_is_short_for_any_value() -> None:
    for value in (10**100_000 if sys.version_info < (3, 11) else int("f" * 100_000, 16),
                  "x" * 10**6, [[[[[[1]]]]]], {"a" * 100: 1}, 1j, "\x1b[31m\u202e"):  # fmt: skip
        text = limits.shown(value)
        assert len(text) <= limits.SHOWN_CHARS + 3 and text.isprintable() and text.isascii()


def test_json_never_holds_nan_infinity_or_huge_ints() -> None:
    doc = to_json(
        {"a": float("inf"), "b": [float("nan"), -float("inf")], "c": 10**30, "d": 2**63 - 1}
    )
    assert _strict(doc) == {"a": None, "b": [None, None], "c": limits.shown(10**30), "d": 2**63 - 1}


# ------------------------------------------------------------------ any literal in any field

_LEAF = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80).map(lambda n: n * 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(),
    st.text(max_size=30),
    st.booleans(),
    st.none(),
    st.binary(max_size=10),
)
_LITERAL = st.recursive(
    _LEAF.map(repr),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(inner, max_size=3).map(lambda xs: "(" + "".join(x + ", " for x in xs) + ")"),
        st.dictionaries(st.text(max_size=5).map(repr), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        ),
        st.tuples(st.sampled_from(["Cfg", "os.system", "__import__"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        inner.map(lambda x: f"-{x}"),
    ),
    max_leaves=12,
)
#: Fields the arithmetic, the diff and the renderers read, and two it never reads.
_FIELDS = sorted({*limits.rules(), "enable_mixed_chunk", "some_unknown_field"})


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(_FIELDS),
    _LITERAL,
    st.lists(st.sampled_from(range(len(LOG_COMMANDS))), min_size=1, max_size=3, unique=True),
)
def test_any_literal_in_any_banner_field(
    tmp_path: Path, field: str, literal: str, commands: list[int]
) -> None:
    """Three subcommands per example (all of them across the examples; the fuzz target in
    ``benchmarks/fuzz/values.py`` runs every one on each), and the public API."""
    log = tmp_path / "server.log"
    log.write_text(with_field(field, literal), encoding="utf-8")
    _every_command(log, tmp_path, [LOG_COMMANDS[i] for i in commands])
    _every_api(log)


def _every_api(log: Path) -> None:
    """The public API on ``log``: only :class:`LogscopeError` may come out."""
    import sglang_logscope as ls

    try:
        parsed = ls.read_log(log)
        report = ls.check(log, expect=DEMO_COMMAND)
        _strict(to_json(report.to_dict()))
        _strict(to_json(ls.budget_for_run(parsed.runs[-1]).to_dict()))
        _strict(to_json(ls.summarize(parsed)))
    except LogscopeError:
        pass


# ------------------------------------------------------------------ values inside log lines


def test_an_out_of_range_current_value_is_refused(tmp_path: Path) -> None:
    """``Current value: mem_fraction_static=5.0`` in SGLang's OOM error is a value like any."""
    line = (
        "[2026-05-09 09:18:30] RuntimeError: Not enough memory. Please try to increase "
        "--mem-fraction-static. Current value: mem_fraction_static=5.0\n"
    )
    log = tmp_path / "server.log"
    log.write_text(DEMO + line, encoding="utf-8")
    run = read_log(log).runs[-1]
    hit = [e for e in run.events if isinstance(e.fields, dict) and e.fields.get("rejected")]
    assert hit and "mem_fraction_static" not in hit[0].fields
    _, out, _ = run_cli(["check", "-f", "json", str(log)])
    assert any(
        f["code"] == "LS080" and "mem_fraction_static=5.0" in f["message"]
        for f in _strict(out)["findings"]
    )


#: Control, bidi and separator characters a log line may hold.
_UNSAFE = "\x07\x08\x7f\x85\u202e\u2066\u2028\ufeff"


@pytest.mark.parametrize(
    "argv",
    [
        ["events"],
        ["events", "-f", "csv"],
        ["events", "-f", "jsonl"],
        ["events", "-f", "json"],
        ["summary"],
        ["check"],
        ["check", "-f", "json"],
        ["runs"],
    ],
    ids=" ".join,
)
def test_control_and_bidi_characters_never_reach_any_output(
    tmp_path: Path, argv: list[str]
) -> None:
    log = tmp_path / "server.log"
    hostile = f"[2026-05-09 09:18:31] Exception: evil{_UNSAFE}tail\n"
    log.write_text(with_field("model_path", repr(f"/m/{_UNSAFE}")) + hostile, encoding="utf-8")
    code, out, err = run_cli([*argv, str(log)])
    assert code in (0, 1), err
    assert not set(_UNSAFE) & set(out + err), [c for c in _UNSAFE if c in out + err]


# ------------------------------------------------------------------ numbers inside any line

_SAMPLES = [s.line for spec in CATALOG.specs for s in spec.samples]
_HUGE = st.sampled_from(["9" * 25, "9" * 400, "9" * 5000, "9" * 400 + ".5", "1e999", "0"])


@settings(max_examples=examples(150), deadline=None)
@given(st.sampled_from(_SAMPLES), st.lists(_HUGE, min_size=1, max_size=8))
def test_any_number_in_any_catalog_line_stays_bounded(line: str, numbers: list[str]) -> None:
    """Every number of a real SGLang line (the catalog's samples) replaced by a huge one:
    event fields hold no unbounded int or infinity, so the events' fast JSON path (which
    trusts that) gives what the guarded one gives."""
    it = iter(numbers * 50)
    hostile = re.sub(r"(?<=[\s=:(\[,])\d+(?:\.\d+)?", lambda _m: next(it), line)
    for event in iter_events(io.BytesIO(hostile.encode("utf-8"))):
        fields = {k: v for k, v in event.fields.items() if k != "rejected"}
        assert limits.shape_problem(fields) is None, fields
        row = event.to_dict()
        fast, guarded = to_json(row, indent=None, parsed=True), to_json(row, indent=None)
        assert fast == guarded
        _strict(fast)


def test_huge_numbers_in_a_decode_batch_line_stay_text() -> None:
    line = (
        "[2026-05-09 09:20:00 TP0] Decode batch, #running-req: 9999999999999999999999999, "
        "#token: 12, token usage: 0.01, gen throughput (token/s): "
        + "9" * 400
        + ".5, #queue-req: 0"
    )
    (event,) = iter_events(io.BytesIO(line.encode("utf-8")))
    assert event.fields["running_req"] == "9999999999999999999999999"
    assert isinstance(event.fields["gen_throughput"], str) and event.fields["token"] == 12


# ------------------------------------------------------------------ the public API, any value

_VALUE = st.recursive(
    st.one_of(
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.complex_numbers(),
        st.text(max_size=20),
        st.booleans(),
        st.none(),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(st.sampled_from(_FIELDS), _VALUE, min_size=1, max_size=4))
def test_budget_takes_any_values(changed: dict[str, Any]) -> None:
    """``budget()`` called by a library user with any Python values: a budget (the values it
    could not use named in its assumptions) or a LogscopeError; its JSON is strict."""
    args = {"model_path": "/root/models/Qwen3.6-27B", "tp_size": 2, **changed}
    try:
        b = budget(args)
    except LogscopeError:
        return
    _strict(to_json(b.to_dict()))
    for name, value in changed.items():
        if limits.problem(name, value) is not None:
            assert any(f"could not use {name}=" in a for a in b.assumptions)


_WORDS = ["0", "-1", "inf", "nan", "1e400", "9" * 30, "0.999999", "4097", "x", "[1]", "{}"]


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(_FIELDS), st.sampled_from(_WORDS))
def test_any_flag_value_in_a_command(tmp_path: Path, field: str, word: str) -> None:
    command = tmp_path / "command.txt"
    flag = "--" + field.replace("_", "-")
    command.write_text(
        DEMO_COMMAND.replace(" > /root", f" {flag} {word} > /root"), encoding="utf-8"
    )
    for argv in (
        ["args", "-f", "json", str(command)],
        ["budget", "-e", str(command), "-f", "json"],
    ):
        code, out, err = run_cli(argv)
        assert code in (0, 1, 2) and "Traceback" not in err, (argv, err)
        if code != 2:
            _strict(out)
