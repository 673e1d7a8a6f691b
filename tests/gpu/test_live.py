"""On real GPUs: a leftover process holding memory is seen, named and measured; then it clears.

Skipped where there is no CUDA GPU (CI has none). Run on a GPU machine with

    PYTHONPATH=. LOGSCOPE_LIVE_OUT=out python3 -m pytest tests/gpu -m gpu -o addopts= -v -s

A holder (``tests/gpu/holder.py``) allocates ``LOGSCOPE_HOLD_GIB`` (default 20) GiB on GPU 0 and
titles itself ``sglang::scheduler_TP0`` like a zombie SGLang scheduler. Every ``logscope`` output is
saved under ``LOGSCOPE_LIVE_OUT`` when set, with raw driver readings (``record.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU"),
]

ROOT = Path(__file__).resolve().parents[2]
HOLDER = Path(__file__).with_name("holder.py")
GIB = 1024**3
HOLD_GIB = float(os.environ.get("LOGSCOPE_HOLD_GIB", "20"))
TITLE = "sglang::scheduler_TP0"


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("LOGSCOPE_LIVE_OUT")
    path = Path(given) if given else tmp_path_factory.mktemp("live")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _env(**extra: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def logscope(
    out: Path, name: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``logscope ARGS`` as a user would; save its stdout/stderr as ``out/name``."""
    done = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env or _env(),
        timeout=120,
        check=False,
    )
    with (out / "transcript.txt").open("a") as f:
        f.write(f"$ logscope {' '.join(args)}    # {name}, exit {done.returncode}\n")
        f.write(done.stdout + done.stderr + "\n")
    return done


def gpus_json(out: Path, name: str, *args: str, env: dict[str, str] | None = None) -> Any:
    done = logscope(out, name, "gpus", "--format", "json", *args, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def holder_factory() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:  # never leave a holder behind, whatever failed
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)


def start_holder(started: list[subprocess.Popen[bytes]], ready: Path) -> dict[str, Any]:
    proc = subprocess.Popen(
        [
            TITLE,
            str(HOLDER),
            *("--gib", str(HOLD_GIB), "--device", "0"),
            *("--ready", str(ready), "--title", TITLE),
        ],
        executable=sys.executable,
        # argv[0] is not a path, so Python cannot find its venv: hand it this one's packages
        env=_env(
            CUDA_VISIBLE_DEVICES=None,
            PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, sys.path)]),
        ),
    )
    started.append(proc)
    deadline = time.monotonic() + 180
    while not ready.exists():
        assert proc.poll() is None, f"holder exited with {proc.returncode}"
        assert time.monotonic() < deadline, "holder never became ready"
        time.sleep(0.2)
    info: dict[str, Any] = json.loads(ready.read_text())
    info["proc"] = proc
    return info


def gpu0(data: Any) -> Any:
    return next(g for g in data["gpus"] if g["index"] == 0)


