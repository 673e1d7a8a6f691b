"""``logscope budget``: exit codes, JSON shape, side-by-side with a log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.cli import main

ROOT = Path(__file__).resolve().parent.parent
CMD = (
    "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp 2 "
    "--mem-fraction-static 0.88 --speculative-algorithm NEXTN --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --context-length 32768"
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_not_fitting_command_exits_1_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cmd.txt").write_text(CMD)
    code, out, _ = _run(
        [
            "budget",
            "--expect-args",
            str(tmp_path / "cmd.txt"),
            "--sglang-version",
            "0.5.9",
            "--gpus",
            "2",
            "--gpu-memory",
            "a6000",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 1
    d = json.loads(out)
    assert d["fits"] is False and d["failure_kind"] == "not_enough_memory" and d["era"] == "A"
    assert d["suggestions"]


def test_fitting_command_exits_0_and_draws_a_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cmd.txt").write_text(CMD + " --max-running-requests 16")
    code, out, _ = _run(
        ["budget", "--expect-args", str(tmp_path / "cmd.txt"), "--sglang-version", "0.5.9"], capsys
    )
    assert code == 0
    assert "fits" in out and "█" in out and "KV tokens" in out
    assert "assumed 2 x 48 GB" in out


def test_log_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    log = ROOT / "fixtures" / "memory" / "cases" / "037" / "server.log"
    code, out, _ = _run(
        [
            "budget",
            "--log",
            str(log),
            "--model-config",
            str(log.parent / "config.json"),
            "--sglang-version",
            "0.4.2",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    d = json.loads(out)
    assert d["reported"]["kv_tokens"] == 105531
    assert abs(d["reported"]["kv_tokens_error_pct"]) < 1


@pytest.mark.parametrize(
    "argv",
    [
        ["budget"],
        ["budget", "--log", "x.log", "--expect-args", "y.txt"],
        ["budget", "--expect-args", "CMD", "--gpu-memory", "48XB"],
        ["budget", "--expect-args", "CMD", "--sglang-version", "newest"],
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cmd.txt").write_text(CMD)
    argv = [str(tmp_path / "cmd.txt") if a == "CMD" else a for a in argv]
    code, _, err = _run(argv, capsys)
    assert code == 2 and "error" in err


def test_unknown_model_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cmd.txt").write_text("python -m sglang.launch_server --model-path /x/Mystery-9B")
    code, _, err = _run(["budget", "--expect-args", str(tmp_path / "cmd.txt")], capsys)
    assert code == 2 and "--model-config" in err
