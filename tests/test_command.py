"""parse_launch_command: shell unwrapping, argparse-exact reading, ``logscope args``."""

from __future__ import annotations

import contextlib
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sglang_logscope.cli import main
from sglang_logscope.command.argtable import ArgOption, load_arg_table
from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.errors import CommandError, LogscopeError
from sglang_logscope.limits import problem

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "commands"

ISSUE_EXAMPLE = (
    "ssh root@host 'pct exec 129 -- bash -c \" pkill -9 -f sglang 2>/dev/null; sleep 5; "
    "rm -f /root/sglang-serve.log; nohup /root/ml-env/bin/python3 -m sglang.launch_server "
    "\\ --model-path /root/models/Qwen3.6-27B \\ --tp-size 2 \\ --mem-fraction-static 0.88 "
    "\\ --speculative-algo NEXTN \\ --speculative-num-steps 3 \\ --speculative-eagle-topk 1 "
    "\\ --speculative-num-draft-tokens 4 \\ --context-length 32768 "
    "\\ --mamba-full-memory-ratio 0.5 > /root/sglang-serve.log 2>&1 & echo PID=$! \"'"
)


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_issue_example(version: str) -> None:
    """The flattened paste: bash passes ``' --model-path'`` (issue 15); as meant, it reads fine."""
    raw = parse_launch_command(ISSUE_EXAMPLE, sglang_version=version)
    assert raw.argv[:2] == (" --model-path", "/root/models/Qwen3.6-27B")
    assert raw.rejected and "model_path" not in raw.explicit
    assert any(e.startswith("unrecognized arguments:") for e in raw.errors)
    assert raw.meant is not None
    cmd = raw.meant
    assert raw.to_dict()["meant_argv"] == list(cmd.argv)
    assert cmd.program == "sglang.launch_server"
    assert cmd.sglang_version == version
    assert cmd.wrappers == ("ssh", "pct exec", "bash -c", "nohup")
    assert cmd.log_path == "/root/sglang-serve.log" and not cmd.log_append
    assert cmd.args["mem_fraction_static"] == 0.88
    assert cmd.args["tp_size"] == 2
    assert cmd.args["speculative_algorithm"] == "NEXTN"
    assert cmd.rewrites == {"speculative_algorithm": ("NEXTN", "EAGLE")}
    assert cmd.args["context_length"] == 32768
    assert cmd.args["mamba_full_memory_ratio"] == 0.5
    assert cmd.args["model_path"] == "/root/models/Qwen3.6-27B"
    assert cmd.argv[:2] == ("--model-path", "/root/models/Qwen3.6-27B")
    assert not cmd.rejected
    assert "tp_size" in cmd.explicit and "dp_size" not in cmd.explicit
    assert cmd.args["dp_size"] == 1  # defaults are filled
    assert set(cmd.explicit_args()) == set(cmd.explicit)


def test_abbreviations_typos_and_ambiguity() -> None:
    cmd = parse_launch_command(
        "python -m sglang.launch_server --model m --mem-frac 0.8 --tp 4 --speculative-algo EAGLE"
        " --pp 2 --mem-fraction-statc 0.9",
        sglang_version="0.5.23",
    )
    assert cmd.args["mem_fraction_static"] == 0.8
    assert cmd.args["tp_size"] == 4
    assert cmd.args["speculative_algorithm"] == "EAGLE"
    assert set(cmd.ambiguous["--pp"]) == {
        "--pp-size",
        "--pp-max-micro-batch-size",
        "--pp-async-batch-depth",
    }
    assert cmd.unknown == ("--mem-fraction-statc",)
    assert cmd.suggestions == {"--mem-fraction-statc": "--mem-fraction-static"}
    assert cmd.rejected
    assert "pp_size" not in cmd.explicit


def test_values_typed_and_validated() -> None:
    cmd = parse_launch_command(
        "python3 -m sglang.launch_server --model-path m --port=30000 --trust-remote-code "
        "--cuda-graph-bs 1 2 4 --speculative-algorithm MTP --context-length 4k",
        sglang_version="0.5.9",
    )
    assert cmd.args["port"] == 30000 and cmd.args["trust_remote_code"] is True
    assert cmd.args["cuda_graph_bs"] == [1, 2, 4]
    assert cmd.args["enable_torch_compile"] is False
    assert any("invalid choice: 'MTP'" in e for e in cmd.errors)
    assert any("invalid int value: '4k'" in e for e in cmd.errors)
    assert cmd.rejected


