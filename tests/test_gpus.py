"""GPU readings over recorded NVML / nvidia-smi answers (fixtures/gpus, see its README)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sglang_logscope.cli import main
from sglang_logscope.machine import gpus as g
from sglang_logscope.machine.gpus import (
    GIB,
    MIB,
    AutoReader,
    GpuReadError,
    NvidiaSmiReader,
    NvmlReader,
    ProcFs,
    Reading,
    StaticReader,
    Visibility,
    inspect_gpus,
    parse_nvidia_smi,
    read_gpus,
    select_visible,
)
from sglang_logscope.render.machine import gpus_lines

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "gpus"
H200 = FIX / "h200x2"
SYN = FIX / "synthetic"
HOLDER_PID = 801


class FakeNvml:
    """Replays a recorded ``nvml-*.json`` through pynvml's function names."""

    nvmlMemory_v2 = 0x02000028

    class NVMLError(Exception):
        pass

    def __init__(
        self,
        data: dict[str, Any],
        *,
        init_error: str | None = None,
        process_error: str | None = None,
        v2: bool = True,
        as_bytes: bool = False,
    ) -> None:
        self.data = data
        self.init_error = init_error
        self.process_error = process_error
        self.v2 = v2
        self.as_bytes = as_bytes
        self.calls: list[str] = []

    def _s(self, text: str) -> Any:
        return text.encode() if self.as_bytes else text

    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.init_error:
            raise self.NVMLError(self.init_error)

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlSystemGetDriverVersion(self) -> Any:
        return self._s(self.data["driver_version"])

    def nvmlDeviceGetCount(self) -> int:
        return len(self.data["devices"])

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetName(self, h: int) -> Any:
        return self._s(self.data["devices"][h]["name"])

    def nvmlDeviceGetUUID(self, h: int) -> Any:
        return self._s(self.data["devices"][h]["uuid"])

    def nvmlDeviceGetMemoryInfo(self, h: int, version: int | None = None) -> SimpleNamespace:
        dev = self.data["devices"][h]
        if version is None:
            return SimpleNamespace(**dev["memory"])
        if not self.v2 or dev.get("memory_v2") is None:
            raise self.NVMLError("Function Not Found")
        return SimpleNamespace(**dev["memory_v2"])

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[SimpleNamespace]:
        if self.process_error:
            raise self.NVMLError(self.process_error)
        return [SimpleNamespace(**p) for p in self.data["devices"][h]["processes"]]

    def nvmlSystemGetProcessName(self, pid: int) -> Any:
        name = self.data.get("process_names", {}).get(str(pid))
        if name is None:
            raise self.NVMLError("Not Found")
        return self._s(name)


def nvml(path: Path, **kw: Any) -> FakeNvml:
    return FakeNvml(json.loads(path.read_text()), **kw)


def proc(
    root: Path,
    pid: int,
    cmdline: Sequence[str],
    *,
    comm: str | None = None,
    state: str = "S",
    gpu: bool | None = True,
) -> None:
    """A /proc/PID entry: cmdline, comm, stat and (gpu=None: no readable) fd/ links."""
    d = root / str(pid)
    d.mkdir(parents=True)
    (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in cmdline) + b"\0")
    (d / "comm").write_text((comm or Path(cmdline[0]).name)[:15] + "\n")
    (d / "stat").write_text(f"{pid} ({(comm or 'x')[:15]}) {state} 1 {pid} {pid} 0 -1\n")
    if gpu is not None:
        (d / "fd").mkdir()
        os.symlink("/dev/null", d / "fd" / "0")
        if gpu:
            os.symlink("/dev/nvidiactl", d / "fd" / "3")
            os.symlink("/dev/nvidia0", d / "fd" / "4")


def smi(gpus: Path, apps: Path) -> Reading:
    return parse_nvidia_smi(gpus.read_text(), apps.read_text())


@pytest.fixture
def procroot(tmp_path: Path) -> Path:
    root = tmp_path / "proc"
    root.mkdir()
    return root


# --------------------------------------------------------------------------- recorded H200


