"""Issue 28: the commands of offline entry points and pasted placeholders. A bench command's own flags are judged against its
BenchArgs (of the newest release that has the entry point when none is pinned), and a bench run
that printed its result is ``completed`` even when multiprocessing's exit warnings follow."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.log.reader import read_log
from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "text",
    [
        "python -m sglang.bench_one_batch --model-path m --batch-size 4 --input-len 256 "
        "--output-len 32 --tp 2",
        "python3 -m sglang.bench_offline_throughput --model-path m --num-prompts 10 "
        "--dataset-name random",
    ],
)
def test_bench_flags_are_read_with_bench_args_without_a_release(text: str) -> None:
    cmd = parse_launch_command(text)
    assert cmd.unknown == () and not cmd.ambiguous


def test_a_misspelled_bench_flag_is_still_unknown() -> None:
    cmd = parse_launch_command("python -m sglang.bench_one_batch --model-path m --batch-sizee 4")
    assert cmd.unknown == ("--batch-sizee",)


def test_launch_server_does_not_take_bench_flags() -> None:
    cmd = parse_launch_command("python -m sglang.launch_server --model-path m --batch-size 4")
    assert cmd.unknown == ("--batch-size",)


def test_a_finished_bench_then_resource_tracker_warnings_is_completed(tmp_path: Path) -> None:
    """corpus/053's bench_one_batch run (real), then the real resource_tracker lines of
    fixtures/heldout/015 (lines 136-139) that multiprocessing prints at exit."""
    bench = (ROOT / "fixtures" / "real" / "053" / "server.log").read_bytes()
    tracker = (ROOT / "fixtures" / "heldout" / "015" / "log").read_bytes().splitlines(True)[135:139]
    path = tmp_path / "bench.log"
    path.write_bytes(bench + b"".join(tracker))
    run = read_log(path).runs[-1]
    assert run.outcome.value == "completed" and run.failure is None


def test_placeholders_of_a_pasted_command_are_words_not_redirections() -> None:
    """The reproduction of the real report in fixtures/failures (cuda_graph_oom_wrapped.log's
    source): ``--node-rank <node-rank> --dist-init-addr <node0-ip>:20000``."""
    cmd = parse_launch_command(
        "sglang serve --model-path sgl-project/DeepSeek-V4-Pro-FP8 --tp 16 --nnodes 2 "
        "--node-rank <node-rank> --dist-init-addr <node0-ip>:20000 --port 30000"
    )
    assert cmd.errors == () and cmd.log_path is None
    assert cmd.not_evaluated == ("<node-rank>", "<node0-ip>")
    assert cmd.args["port"] == 30000 and cmd.args["tp_size"] == 16


def test_a_real_redirection_is_still_one() -> None:
    cmd = parse_launch_command(
        "python -m sglang.launch_server --model-path m < /dev/null > out.log"
    )
    assert cmd.argv == ("--model-path", "m") and cmd.log_path == "out.log"


def test_a_release_less_log_judges_a_flag_by_every_release(tmp_path: Path) -> None:
    """A log that pins no release (a real line of fixtures/heldout/025 alone) is read against
    every release's table: a flag older releases accept is LS111, not 'argparse would reject'
    (LS006)."""
    line = (ROOT / "fixtures" / "heldout" / "025" / "log").read_text(encoding="utf-8")
    log_path = tmp_path / "serve.log"
    log_path.write_text(next(x for x in line.splitlines() if "Load weight begin" in x) + "\n")
    report = check(
        read_log(log_path),
        expect="python -m sglang.launch_server --model-path m --enable-double-sparsity",
        with_budget=False,
        live=False,
    )
    codes = [f.code for f in report.findings]
    assert "LS111" in codes and "LS006" not in codes
