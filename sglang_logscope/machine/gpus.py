"""GPU readings: what each GPU holds right now, and who holds it.

Three layers, each replaceable in tests:

* a **reader** (:mod:`.gpu_readers`) returns a raw :class:`Reading` (what the driver says):
  :class:`NvmlReader` through ``pynvml`` (the optional extra ``[gpu]``, imported lazily),
  :class:`NvidiaSmiReader` parsing ``nvidia-smi --query-...  --format=csv,noheader,nounits`` (see
  :func:`parse_nvidia_smi`), or :class:`StaticReader` over a recorded reading;
* a :class:`ProcFs` (:mod:`.procfs`) looks each PID up in ``/proc`` (name, command line, state,
  whether it has a ``/dev/nvidia*`` device open);
* :func:`inspect_gpus` (here) joins the two, applies ``CUDA_VISIBLE_DEVICES`` and classifies every
  PID into the :class:`GpuReport` model; :func:`sglang_logscope.render.machine.gpus_lines` shows it.

The readers' and ``/proc``'s names are re-exported here.

The driver reports PIDs of the *host's* PID namespace. Inside a container such a PID may not exist
here, or may belong to an unrelated program; :class:`Visibility` says which, and the report says so
instead of putting another program's name on the memory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from enum import Enum
from typing import Any

from .._record import record
from .._text import SCHEMA_VERSION, visible
from .gpu_readers import (
    GIB,
    MIB,
    NVIDIA_SMI_APPS_QUERY,
    NVIDIA_SMI_GPU_QUERY,
    AutoReader,
    GpuReader,
    GpuReadError,
    NvidiaSmiReader,
    NvmlReader,
    RawGpu,
    RawProcess,
    Reading,
    Runner,
    StaticReader,
    parse_nvidia_smi,
    reader_for,
)
from .procfs import ProcFs, ProcInfo

__all__ = [
    "GIB",
    "MIB",
    "NVIDIA_SMI_APPS_QUERY",
    "NVIDIA_SMI_GPU_QUERY",
    "UNATTRIBUTED_FLAG_BYTES",
    "AutoReader",
    "Gpu",
    "GpuProcess",
    "GpuReadError",
    "GpuReader",
    "GpuReport",
    "NvidiaSmiReader",
    "NvmlReader",
    "ProcFs",
    "ProcInfo",
    "RawGpu",
    "RawProcess",
    "Reading",
    "Runner",
    "StaticReader",
    "Visibility",
    "classify",
    "inspect_gpus",
    "parse_nvidia_smi",
    "read_gpus",
    "reader_for",
    "select_visible",
    "unread_gpus",
]

#: Memory used on a GPU but held by no process the driver lists, above which the report flags it.
UNATTRIBUTED_FLAG_BYTES = 1 * GIB
NOISE_BYTES = 64 * MIB  # below this, unattributed memory is not worth a line


class Visibility(str, Enum):
    """How a PID the driver reports relates to this machine's PID namespace."""

    HERE = "here"  # it runs here and has an NVIDIA device open: this is the holder
    UNVERIFIED = "unverified"  # it exists here; its open files cannot be read (permissions)
    EXITING = "exiting"  # here, but a zombie / dying: the driver has not released its memory yet
    OTHER_PROGRAM = "other_program"  # the PID here is a program with no GPU open: a host PID
    ABSENT = "absent"  # no such PID here: another PID namespace (a container), or it just exited


_EXITING_STATES = frozenset({"Z", "X", "x"})


@record
class GpuProcess:
    """A process holding memory on a GPU, joined with what ``/proc`` says about its PID."""

    pid: int
    used_bytes: int | None
    visibility: Visibility
    reported_name: str | None = None
    name: str | None = None  # as seen here (comm); only when the PID is the holder
    cmdline: str | None = None  # as seen here; only when the PID is the holder
    state: str | None = None
    local_name: str | None = None  # for OTHER_PROGRAM: what that PID is here (not the holder)

    @property
    def is_sglang(self) -> bool:
        """SGLang's processes title themselves ``sglang::scheduler_TP0`` and the like."""
        texts = (self.name, self.cmdline, self.reported_name)
        return any(t is not None and "sglang" in t.lower() for t in texts)

    @property
    def label(self) -> str:
        """A short human description, never another program's name as the holder's."""
        if self.visibility is Visibility.ABSENT:
            return "not visible here (host PID: another PID namespace, or it just exited)"
        if self.visibility is Visibility.OTHER_PROGRAM:
            here = visible(self.local_name or "?", 60)
            return f"not visible here (host PID; PID {self.pid} here is {here!r}, no GPU open)"
        text = self.cmdline or self.name or self.reported_name or "?"
        return visible(text, 160)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "used_gib": _gib(self.used_bytes),
            "used_bytes": self.used_bytes,
            "visibility": self.visibility.value,
            "reported_name": self.reported_name,
            "name": self.name,
            "cmdline": self.cmdline,
            "state": self.state,
            "local_name": self.local_name,
            "sglang": self.is_sglang,
        }