def test_nvml_recording_with_holder(procroot: Path) -> None:
    title = "sglang::scheduler_TP0"
    proc(procroot, HOLDER_PID, [title, "tests/gpu/holder.py", "--gib", "20"], comm=title)
    fake = nvml(H200 / "nvml-holder.json")
    report = inspect_gpus(NvmlReader(fake).read(), procfs=ProcFs(procroot))
    assert fake.calls == ["init", "shutdown"]
    assert report.driver_version == "580.159.04"
    g0, g1 = report.gpus
    assert (g0.index, g0.cuda_index, g0.name) == (0, 0, "NVIDIA H200")
    assert g0.uuid == "GPU-9ad55d4a-18dd-6ef9-0054-86219d070bf0"
    # memory info v2: 'used' excludes the driver's reservation (v1 counts it as used)
    assert g0.used_bytes == 22123708416 and g0.reserved_bytes == 644939776
    assert g0.free_bytes == 127986171904
    (p,) = g0.processes
    assert p.pid == HOLDER_PID and p.visibility is Visibility.HERE
    assert p.is_sglang and p.cmdline is not None and p.cmdline.startswith(title)
    assert p.used_bytes == 22114467840
    assert g0.unattributed_bytes == 22123708416 - 22114467840 < 64 * MIB
    assert g1.processes == () and g1.free_bytes == 150106472448
    assert not report.foreign_pids and report.notes == ()
    text = "\n".join(gpus_lines(report))
    assert "pid      801    20.60 GiB  sglang::scheduler_TP0 tests/gpu/holder.py" in text
    assert "[SGLang]" in text and "free 119.20 GiB" in text
    assert "beyond the listed" not in text  # 8.8 MiB of context is noise


def test_nvml_without_memory_v2_counts_the_reservation_as_used(procroot: Path) -> None:
    reading = NvmlReader(nvml(H200 / "nvml-idle.json", v2=False)).read()
    assert reading.gpus[0].used_bytes == 648347648 and reading.gpus[0].reserved_bytes is None
    report = inspect_gpus(reading, procfs=ProcFs(procroot))
    assert report.gpus[0].unattributed_bytes == 648347648


def test_nvml_bytes_answers_are_decoded(procroot: Path) -> None:
    reading = NvmlReader(nvml(H200 / "nvml-holder.json", as_bytes=True)).read()
    assert reading.gpus[0].name == "NVIDIA H200"
    assert reading.gpus[0].processes[0].reported_name == "sglang::scheduler_TP0"


def test_nvidia_smi_recording_agrees_with_nvml(procroot: Path) -> None:
    a = smi(H200 / "smi-gpus-holder.csv", H200 / "smi-apps-holder.csv")
    b = NvmlReader(nvml(H200 / "nvml-holder.json")).read()
    assert a.source == "nvidia-smi" and [x.uuid for x in a.gpus] == [x.uuid for x in b.gpus]
    for x, y in zip(a.gpus, b.gpus, strict=True):
        assert abs(x.free_bytes - y.free_bytes) < MIB  # smi rounds to MiB
        assert abs(x.total_bytes - y.total_bytes) < MIB
    assert a.gpus[0].processes == (g.RawProcess(HOLDER_PID, 21090 * MIB, "sglang::scheduler_TP0"),)


def test_idle_and_after_show_nothing_held(procroot: Path) -> None:
    for tag in ("idle", "after"):
        r = inspect_gpus(
            smi(H200 / f"smi-gpus-{tag}.csv", H200 / f"smi-apps-{tag}.csv"),
            procfs=ProcFs(procroot),
        )
        assert [len(x.processes) for x in r.gpus] == [0, 0]
        assert all(x.free_bytes > 139 * GIB for x in r.gpus)


# --------------------------------------------------------------------------- containers


