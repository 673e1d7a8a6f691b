"""GPU specs: capacity presets by name and size parsing (``48GB``, ``48GiB``, ``49152MiB``).

``total_mib`` is what ``nvidia-smi --query-gpu=memory.total`` prints (MiB), the figure SGLang's
default ``--mem-fraction-static`` heuristic reads. ``f0_gib`` is the free memory before weights
load (F0) that a fresh process typically sees: the capacity minus what the driver reserves, the
CUDA context and NCCL buffers. Without a measurement it is assumed to be the capacity minus
:data:`F0_OVERHEAD_GIB`, which reproduces the 47.0 GiB of an RTX A6000 used in the reference note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._record import record
from .._text import lazy_regex
from ..errors import LogscopeError

#: Capacity minus F0 for a fresh process (driver reserve + CUDA context + NCCL) [assumed].
F0_OVERHEAD_GIB = 1.0


@record
class GpuSpec:
    """One GPU: a display name and its capacity in MiB (nvidia-smi ``memory.total``)."""

    name: str
    total_mib: float
    source: str = "given"

    @property
    def total_gib(self) -> float:
        return self.total_mib / 1024.0

    @property
    def f0_gib(self) -> float:
        """Assumed free memory before weights (see module docstring)."""
        return max(self.total_gib - F0_OVERHEAD_GIB, 0.0)


#: nvidia-smi ``memory.total`` in MiB as commonly printed for each card.
PRESETS: dict[str, GpuSpec] = {
    key: GpuSpec(name, mib, "preset")
    for key, name, mib in (
        ("a6000", "RTX A6000 48GB", 49140),
        ("rtx6000ada", "RTX 6000 Ada 48GB", 49140),
        ("a40", "A40 48GB", 46068),
        ("l40", "L40 48GB", 46068),
        ("l40s", "L40S 48GB", 46068),
        ("l4", "L4 24GB", 23034),
        ("a10", "A10 24GB", 23028),
        ("a10g", "A10G 24GB", 23028),
        ("a100-40g", "A100 40GB", 40960),
        ("a100-80g", "A100 80GB", 81920),
        ("h100", "H100 80GB", 81559),
        ("h20", "H20 96GB", 97871),
        ("h200", "H200 141GB", 143771),
        ("rtx3090", "RTX 3090 24GB", 24576),
        ("rtx4090", "RTX 4090 24GB", 24564),
        ("rtx5090", "RTX 5090 32GB", 32607),
    )
}

_ALIASES = {
    "rtxa6000": "a6000",
    "a100": "a100-80g",
    "a100-40gb": "a100-40g",
    "a100-80gb": "a100-80g",
    "a10080g": "a100-80g",
    "a10040g": "a100-40g",
    "3090": "rtx3090",
    "4090": "rtx4090",
    "5090": "rtx5090",
    "h100-80g": "h100",
}

#: The largest GPU memory size read (1 PiB, far past any device; the arithmetic stays finite).
MAX_GPU_MIB = 1 << 30
_SIZE = lazy_regex(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>gib|gb|g|mib|mb|m|tib|tb|t)?\s*$", re.I)

#: Default GPU model when nothing is known: a 48 GB card (RTX A6000 class); the count is the
#: launch's own (tp x pp, x dp without DP attention).
DEFAULT_GPU = PRESETS["a6000"]
#: ``--gpus`` at most (a budget is per node or per deployment; the value sizes a list).
MAX_GPUS = 65536


def parse_size_mib(text: str) -> float:
    """A memory size in MiB.

    ``GiB``/``MiB`` are binary. ``GB``/``MB`` (and bare ``G``) are read as the binary units
    too: GPU vendors' "48 GB" is 48 GiB of silicon (an A6000 shows 49140 MiB), and SGLang's own
    "GB" figures are GiB. A bare number is GiB.
    """
    m = _SIZE.match(text)
    if m is None:
        raise LogscopeError(
            f"cannot read GPU memory size {text!r} (use e.g. 48GB, 48GiB, 49152MiB or a preset: "
            f"{', '.join(sorted(PRESETS))})"
        )
    value = float(m["num"])
    unit = (m["unit"] or "gib").lower()
    if value <= 0:
        raise LogscopeError(f"GPU memory size must be positive, got {text[:40]!r}")
    mib = (
        value
        if unit in ("mib", "mb", "m")
        else value * (1 << 20 if unit in ("tib", "tb", "t") else 1024)
    )
    if not mib <= MAX_GPU_MIB:  # (inf from 5000 digits too)
        raise LogscopeError(
            f"GPU memory size {text[:40]!r} is over {MAX_GPU_MIB >> 20} TiB: not a GPU"
        )
    return mib


def gpu_from_text(text: str) -> GpuSpec:
    """A preset name (``a6000``, ``h100``, ...) or a size (``48GB``)."""
    key = text.strip().lower().replace("_", "-").replace(" ", "")
    key = _ALIASES.get(key, _ALIASES.get(key.replace("-", ""), key))
    if key in PRESETS:
        return PRESETS[key]
    if _SIZE.match(text):
        return GpuSpec(f"{text.strip()} GPU", parse_size_mib(text), "given")
    raise LogscopeError(
        f"unknown GPU {text!r}: give a size (48GB, 48GiB, 49152MiB) or a preset "
        f"({', '.join(sorted(PRESETS))})"
    )


def gpu_list(count: int | None, memory: str | None) -> list[GpuSpec] | GpuSpec | None:
    """``--gpus N --gpu-memory SIZE`` as a list; a bare GpuSpec when only the memory was given
    (the budget takes the count from tp x pp), None when neither was given."""
    if count is None and memory is None:
        return None
    if count is not None and not 1 <= count <= MAX_GPUS:
        raise LogscopeError(f"--gpus must be a number from 1 to {MAX_GPUS}, got {str(count)[:40]}")
    if count is None:
        assert memory is not None
        return gpu_from_text(memory)
    spec = gpu_from_text(memory) if memory is not None else DEFAULT_GPU
    if memory is None:
        spec = GpuSpec(spec.name, spec.total_mib, "assumed")
    return [spec] * count


def as_gpu_list(gpus: GpuSpec | Sequence[GpuSpec] | None) -> list[GpuSpec] | None:
    if gpus is None:
        return None
    if isinstance(gpus, GpuSpec):
        return [gpus]
    out = list(gpus)
    if not out:
        raise LogscopeError("empty GPU list")
    return out