def test_missing_value_and_required() -> None:
    cmd = parse_launch_command(
        "python -m sglang.launch_server --port --tp 2", sglang_version="0.5.9"
    )
    assert any("expected one argument" in e for e in cmd.errors)
    assert any("required: --model-path" in e for e in cmd.errors)


def test_shell_structure() -> None:
    text = """
    # start the server
    export CUDA_VISIBLE_DEVICES=0,1
    cd /srv && source venv/bin/activate
    SGLANG_LOG=1 timeout 3600 numactl --cpunodebind=0 -m 0 stdbuf -oL \\
        /opt/venv/bin/python3.11 -u -m sglang.launch_server \\
        --model-path 'Qwen/Qwen3 8B' --tp 2 \\
        2>&1 | tee -a serve.log
    echo started
    """
    cmd = parse_launch_command(text, sglang_version="0.5.23")
    assert cmd.args["model_path"] == "Qwen/Qwen3 8B"
    assert cmd.env == {"CUDA_VISIBLE_DEVICES": "0,1", "SGLANG_LOG": "1"}
    assert cmd.wrappers == ("timeout", "numactl", "stdbuf")
    assert cmd.log_path == "serve.log" and cmd.log_append


@pytest.mark.parametrize(
    ("text", "wrappers"),
    [
        (
            "docker exec -it -e HF_TOKEN=x sglang python3 -m sglang.launch_server --model-path m",
            ("docker exec",),
        ),
        (
            "docker run --gpus all --shm-size 32g -p 30000:30000 -v /m:/m lmsysorg/sglang:latest "
            "python3 -m sglang.launch_server --model-path m",
            ("docker run",),
        ),
        (
            "kubectl exec -n ml pod-0 -c srv -- python -m sglang.launch_server --model-path m",
            ("kubectl exec",),
        ),
        (
            "sudo -u svc env A=1 setsid sh -c 'exec python -m sglang.launch_server --model-path m'",
            ("sudo", "env", "setsid", "sh -c", "exec"),
        ),
        (
            "ssh -p 2222 -i key user@h \"bash -lc 'python -m sglang.launch_server --model-path m >> l.log'\"",
            ("ssh", "bash -c"),
        ),
    ],
)
def test_wrappers(text: str, wrappers: tuple[str, ...]) -> None:
    cmd = parse_launch_command(text)
    assert cmd.wrappers == wrappers
    assert cmd.args["model_path"] == "m"
    assert not cmd.rejected


def test_sglang_serve_positional_model() -> None:
    cmd = parse_launch_command("sglang serve Qwen/Qwen3-8B --tp-size 2")
    assert cmd.program == "sglang serve"
    assert cmd.args["model_path"] == "Qwen/Qwen3-8B" and cmd.args["tp_size"] == 2


def test_config_yaml(tmp_path: Path) -> None:
    (tmp_path / "cfg.yaml").write_text(
        "model-path: /models/x\nmem-fraction-static: 0.7\ntrust-remote-code: true\n"
        "enable-torch-compile: false\ncuda-graph-bs: [1, 2]\ntp-size: 2\n"
    )
    cmd = parse_launch_command(
        "python -m sglang.launch_server --config cfg.yaml --tp-size 4",
        sglang_version="0.5.9",
        base_dir=tmp_path,
    )
    assert cmd.args["model_path"] == "/models/x"
    assert cmd.args["mem_fraction_static"] == 0.7
    assert cmd.args["trust_remote_code"] is True
    assert "enable_torch_compile" not in cmd.explicit
    assert cmd.args["cuda_graph_bs"] == [1, 2]
    assert cmd.args["tp_size"] == 4  # the command line overrides the config
    assert cmd.config_path == str(tmp_path / "cfg.yaml")
    assert not cmd.rejected
    (tmp_path / "bad.yaml").write_text("mem_fraction_static: 0.7\n")
    bad = parse_launch_command(
        "python -m sglang.launch_server --model-path m --config bad.yaml", base_dir=tmp_path
    )
    assert bad.unknown == ("--mem_fraction_static",)
    with pytest.raises(CommandError, match="cannot read"):
        parse_launch_command("python -m sglang.launch_server --config none.yaml", base_dir=tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "echo hello",
        "python -m vllm.entrypoints.api_server --model m",
        "python -m sglang.launch_server 'oops",
    ],
)
def test_no_launch_is_a_command_error(text: str) -> None:
    with pytest.raises(CommandError):
        parse_launch_command(text)


