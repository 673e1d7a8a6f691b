"""Extreme but accepted input ends in an answer or one line, never exit 3 nor a hang
(issue 29, item 5): dates at the ends of the calendar in every output, millions of blank
lines in bounded memory, thousands of unknown flags, option values past any sense."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from cli_run import completed

from sglang_logscope.command.argtable import MAX_SUGGESTED, ArgTable, load_arg_table
from sglang_logscope.events import EventKind
from sglang_logscope.log import runs as runs_mod
from sglang_logscope.log.runs import MAX_PREAMBLE, run_builder, split_runs, stream_runs
from sglang_logscope.parse.lines import iter_events

ROOT = Path(__file__).resolve().parent.parent
BANNER = '[2026-05-09 09:17:42] server_args=ServerArgs(model_path="/m", tp_size=1)\n'
#: A decode row with the fields the report charts (a row without them drew no point, so the
#: charts' own time line went untried at the calendar's ends).
ROW = (
    "[{} TP0] Decode batch, #running-req: 1, #token: 31, token usage: 0.50, "
    "gen throughput (token/s): 1.25, #queue-req: 0\n"
)


#: The CLI in this process: each case is an exit code and what stdout and stderr say.
_cli = completed


@pytest.mark.parametrize(
    "rows",
    [
        ("9999-12-31 23:59:59",),
        ("0001-01-01 00:00:00", "2026-05-09 09:17:43"),
        ("2026-05-09 09:17:43", "9999-12-31 23:59:59", "0001-01-01 00:00:00"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ("report", "y.log", "--html", "y.html"),
        ("summary", "y.log"),
        ("summary", "-f", "json", "y.log"),
        ("check", "-f", "json", "y.log"),
        ("events", "-f", "csv", "y.log"),
        ("runs", "y.log"),
    ],
)
def test_every_date_the_parser_accepts_renders(
    tmp_path: Path, rows: tuple[str, ...], command: tuple[str, ...]
) -> None:
    """The red team's N4/N31: one row dated 9999-12-31 or 0001-01-01 ended ``report --html``
    in an internal error (year out of range)."""
    (tmp_path / "y.log").write_text(BANNER + "".join(ROW.format(r) for r in rows))
    done = _cli(*command, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    if command[0] == "report":
        html = (tmp_path / "y.html").read_text(encoding="utf-8")
        assert "<svg" in html


def test_blank_lines_are_held_no_more_than_any_line() -> None:
    """The red team's R20: 10 MiB of newlines took 2.6 GB (each blank line was held while the
    run waited for a banner). Now a run holds at most 2 x MAX_PREAMBLE such lines back."""
    builder = run_builder(())
    for event in iter_events(io.StringIO(BANNER + "\n" * (5 * MAX_PREAMBLE))):
        list(builder.feed(event))
        assert builder.current is not None and len(builder.current.tail) < 2 * MAX_PREAMBLE
    (run,) = list(builder.finish())
    assert run.last_line == 5 * MAX_PREAMBLE + 1


def test_the_bound_moves_the_same_lines_as_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamed or split at once, the last MAX_PREAMBLE preamble lines move to the next run."""
    monkeypatch.setattr(runs_mod, "MAX_PREAMBLE", 8)
    noise = "".join(f"[2026-05-09 09:17:49] preamble line {i}\n" for i in range(40))
    text = BANNER + ROW.format("2026-05-09 09:17:43") + noise + BANNER.replace("42]", "50]")
    events = list(iter_events(io.StringIO(text)))
    whole = split_runs(events)
    streamed = list(stream_runs(events, keep=frozenset(EventKind)))
    assert [(r.first_line, r.last_line) for r in whole] == [
        (r.first_line, r.last_line) for r in streamed
    ]
    assert whole[1].first_line == len(events) - 8


def test_ten_thousand_unknown_flags_get_few_suggestions() -> None:
    table: ArgTable = load_arg_table("0.5.9")
    hints = [table.suggest(f"--tp-sise-{i}") for i in range(10 * MAX_SUGGESTED)]
    assert sum(h is not None for h in hints) <= MAX_SUGGESTED
    assert table.suggest("--tp-sise-0") == hints[0]  # the same flag: the same answer


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("check", "--log-tz", "/etc/passwd", "demo.log"), "a file path is not one"),
        (("args", "--sglang-version", "0." + "9" * 5000, "cmd.txt"), "not an SGLang version"),
        (
            ("budget", "-e", "cmd.txt", "--gpus", "99999999999999999999", "--gpu-memory", "h100"),
            "--gpus must be",
        ),
        (
            ("budget", "-e", "cmd.txt", "--gpus", "2", "--gpu-memory", "9" * 5000 + "GB"),
            "not a GPU",
        ),
    ],
)
def test_extreme_option_values_are_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """The red team's R10/R11: each of these ended in an internal error (exit 3)."""
    (tmp_path / "demo.log").write_text((ROOT / "fixtures/demo/sglang-serve.log").read_text())
    (tmp_path / "cmd.txt").write_text(
        "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp 2\n"
    )
    done = _cli(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and said in done.stderr
