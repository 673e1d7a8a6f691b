"""GPU readers: what the driver says, before any interpretation.

A reader returns a raw :class:`Reading`: :class:`NvmlReader` through ``pynvml`` (the optional
extra ``[gpu]``, imported lazily), :class:`NvidiaSmiReader` parsing ``nvidia-smi --query-...
--format=csv,noheader,nounits`` (see :func:`parse_nvidia_smi`), or :class:`StaticReader` over a
recorded reading. :class:`AutoReader` tries NVML, then ``nvidia-smi``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from .._record import record
from ..errors import LogscopeError

MIB = 1024**2
GIB = 1024**3

NVIDIA_SMI_GPU_QUERY = "index,uuid,name,memory.total,memory.used,memory.free"
NVIDIA_SMI_APPS_QUERY = "gpu_uuid,pid,process_name,used_memory"


class GpuReadError(LogscopeError):
    """No GPU reading could be taken (no NVML, no nvidia-smi, or both failed)."""


@record
class RawProcess:
    """One compute process as the driver lists it on one GPU."""

    pid: int
    used_bytes: int | None  # None: the driver does not say (NVML_VALUE_NOT_AVAILABLE, '[N/A]')
    reported_name: str | None = None  # NVML / nvidia-smi process name, if any


@record
class RawGpu:
    """One physical GPU as the driver reports it (NVML enumeration order, not CUDA's)."""

    index: int
    uuid: str
    name: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    reserved_bytes: int | None = None  # driver/firmware reservation (NVML memory info v2)
    processes: tuple[RawProcess, ...] = ()


@record
class Reading:
    """What a reader got from the driver, before any interpretation."""

    source: str  # "nvml", "nvidia-smi" or "recorded"
    gpus: tuple[RawGpu, ...]
    driver_version: str | None = None
    process_list_error: str | None = None  # the driver refused to list processes

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "driver_version": self.driver_version,
            "process_list_error": self.process_list_error,
            "gpus": [
                {
                    "index": g.index,
                    "uuid": g.uuid,
                    "name": g.name,
                    "total_bytes": g.total_bytes,
                    "used_bytes": g.used_bytes,
                    "free_bytes": g.free_bytes,
                    "reserved_bytes": g.reserved_bytes,
                    "processes": [
                        {"pid": p.pid, "used_bytes": p.used_bytes, "reported_name": p.reported_name}
                        for p in g.processes
                    ],
                }
                for g in self.gpus
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reading:
        """Rebuild a reading saved with :meth:`to_dict` (recorded fixtures)."""
        try:
            gpus = tuple(
                RawGpu(
                    index=int(g["index"]),
                    uuid=str(g["uuid"]),
                    name=str(g["name"]),
                    total_bytes=int(g["total_bytes"]),
                    used_bytes=int(g["used_bytes"]),
                    free_bytes=int(g["free_bytes"]),
                    reserved_bytes=_opt_int(g.get("reserved_bytes")),
                    processes=tuple(
                        RawProcess(
                            pid=int(p["pid"]),
                            used_bytes=_opt_int(p.get("used_bytes")),
                            reported_name=p.get("reported_name"),
                        )
                        for p in g.get("processes", ())
                    ),
                )
                for g in data["gpus"]
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise GpuReadError(f"malformed GPU reading: {exc!r}") from None
        return cls(
            source=str(data.get("source", "recorded")),
            gpus=gpus,
            driver_version=data.get("driver_version"),
            process_list_error=data.get("process_list_error"),
        )


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


class GpuReader(Protocol):
    """Anything that can take a :class:`Reading`."""

    def read(self) -> Reading: ...


@record
class StaticReader:
    """A reader that returns a fixed reading (recorded fixtures, tests)."""

    reading: Reading

    def read(self) -> Reading:
        return self.reading


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class NvmlReader:
    """Reads through NVML (``pynvml``, from the ``nvidia-ml-py`` package).

    ``nvml`` is the module (or any object with the same functions); by default ``pynvml`` is
    imported on the first :meth:`read`, so logscope runs without it.
    """

    source = "nvml"

    def __init__(self, nvml: Any | None = None) -> None:
        self._nvml = nvml

    def _module(self) -> Any:
        if self._nvml is None:
            try:
                # start-up: pynvml (the [gpu] extra) loads only when NVML is read
                import pynvml
            except ImportError:
                raise GpuReadError(
                    "pynvml is not installed (pip install 'sglang-logscope[gpu]')"
                ) from None
            self._nvml = pynvml
        return self._nvml

    def read(self) -> Reading:
        nvml = self._module()
        error: type[BaseException] = getattr(nvml, "NVMLError", Exception)
        try:
            nvml.nvmlInit()
        except error as exc:
            raise GpuReadError(f"NVML could not start: {_text(exc)}") from None
        try:
            return self._read(nvml, error)
        except error as exc:
            raise GpuReadError(f"NVML failed: {_text(exc)}") from None
        finally:
            with contextlib.suppress(error):
                nvml.nvmlShutdown()

    def _read(self, nvml: Any, error: type[BaseException]) -> Reading:
        try:
            driver: str | None = _text(nvml.nvmlSystemGetDriverVersion())
        except error:
            driver = None
        gpus: list[RawGpu] = []
        list_error: str | None = None
        names: dict[int, str | None] = {}
        for i in range(int(nvml.nvmlDeviceGetCount())):
            handle = nvml.nvmlDeviceGetHandleByIndex(i)
            reserved: int | None
            v2 = getattr(nvml, "nvmlMemory_v2", None)
            try:
                if v2 is None:
                    raise TypeError("no nvmlMemory_v2")
                mem = nvml.nvmlDeviceGetMemoryInfo(handle, version=v2)
                reserved = int(mem.reserved)
            except (TypeError, AttributeError, error):
                mem = nvml.nvmlDeviceGetMemoryInfo(handle)
                reserved = None
            procs: list[RawProcess] = []
            try:
                listed = list(nvml.nvmlDeviceGetComputeRunningProcesses(handle))
            except error as exc:
                listed = []
                list_error = _text(exc)
            seen: set[int] = set()
            for p in listed:
                pid = int(p.pid)
                if pid in seen:  # one entry per MIG instance: keep the first
                    continue
                seen.add(pid)
                if pid not in names:
                    try:
                        names[pid] = _text(nvml.nvmlSystemGetProcessName(pid)) or None
                    except error:
                        names[pid] = None
                used = getattr(p, "usedGpuMemory", None)
                procs.append(RawProcess(pid, None if used is None else int(used), names[pid]))
            gpus.append(
                RawGpu(
                    index=i,
                    uuid=_text(nvml.nvmlDeviceGetUUID(handle)),
                    name=_text(nvml.nvmlDeviceGetName(handle)),
                    total_bytes=int(mem.total),
                    used_bytes=int(mem.used),
                    free_bytes=int(mem.free),
                    reserved_bytes=reserved,
                    processes=tuple(procs),
                )
            )
        return Reading("nvml", tuple(gpus), driver, list_error)


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    program = absolute_which(argv[0])
    if program is None:
        raise FileNotFoundError(argv[0])
    return subprocess.run(
        [program, *argv[1:]], capture_output=True, text=True, timeout=30, check=False
    )


def absolute_which(program: str) -> str | None:
    """``program`` looked up on the absolute entries of ``PATH`` only: an empty or relative
    entry (``.``, ``bin``) would run an ``nvidia-smi`` planted in the current directory."""
    if os.sep in program:
        return program
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return shutil.which(program, path=os.pathsep.join(e for e in entries if os.path.isabs(e)))


class NvidiaSmiReader:
    """Reads by running ``nvidia-smi`` twice (GPUs, then compute apps) and parsing its CSV.

    ``run`` executes an argv and returns the completed process (tests pass recorded answers).
    """

    source = "nvidia-smi"

    def __init__(self, run: Runner | None = None, executable: str = "nvidia-smi") -> None:
        self._run = run or _run
        self._exe = executable

    def _query(self, query: str) -> str:
        argv = [self._exe, query, "--format=csv,noheader,nounits"]
        try:
            done = self._run(argv)
        except FileNotFoundError:
            raise GpuReadError("nvidia-smi not found") from None
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise GpuReadError(f"nvidia-smi failed: {exc}") from None
        if done.returncode != 0:
            text = (done.stdout or "") + (done.stderr or "")
            if "no devices were found" in text.lower():
                return ""
            lines = text.strip().splitlines()
            why = lines[0] if lines else f"exit status {done.returncode}"
            raise GpuReadError(f"nvidia-smi failed: {why}")
        return done.stdout or ""

    def read(self) -> Reading:
        gpus_csv = self._query(f"--query-gpu={NVIDIA_SMI_GPU_QUERY}")
        if not gpus_csv.strip():
            return Reading("nvidia-smi", ())
        return parse_nvidia_smi(
            gpus_csv, self._query(f"--query-compute-apps={NVIDIA_SMI_APPS_QUERY}")
        )


def _smi_value(text: str) -> str | None:
    text = text.strip()
    if not text or (text.startswith("[") and text.endswith("]")):  # [N/A], [Not Found], ...
        return None
    return text


def _smi_mib(text: str, what: str) -> int | None:
    value = _smi_value(text)
    if value is None:
        return None
    try:
        return round(float(value) * MIB)
    except ValueError:
        raise GpuReadError(f"nvidia-smi: unreadable {what} {text.strip()!r}") from None


def parse_nvidia_smi(gpus_csv: str, apps_csv: str = "") -> Reading:
    """Parse the two ``nvidia-smi --format=csv,noheader,nounits`` outputs (memory in MiB).

    ``gpus_csv`` answers ``--query-gpu=index,uuid,name,memory.total,memory.used,memory.free``;
    ``apps_csv`` answers ``--query-compute-apps=gpu_uuid,pid,process_name,used_memory``. A
    process name may itself hold commas; '[N/A]'-style values become ``None``.
    """
    by_uuid: dict[str, list[RawProcess]] = {}
    for n, line in enumerate(apps_csv.splitlines(), 1):
        if not line.strip() or "no running processes" in line.lower():
            continue
        head = line.split(",", 2)
        if len(head) < 3 or "," not in head[2]:
            raise GpuReadError(f"nvidia-smi compute-apps line {n}: expected 4 fields: {line!r}")
        name, used = head[2].rsplit(",", 1)
        try:
            pid = int(head[1].strip())
        except ValueError:
            raise GpuReadError(f"nvidia-smi compute-apps line {n}: bad pid {head[1]!r}") from None
        by_uuid.setdefault(head[0].strip(), []).append(
            RawProcess(pid, _smi_mib(used, "used_memory"), _smi_value(name))
        )
    gpus: list[RawGpu] = []
    for n, line in enumerate(gpus_csv.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 6:
            raise GpuReadError(f"nvidia-smi GPU line {n}: expected 6 fields: {line!r}")
        index, uuid, name, total, used, free = parts
        try:
            idx = int(index)
        except ValueError:
            raise GpuReadError(f"nvidia-smi GPU line {n}: bad index {index!r}") from None
        t, u, f = (_smi_mib(v, w) for v, w in ((total, "total"), (used, "used"), (free, "free")))
        if t is None or u is None or f is None:
            raise GpuReadError(f"nvidia-smi GPU line {n}: memory not reported: {line!r}")
        gpus.append(RawGpu(idx, uuid, name, t, u, f, None, tuple(by_uuid.pop(uuid, ()))))
    return Reading("nvidia-smi", tuple(gpus))


class AutoReader:
    """NVML first; ``nvidia-smi`` when NVML is missing or fails; an error when both fail."""

    source = "auto"

    def __init__(self, readers: Sequence[GpuReader] | None = None) -> None:
        default: list[GpuReader] = [NvmlReader(), NvidiaSmiReader()]
        self._readers: list[GpuReader] = list(readers) if readers is not None else default

    def read(self) -> Reading:
        reasons: list[str] = []
        for reader in self._readers:
            try:
                return reader.read()
            except GpuReadError as exc:
                reasons.append(str(exc))
        raise GpuReadError("no GPU reading: " + "; ".join(reasons))


def reader_for(source: str) -> GpuReader:
    """``auto``, ``nvml`` or ``nvidia-smi``."""
    if source == "auto":
        return AutoReader()
    if source == "nvml":
        return NvmlReader()
    if source == "nvidia-smi":
        return NvidiaSmiReader()
    raise LogscopeError(f"unknown GPU source {source!r} (valid: auto, nvml, nvidia-smi)")
