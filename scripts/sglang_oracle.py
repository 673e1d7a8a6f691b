"""SGLang's own argument resolution as an oracle for the memory era rules (never a runtime or test
dependency: it writes golden files that tests read).

For each chosen release this installs the wheel (``--no-deps``) into ``WORK/sgl/VERSION`` on top of
one throwaway venv (``WORK/venv``: CPU torch, transformers, apache-tvm-ffi and the few pure-Python
packages ``server_args`` imports), then runs itself inside that venv (``--inner``): the device
facts SGLang would read from the GPU (CUDA available, name, capability, memory capacity) are
mocked, each launch of :data:`CASES` is resolved with ``ServerArgs(...)`` (``__post_init__`` runs
SGLang's defaults: ``mem_fraction_static``, ``max_running_requests`` resets, radix / piecewise
switches, chunked prefill, graph sizes), and the resolved fields plus SGLang's warnings are written
to ``fixtures/memory/oracle/sglang-VERSION.json``.

    python scripts/sglang_oracle.py --work /tmp/oracle 0.4.6.post5 0.5.2 0.5.9 0.5.14 0.5.17 0.5.23

The venv needs network access to the package index once; model configs come from the bundled
profiles (``sglang_logscope/data/models``), written into temporary model directories.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "memory" / "oracle"
MODELS = ROOT / "sglang_logscope" / "data" / "models"

#: Packages SGLang's ``server_args`` import chain needs on a CPU machine (declared deps of sglang).
BASE_PACKAGES = [
    "torch",
    "torchvision",
    "transformers",
    "apache-tvm-ffi",
    "triton",
    "ipython",
    "aiohttp",
    "orjson",
    "psutil",
    "requests",
    "httpx",
    "pybase64",
    "msgspec",
    "pyzmq",
    "setproctitle",
    "fastapi",
    "uvicorn",
    "uvloop",
    "python-multipart",
    "prometheus-client",
    "pillow",
    "scipy",
    "einops",
    "partial_json_parser",
    "interegular",
    "xxhash",
    "zstandard",
    "distro",
    "easydict",
    "sentencepiece",
    "tiktoken",
    "gguf",
    "pydantic",
    "python-dateutil",
    "numpy",
    "blobfile",
    "openai",
    "anthropic",
]

#: Device facts: (name, nvidia-smi memory.total MiB, compute capability).
DEVICES = {
    "a6000": ("NVIDIA RTX A6000", 49140, (8, 6)),
    "rtx4090": ("NVIDIA GeForce RTX 4090", 24564, (8, 9)),
    "h100": ("NVIDIA H100 80GB HBM3", 81559, (9, 0)),
    "h200": ("NVIDIA H200", 143771, (9, 0)),
}

#: Launches resolved per release: id, model profile, device, ServerArgs fields.
CASES: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("dense-8b-tp1-h100", "llama-3.1-8b", "h100", {"tp_size": 1}),
    ("dense-32b-tp2-a6000", "qwen3-32b", "a6000", {"tp_size": 2}),
    ("dense-70b-tp4-4090", "llama-3.1-70b", "rtx4090", {"tp_size": 4}),
    ("dense-70b-tp8-h200", "llama-3.1-70b", "h200", {"tp_size": 8}),
    ("gdn-vlm-tp2-a6000", "qwen3.5-27b", "a6000", {"tp_size": 2, "context_length": 32768}),
    (
        "gdn-vlm-nextn-tp2-a6000",
        "qwen3.5-27b",
        "a6000",
        {
            "tp_size": 2,
            "context_length": 32768,
            "speculative_algorithm": "NEXTN",
            "speculative_num_steps": 3,
            "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": 4,
        },
    ),
    (
        "gdn-vlm-nextn-noradix-tp2-a6000",
        "qwen3.5-27b",
        "a6000",
        {
            "tp_size": 2,
            "context_length": 32768,
            "speculative_algorithm": "NEXTN",
            "speculative_num_steps": 3,
            "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": 4,
            "disable_radix_cache": True,
        },
    ),
    ("gdn-moe-tp4-h100", "qwen3-next-80b-a3b", "h100", {"tp_size": 4}),
    (
        "gdn-moe-dp-attn-tp4-h100",
        "qwen3-next-80b-a3b",
        "h100",
        {"tp_size": 4, "dp_size": 4, "enable_dp_attention": True},
    ),
)

#: ServerArgs fields recorded in the golden files: names containing one of these.
FIELD_KEYS = (
    "mem_fraction_static",
    "max_running_requests",
    "chunked_prefill",
    "cuda_graph",
    "radix",
    "mamba",
    "piecewise",
    "speculative",
    "page_size",
    "dp_size",
    "enable_dp_attention",
    "overlap",
    "max_total_tokens",
    "context_length",
)


def _recorded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sorted(values.items()) if any(f in k for f in FIELD_KEYS)}


def _venv(work: Path) -> Path:
    py = work / "venv" / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *BASE_PACKAGES], check=True)
    return py


def _pins(dist_info: Path, names: tuple[str, ...]) -> list[str]:
    """``Requires-Dist`` pins (outside extras) of ``names`` in a wheel's METADATA."""
    out = []
    for line in (dist_info / "METADATA").read_text(encoding="utf-8").splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            req = line.split(":", 1)[1].split(";")[0].strip().replace(" ", "")
            name = req.split("=")[0].split("<")[0].split(">")[0].split("[")[0].lower()
            if name.replace("_", "-") in names:
                out.append(req)
    return out


