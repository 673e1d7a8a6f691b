"""GPU readings: what each GPU holds right now, and who holds it.

Three layers, each replaceable in tests:

* a **reader** returns a raw :class:`Reading` (what the driver says): :class:`NvmlReader` through
  ``pynvml`` (the optional extra ``[gpu]``, imported lazily), :class:`NvidiaSmiReader` parsing
  ``nvidia-smi --query-...  --format=csv,noheader,nounits`` (see :func:`parse_nvidia_smi`), or
  :class:`StaticReader` over a recorded reading;
* a :class:`ProcFs` looks each PID up in ``/proc`` (name, command line, state, whether it has a
  ``/dev/nvidia*`` device open);
* :func:`inspect_gpus` joins the two, applies ``CUDA_VISIBLE_DEVICES`` and classifies every PID.

The driver reports PIDs of the *host's* PID namespace. Inside a container such a PID may not exist
here, or may belong to an unrelated program; :class:`Visibility` says which, and the report says so
instead of putting another program's name on the memory.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

from .errors import LogscopeError
from .report import SCHEMA_VERSION, visible

MIB = 1024**2
GIB = 1024**3

#: Memory used on a GPU but held by no process the driver lists, above which the report flags it.
UNATTRIBUTED_FLAG_BYTES = 1 * GIB
_NOISE_BYTES = 64 * MIB  # below this, unattributed memory is not worth a line

NVIDIA_SMI_GPU_QUERY = "index,uuid,name,memory.total,memory.used,memory.free"
NVIDIA_SMI_APPS_QUERY = "gpu_uuid,pid,process_name,used_memory"


class GpuReadError(LogscopeError):
    """No GPU reading could be taken (no NVML, no nvidia-smi, or both failed)."""


# --------------------------------------------------------------------------- raw readings


@dataclass(frozen=True)
class RawProcess:
    """One compute process as the driver lists it on one GPU."""

    pid: int
    used_bytes: int | None  # None: the driver does not say (NVML_VALUE_NOT_AVAILABLE, '[N/A]')
    reported_name: str | None = None  # NVML / nvidia-smi process name, if any


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=30, check=False)


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


# --------------------------------------------------------------------------- /proc


@dataclass(frozen=True)
class ProcInfo:
    """What this machine's ``/proc`` says about one PID."""

    pid: int
    exists: bool
    comm: str | None = None
    cmdline: str | None = None
    state: str | None = None  # R, S, D, Z, ... from /proc/PID/stat
    uses_gpu: bool | None = None  # has /dev/nvidia* open; None: could not look (permissions)


class ProcFs:
    """Looks PIDs up under a ``/proc`` tree (``root`` is a parameter so tests can build one)."""

    def __init__(self, root: Path | str = "/proc") -> None:
        self.root = Path(root)

    def info(self, pid: int) -> ProcInfo:
        base = self.root / str(pid)
        if not base.is_dir():
            return ProcInfo(pid, exists=False)
        comm = _read(base / "comm")
        raw_cmd = _read(base / "cmdline")
        cmdline = " ".join(a for a in raw_cmd.split("\0") if a) if raw_cmd else None
        return ProcInfo(
            pid,
            exists=True,
            comm=comm.strip() if comm else None,
            cmdline=cmdline or None,
            state=_state(_read(base / "stat")),
            uses_gpu=_uses_gpu(base / "fd"),
        )


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "replace")
    except OSError:
        return None


def _state(stat: str | None) -> str | None:
    # "PID (comm) S ..." — comm may hold spaces and parentheses: split after the last ')'.
    if not stat or ")" not in stat:
        return None
    rest = stat.rsplit(")", 1)[1].split()
    return rest[0] if rest else None


def _uses_gpu(fd_dir: Path) -> bool | None:
    try:
        entries = list(os.scandir(fd_dir))
    except OSError:
        return None
    for entry in entries:
        try:
            target = os.readlink(entry.path)
        except OSError:
            continue
        if target.startswith("/dev/nvidia"):
            return True
    return False


# --------------------------------------------------------------------------- interpretation


class Visibility(str, Enum):
    """How a PID the driver reports relates to this machine's PID namespace."""

    HERE = "here"  # it runs here and has an NVIDIA device open: this is the holder
    UNVERIFIED = "unverified"  # it exists here; its open files cannot be read (permissions)
    EXITING = "exiting"  # here, but a zombie / dying: the driver has not released its memory yet
    OTHER_PROGRAM = "other_program"  # the PID here is a program with no GPU open: a host PID
    ABSENT = "absent"  # no such PID here: another PID namespace (a container), or it just exited


_EXITING_STATES = frozenset({"Z", "X", "x"})


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class GpuReport:
    """Every GPU visible under ``CUDA_VISIBLE_DEVICES``, in CUDA order."""

    source: str
    gpus: tuple[Gpu, ...]
    driver_version: str | None = None
    cuda_visible_devices: str | None = None
    physical_count: int = 0
    notes: tuple[str, ...] = field(default=())

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


def _fmt_gib(value: int | None) -> str:
    return "?" if value is None else f"{value / GIB:.2f} GiB"


def render_text(report: GpuReport) -> Iterable[str]:
    """Plain text lines (untrusted names made visible, no markup)."""
    cvd = report.cuda_visible_devices
    head = f"{len(report.gpus)} GPU(s) visible"
    if cvd is not None:
        head += f" of {report.physical_count} (CUDA_VISIBLE_DEVICES={visible(cvd)!s})"
    head += f" — via {report.source}"
    if report.driver_version:
        head += f", driver {report.driver_version}"
    yield head
    for g in report.gpus:
        yield ""
        yield (
            f"cuda:{g.cuda_index} = GPU {g.index}  {visible(g.name)}  {g.uuid}\n"
            f"  total {_fmt_gib(g.total_bytes)}  used {_fmt_gib(g.used_bytes)}  "
            f"free {_fmt_gib(g.free_bytes)}"
            + (f"  (driver reserved {_fmt_gib(g.reserved_bytes)})" if g.reserved_bytes else "")
        )
        if not g.processes:
            yield (
                "  no compute process listed"
                if g.process_list_known
                else ("  processes: the driver would not list them")
            )
        for p in g.processes:
            tag = " [SGLang]" if p.is_sglang else ""
            state = ""
            if p.visibility is Visibility.EXITING:
                state = f" [exiting, state {p.state}: memory not released yet]"
            elif p.visibility is Visibility.UNVERIFIED:
                state = " [cannot confirm it has the GPU open]"
            yield f"  pid {p.pid:>8}  {_fmt_gib(p.used_bytes):>11}  {p.label}{tag}{state}"
        un = g.unattributed_bytes
        if un is None:
            yield "  memory per process not reported by the driver"
        elif un >= UNATTRIBUTED_FLAG_BYTES:
            yield f"  {_fmt_gib(un)} used by processes that cannot be seen"
        elif un >= _NOISE_BYTES:
            yield f"  {_fmt_gib(un)} used beyond the listed processes (driver, contexts)"
    if report.notes:
        yield ""
        for note in report.notes:
            yield f"note: {note}"