def test_container_host_pids_are_not_given_local_names(procroot: Path) -> None:
    # pid 2716354 does not exist here; pid 7 is this namespace's bash with no GPU open
    proc(procroot, 7, ["bash", "-l"], gpu=False)
    report = inspect_gpus(
        NvmlReader(nvml(SYN / "container-nvml.json")).read(), procfs=ProcFs(procroot)
    )
    g0 = report.gpus[0]
    absent, other = g0.processes  # sorted by memory, largest first
    assert (absent.pid, absent.visibility) == (2716354, Visibility.ABSENT)
    assert (other.pid, other.visibility) == (7, Visibility.OTHER_PROGRAM)
    assert other.cmdline is None and other.reported_name is None and other.local_name == "bash -l"
    assert not other.is_sglang
    assert report.foreign_pids
    assert any("host PIDs" in n for n in report.notes)
    text = "\n".join(gpus_lines(report))
    assert "pid        7     1.00 GiB  not visible here (host PID; PID 7 here is 'bash -l'" in text
    # 55270440960 used - 40 GiB - 1 GiB listed: 10.5 GiB nobody here accounts for
    assert g0.unattributed_bytes == 55270440960 - 41 * GIB
    assert "10.47 GiB used by processes that cannot be seen" in text
    # GPU 1: 29.48 GiB used and no process listed at all (the driver hides other namespaces)
    assert report.gpus[1].processes == () and report.gpus[1].unattributed_bytes == 31648120832
    d = report.to_dict()
    assert d["schema_version"] == 2 and d["foreign_pids"] is True
    assert d["gpus"][0]["processes"][1]["visibility"] == "other_program"


def test_unreadable_fds_leave_the_pid_unverified(procroot: Path) -> None:
    proc(procroot, 7, ["python3", "serve.py"], gpu=None)
    r = inspect_gpus(NvmlReader(nvml(SYN / "container-nvml.json")).read(), procfs=ProcFs(procroot))
    p = r.gpus[0].processes[1]
    assert p.visibility is Visibility.UNVERIFIED and p.cmdline == "python3 serve.py"
    assert "cannot confirm" in "\n".join(gpus_lines(r))


# --------------------------------------------------------------------------- SGLang zombie


def test_leftover_sglang_schedulers_are_named(procroot: Path) -> None:
    proc(procroot, 48213, ["sglang::scheduler_TP0"], comm="sglang::schedul")
    proc(procroot, 48214, ["sglang::scheduler_TP1"], comm="sglang::schedul", state="Z", gpu=False)
    reading = smi(SYN / "zombie-smi-gpus.csv", SYN / "zombie-smi-apps.csv")
    report = inspect_gpus(reading, procfs=ProcFs(procroot))
    (p0,) = report.gpus[0].processes
    (p1,) = report.gpus[1].processes
    assert p0.visibility is Visibility.HERE and p0.is_sglang and p0.used_bytes == 41216 * MIB
    # a zombie has closed its fds, yet is not "another program": its memory is still being freed
    assert p1.visibility is Visibility.EXITING and p1.state == "Z" and p1.is_sglang
    text = "\n".join(gpus_lines(report))
    assert "pid    48213    40.25 GiB  sglang::scheduler_TP0 [SGLang]" in text
    assert "[exiting, state Z: memory not released yet]" in text
    assert report.gpus[2].free_bytes == 81046 * MIB


# --------------------------------------------------------------------------- no GPU, errors


def test_no_gpu_via_nvml_and_nvidia_smi(procroot: Path) -> None:
    empty = FakeNvml({"driver_version": "550.54.15", "devices": []})
    r = inspect_gpus(NvmlReader(empty).read(), procfs=ProcFs(procroot))
    assert r.gpus == () and r.notes == ("no GPU found",)

    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 6, (SYN / "nogpu-smi-stdout.txt").read_text(), "")

    assert NvidiaSmiReader(run).read().gpus == ()


def test_nvml_failure_falls_back_to_nvidia_smi() -> None:
    answers = {
        "--query-gpu": (H200 / "smi-gpus-holder.csv").read_text(),
        "--query-compute-apps": (H200 / "smi-apps-holder.csv").read_text(),
    }
    asked: list[str] = []

    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        assert argv[0] == "nvidia-smi" and argv[2] == "--format=csv,noheader,nounits"
        key = argv[1].split("=")[0]
        asked.append(key)
        return subprocess.CompletedProcess(argv, 0, answers[key], "")

    broken = FakeNvml({}, init_error="Driver Not Loaded")
    reading = AutoReader([NvmlReader(broken), NvidiaSmiReader(run)]).read()
    assert reading.source == "nvidia-smi" and asked == ["--query-gpu", "--query-compute-apps"]
    assert broken.calls == ["init"]