@record
class Gpu:
    """One GPU this process would see, with who holds its memory."""

    index: int  # the driver's (NVML / nvidia-smi) index
    cuda_index: int  # the ordinal CUDA gives it under CUDA_VISIBLE_DEVICES
    uuid: str
    name: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    reserved_bytes: int | None
    processes: tuple[GpuProcess, ...] = ()
    process_list_known: bool = True

    @property
    def listed_bytes(self) -> int:
        return sum(p.used_bytes or 0 for p in self.processes)

    @property
    def unattributed_bytes(self) -> int | None:
        """Memory used that no listed process accounts for (hidden or unlisted holders).

        ``None`` when the driver gives no per-process figure for some process.
        """
        if any(p.used_bytes is None for p in self.processes):
            return None
        return max(0, self.used_bytes - self.listed_bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "cuda_index": self.cuda_index,
            "uuid": self.uuid,
            "name": self.name,
            "total_gib": _gib(self.total_bytes),
            "used_gib": _gib(self.used_bytes),
            "free_gib": _gib(self.free_bytes),
            "reserved_gib": _gib(self.reserved_bytes),
            "unattributed_gib": _gib(self.unattributed_bytes),
            "total_bytes": self.total_bytes,
            "used_bytes": self.used_bytes,
            "free_bytes": self.free_bytes,
            "reserved_bytes": self.reserved_bytes,
            "unattributed_bytes": self.unattributed_bytes,
            "process_list_known": self.process_list_known,
            "processes": [p.to_dict() for p in self.processes],
        }


@record
class GpuReport:
    """Every GPU visible under ``CUDA_VISIBLE_DEVICES``, in CUDA order."""

    source: str
    gpus: tuple[Gpu, ...]
    driver_version: str | None = None
    cuda_visible_devices: str | None = None
    physical_count: int = 0
    notes: tuple[str, ...] = field(default=())
    #: Why there is no reading (no driver, no nvidia-smi): then ``gpus`` is empty.
    reason: str | None = None

    @property
    def foreign_pids(self) -> bool:
        """Some PID the driver reports is not a GPU program of this PID namespace."""
        foreign = (Visibility.ABSENT, Visibility.OTHER_PROGRAM)
        return any(p.visibility in foreign for g in self.gpus for p in g.processes)

    def by_cuda_index(self, ordinal: int) -> Gpu | None:
        return self.gpus[ordinal] if 0 <= ordinal < len(self.gpus) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "source": self.source,
            "driver_version": self.driver_version,
            "cuda_visible_devices": self.cuda_visible_devices,
            "physical_count": self.physical_count,
            "foreign_pids": self.foreign_pids,
            "notes": list(self.notes),
            "gpus": [g.to_dict() for g in self.gpus],
            "reason": self.reason,
        }


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / GIB, 3)


def select_visible(
    gpus: Sequence[RawGpu], cuda_visible_devices: str | None
) -> tuple[list[RawGpu], list[str]]:
    """Apply ``CUDA_VISIBLE_DEVICES`` as CUDA does: indices or (prefixes of) UUIDs, in order.

    Unset: every GPU. Empty: none. An entry that names no GPU (or repeats one) ends the list:
    CUDA sees only the entries before it. Returns the GPUs in CUDA order and notes.
    """
    if cuda_visible_devices is None:
        return list(gpus), []
    out: list[RawGpu] = []
    notes: list[str] = []
    value = cuda_visible_devices.strip()
    if not value:
        return [], ["CUDA_VISIBLE_DEVICES is empty: CUDA sees no GPU"]
    for entry in (e.strip() for e in value.split(",")):
        match = _match_entry(gpus, entry)
        if match is None or match in out:
            why = "repeats a GPU" if match is not None else "names no GPU here"
            notes.append(
                f"CUDA_VISIBLE_DEVICES entry {entry!r} {why}: CUDA sees only the "
                f"{len(out)} entr{'y' if len(out) == 1 else 'ies'} before it"
            )
            break
        out.append(match)
    return out, notes


