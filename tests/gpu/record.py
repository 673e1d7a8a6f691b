"""Record what the driver says, for fixtures: raw NVML answers and nvidia-smi's CSV.

    PYTHONPATH=. python3 tests/gpu/record.py DIR TAG

writes ``DIR/nvml-TAG.json`` (the NVML calls ``NvmlReader`` makes, and their answers, in the form
``tests/test_gpus.py``'s fake NVML replays) and ``DIR/smi-gpus-TAG.csv`` / ``DIR/smi-apps-TAG.csv``
(nvidia-smi's answers to the queries ``NvidiaSmiReader`` runs). Either part is skipped when its
tool is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from sglang_logscope.machine.gpus import NVIDIA_SMI_APPS_QUERY, NVIDIA_SMI_GPU_QUERY


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def record_nvml() -> dict[str, Any]:
    import pynvml as nv

    nv.nvmlInit()
    try:
        devices: list[dict[str, Any]] = []
        names: dict[str, str | None] = {}
        for i in range(nv.nvmlDeviceGetCount()):
            h = nv.nvmlDeviceGetHandleByIndex(i)
            m1 = nv.nvmlDeviceGetMemoryInfo(h)
            try:
                m2 = nv.nvmlDeviceGetMemoryInfo(h, version=nv.nvmlMemory_v2)
                v2: dict[str, int] | None = {
                    "total": m2.total,
                    "reserved": m2.reserved,
                    "free": m2.free,
                    "used": m2.used,
                }
            except nv.NVMLError:
                v2 = None
            procs = []
            for p in nv.nvmlDeviceGetComputeRunningProcesses(h):
                procs.append({"pid": p.pid, "usedGpuMemory": p.usedGpuMemory})
                try:
                    names[str(p.pid)] = _text(nv.nvmlSystemGetProcessName(p.pid))
                except nv.NVMLError:
                    names[str(p.pid)] = None
            devices.append(
                {
                    "name": _text(nv.nvmlDeviceGetName(h)),
                    "uuid": _text(nv.nvmlDeviceGetUUID(h)),
                    "memory": {"total": m1.total, "free": m1.free, "used": m1.used},
                    "memory_v2": v2,
                    "processes": procs,
                }
            )
        return {
            "driver_version": _text(nv.nvmlSystemGetDriverVersion()),
            "devices": devices,
            "process_names": names,
        }
    finally:
        nv.nvmlShutdown()


def record(directory: Path, tag: str) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        data = record_nvml()
    except ImportError:
        pass
    else:
        path = directory / f"nvml-{tag}.json"
        path.write_text(json.dumps(data, indent=1) + "\n")
        written.append(path)
    if shutil.which("nvidia-smi"):
        fmt = "--format=csv,noheader,nounits"
        for what, query in (
            ("gpus", f"--query-gpu={NVIDIA_SMI_GPU_QUERY}"),
            ("apps", f"--query-compute-apps={NVIDIA_SMI_APPS_QUERY}"),
        ):
            out = subprocess.run(
                ["nvidia-smi", query, fmt], capture_output=True, text=True, check=False
            ).stdout
            path = directory / f"smi-{what}-{tag}.csv"
            path.write_text(out)
            written.append(path)
    return written


if __name__ == "__main__":
    for p in record(Path(sys.argv[1]), sys.argv[2]):
        print(p)