FIXTURE_EXPECT: dict[str, tuple[str, dict[str, Any], bool]] = {
    "005": (
        "0.5.23",
        {"model_path": "Qwen/Qwen3-Next-80B-A3B-Thinking", "port": 3000, "tp_size": 4},
        False,
    ),
    "011": (
        "0.4.10.post2",
        {
            "tp_size": 8,
            "mem_fraction_static": 0.96,
            "speculative_algorithm": "NEXTN",
            "speculative_draft_model_path": "/mntfn/open_model/deepseek/deepseek-nextn",
            "chunked_prefill_size": 2048,
            "quantization": "fp8",
        },
        False,
    ),
    "012": ("0.5.9", {"dp_size": 8, "enable_p2p_check": True, "mem_fraction_static": 0.01}, False),
    "019": (
        "0.5.9",
        {
            "model_path": "../DeepSeek-R1-Distill-Qwen-32B/",
            "tp_size": 4,
            "dtype": "bfloat16",
            "max_running_requests": 100,
            "enable_memory_saver": True,
        },
        False,
    ),
    "021": (
        "0.5.15",
        {
            "speculative_algorithm": "NEXTN",
            "mamba_ssm_dtype": "bfloat16",
            "mem_fraction_static": 0.8,
            "max_running_requests": 64,
        },
        False,
    ),
    "048": (
        "0.5.9",
        {
            "port": 30000,
            "host": "0.0.0.0",
            "tp_size": 1,
            "random_seed": 1234,
            "context_length": 8192,
        },
        False,
    ),
    "054": (
        "0.5.23",
        {
            "model_path": "Qwen/Qwen3.5-9B",
            "tp_size": 2,
            "context_length": 262144,
            "log_requests": True,
        },
        False,
    ),
}


@pytest.mark.parametrize("case", sorted(FIXTURE_EXPECT))
def test_corpus_fixtures(case: str) -> None:
    version, expected, rejected = FIXTURE_EXPECT[case]
    path = FIXTURES / f"{case}.txt"
    assert path.read_text().startswith("# source: ")
    cmd = parse_launch_command(path.read_text(), sglang_version=version)
    for key, value in expected.items():
        assert cmd.args[key] == value, key
        assert key in cmd.explicit
    assert cmd.rejected is rejected, (cmd.unknown, cmd.ambiguous, cmd.errors)


def test_fixture_011_is_ambiguous_in_0_5_9() -> None:
    cmd = parse_launch_command((FIXTURES / "011.txt").read_text(), sglang_version="0.5.9")
    assert "--speculative-draft" in cmd.ambiguous


def test_fixture_env_and_log() -> None:
    cmd = parse_launch_command((FIXTURES / "021.txt").read_text(), sglang_version="0.5.15")
    assert cmd.program == "sglang serve"
    assert cmd.env["CUDA_VISIBLE_DEVICES"] == "3" and cmd.env["SGLANG_ENABLE_SPEC_V2"] == "1"
    cmd = parse_launch_command((FIXTURES / "054.txt").read_text())
    assert cmd.log_path == "sglang-exp001-enable-metrics.log" and not cmd.log_append


# --- CLI ------------------------------------------------------------------------------------


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_cli_json_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flattened = tmp_path / "flattened.txt"
    flattened.write_text(ISSUE_EXAMPLE)
    code, out, _ = _run(["args", str(flattened), "--sglang-version", "0.5.9"], capsys)
    assert code == 1 and "' --model-path'" in out and "as you meant it:" in out
    good = tmp_path / "good.txt"
    good.write_text(ISSUE_EXAMPLE.replace("\\ --", "--"))
    code, out, _ = _run(
        ["args", str(good), "--format", "json", "--sglang-version", "0.5.9"], capsys
    )
    assert code == 0
    data = json.loads(out)
    assert data["schema_version"] == 2 and data["sglang_version"] == "0.5.9"
    assert data["wrappers"] == ["ssh", "pct exec", "bash -c", "nohup"]
    assert data["args"]["mem_fraction_static"] == 0.88
    assert "tp_size" in data["explicit"] and data["unknown"] == []
    bad = tmp_path / "bad.txt"
    bad.write_text("python -m sglang.launch_server --model-path m --mem-fraction-statc 0.8")
    code, out, _ = _run(["args", str(bad)], capsys)
    assert code == 1
    assert "--mem-fraction-static" in out and "exit at once" in out
    empty = tmp_path / "empty.txt"
    empty.write_text("ls -l\n")
    code, _, err = _run(["args", str(empty)], capsys)
    assert code == 2 and "no SGLang launch" in err
    code, _, err = _run(["args", str(tmp_path / "missing.txt")], capsys)
    assert code == 2


