"""Pre-flight over recorded H200 readings (fixtures/gpus) and real sockets / files."""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sglang_logscope.cli import main
from sglang_logscope.errors import CommandError, LogscopeError
from sglang_logscope.machine import gpus as g
from sglang_logscope.machine.gpus import GpuReadError, ProcFs, StaticReader, parse_nvidia_smi
from sglang_logscope.machine.preflight import CODES, Preflight, plan_gpus, preflight, probe_port

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "gpus"
H200 = FIX / "h200x2"
MODEL_CONFIG = FIX / "models" / "qwen2-87l" / "config.json"
TITLE = "sglang::scheduler_TP0"


def reading(tag: str) -> g.Reading:
    return parse_nvidia_smi(
        (H200 / f"smi-gpus-{tag}.csv").read_text(), (H200 / f"smi-apps-{tag}.csv").read_text()
    )


class FailingReader:
    def read(self) -> g.Reading:
        raise GpuReadError("no GPU reading: pynvml is not installed; nvidia-smi not found")


@pytest.fixture
def model(tmp_path: Path) -> Path:
    d = tmp_path / "model"
    d.mkdir()
    (d / "config.json").write_text(MODEL_CONFIG.read_text())
    return d


@pytest.fixture
def procroot(tmp_path: Path) -> Path:
    root = tmp_path / "proc"
    d = root / "801"
    (d / "fd").mkdir(parents=True)
    (d / "cmdline").write_bytes(f"{TITLE}\0tests/gpu/holder.py\0--gib\x0020\0".encode())
    (d / "comm").write_text("sglang::schedul\n")
    (d / "stat").write_text("801 (sglang::schedul) S 1 801 801 0\n")
    os.symlink("/dev/nvidia0", d / "fd" / "4")
    return root


@pytest.fixture
def free_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    yield port


def run(
    text: str,
    tag: str = "idle",
    *,
    procroot: Path | None = None,
    env: dict[str, str] | None = None,
    port_free: bool = True,
    cwd: Path | None = None,
    reader: Any = None,
) -> Preflight:
    return preflight(
        text,
        reader=reader or StaticReader(reading(tag)),
        procfs=ProcFs(procroot or "/nonexistent-proc"),
        env=env or {},
        port_probe=(lambda host, port: None) if port_free else probe_port,
        cwd=cwd,
    )


def codes(result: Preflight) -> dict[str, Any]:
    return {f.code: f for f in result.findings}


def launch(model: Path, extra: str = "", redirect: str = "") -> str:
    return f"python -m sglang.launch_server --model-path {model} --tp 2 {extra} {redirect}"


def test_recorded_holder_makes_every_gpu_problem_visible(model: Path, procroot: Path) -> None:
    result = run(launch(model), "holder", procroot=procroot)
    found = codes(result)
    assert sorted(found) == ["PF003", "PF005", "PF006"]
    pf3 = found["PF003"]
    assert pf3.gpu == 0 and "pid 801 holds 20.60 GiB" in pf3.message
    assert f"{TITLE} tests/gpu/holder.py --gib 20" in pf3.message
    assert "ps -o pid,ppid,cmd -p 801" in (pf3.suggestion or "")
    assert "cuda:0 has 119.20 GiB free, cuda:1 139.80 GiB" in found["PF005"].message
    pf6 = found["PF006"]
    assert pf6.data["empty_fits"] is True and "is what makes it fail" in pf6.message
    assert result.live_f0_gib == pytest.approx(122058 / 1024 - 0.6, abs=1e-6)
    assert result.empty_f0_gib == pytest.approx((122058 + 21099) / 1024 - 0.6, abs=1e-6)
    assert result.exit_code == 1 and not result.clear
    d = result.to_dict()
    assert d["schema_version"] == 2 and d["clear"] is False
    assert [f["code"] for f in d["findings"]] == ["PF003", "PF005", "PF006"]
    assert (
        d["findings"][0]["severity"] == "error" and d["findings"][0]["name"] == "sglang-holds-gpu"
    )
    json.dumps(d)


def test_after_the_holder_ends_it_is_clear(model: Path) -> None:
    result = run(launch(model), "after")
    assert [f.code for f in result.findings] == ["PF017"]
    assert result.clear and result.exit_code == 0
    assert "weights 112.50 GiB" in result.findings[0].message
    # the release the verdict rests on is said next to it (here none was given)
    assert "(SGLang 0.5.23 assumed)" in result.findings[0].message


