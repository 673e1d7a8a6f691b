"""Remote awareness (issue 15): a command run through ssh / pct exec / docker exec / kubectl exec
is not judged against this machine; check, preflight and launch say where it runs and print the
command that runs the same check there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sglang_logscope.cli import main
from sglang_logscope.machine.preflight import preflight
from sglang_logscope.watch.launch import preflight_blocks, run_preflight

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
DEMO_THERE = "ssh root@gpu-box 'pct exec 129 -- logscope preflight --here --expect-args -'"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    code = exc.value.code
    return int(code) if isinstance(code, int) else 1, out.out, out.err


def test_preflight_refuses_to_judge_this_machine_for_the_demo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cmd = DEMO / "command-multiline.txt"
    code, out, _ = _cli(["preflight", "-e", str(cmd), "-f", "json"], capsys)
    assert code == 4  # issue 33: was 2, which is usage and input errors everywhere else
    data = json.loads(out)
    assert data["remote"]["where"] == "host root@gpu-box, Proxmox container 129"
    assert data["remote"]["command"] == f"{DEMO_THERE} < {cmd}"
    codes = [f["code"] for f in data["findings"]]
    assert "PF019" in codes and "LS030" in codes  # the lint still speaks
    assert not {"PF009", "PF013", "PF002"} & set(codes)  # no model path / GPU judgement
    assert data["gpus"] is None


def test_preflight_here_judges_this_machine() -> None:
    text = (DEMO / "command-multiline.txt").read_text()
    result = preflight(text, here=True, port_probe=lambda host, port: None)
    codes = {f.code for f in result.findings}
    assert result.remote is None and "PF019" not in codes
    assert "PF009" in codes  # /root/models/Qwen3.6-27B does not exist here


@pytest.mark.parametrize(
    ("command", "there"),
    [
        (
            "docker exec -e A=1 sglang bash -c 'python3 -m sglang.launch_server --model-path m'",
            "docker exec -i sglang logscope preflight --here --expect-args -",
        ),
        (
            "kubectl exec -n ml pod/sglang-0 -- python3 -m sglang.launch_server --model-path m",
            "kubectl exec -i pod/sglang-0 -- logscope preflight --here --expect-args -",
        ),
    ],
)
def test_containers_are_elsewhere(command: str, there: str) -> None:
    result = preflight(command)
    assert result.remote is not None and result.remote["command"].startswith(there)
    assert result.exit_code == 4  # issue 33: was 2 (usage and input errors)


def test_launch_says_where_and_does_not_block_for_it(tmp_path: Path) -> None:
    argv = ["ssh", "gpu1", "nohup python3 -m sglang.launch_server --model-path /m > s.log 2>&1 &"]
    checked = run_preflight(argv, {}, tmp_path)
    assert checked.remote is not None
    assert checked.remote["command"].startswith("ssh gpu1 'logscope preflight --here")
    assert not preflight_blocks(checked)
    # ... but the lint's errors do block: this one would kill its own shell.
    killer = ["bash", "-c", "pkill -f sglang; python3 -m sglang.launch_server --model-path /m"]
    assert preflight_blocks(run_preflight(killer, {}, tmp_path))


def test_check_reads_the_command_from_stdin_and_here_turns_live_evidence_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the printed remote check runs: the command on stdin, --here."""
    log = tmp_path / "sglang-serve.log"
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    monkeypatch.setattr("sys.stdin", open(DEMO / "command.txt", encoding="utf-8"))  # noqa: SIM115
    code, out, _ = _cli(
        ["check", "--here", "--expect-args", "-", "-f", "json", "--launched-at", "now", str(log)],
        capsys,
    )
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "stale"
    assert data["remote"] is None and data["process"] is None  # looked: nothing holds it
    assert "LS047" in [f["code"] for f in data["findings"]]
    assert data["server"] is not None and data["server"]["url"] == "http://127.0.0.1:30000"