def test_neither_reader_is_one_error_naming_both() -> None:
    def missing(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError(argv[0])

    broken = FakeNvml({}, init_error="NVML Shared Library Not Found")
    with pytest.raises(GpuReadError) as info:
        AutoReader([NvmlReader(broken), NvidiaSmiReader(missing)]).read()
    msg = str(info.value)
    assert "\n" not in msg
    assert "NVML could not start: NVML Shared Library Not Found" in msg
    assert "nvidia-smi not found" in msg


def test_nvidia_smi_error_exit_is_an_error() -> None:
    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 9, "", "NVIDIA-SMI has failed because...\n")

    with pytest.raises(GpuReadError, match="nvidia-smi failed: NVIDIA-SMI has failed"):
        NvidiaSmiReader(run).read()


def test_process_list_refused_is_reported(procroot: Path) -> None:
    fake = nvml(H200 / "nvml-holder.json", process_error="Insufficient Permissions")
    r = inspect_gpus(NvmlReader(fake).read(), procfs=ProcFs(procroot))
    assert not r.gpus[0].process_list_known
    assert "the driver would not list processes: Insufficient Permissions" in r.notes
    assert "processes: the driver would not list them" in "\n".join(gpus_lines(r))


def test_nvml_error_mid_read_is_a_read_error_and_shuts_down() -> None:
    fake = nvml(H200 / "nvml-holder.json")

    def boom(h: int) -> Any:
        raise FakeNvml.NVMLError("GPU is lost")

    fake.nvmlDeviceGetUUID = boom  # type: ignore[method-assign]
    with pytest.raises(GpuReadError, match="NVML failed: GPU is lost"):
        NvmlReader(fake).read()
    assert fake.calls == ["init", "shutdown"]