def test_holder_on_an_unused_gpu_is_not_this_launchs_problem(model: Path, procroot: Path) -> None:
    text = launch(model).replace("--tp 2", "--tp 1 --base-gpu-id 1")
    model_one = json.loads(MODEL_CONFIG.read_text())
    model_one["num_hidden_layers"] = 43
    (model / "config.json").write_text(json.dumps(model_one))
    result = run(text, "holder", procroot=procroot)
    assert result.plan.ordinals == (1,)
    assert [f.code for f in result.findings] == ["PF017"]


def test_non_sglang_holder_and_hidden_memory(model: Path, tmp_path: Path) -> None:
    gpus = "0, GPU-a, NVIDIA H200, 143771, 30000, 113153\n1, GPU-b, NVIDIA H200, 143771, 30000, 113153\n"
    apps = "GPU-a, 4242, /usr/bin/python3, 8000\n"
    reader = StaticReader(parse_nvidia_smi(gpus, apps))
    found = codes(
        run(launch(model).replace("--tp 2", "--tp 2 --mem-fraction-static 0.5"), reader=reader)
    )
    assert "PF004" in found and "pid 4242 holds 7.81 GiB" in found["PF004"].message
    assert found["PF004"].severity.value == "warning"
    assert "PF018" in found  # pid 4242 does not exist here: a host PID
    hidden = [f for f in run(launch(model), reader=reader).findings if f.code == "PF015"]
    assert [f.gpu for f in hidden] == [0, 1]
    assert "21.48 GiB used by processes that cannot be seen" in hidden[0].message


def test_imbalance_check_turned_off_is_said(model: Path, procroot: Path) -> None:
    env = {"SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK": "1"}
    pf5 = codes(run(launch(model), "holder", procroot=procroot, env=env))["PF005"]
    assert pf5.data["check_disabled"] is True and "turned off" in pf5.message
    text = "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=false " + launch(model)
    assert codes(run(text, "holder", procroot=procroot))["PF005"].data["check_disabled"] is True


