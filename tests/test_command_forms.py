"""Launch commands in the forms issue 17 lists: env assignments before a wrapper script and an
interpreter path, ``uv run``/``conda run``, ``sglang serve``, ``torchrun``, and exec-form lists
(Dockerfile CMD/ENTRYPOINT, compose ``command:``, Kubernetes ``command:``/``args:``).

The first command is the issue's own example; the manifests are synthetic (written here in the
documented syntax of each format: no real manifest is in fixtures/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.command.unwrap import find_launch

SERVER = ["--model-path", "m", "--tp", "2"]

FORMS = {
    "env, wrapper script, interpreter path": (
        "CUDA_VISIBLE_DEVICES=0,1 HF_HOME=/x /opt/wrapper.sh /venv/bin/python3 -m "
        "sglang.launch_server --model-path m --tp 2"
    ),
    "uv run": "uv run --with sglang python -m sglang.launch_server --model-path m --tp 2",
    "conda run": "conda run --no-capture-output -n sgl python -m sglang.launch_server --model-path m --tp 2",
    "sglang serve": "sglang serve --model-path m --tp 2",
    "torchrun -m": "torchrun --nproc_per_node 2 --standalone -m sglang.launch_server --model-path m --tp 2",
    "torchrun script": "torchrun --nproc-per-node=2 /sgl/python/sglang/launch_server.py --model-path m --tp 2",
    "Dockerfile CMD": 'FROM lmsysorg/sglang\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]\n',
    "Dockerfile ENTRYPOINT + CMD": (
        'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\nCMD ["--model-path", "m", "--tp", "2"]\n'
    ),
    "compose command list": (
        "services:\n  sglang:\n    image: lmsysorg/sglang\n    command:\n      - python3\n"
        "      - -m\n      - sglang.launch_server\n      - --model-path\n      - m\n      - --tp\n"
        '      - "2"\n'
    ),
    "k8s command + args": (
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: sglang\n        command: [python3, -m, sglang.launch_server]\n"
        "        args:\n        - --model-path\n        - m\n        - --tp\n        - 2\n"
    ),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_launch_found_in_every_form(name: str) -> None:
    found = find_launch(FORMS[name])
    assert found is not None, name
    assert found.argv == SERVER
    cmd = parse_launch_command(FORMS[name])
    assert cmd.explicit_args()["tp_size"] == 2 and cmd.explicit_args()["model_path"] == "m"


def test_env_before_the_wrapper_reaches_the_launch() -> None:
    found = find_launch(FORMS["env, wrapper script, interpreter path"])
    assert found is not None
    assert found.env == {"CUDA_VISIBLE_DEVICES": "0,1", "HF_HOME": "/x"}
    assert "wrapper.sh" in found.wrappers


def test_a_script_without_a_launch_after_it_is_still_nothing() -> None:
    assert find_launch("/opt/run_tests.sh --fast") is None
    assert find_launch("services:\n  web:\n    command: [nginx, -g, daemon off;]\n") is None


def test_compose_entrypoint_and_command_from_a_real_paste() -> None:
    """fixtures/real/037/command.txt: a compose service's ``entrypoint:`` with its folded
    ``command:`` arguments, as the reporter pasted them."""
    real = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "037" / "command.txt"
    cmd = parse_launch_command(real.read_text(encoding="utf-8"))
    assert cmd.program == "sglang.launch_server" and not cmd.unknown
    assert cmd.explicit_args() == {
        "model_path": "/sgl-workspace/models/DeepSeek-R1-Distill-Qwen-7B",
        "host": "0.0.0.0",
        "port": 30000,
    }
