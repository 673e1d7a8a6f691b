"""Write the synthetic members of the launch fixtures (``fixtures/launches/``).

Real data first: ``real-pd-2x2/decode-node0.log`` is a real node's log (see its meta.json);
no public source holds the other nodes' logs of that launch, so this script writes them from
the real one, changing only what each node's real launch command (in the same transcript)
sets. ``two-node-oom/`` is wholly synthetic (no public set of a failed multi-node launch with
every node's log was found): node 1 runs out of memory, node 0's NCCL watchdog times out ten
minutes later and its scheduler dies with exit code -3; ``node1-old.log`` is an older launch
of the same cluster (the commonest multi-node ghost). Run from the repository root:
``python scripts/make_launch_fixtures.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PD = ROOT / "fixtures" / "launches" / "real-pd-2x2"
OOM = ROOT / "fixtures" / "launches" / "two-node-oom"

#: node → (host, port, dist_init_addr, node_rank, mode, max_running_requests, seconds shift),
#: as the transcript's four commands set them; the prefill nodes' InfiniBand devices
PREFILL_IB = "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"
PD_NODES = {
    "prefill-node0": ("10.99.91.39", 30000, "10.99.91.39:5000", 0, "prefill", None, -3),
    "prefill-node1": ("10.99.91.41", 30000, "10.99.91.39:5000", 1, "prefill", None, -2),
    "decode-node1": ("10.99.91.35", 30001, "10.99.91.49:5000", 1, "decode", 128, 1),
}


def _set(line: str, key: str, value: object) -> str:
    """``line`` with ``key=<old>`` of the server_args repr replaced by ``key=<value!r>``."""
    return re.sub(rf"\b{key}=('[^']*'|[^,)]*)", f"{key}={value!r}", line, count=1)


def _shift(text: str, seconds: int) -> str:
    def moved(m: re.Match[str]) -> str:
        total = int(m.group(2)) * 60 + int(m.group(3)) + seconds
        return f"{m.group(1)}{total // 60:02d}:{total % 60:02d}"

    return re.sub(r"(\[2026-02-27 14:)(\d\d):(\d\d)", moved, text)


def pd_members() -> None:
    real = (PD / "decode-node0.log").read_text(encoding="utf-8")
    log = real[real.index("The module name") :]  # the node's log, without the four commands
    for name, (host, port, addr, rank, mode, mrr, shift) in PD_NODES.items():
        out = []
        for line in log.splitlines(keepends=True):
            if "server_args=ServerArgs(" in line:
                for key, value in (
                    ("host", host),
                    ("port", port),
                    ("dist_init_addr", addr),
                    ("node_rank", rank),
                    ("disaggregation_mode", mode),
                    ("max_running_requests", mrr),
                    ("disable_radix_cache", mode == "decode"),
                    ("disable_cuda_graph", mode == "prefill"),
                ):
                    line = _set(line, key, value)
                if mode == "prefill":
                    line = _set(line, "disaggregation_ib_device", PREFILL_IB)
            if mode == "prefill" and "forced as chunk cache for decode" in line:
                continue
            out.append(line)
        (PD / f"{name}.log").write_text(_shift("".join(out), shift), encoding="utf-8")


def _args(real_line: str, rank: int, host: str) -> str:
    line = real_line
    for key, value in (
        ("host", host),
        ("port", 30000),
        ("dist_init_addr", "10.0.0.1:5000"),
        ("node_rank", rank),
        ("disaggregation_mode", "null"),
        ("max_running_requests", None),
    ):
        line = _set(line, key, value)
    return line[line.index("server_args=") :].rstrip("\n")


def oom_set() -> None:
    real = (PD / "decode-node0.log").read_text(encoding="utf-8")
    banner = next(x for x in real.splitlines() if "server_args=ServerArgs(" in x)
    OOM.mkdir(parents=True, exist_ok=True)
    node0 = [
        f"[2026-03-01 10:00:00] {_args(banner, 0, '10.0.0.1')}",
        "[2026-03-01 10:00:09 TP0] Init torch distributed begin.",
        "[2026-03-01 10:00:19 TP0] Load weight begin. avail mem=78.38 GB",
        "[2026-03-01 10:12:31 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2400, in run_scheduler_process',
        "    scheduler.event_loop_overlap()",
        "torch.distributed.DistBackendError: [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=31, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
        "600047 milliseconds before timing out.",
        "",
        "[2026-03-01 10:12:32] Rank 0 scheduler died during initialization (exit code: -3)",
        "[2026-03-01 10:12:32] Received sigquit from a child process. It usually means the child failed.",
    ]
    node1 = [
        f"[2026-03-01 10:00:01] {_args(banner, 1, '10.0.0.2')}",
        "[2026-03-01 10:00:10 TP8] Init torch distributed begin.",
        "[2026-03-01 10:00:20 TP8] Load weight begin. avail mem=78.38 GB",
        "[2026-03-01 10:02:30 TP8] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2400, in run_scheduler_process',
        "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 79.10 GiB of which 1.02 GiB is free.",
        "",
        "[2026-03-01 10:02:31] Received sigquit from a child process. It usually means the child failed.",
    ]
    old = [
        f"[2026-02-28 16:00:01] {_args(banner, 1, '10.0.0.2')}",
        "[2026-02-28 16:00:10 TP8] Init torch distributed begin.",
        "[2026-02-28 16:00:20 TP8] Load weight begin. avail mem=78.38 GB",
        "[2026-02-28 16:04:00] The server is fired up and ready to roll!",
    ]
    for name, lines in (("node0.log", node0), ("node1.log", node1), ("node1-old.log", old)):
        (OOM / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    pd_members()
    oom_set()