def test_gpus_missing_under_cuda_visible_devices(model: Path) -> None:
    result = run("CUDA_VISIBLE_DEVICES=1 " + launch(model))
    assert result.plan.cvd_origin == "command" and result.plan.cuda_visible_devices == "1"
    pf2 = codes(result)["PF002"]
    assert "only 1 are visible (CUDA_VISIBLE_DEVICES=1 from command): cuda:1 missing" in pf2.message
    result = run(launch(model, "--base-gpu-id 1"), env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert result.plan.cvd_origin == "environment" and result.plan.ordinals == (1, 2)
    assert codes(result)["PF002"].data["missing"] == [2]


@pytest.mark.parametrize(
    ("extra", "ranks", "ordinals"),
    [
        ("", 2, (0, 1)),
        ("--dp 2", 4, (0, 1, 2, 3)),
        ("--dp 2 --enable-dp-attention", 2, (0, 1)),
        ("--pp-size 2 --base-gpu-id 2", 4, (2, 3, 4, 5)),
        ("--gpu-id-step 2", 2, (0, 2)),
        ("--nnodes 2 --node-rank 1", 1, (0,)),
    ],
)
def test_plan(extra: str, ranks: int, ordinals: tuple[int, ...], model: Path) -> None:
    from sglang_logscope.command.parse import parse_launch_command

    plan = plan_gpus(parse_launch_command(launch(model, extra)), {})
    assert (plan.ranks, plan.ordinals, plan.cvd_origin) == (ranks, ordinals, "unset")


def test_rejected_flag(model: Path) -> None:
    pf1 = codes(run(launch(model, "--tp-szie 2")))["PF001"]
    assert "unknown --tp-szie" in pf1.message and pf1.severity.value == "error"


def test_port_in_use_and_foreign_host(model: Path, free_port: int) -> None:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", free_port))
        s.listen()
        pf7 = codes(run(launch(model, f"--port {free_port}"), port_free=False))["PF007"]
        assert f"127.0.0.1:{free_port} in use" in pf7.message
    assert "PF007" not in codes(run(launch(model, f"--port {free_port}"), port_free=False))
    pf8 = codes(run(launch(model, "--host 203.0.113.7"), port_free=False))["PF008"]
    assert "not an address of this machine" in pf8.message
    assert probe_port("no-such-host.invalid", 1) is not None


def test_model_path_checks(tmp_path: Path) -> None:
    missing = codes(run(launch(tmp_path / "nope")))
    assert "PF009" in missing and "PF014" in missing  # no model, no budget
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "PF010" in codes(run(launch(empty)))
    hub = codes(run(launch(Path("Qwen/Qwen2.5-7B-Instruct")), cwd=tmp_path))
    assert "PF016" in hub and "PF009" not in hub


def test_log_redirections(model: Path, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    assert "PF011" not in codes(run(launch(model, redirect=f"> {log} 2>&1")))
    log.write_text("")
    assert "PF011" not in codes(run(launch(model, redirect=f"> {log} 2>&1")))
    log.write_text("[2026-11-29 10:00:00] earlier run\n")
    pf11 = codes(run(launch(model, redirect=f"> {log} 2>&1")))["PF011"]
    assert "previous run's log is lost" in pf11.message and f"mv {log} {log}." in (
        pf11.suggestion or ""
    )
    pf12 = codes(run(launch(model, redirect="2>&1 >> serve.log"), cwd=tmp_path))["PF012"]
    assert "mixed" in pf12.message and pf12.data["bytes"] == log.stat().st_size
    # this machine's clock: RFC 3339 with its offset (issue #16)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", pf12.data["modified"])


def test_no_gpu_reading_is_a_finding_and_the_rest_is_checked(model: Path, tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("old\n")
    result = run(launch(model, redirect=f"> {log}"), reader=FailingReader())
    assert sorted(codes(result)) == ["PF011", "PF013"] and result.gpus is None


def test_no_launch_is_a_usage_error() -> None:
    with pytest.raises(CommandError):
        run("echo hello")


def test_every_code_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "gpus.md").read_text()
    for code in CODES.values():
        assert f"| {code.code} | {code.name} | {code.severity.value} |" in doc


def test_cli_exit_codes(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    model: Path,
    free_port: int,
) -> None:
    tag = {"value": "after"}
    monkeypatch.setattr(g, "reader_for", lambda source: StaticReader(reading(tag["value"])))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(launch(model, f"--port {free_port}") + "\n")

    def call(*args: str) -> int:
        with pytest.raises(SystemExit) as info:
            main(["preflight", "--expect-args", str(cmd), *args])
        code = info.value.code
        assert isinstance(code, int)
        return code

    assert call() == 0
    assert "preflight: CLEAR" in capsys.readouterr().out
    tag["value"] = "holder"
    assert call("--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["clear"] is False and {"PF005", "PF006"} <= {f["code"] for f in data["findings"]}
    cmd.write_text("echo not a launch\n")
    assert call() == 2
    assert capsys.readouterr().err.startswith("logscope: error:")
    cmd.unlink()
    assert call() == 2
    assert "cannot read" in capsys.readouterr().err


def test_errors_are_logscope_errors() -> None:
    assert issubclass(GpuReadError, LogscopeError)


def test_a_host_name_from_the_command_is_never_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: ``--host made-up.example`` in a command file was looked up through DNS."""
    import socket

    from sglang_logscope.machine import preflight as pf

    calls: list[tuple[object, int]] = []
    real = socket.getaddrinfo

    def recording(host: object, port: object, *args: object, **kwargs: object) -> object:
        flags = int(kwargs.get("flags", 0))  # type: ignore[call-overload]
        calls.append((host, flags))
        return real(host, port, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", recording)
    assert pf.probe_port("made-up.example", 30000) == pf.NOT_RESOLVED
    assert all(flags & socket.AI_NUMERICHOST for _, flags in calls)
    assert pf.probe_port("localhost", 0) is None  # an address of this machine, no look-up
    assert ("localhost", 0) not in [(h, 0) for h, _ in calls]


def test_a_host_name_is_reported_as_not_probed() -> None:
    from sglang_logscope.command.parse import parse_launch_command
    from sglang_logscope.machine import preflight as pf

    cmd = parse_launch_command(
        "python -m sglang.launch_server --model-path m --host made-up.example --port 30000"
    )
    (finding,) = pf._port_findings(cmd, pf.probe_port)
    assert finding.code == "LS081" and "made-up.example" in finding.message


def test_the_preflight_budget_is_the_budget_on_this_machines_gpus(model: Path) -> None:
    """docs/memory.md: `budget` does not read this machine's GPUs; `preflight -e` does, and its
    JSON `budget` is the same document as `budget --format json`, priced on the launch's GPUs
    as read (name, capacity) with F0 = their least free memory now - 0.6 GiB of context."""
    from sglang_logscope.memory.budget import budget
    from sglang_logscope.memory.gpus import PRESETS

    result = run(launch(model), "after")
    doc = result.to_dict()["budget"]
    assert doc["sources"]["gpu"] == "2 x NVIDIA H200 (143771 MiB, live)"
    assert (
        doc["sources"]["f0"] == "measured (live: min free of the launch's GPUs - 0.6 GiB context)"
    )
    assert result.live_f0_gib is not None
    assert doc["per_gpu"]["f0_gib"] == pytest.approx(result.live_f0_gib, abs=0.01)
    plain = budget({"model_path": str(model), "tp_size": 2}, gpus=[PRESETS["h200"]] * 2)
    assert set(doc) == set(plain.to_dict())
