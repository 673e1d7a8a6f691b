"""Write the synthetic members of the launch fixtures (``fixtures/launches/``).

Real data first: ``real-pd-2x2/decode-node0.log`` is a real node's log (see its meta.json);
no public source holds the other nodes' logs of that launch, so this script writes them from
the real one, changing only what each node's real launch command (in the same transcript)
sets. ``two-node-oom/`` is wholly synthetic (no public set of a failed multi-node launch with
every node's log was found): node 1 runs out of memory, node 0's NCCL watchdog times out ten
minutes later and its scheduler dies with exit code -3; ``node1-old.log`` is an older launch
of the same cluster (the commonest multi-node ghost). ``pd-serving/`` is synthetic too (no
public PD log with batch lines was found): one prefill server and one decode server with DP
attention (two DP ranks), their headers the real node's, then ``Prefill batch`` / ``Decode
batch`` lines in the 0.5.x wording (as ``parse/messages.py``'s examples) over three minutes,
for the per-worker serving charts. Run from the repository root:
``python scripts/make_launch_fixtures.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PD = ROOT / "fixtures" / "launches" / "real-pd-2x2"
OOM = ROOT / "fixtures" / "launches" / "two-node-oom"
SERVING = ROOT / "fixtures" / "launches" / "pd-serving"
#: pd-serving: per minute (10:01, 10:02, 10:03), the prefill server's batches as
#: (second, new tokens, queue depth, input throughput)
PREFILL_BATCHES = (
    ((5, 2048, 3, 6100.5), (25, 1024, 1, 5200.0), (45, 512, 0, 4800.25)),
    ((10, 4096, 6, 7300.0), (40, 2048, 2, 6900.75)),
    ((15, 1024, 0, 5000.0), (30, 256, 0, 3900.5), (50, 128, 0, 2100.0), (55, 64, 0, 1800.0)),
)
#: the decode server's batches per minute, per DP rank: (second, tokens, queue, gen throughput)
DECODE_BATCHES = {
    "DP0 TP0": (((8, 9120, 2, 2450.1), (38, 9800, 4, 2390.0)), ((8, 10400, 5, 2300.5),), ()),
    "DP1 TP8": (((9, 8800, 1, 2410.0),), ((9, 9900, 3, 2350.25), (39, 9950, 0, 2500.0)), ()),
}

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


def serving_set() -> None:
    real = (PD / "decode-node0.log").read_text(encoding="utf-8")
    banner = next(x for x in real.splitlines() if "server_args=ServerArgs(" in x)
    SERVING.mkdir(parents=True, exist_ok=True)
    for mode, host, dp in (("prefill", "10.99.91.39", 1), ("decode", "10.99.91.49", 2)):
        line = banner
        for key, value in (
            ("host", host),
            ("nnodes", 1),
            ("node_rank", 0),
            ("dist_init_addr", None),
            ("disaggregation_mode", mode),
            ("dp_size", dp),
            ("enable_dp_attention", dp > 1),
        ):
            line = _set(line, key, value)
        rows = [f"[2026-03-02 10:00:00] {line[line.index('server_args=') :]}"]
        rows.append("[2026-03-02 10:00:58] The server is fired up and ready to roll!")
        if mode == "prefill":
            rows += _prefill_rows()
        else:
            rows += _decode_rows()
        (SERVING / f"{mode}.log").write_text("\n".join(rows) + "\n", encoding="utf-8")


def _prefill_rows() -> list[str]:
    out = []
    for minute, batches in enumerate(PREFILL_BATCHES, start=1):
        for second, new, queue, speed in batches:
            out.append(
                f"[2026-03-02 10:{minute:02d}:{second:02d} TP0] Prefill batch, #new-seq: 1, "
                f"#new-token: {new}, #cached-token: 0, token usage: 0.01, #running-req: 0, "
                f"#queue-req: {queue}, input throughput (token/s): {speed:.2f}, cuda graph: False"
            )
    return out


def _decode_rows() -> list[str]:
    out = []
    for rank, minutes in DECODE_BATCHES.items():
        for minute, batches in enumerate(minutes, start=1):
            for second, tokens, queue, speed in batches:
                out.append(
                    f"[2026-03-02 10:{minute:02d}:{second:02d} {rank}] Decode batch, "
                    f"#running-req: 32, #token: {tokens}, token usage: 0.04, cuda graph: True, "
                    f"gen throughput (token/s): {speed:.2f}, #queue-req: {queue}"
                )
    out.sort(key=lambda x: x[:21])
    return out


if __name__ == "__main__":
    pd_members()
    oom_set()
    serving_set()
