"""Properties of the parser on arbitrary input, banner round-trips, and adversarial lines."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linearity import superlinear

from sglang_logscope.events import EventKind
from sglang_logscope.log.runs import split_runs
from sglang_logscope.parse import catalog
from sglang_logscope.parse.banner import format_banner, parse_banner
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.messages import SPECS

SETTINGS = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Real fragments to splice: headers, known messages, traceback pieces, separators.
FRAGMENTS = [
    "[2025-10-06 12:00:00 TP0] ",
    "[2026-02-23 14:05:31.042 DP0 PP1 TP3 EP3] ",
    "[16:53:16 TP0] ",
    "[gpu_id=0] ",
    "sglang-1  | ",
    "INFO:     ",
    "WARNING:sglang.srt.server_args:",
    "Traceback (most recent call last):",
    '  File "/x/scheduler.py", line 12, in f',
    "    scheduler = Scheduler(",
    "During handling of the above exception, another exception occurred:",
    "RuntimeError: ",
    "usage: launch_server.py [-h]",
    "launch_server.py: error: unrecognized arguments: --x",
    "\r",
    "\x1b[31m",
    ", ",
    "=",
    "[",
    "]",
    "(",
    ")",
    "{",
    "'",
    "9" * 30,
    " " * 9,
] + [sample.line for spec in SPECS for sample in spec.samples[:1]]

LINE = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=40), max_size=8).map("".join)
DOCUMENT = st.lists(LINE, max_size=30).map("\n".join)


def _check_coverage(events: list[Any], n_lines: int) -> None:
    covered = [n for e in events for n in range(e.line, e.end_line + 1)]
    assert covered == list(range(1, n_lines + 1))


@SETTINGS
@given(DOCUMENT)
def test_every_line_is_accounted_for_exactly_once(text: str) -> None:
    from sglang_logscope.parse.adapters import InputFormat, detect

    data = text.encode("utf-8", "surrogatepass")
    if detect(data) is not InputFormat.plain:  # a wrapper's lines: test_adapters checks those
        return
    events = list(iter_events(io.BytesIO(data)))
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    _check_coverage(events, n_lines)
    for event in events:
        assert isinstance(event.kind, EventKind)
        assert event.line <= event.end_line
    split_runs(events)  # never raises either


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    from sglang_logscope.parse.adapters import InputFormat, detect

    events = list(iter_events(io.BytesIO(data)))
    if detect(data) is InputFormat.plain:  # else the lines are those inside (test_adapters)
        n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        _check_coverage(events, n_lines)


@SETTINGS
@given(st.text(max_size=3000))
def test_arbitrary_text_never_raises(text: str) -> None:
    from sglang_logscope.parse.adapters import InputFormat, detect

    events = list(iter_events(io.StringIO(text)))
    if detect(text.encode("utf-8", "surrogateescape")) is InputFormat.plain:
        n_lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        _check_coverage(events, n_lines)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
ARGS = st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,20}", fullmatch=True), VALUES, min_size=1, max_size=12
)


@SETTINGS
@given(ARGS)
def test_server_args_repr_round_trips(args: dict[str, Any]) -> None:
    assert parse_banner(format_banner(args)) == args
    event = next(
        iter_events(io.StringIO(f"[2026-01-01 00:00:00] server_args={format_banner(args)}\n"))
    )
    assert event.kind is EventKind.SERVER_ARGS
    assert event.fields["args"] == args


@SETTINGS
@given(ARGS, st.integers(min_value=0, max_value=10_000))
def test_truncated_banner_keeps_the_complete_pairs(args: dict[str, Any], cut: int) -> None:
    text = format_banner(args)
    cut = min(cut, len(text) - 1)
    parsed = parse_banner(text[:cut])
    # Everything parsed is a real pair, and every pair wholly before the cut survives.
    for key, value in parsed.items():
        assert key in args and args[key] == value
    prefix = "ServerArgs("
    for key, value in args.items():
        item = f"{key}={value!r}"
        end = text.find(item, len(prefix)) + len(item)
        if end < cut and text[end] == ",":
            assert key in parsed and parsed[key] == value, key
        prefix = text[:end]


def test_dict_banner_of_0_5_23() -> None:
    text = "{'model_path': 'Qwen/Qwen3-8B', 'tp_size': 2, 'cuda_graph_config': {'bs': [1, 2]}, 'x': None"
    assert parse_banner(text) == {
        "model_path": "Qwen/Qwen3-8B",
        "tp_size": 2,
        "cuda_graph_config": {"bs": [1, 2]},
    }


def test_banner_is_never_evaluated() -> None:
    text = "ServerArgs(model_path=__import__('os').system('echo pwned'), tp_size=2)"
    args = parse_banner(text)
    assert args.get("tp_size") == 2
    assert not isinstance(args.get("model_path"), int)


#: Hostile lines of about 200 kB, as functions of a scale (1.0: the full line).
ADVERSARIAL: list[Callable[[float], str]] = [
    lambda f: ", " * int(100_000 * f),
    lambda f: "=" * int(200_000 * f),
    lambda f: "9" * int(200_000 * f),
    lambda f: "[" * int(200_000 * f),
    lambda f: "[2025-10-06 12:00:00 " + "TP0 " * int(50_000 * f),
    lambda f: "Decode batch, " + "#a: 1, " * int(28_000 * f),
    lambda f: "Load weight end." + " x=" * int(66_000 * f),
    lambda f: "KV Cache is allocated." + " a" * int(100_000 * f),
    lambda f: "max_total_num_tokens=1" + ", a=[" * int(40_000 * f),
    lambda f: "Capture " + "a " * int(100_000 * f),
    lambda f: "server_args=ServerArgs(" + "a=(" * int(50_000 * f),
    lambda f: "sglang-1 " + "| " * int(100_000 * f),
    lambda f: "x " * int(40_000 * f) + "out of memory. Tried to allocate " * int(3000 * f),
    lambda f: '  File "' + "\\" * int(200_000 * f),
    lambda f: "Exception in " + "a" * int(200_000 * f) + ":",
    lambda f: "RuntimeError: " + "Not enough memory. " * int(10_000 * f),
    lambda f: "(" * int(100_000 * f) + ")" * int(100_000 * f),
    lambda f: "[2025-10-06 12:00:00]" * int(9000 * f),
]


@pytest.mark.parametrize("make", ADVERSARIAL, ids=[f"line{i}" for i in range(len(ADVERSARIAL))])
def test_adversarial_lines_parse_in_linear_work(make: Callable[[float], str]) -> None:
    """Every hostile line parses (two lines, never an exception), and 8x the line costs at
    most 20x the work: a ratio of CPU time in this thread, not a wall-clock limit (issue 20).
    One test a line, so the workers of a parallel run share them."""

    def parse(line: str) -> None:
        # every call pays the first reading of its shape: the template cache would make the
        # second of cpu()'s two runs cheap, and hid a quadratic one (issue 33: 20 s a line)
        catalog._TEMPLATES.clear()
        events = list(iter_events(io.StringIO(line + "\n" + line + "\n")))
        assert sum(e.line_count for e in events) == 2

    line = make(1.0)
    assert len(line) >= 150_000
    parse(line)
    why = superlinear(parse, lambda n: make(n / 1000), 1000 // 16)
    assert why is None, (line[:40], why)