def _match_entry(gpus: Sequence[RawGpu], entry: str) -> RawGpu | None:
    if entry.lstrip("+-").isdigit():
        n = int(entry)
        return next((g for g in gpus if g.index == n), None)
    if entry.upper().startswith("GPU-"):
        found = [g for g in gpus if g.uuid.lower().startswith(entry.lower())]
        return found[0] if len(found) == 1 else None
    return None  # MIG-... and anything else: not handled here


def classify(raw: RawProcess, info: ProcInfo) -> GpuProcess:
    """Join a driver-reported process with this machine's view of its PID."""
    if not info.exists:
        vis = Visibility.ABSENT
    elif info.state in _EXITING_STATES:
        vis = Visibility.EXITING
    elif info.uses_gpu is True:
        vis = Visibility.HERE
    elif info.uses_gpu is None:
        vis = Visibility.UNVERIFIED
    else:
        vis = Visibility.OTHER_PROGRAM
    if vis is Visibility.OTHER_PROGRAM:
        return GpuProcess(
            raw.pid,
            raw.used_bytes,
            vis,
            reported_name=None,  # NVML resolves names through *this* /proc: not the holder's
            local_name=info.cmdline or info.comm,
        )
    if vis is Visibility.ABSENT:
        return GpuProcess(raw.pid, raw.used_bytes, vis, reported_name=raw.reported_name)
    return GpuProcess(
        raw.pid,
        raw.used_bytes,
        vis,
        reported_name=raw.reported_name,
        name=info.comm,
        cmdline=info.cmdline,
        state=info.state,
    )


def inspect_gpus(
    reading: Reading,
    *,
    cuda_visible_devices: str | None = None,
    procfs: ProcFs | None = None,
) -> GpuReport:
    """Interpret a reading: select the GPUs CUDA would see and classify every PID."""
    procfs = procfs or ProcFs()
    selected, notes = select_visible(reading.gpus, cuda_visible_devices)
    cache: dict[int, ProcInfo] = {}
    gpus: list[Gpu] = []
    for ordinal, raw in enumerate(selected):
        procs = []
        for p in raw.processes:
            if p.pid not in cache:
                cache[p.pid] = procfs.info(p.pid)
            procs.append(classify(p, cache[p.pid]))
        procs.sort(key=lambda p: -(p.used_bytes or 0))
        gpus.append(
            Gpu(
                index=raw.index,
                cuda_index=ordinal,
                uuid=raw.uuid,
                name=raw.name,
                total_bytes=raw.total_bytes,
                used_bytes=raw.used_bytes,
                free_bytes=raw.free_bytes,
                reserved_bytes=raw.reserved_bytes,
                processes=tuple(procs),
                process_list_known=reading.process_list_error is None,
            )
        )
    if reading.process_list_error:
        notes.append(f"the driver would not list processes: {reading.process_list_error}")
    foreign = (Visibility.ABSENT, Visibility.OTHER_PROGRAM)
    if any(p.visibility in foreign for g in gpus for p in g.processes):
        notes.append(
            "the driver reports PIDs that are not GPU programs in this PID namespace: it gives "
            "host PIDs (running in a container?); their names here are not the holders'"
        )
    if not reading.gpus:
        notes.append("no GPU found")
    return GpuReport(
        source=reading.source,
        gpus=tuple(gpus),
        driver_version=reading.driver_version,
        cuda_visible_devices=cuda_visible_devices,
        physical_count=len(reading.gpus),
        notes=tuple(notes),
    )


def unread_gpus(reason: GpuReadError, source: str = "auto") -> GpuReport:
    """The report of a machine without a reading: no GPUs, and why (``gpus -f json``)."""
    return GpuReport(source=source, gpus=(), reason=str(reason))


def read_gpus(
    *,
    reader: GpuReader | None = None,
    env: Mapping[str, str] | None = None,
    procfs: ProcFs | None = None,
) -> GpuReport:
    """Take a reading now (NVML, else nvidia-smi) and interpret it under ``env``'s
    ``CUDA_VISIBLE_DEVICES`` (default: this process's environment)."""
    env = os.environ if env is None else env
    reading = (reader or AutoReader()).read()
    return inspect_gpus(
        reading, cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"), procfs=procfs
    )


# --------------------------------------------------------------------------- text