def test_holder_seen_then_clear(
    out_dir: Path, holder_factory: list[subprocess.Popen[bytes]]
) -> None:
    from record import record  # tests/gpu is on sys.path under pytest's rootdir insertion

    sources = ["nvml"] + (["nvidia-smi"] if shutil.which("nvidia-smi") else [])
    base = gpus_json(out_dir, "baseline", env=_env(CUDA_VISIBLE_DEVICES=None))
    ngpu = len(base["gpus"])
    assert ngpu == torch.cuda.device_count()
    record(out_dir / "fixtures", "idle")

    info = start_holder(holder_factory, out_dir / "holder.ready")
    pid = info["pid"]
    logscope(out_dir, "holder-text", "gpus", env=_env(CUDA_VISIBLE_DEVICES=None))
    record(out_dir / "fixtures", "holder")
    for source in sources:
        data = gpus_json(out_dir, f"holder-{source}", "--source", source, env=_env())
        g0 = gpu0(data)
        held = [p for p in g0["processes"] if p["pid"] == pid]
        assert held, f"{source}: holder pid {pid} not listed on GPU 0: {g0['processes']}"
        p = held[0]
        assert p["visibility"] == "here"
        assert p["sglang"] is True
        assert p["cmdline"].startswith(TITLE)
        assert p["used_bytes"] >= HOLD_GIB * GIB
        assert g0["free_bytes"] <= gpu0(base)["free_bytes"] - HOLD_GIB * GIB
        assert g0["unattributed_bytes"] is not None and g0["unattributed_bytes"] < 2 * GIB
        if ngpu > 1:
            others = [g for g in data["gpus"] if g["index"] != 0]
            assert all(pid not in [q["pid"] for q in g["processes"]] for g in others)
            assert min(g["free_bytes"] for g in others) - g0["free_bytes"] >= HOLD_GIB * GIB * 0.95

    held_port = socket.socket()  # what the leftover server's HTTP port looks like
    held_port.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held_port.bind(("127.0.0.1", PORT))
    held_port.listen()
    cmd = write_launch(out_dir, tp=min(ngpu, 2))
    (cmd.parent / "serve.log").write_text("[2026-11-29 10:00:00] the previous run's log\n")
    pre = preflight_json(out_dir, "preflight-held", cmd, expect=1)
    codes = {f["code"]: f for f in pre["findings"]}
    assert "PF003" in codes and f"pid {pid} " in codes["PF003"]["message"]
    assert TITLE in codes["PF003"]["message"] and codes["PF003"]["gpu"] == 0
    assert "PF006" in codes and codes["PF006"]["data"]["empty_fits"] is True
    assert pre["live_f0_gib"] < pre["empty_f0_gib"] - HOLD_GIB * 0.95
    assert "PF007" in codes and "PF011" in codes
    if ngpu > 1:
        assert "PF005" in codes and "unbalanced" in codes["PF005"]["message"]
    logscope(out_dir, "preflight-held-text", "preflight", "--expect-args", str(cmd))
    held_port.close()
    (cmd.parent / "serve.log").rename(cmd.parent / "serve.log.kept")  # as PF011 suggests

    if ngpu > 1:  # a subset: GPU 1 alone is cuda:0 and holds nothing of the holder's
        sub = gpus_json(out_dir, "holder-cvd-1", env=_env(CUDA_VISIBLE_DEVICES="1"))
        assert [(g["index"], g["cuda_index"]) for g in sub["gpus"]] == [(1, 0)]
        assert all(q["pid"] != pid for q in sub["gpus"][0]["processes"])

    proc: subprocess.Popen[bytes] = info["proc"]
    proc.terminate()
    assert proc.wait(timeout=60) == 0
    ended = time.monotonic()
    while True:  # the driver may release the memory after the process is gone
        after = gpus_json(out_dir, "after", env=_env(CUDA_VISIBLE_DEVICES=None))
        if all(q["pid"] != pid for q in gpu0(after)["processes"]):
            break
        assert time.monotonic() - ended < 60, "memory never released"
        time.sleep(0.5)
    with (out_dir / "transcript.txt").open("a") as f:
        f.write(f"# holder's memory released {time.monotonic() - ended:.2f} s after it exited\n\n")
    logscope(out_dir, "after-text", "gpus", env=_env(CUDA_VISIBLE_DEVICES=None))
    record(out_dir / "fixtures", "after")
    assert gpu0(after)["free_bytes"] >= gpu0(base)["free_bytes"] - GIB
    clear = preflight_json(out_dir, "preflight-clear", cmd, expect=0)
    assert clear["clear"] is True
    assert [f["code"] for f in clear["findings"]] == ["PF017"]  # the budget fits, nothing else
    logscope(out_dir, "preflight-clear-text", "preflight", "--expect-args", str(cmd))


PORT = 39517
#: Qwen1.5-110B's shape with 87 layers (fixtures/gpus/models): ~120B params, 112.5 GiB of bf16
#: weights per GPU at tp 2 — a budget that a free H200 fits and one holding 20 GiB does not.
CONFIG = ROOT / "fixtures" / "gpus" / "models" / "qwen2-87l" / "config.json"


def write_launch(out: Path, *, tp: int) -> Path:
    """A model directory (config.json only: budgets need no weights) and the launch command."""
    base = Path(tempfile.mkdtemp(prefix="preflight-"))
    model = base / "model"
    model.mkdir()
    config = json.loads(CONFIG.read_text())
    if tp == 1:  # one GPU: half the layers, so that it fits an empty H200 alone
        config["num_hidden_layers"] = 43
    (model / "config.json").write_text(json.dumps(config))
    cmd = base / "cmd.txt"
    cmd.write_text(
        f"python3 -m sglang.launch_server --model-path {model} --tp {tp} "
        f"--host 127.0.0.1 --port {PORT} > {base / 'serve.log'} 2>&1\n"
    )
    with (out / "transcript.txt").open("a") as f:
        f.write(f"$ cat {cmd}\n{cmd.read_text()}\n")
    return cmd


def preflight_json(out: Path, name: str, cmd: Path, *, expect: int) -> Any:
    done = logscope(out, name, "preflight", "--expect-args", str(cmd), "--format", "json")
    assert done.returncode == expect, done.stdout[-3000:] + done.stderr
    return json.loads(done.stdout)