def _install(py: Path, work: Path, version: str) -> Path:
    """The release, and the transformers it pins (with that one's hub/tokenizers pins), into
    ``WORK/sgl/VERSION``: older SGLang registers configs a newer transformers already has."""
    target = work / "sgl" / version
    pip = [str(py), "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    if not (target / "sglang").is_dir():
        subprocess.run([*pip, f"sglang=={version}"], check=True)
        (meta,) = target.glob("sglang-*.dist-info")
        tf = _pins(meta, ("transformers",))
        if tf:
            subprocess.run([*pip, *tf], check=True)
            (tmeta,) = target.glob("transformers-*.dist-info")
            deps = _pins(tmeta, ("huggingface-hub", "tokenizers", "safetensors"))
            subprocess.run([*pip, *deps], check=True)
    return target


def outer(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/oracle"))
    ap.add_argument("releases", nargs="+")
    ns = ap.parse_args(argv)
    ns.work.mkdir(parents=True, exist_ok=True)
    py = _venv(ns.work)
    OUT.mkdir(parents=True, exist_ok=True)
    for version in ns.releases:
        target = _install(py, ns.work, version)
        out = OUT / f"sglang-{version}.json"
        env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(ns.work)}
        subprocess.run(
            [str(py), __file__, "--inner", version, str(out)], check=True, env=env, cwd=ns.work
        )
        print(f"wrote {out.relative_to(ROOT)}")
    return 0


# ---------------------------------------------------------------------------------------- inner


def _mock_device(name: str, mib: int, capability: tuple[int, int]) -> None:
    """Make torch report one CUDA device with these facts (before SGLang is imported)."""
    import torch

    props = type(
        "Props",
        (),
        {"name": name, "total_memory": mib << 20, "major": capability[0], "minor": capability[1]},
    )
    torch.cuda.is_available = lambda: True  # type: ignore[assignment]
    torch.cuda.device_count = lambda: 8  # type: ignore[assignment]
    torch.cuda.get_device_name = lambda *a, **k: name  # type: ignore[assignment]
    torch.cuda.get_device_capability = lambda *a, **k: capability  # type: ignore[assignment]
    torch.cuda.get_device_properties = lambda *a, **k: props  # type: ignore[assignment]
    torch.cuda.mem_get_info = lambda *a, **k: (mib << 20, mib << 20)  # type: ignore[assignment]
    real_fake = torch.library.register_fake

    def register_fake(op: Any, *a: Any, **k: Any) -> Any:
        # fake kernels for the stubbed sgl_kernel ops: nothing to register them on
        if isinstance(op, str) and op.startswith("sgl_kernel::"):
            return lambda fn=None, *x, **y: fn
        return real_fake(op, *a, **k)

    torch.library.register_fake = register_fake  # type: ignore[assignment]
    if torch.version.cuda is None:  # a CPU build: look like a CUDA one
        torch.version.cuda = "12.8"  # type: ignore[misc]
    torch.version.hip = None  # type: ignore[misc]


#: GPU kernel packages SGLang imports at module level; served as inert stubs (their kernels are
#: never called while arguments are resolved).
STUBBED = ("sgl_kernel", "flashinfer")


class _StubMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _stub_class(name)


def _stub_class(name: str) -> Any:
    return _StubMeta(
        name, (), {"__init__": lambda self, *a, **k: None, "__call__": lambda *a, **k: None}
    )


def _install_stubs() -> None:
    import importlib.abc
    import importlib.machinery
    import types

    class StubModule(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return _stub_class(name)

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            if fullname.split(".")[0] in STUBBED:
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec: Any) -> Any:
            mod = StubModule(spec.name)
            mod.__path__ = []
            return mod

        def exec_module(self, module: Any) -> None:
            return None

    sys.meta_path.insert(0, Finder())


def _patch_sglang(name: str, mib: int, capability: tuple[int, int]) -> None:
    """Replace SGLang's device queries in every loaded module (they are imported by name)."""
    fakes = {
        "get_device": lambda *a, **k: "cuda",
        "get_device_memory_capacity": lambda *a, **k: float(mib),
        "get_nvgpu_memory_capacity": lambda *a, **k: float(mib),
        "get_device_name": lambda *a, **k: name,
        "get_device_capability": lambda *a, **k: capability,
        "get_device_sm": lambda *a, **k: capability[0] * 10 + capability[1],
    }
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("sglang"):
            for attr, fake in fakes.items():
                if callable(getattr(mod, attr, None)):
                    setattr(mod, attr, fake)


def _resolve(version: str, model: str, device: str, fields: dict[str, Any]) -> dict[str, Any]:
    import logging

    name, mib, cap = DEVICES[device]
    _patch_sglang(name, mib, cap)
    from sglang.srt import server_args as sa

    profile = json.loads((MODELS / f"{model}.json").read_text(encoding="utf-8"))
    records: list[str] = []

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                records.append(record.getMessage())

    handler = Grab()
    logging.getLogger().addHandler(handler)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            mdir = Path(tmp) / model
            mdir.mkdir()
            (mdir / "config.json").write_text(json.dumps(profile["config"]), encoding="utf-8")
            try:
                args = sa.ServerArgs(model_path=str(mdir), **fields)
                if hasattr(args, "resolve_once"):  # 0.5.23: resolution left out of __post_init__
                    args.resolve_once()
            except Exception as exc:  # SGLang's own refusal is a golden result too
                return {"error": f"{type(exc).__name__}: {exc}"[:400], "warnings": records}
    finally:
        logging.getLogger().removeHandler(handler)
    values = args.resolved_dict() if hasattr(args, "resolved_dict") else vars(args)
    out = _recorded(dict(values))
    return {"resolved": out, "warnings": sorted(set(records))}


def inner(version: str, out: Path) -> int:
    results: dict[str, Any] = {}
    first = DEVICES[CASES[0][2]]
    _install_stubs()
    _mock_device(*first)
    import sglang.srt.server_args  # noqa: F401  (import once, then patch per case)

    for case_id, model, device, fields in CASES:
        _mock_device(*DEVICES[device])
        results[case_id] = {
            "model": model,
            "device": {"name": DEVICES[device][0], "total_mib": DEVICES[device][1]},
            "args": fields,
            **_resolve(version, model, device, fields),
        }
    doc = {
        "sglang_version": version,
        "generated_by": "scripts/sglang_oracle.py (ServerArgs.__post_init__ with mocked device facts)",
        "cases": results,
    }
    out.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        sys.exit(inner(sys.argv[2], Path(sys.argv[3])))
    sys.exit(outer(sys.argv[1:]))