def test_cli_without_nvml_or_nvidia_smi_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml -> ImportError
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi
    with pytest.raises(SystemExit) as info:
        main(["gpus"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("logscope: error: no GPU reading: pynvml is not installed")
    assert "nvidia-smi not found" in err


# --------------------------------------------------------------------------- nvidia-smi CSV


def test_smi_names_with_commas_and_not_available_values() -> None:
    r = parse_nvidia_smi(
        "0, GPU-a, NVIDIA H200, 143771, 2000, 141000\n",
        "GPU-a, 10, /opt/my, odd, name/python, [N/A]\nGPU-a, 11, [Not Found], 1000\n",
    )
    p10, p11 = r.gpus[0].processes
    assert p10 == g.RawProcess(10, None, "/opt/my, odd, name/python")
    assert p11 == g.RawProcess(11, 1000 * MIB, None)
    report = inspect_gpus(r, procfs=ProcFs("/nonexistent-proc"))
    assert report.gpus[0].unattributed_bytes is None
    assert "memory per process not reported" in "\n".join(gpus_lines(report))


@pytest.mark.parametrize(
    ("gpus_csv", "apps_csv", "message"),
    [
        ("0, GPU-a, H200, 1, 2\n", "", "expected 6 fields"),
        ("x, GPU-a, H200, 1, 2, 3\n", "", "bad index"),
        ("0, GPU-a, H200, [N/A], 2, 3\n", "", "memory not reported"),
        ("0, GPU-a, H200, lots, 2, 3\n", "", "unreadable total"),
        ("0, GPU-a, H200, 1, 2, 3\n", "GPU-a, 12\n", "expected 4 fields"),
        ("0, GPU-a, H200, 1, 2, 3\n", "GPU-a, pid, python, 3\n", "bad pid"),
    ],
)
def test_smi_garbage_is_a_read_error(gpus_csv: str, apps_csv: str, message: str) -> None:
    with pytest.raises(GpuReadError, match=message):
        parse_nvidia_smi(gpus_csv, apps_csv)


# --------------------------------------------------------------------------- CUDA_VISIBLE_DEVICES

RAW4 = smi(SYN / "zombie-smi-gpus.csv", SYN / "zombie-smi-apps.csv").gpus


@pytest.mark.parametrize(
    ("value", "indices", "note"),
    [
        (None, [0, 1, 2, 3], None),
        ("2", [2], None),
        ("3,1", [3, 1], None),
        (" 2 , 0 ", [2, 0], None),
        ("GPU-2f1e", [2], None),
        ("GPU-3f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f3,0", [3, 0], None),
        ("", [], "empty"),
        ("1,7,2", [1], "'7' names no GPU here: CUDA sees only the 1 entry before it"),
        ("-1", [], "'-1' names no GPU"),
        ("0,0", [0], "'0' repeats a GPU"),
        ("GPU-", [], "names no GPU"),  # ambiguous prefix
        ("MIG-abcd", [], "names no GPU"),
    ],
)
def test_cuda_visible_devices(value: str | None, indices: list[int], note: str | None) -> None:
    selected, notes = select_visible(RAW4, value)
    assert [x.index for x in selected] == indices
    if note is None:
        assert notes == []
    else:
        assert len(notes) == 1 and note in notes[0]


def test_subset_renumbers_cuda_ordinals_and_hides_the_rest(procroot: Path) -> None:
    reading = smi(SYN / "zombie-smi-gpus.csv", SYN / "zombie-smi-apps.csv")
    report = read_gpus(
        reader=StaticReader(reading), env={"CUDA_VISIBLE_DEVICES": "3,1"}, procfs=ProcFs(procroot)
    )
    assert [(x.index, x.cuda_index) for x in report.gpus] == [(3, 0), (1, 1)]
    assert report.physical_count == 4
    assert report.by_cuda_index(1) is report.gpus[1] and report.by_cuda_index(2) is None
    assert report.gpus[1].processes[0].pid == 48214  # held TP1, seen through cuda:1
    assert "2 GPU(s) visible of 4 (CUDA_VISIBLE_DEVICES=3,1)" in next(iter(gpus_lines(report)))


# --------------------------------------------------------------------------- misc


def test_reading_round_trips_through_dict() -> None:
    reading = NvmlReader(nvml(H200 / "nvml-holder.json")).read()
    again = Reading.from_dict(json.loads(json.dumps(reading.to_dict())))
    assert again == reading
    with pytest.raises(GpuReadError, match="malformed"):
        Reading.from_dict({"gpus": [{"index": 0}]})


def test_stat_state_survives_odd_process_names(procroot: Path) -> None:
    d = procroot / "5"
    d.mkdir()
    (d / "stat").write_text("5 (a) b) (c) D 1 5 5 0\n")
    (d / "cmdline").write_bytes(b"")
    info = ProcFs(procroot).info(5)
    assert info.exists and info.state == "D" and info.cmdline is None and info.uses_gpu is None
    assert ProcFs(procroot).info(6).exists is False


def test_untrusted_command_lines_are_made_visible(procroot: Path) -> None:
    proc(procroot, HOLDER_PID, ["python3", "\x1b]8;;http://x\x07evil"], comm="python3")
    r = inspect_gpus(NvmlReader(nvml(H200 / "nvml-holder.json")).read(), procfs=ProcFs(procroot))
    text = "\n".join(gpus_lines(r))
    assert "\x1b" not in text and "\\x1b]8;;http://x\\x07evil" in text


def test_cli_json_from_a_recorded_reading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reading = smi(H200 / "smi-gpus-holder.csv", H200 / "smi-apps-holder.csv")
    monkeypatch.setattr(g, "reader_for", lambda source: StaticReader(reading))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    with pytest.raises(SystemExit) as info:
        main(["gpus", "--format", "json"])
    assert info.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == 2 and data["cuda_visible_devices"] == "1"
    assert [(x["index"], x["cuda_index"]) for x in data["gpus"]] == [(1, 0)]
    assert data["gpus"][0]["free_gib"] == round(143153 * MIB / GIB, 3)
