"""The GPU a run's own lines name: the capacity a PyTorch OOM message states ("GPU 0 has a
total capacity of 79.10 GiB", torch_npu's "(NPU 0; 60.96 GiB total capacity; ...)").

That figure is ``torch.cuda.get_device_properties(i).total_memory``, the device's own, so a
budget of the run (or of a command checked against it) takes its GPU from there, named as
``sources.gpu = "log"``, and never a default card. A log that states only the free memory
before weights (``Load weight begin. avail mem=...``) names no capacity: the budget then
prices that measured free memory (see :func:`~.from_run.measured_for_command`).
"""

from __future__ import annotations

from ..events import EventKind
from ..log.runs import Run
from .gpus import GpuSpec
from .oom_phase import oom_figures

__all__ = ["gpu_from_run"]


def gpu_from_run(run: Run) -> GpuSpec | None:
    """The GPU the run's own OOM message names by its capacity, or None when it names none.

    Its ``total_mib`` is PyTorch's total (a few hundred MiB under nvidia-smi's
    ``memory.total``); the name says where the figure came from."""
    figures = oom_figures(run)
    if figures is None or not figures.capacity or figures.capacity <= 0:
        return None
    cap = figures.capacity
    oom = run.first(EventKind.CUDA_OOM)
    kind = "NPU" if oom is not None and oom.fields.get("device") == "NPU" else "GPU"
    return GpuSpec(f"{cap:.2f} GiB {kind}", cap * 1024.0, "log")