# --- properties -----------------------------------------------------------------------------

_TABLE = load_arg_table("0.5.23")
_SIMPLE = [
    o
    for o in _TABLE.options
    if o.action in ("store", "store_true")
    and o.type in ("int", "float", "str", None)
    and o.nargs in (None, 0, "+")
    and o.field != "config"
]
_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=12
).filter(lambda s: not s.startswith("-"))


@st.composite
def _arg(draw: st.DrawFn, opt: ArgOption) -> list[str]:
    flag = draw(st.sampled_from([f for f in opt.flags if f.startswith("--")]))
    if opt.nargs == 0:
        return [flag]

    def one() -> st.SearchStrategy[str]:
        if opt.choices:
            return st.sampled_from([str(c) for c in opt.choices])
        if opt.type == "int":
            return st.integers(0, 10**6).map(str)
        if opt.type == "float":
            return st.floats(0, 1e6, allow_nan=False).map(repr)
        return _TEXT

    if opt.nargs == "+":
        return [flag, *draw(st.lists(one(), min_size=1, max_size=3))]
    return [flag, draw(one())]


@st.composite
def _argv(draw: st.DrawFn) -> list[str]:
    opts = draw(st.lists(st.sampled_from(_SIMPLE), max_size=6, unique_by=lambda o: o.field))
    argv = ["--model-path", draw(_TEXT)]
    for opt in opts:
        if opt.field != "model_path":
            argv += draw(_arg(opt))
    return argv


_FAST = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@_FAST
@given(_argv())
def test_join_round_trip(argv: list[str]) -> None:
    cmd = parse_launch_command("python -m sglang.launch_server " + shlex.join(argv))
    assert list(cmd.argv) == argv
    assert not cmd.unknown and not cmd.ambiguous
    # the same argv read straight from the table agrees
    for i, word in enumerate(argv):
        opt = _TABLE.option(word)
        if opt is not None and opt.nargs is None:
            value = opt.convert(argv[i + 1])
            if opt.field in {r.field for r in cmd.out_of_range}:  # issue 20: dropped, and why
                assert problem(opt.field, value) is not None and opt.field not in cmd.args
            else:
                assert cmd.args[opt.field] == value


@_FAST
@given(_argv(), st.sampled_from(["bash", "ssh", "nohup"]))
def test_wrapping_does_not_change_the_result(argv: list[str], how: str) -> None:
    inner = "python -m sglang.launch_server " + shlex.join(argv)
    if how == "bash":
        text = "bash -c " + shlex.quote(inner)
    elif how == "ssh":
        text = "ssh -p 22 root@host " + shlex.quote(inner)
    else:
        text = "nohup " + inner + " > out.log 2>&1 &"
    plain, wrapped = parse_launch_command(inner), parse_launch_command(text)
    assert wrapped.args == plain.args and wrapped.argv == plain.argv
    assert wrapped.explicit == plain.explicit and wrapped.errors == plain.errors


@settings(max_examples=examples(150), deadline=None)
@given(
    st.text(max_size=120)
    | st.lists(
        st.sampled_from(
            [
                "python",
                "-m",
                "sglang.launch_server",
                "sglang",
                "serve",
                "--tp",
                "'",
                '"',
                "\\",
                "|",
                "&&",
                ">",
                "bash",
                "-c",
                "ssh",
                "h",
                "--config",
                "x.yaml",
                "pct",
                "exec",
                "--",
                "=",
                "--mem-frac",
                "0.8",
                "\n",
                "$(",
                ")",
            ]
        ),
        max_size=14,
    ).map(" ".join)
)
def test_arbitrary_text_raises_only_logscope_errors(text: str) -> None:
    with contextlib.suppress(LogscopeError):
        parse_launch_command(text, base_dir=Path("/nonexistent"))
