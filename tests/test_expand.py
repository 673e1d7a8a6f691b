"""Shell parameter expansion in launch commands (issue #16): ``$VAR`` / ``${VAR}`` /
``${VAR:-x}`` from what the command text sets; ``$(...)``, backticks and variables the text
never sets reported as not evaluated, never as argparse rejections of the literal text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sglang_logscope.command.expand import expand
from sglang_logscope.command.parse import parse_launch_command

ROOT = Path(__file__).resolve().parent.parent
FS_GPT = ROOT / "fixtures" / "commands" / "fs-gpt-sglang.sh"  # a real launch script


def test_export_and_assignments_expand() -> None:
    cmd = parse_launch_command(
        "export TP=2\nMODEL=/models/Qwen3-8B\nPORT=${SGLANG_PORT:-30000}\n"
        'python -m sglang.launch_server --model-path "$MODEL" --tp $TP --port ${PORT}\n',
        sglang_version="0.5.9",
    )
    assert cmd.args["tp_size"] == 2 and cmd.args["port"] == 30000
    assert cmd.args["model_path"] == "/models/Qwen3-8B"
    assert not cmd.rejected and cmd.not_evaluated == ()


def test_prefix_assignments_and_defaults() -> None:
    cmd = parse_launch_command(
        "TP=4 python -m sglang.launch_server --model-path m --tp $TP "
        "--mem-fraction-static ${MFS-0.8} --context-length ${CTX:=8192}",
        sglang_version="0.5.9",
    )
    assert cmd.args["tp_size"] == 4
    assert cmd.args["mem_fraction_static"] == 0.8
    assert cmd.args["context_length"] == 8192


def test_quotes_and_backslashes_keep_a_dollar_literal() -> None:
    """The shell does not expand inside single quotes or after a backslash: SGLang gets
    the literal text, and argparse's rejection of it is real."""
    cmd = parse_launch_command(
        "TP=2 python -m sglang.launch_server --model-path m --tp '$TP'", sglang_version="0.5.9"
    )
    assert cmd.rejected and any("'$TP'" in e for e in cmd.errors)
    cmd = parse_launch_command(
        "python -m sglang.launch_server --model-path \\$HOME/m", sglang_version="0.5.9"
    )
    assert cmd.args["model_path"] == "$HOME/m" and cmd.not_evaluated == ()


def test_unset_variables_and_substitutions_are_not_evaluated_not_rejected() -> None:
    cmd = parse_launch_command(
        "python -m sglang.launch_server --model-path m --tp $TP --host $(hostname -i) "
        "--context-length `cat ctx.txt` --port 30000",
        sglang_version="0.5.9",
    )
    assert cmd.not_evaluated == ("$TP", "$(hostname -i)", "`cat ctx.txt`")
    assert not cmd.rejected, (cmd.errors, cmd.unknown)
    assert cmd.args["port"] == 30000
    assert cmd.to_dict()["not_evaluated"] == ["$TP", "$(hostname -i)", "`cat ctx.txt`"]


def test_a_single_quoted_bash_c_expands_in_the_inner_shell() -> None:
    cmd = parse_launch_command(
        "export TP=2; bash -c 'python -m sglang.launch_server --model-path m --tp $TP'",
        sglang_version="0.5.9",
    )
    assert cmd.args["tp_size"] == 2


def test_the_real_script() -> None:
    """fs-gpt's sbin/sglang.sh: the model path rests on ``$(dirname ...)``; its
    ``--mem_fraction_static`` is a real rejection (SGLang's flags use dashes)."""
    text = FS_GPT.read_text(encoding="utf-8")
    cmd = parse_launch_command(text, sglang_version="0.5.9")
    assert cmd.not_evaluated == ("$(dirname $(dirname $(readlink -f $0)))",)
    assert str(cmd.args["model_path"]).endswith("/models/Qwen2.5-32B-Instruct-GPTQ-Int4")
    assert cmd.env["CUDA_VISIBLE_DEVICES"] == "1" and cmd.args["port"] == 6011
    assert cmd.unknown == ("--mem_fraction_static",)
    assert cmd.log_path is not None and cmd.log_path.endswith("/logs/sglang.log")
    out = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", "args", "-f", "json", str(FS_GPT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1  # rejected for the underscore flag, not for "$(...)"
    assert json.loads(out.stdout)["not_evaluated"] == list(cmd.not_evaluated)


def test_expand_pieces() -> None:
    env = {"A": "1", "EMPTY": ""}
    assert expand("${A}x$A", env) == ("1x1", [])
    assert expand("${EMPTY:-d}${EMPTY-d}", env) == ("d", [])
    assert expand("$1 $$", env) == ("$1 $$", ["$1", "$$"])
    assert expand("$(a $(b (c)))z", env) == ("$(a $(b (c)))z", ["$(a $(b (c)))"])
    assert expand("price $", env) == ("price $", [])


def test_a_private_use_character_in_the_command_stays_itself() -> None:
    """Found by Hypothesis (test_join_round_trip): the literal-``$`` marker was U+E000, so a
    command holding that character read it as ``$``. The marker is now a lone surrogate."""
    cmd = parse_launch_command("python -m sglang.launch_server --model-path '\ue000x' --host \\$h")
    assert list(cmd.argv) == ["--model-path", "\ue000x", "--host", "$h"]
