"""Record the order of SGLang's own start-up steps on CPU (issue 32, item 4).

MAINTAINER TOOL. Never imported by the package or the tests, and SGLang is never a dependency
of the project: this script runs inside a THROWAWAY virtual environment, outside the
repository, that has one SGLang release installed (one venv per release; the transformers pin
differs)::

    python3.11 -m venv /work/h32c-sgl/venv
    V=/work/h32c-sgl/venv/bin
    $V/pip install torch==2.13.0+cpu                 # PyPI's CPU-only build, no nvidia-* wheels
    $V/pip install --no-deps sglang==0.5.15 torchvision==0.28.0
    $V/pip install transformers==5.12.1 numpy pydantic fastapi uvicorn orjson psutil pyzmq \
        requests tqdm einops sentencepiece tiktoken msgspec pybase64 setproctitle aiohttp \
        packaging python-multipart uvloop partial_json_parser interegular pillow \
        prometheus-client safetensors scipy nvidia-ml-py openai anthropic xgrammar llguidance \
        compressed-tensors blobfile IPython watchfiles xxhash gguf distro modelscope datasets
    $V/python scripts/record_startup_order.py --out /tmp/order-0.5.15.json   # from the repo root

The recorded runs (0.5.13, 0.5.14, 0.5.15, 0.5.23) are the golden
``fixtures/memory/startup-order.json``; docs/memory.md says what they settle.

What it does: writes a tiny Qwen3.5-style config (hybrid GDN + full attention, one MTP layer,
untied embeddings), builds SGLang's ``Scheduler`` in this process with ``--load-format dummy``
(random weights), ``--speculative-algorithm NEXTN`` and SGLang's own CPU engine
(``SGLANG_USE_CPU_ENGINE=1``), on a fake device of ``FAKE_TOTAL_GIB`` whose free memory is the
total minus the bytes the loaded models hold (``get_available_gpu_memory`` mocked). It logs, in
call order: the scheduler's init stages, the target's and the draft's ``ModelRunner.load_model``,
``alloc_memory_pool`` / ``init_memory_pool``, every free-memory profile
(``_profile_available_bytes`` / ``profile_max_num_token``) and the draft model's
``set_embed_and_head``. At each profile it looks at the models themselves: are the draft's
``embed_tokens.weight`` / ``lm_head.weight`` still tensors of their own (resident copies), and how
many bytes do the models hold. The run stops on purpose once the pools and the draft's
``set_embed_and_head`` are done (attention backends and CUDA graphs come later and do not
decide the question).

Stubbed in this process only (the output lists each under ``"stubbed"``; a stub that is CALLED
is listed as such and fails the run): ``torchvision._meta_registrations`` (PyPI's torchvision
links ``libc10_cuda``), ``torch.ops.sgl_kernel.*_cpu`` and the ``sgl_kernel`` package (the CPU
build of sgl-kernel is not on PyPI), ``torch.cuda.synchronize`` / ``empty_cache`` (no-ops),
tensors created with ``device="cuda"`` placed on the CPU, and the KV pool's Triton copy-kernel
warm-up (Triton has no CPU driver).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import tempfile
import traceback
import types
from pathlib import Path
from typing import Any

FAKE_TOTAL_GIB = 0.5
EVENTS: list[dict[str, Any]] = []
RUNNERS: list[Any] = []
STUBBED: list[str] = []


def _note(what: str) -> None:
    if what not in STUBBED:
        STUBBED.append(what)


class StopAfterPools(Exception):
    """Raised once the pools are done: at the scheduler's attention backends (0.5.14+), or
    right after the draft's ``set_embed_and_head`` (before 0.5.14, no staged init)."""


def tiny_qwen3_5_config() -> dict[str, Any]:
    """A Qwen3.5 (hybrid GDN + full attention, MTP head, untied embeddings) config, tiny."""
    text = {
        "model_type": "qwen3_5_text",
        "attn_output_gate": True,
        "full_attention_interval": 4,
        "head_dim": 32,
        "hidden_size": 128,
        "intermediate_size": 256,
        "layer_types": ["linear_attention"] * 3 + ["full_attention"],
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 32,
        "linear_num_key_heads": 2,
        "linear_num_value_heads": 4,
        "linear_value_head_dim": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 4,
        "vocab_size": 4096,
        "mamba_ssm_dtype": "float32",
        "mtp_num_hidden_layers": 1,
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "dtype": "bfloat16",
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 10000000,
            "partial_rotary_factor": 0.25,
            "mrope_interleaved": True,
            "mrope_section": [2, 1, 1],
        },
    }
    vision = {
        "model_type": "qwen3_5",
        "depth": 1,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_heads": 2,
        "out_hidden_size": 128,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "in_channels": 3,
        "num_position_embeddings": 64,
    }
    return {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "model_type": "qwen3_5",
        "tie_word_embeddings": False,
        "text_config": text,
        "vision_config": vision,
        "image_token_id": 4000,
        "video_token_id": 4001,
        "vision_start_token_id": 4002,
        "vision_end_token_id": 4003,
    }


def stub_torchvision_meta() -> None:
    """PyPI's torchvision wheel cannot load its C ops next to a CPU-only torch."""
    name = "torchvision._meta_registrations"
    sys.modules[name] = types.ModuleType(name)
    _note(name + " (empty module)")


CPU_OPS = frozenset({"shm_allreduce", "shm_allgather", "initialize", "weight_packed_linear"})


class _StubOps:
    """Stands in for ``torch.ops.sgl_kernel`` (sgl-kernel's CPU build is not on PyPI).

    SGLang's CPU engine binds these ops at import time; none is meant to run before the
    pools. Calling one raises, and the call is recorded, so a run that needs one says so."""

    def __getattr__(self, name: str) -> Any:
        # only the CPU engine's own ops (``*_cpu``); a CUDA op stays absent, as on a CPU
        # build, so that ``register_fake_if_exists`` and ``hasattr`` probes see the truth
        if not name.endswith("_cpu") and name not in CPU_OPS:
            raise AttributeError(name)
        _note(f"torch.ops.sgl_kernel.{name} (bound)")

        def op(*a: Any, **k: Any) -> Any:
            _note(f"torch.ops.sgl_kernel.{name} (CALLED)")
            raise NotImplementedError(f"stubbed sgl_kernel op {name}")

        return op


class _Stub:
    """A stubbed kernel name: calling it raises (and is recorded); attributes are stubs too
    (e.g. ``scalar_types.uint4b8``)."""

    def __init__(self, qualname: str) -> None:
        self._qualname = qualname

    def __call__(self, *a: Any, **k: Any) -> Any:
        _note(f"{self._qualname} (CALLED)")
        raise NotImplementedError(f"stubbed {self._qualname}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self._qualname}.{name}")


def _stub_fn(qualname: str) -> Any:
    return _Stub(qualname)


class _StubKernelFinder:
    """Import hook: ``sgl_kernel`` and any ``sgl_kernel.*`` become stub packages."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        import importlib.machinery

        if name != "sgl_kernel" and not name.startswith("sgl_kernel."):
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        mod = types.ModuleType(spec.name)
        mod.__path__ = []  # a package, so that submodules import

        def attr(name: str, _mod: str = spec.name) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            _note(f"{_mod}.{name} (bound)")
            return _stub_fn(f"{_mod}.{name}")

        mod.__getattr__ = attr  # type: ignore[method-assign]
        return mod

    def exec_module(self, module: Any) -> None:
        return None


def stub_sgl_kernel_module() -> None:
    """Releases import CPU ops from the ``sgl_kernel`` package (its CPU build is not on PyPI)."""
    try:
        import sgl_kernel  # noqa: F401
    except ImportError:
        sys.meta_path.insert(0, _StubKernelFinder())
        _note("sgl_kernel, sgl_kernel.* (modules: every name a function that raises)")


def stub_device() -> None:
    """The device facts SGLang's CPU engine needs but this machine cannot give."""
    import torch

    torch.ops.sgl_kernel = _StubOps()  # type: ignore[attr-defined]
    # set_embed_and_head ends with torch.cuda.synchronize(); CPU-only torch would raise there
    torch.cuda.synchronize = lambda *a, **k: None  # type: ignore[assignment]
    torch.cuda.empty_cache = lambda *a, **k: None  # type: ignore[assignment]
    _note("torch.cuda.synchronize, torch.cuda.empty_cache (no-ops)")
    # a few SGLang pools name device="cuda" outright (e.g. MambaPool's speculative
    # intermediate state in 0.5.15); on this CPU-only torch they are placed on the CPU
    for name in ("zeros", "empty", "ones", "full", "arange", "tensor", "zeros_like", "empty_like"):
        real = getattr(torch, name)

        def cpu_instead(*a: Any, _real: Any = real, _name: str = name, **k: Any) -> Any:
            dev = k.get("device")
            if dev is not None and str(dev).startswith("cuda"):
                k["device"] = "cpu"
                _note(f"torch.{_name}(device='cuda') placed on cpu")
            return _real(*a, **k)

        setattr(torch, name, cpu_instead)


def log(step: str, **facts: Any) -> None:
    EVENTS.append({"step": step, **facts})
    print(f"[order] {len(EVENTS):2d} {step} {facts if facts else ''}", flush=True)


def role(runner: Any) -> str:
    return "draft" if getattr(runner, "is_draft_worker", False) else "target"


def held_bytes() -> int:
    """Bytes of the loaded models' parameters and buffers, each storage counted once."""
    seen: dict[int, int] = {}
    for runner in RUNNERS:
        model = getattr(runner, "model", None)
        if model is None:
            continue
        for t in (*model.parameters(), *model.buffers()):
            seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
    return sum(seen.values())


def draft_copies_state() -> dict[str, Any]:
    """Are the draft's embed/lm_head tensors still its own (not the target's)?"""
    targets = [r for r in RUNNERS if role(r) == "target" and getattr(r, "model", None)]
    drafts = [r for r in RUNNERS if role(r) == "draft" and getattr(r, "model", None)]
    if not targets or not drafts:
        return {"draft_loaded": bool(drafts)}
    t_embed, t_head = targets[0].model.get_embed_and_head()
    d_embed, d_head = drafts[0].model.get_embed_and_head()
    own_embed = d_embed.data_ptr() != t_embed.data_ptr()
    own_head = d_head.data_ptr() != t_head.data_ptr()
    return {
        "draft_loaded": True,
        "draft_embed_is_own_tensor": own_embed,
        "draft_lm_head_is_own_tensor": own_head,
        "models_held_bytes": held_bytes(),
        "draft_copies_bytes": (d_embed.numel() * d_embed.element_size() if own_embed else 0)
        + (d_head.numel() * d_head.element_size() if own_head else 0),
    }


def wrap(owner: Any, name: str, before: Any, after: Any = None) -> bool:
    fn = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if fn is None:
        return False

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        before(*args, **kwargs)
        out = fn(*args, **kwargs)
        if after is not None:
            after(*args, **kwargs)
        return out

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    setattr(owner, name, wrapper)
    return True


def fake_device_memory() -> None:
    """Free/total memory of a fake FAKE_TOTAL_GIB device: total minus what the models hold."""
    gib = 1 << 30

    def fake_free(device: Any, gpu_id: Any, *a: Any, **k: Any) -> float:
        return (FAKE_TOTAL_GIB * gib - held_bytes()) / gib  # GB, as SGLang expects

    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith("sglang"):
            continue
        if hasattr(mod, "get_available_gpu_memory"):
            mod.get_available_gpu_memory = fake_free
        if hasattr(mod, "get_device_memory_capacity"):
            mod.get_device_memory_capacity = lambda *a, **k: FAKE_TOTAL_GIB * 1024  # MiB
    # the KV pool warms a Triton copy kernel up; Triton has no CPU driver
    from sglang.srt.mem_cache import memory_pool

    for cls in vars(memory_pool).values():
        if isinstance(cls, type) and "_init_kv_copy_and_warmup" in cls.__dict__:
            cls._init_kv_copy_and_warmup = lambda self: None
            _note(f"{cls.__name__}._init_kv_copy_and_warmup (no-op: Triton kernel warm-up)")


def probe_scheduler(found: dict[str, bool]) -> bool:
    """Log the scheduler's init stages; stop at its attention backends (0.5.14+)."""
    from sglang.srt.managers.scheduler import Scheduler

    for step in (
        "init_tp_model_worker",
        "maybe_init_draft_worker",
        "init_memory_pools",
        "init_target_memory_pool",
    ):
        found[f"Scheduler.{step}"] = wrap(
            Scheduler, step, lambda *a, s=step, **k: log(f"Scheduler.{s}")
        )

    def stop(*a: Any, **k: Any) -> None:
        log("Scheduler.init_all_attention_backends (stop: the pools are done)")
        raise StopAfterPools

    staged = wrap(Scheduler, "init_all_attention_backends", stop)
    found["Scheduler.init_all_attention_backends"] = staged
    return staged


def probe_runner(found: dict[str, bool]) -> None:
    """Log weight loads, pool allocations and every free-memory profile, target or draft."""
    from sglang.srt.model_executor import model_runner as mr

    owners: list[Any] = [mr.ModelRunner]
    try:  # 0.5.1x: pools and profile in a mixin
        from sglang.srt.model_executor import model_runner_kv_cache_mixin as kvmix

        owners.append(kvmix.ModelRunnerKVCacheMixin)
    except ImportError:
        pass
    try:  # 0.5.2x: the profile moved to mem_cache/kv_cache_configurator.py
        from sglang.srt.mem_cache import kv_cache_configurator as kvc

        owners.append(kvc.KVCacheConfigurator)
    except ImportError:
        pass

    def on_load(self: Any, *a: Any, **k: Any) -> None:
        if self not in RUNNERS:
            RUNNERS.append(self)
        log(f"ModelRunner.load_model [{role(self)}] begin")

    found["ModelRunner.load_model"] = wrap(
        mr.ModelRunner,
        "load_model",
        on_load,
        lambda self, *a, **k: log(f"ModelRunner.load_model [{role(self)}] end"),
    )

    def on_profile(self: Any, *a: Any, **k: Any) -> None:
        log(f"profile free memory [{role(self)}]", **draft_copies_state())

    for owner in owners:
        for step in ("alloc_memory_pool", "init_memory_pool"):
            if step in owner.__dict__:
                found[f"{owner.__name__}.{step}"] = wrap(
                    owner,
                    step,
                    lambda self, *a, s=step, **k: log(f"ModelRunner.{s} [{role(self)}]"),
                )
        for step in ("_profile_available_bytes", "profile_max_num_token"):
            if step in owner.__dict__:
                found[f"{owner.__name__}.{step}"] = wrap(owner, step, on_profile)


def probe_share(found: dict[str, bool], staged: bool) -> None:
    """Log the draft's set_embed_and_head; before 0.5.14 (no staged init) stop after it."""
    from sglang.srt.models import qwen3_5_mtp as mtp

    def after_share(*a: Any, **k: Any) -> None:
        log("draft set_embed_and_head end", **draft_copies_state())
        if not staged:
            raise StopAfterPools

    found["Qwen3_5ForCausalLMMTP.set_embed_and_head"] = wrap(
        mtp.Qwen3_5ForCausalLMMTP,
        "set_embed_and_head",
        lambda *a, **k: log("draft set_embed_and_head begin", **draft_copies_state()),
        after_share,
    )


def install_probes() -> dict[str, bool]:
    """Mock the device's memory and wrap the steps to record; name each probe found."""
    found: dict[str, bool] = {}
    staged = probe_scheduler(found)
    probe_runner(found)
    probe_share(found, staged)
    fake_device_memory()  # last: every sglang module that binds the function is imported now
    return found


def publish_context(server_args: Any) -> None:
    """0.5.2x: ``run_scheduler_process`` publishes the runtime context before ``Scheduler``."""
    from sglang.srt.managers import scheduler as sched

    if hasattr(sched, "publish") and hasattr(sched, "SpawnRanks"):
        world = sched.spawn_world_rank(server_args, tp_rank=0, pp_rank=0)
        sched.publish(
            server_args,
            role="scheduler",
            ranks=sched.SpawnRanks(world_rank=world, dp_rank=None, gpu_id=0),
        )


def build_server_args(model_dir: Path) -> Any:
    from sglang.srt.server_args import ServerArgs

    return ServerArgs(
        model_path=str(model_dir),
        load_format="dummy",
        device="cpu",
        dtype="bfloat16",
        skip_tokenizer_init=True,
        tp_size=1,
        speculative_algorithm="NEXTN",
        speculative_num_steps=1,
        speculative_eagle_topk=1,
        speculative_num_draft_tokens=2,
        disable_cuda_graph=True,
        mem_fraction_static=0.8,
        context_length=2048,
        max_running_requests=4,
        chunked_prefill_size=256,
        attention_backend="triton",
        mamba_ssm_dtype="float32",
        disable_radix_cache=True,
        disable_overlap_schedule=True,
    )


def environment() -> dict[str, Any]:
    import torch
    import transformers

    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "SGLANG_USE_CPU_ENGINE": os.environ["SGLANG_USE_CPU_ENGINE"],
        "fake_device_total_gib": FAKE_TOTAL_GIB,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where to write the recorded order (JSON)")
    ns = ap.parse_args()
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")  # SGLang's own CPU backend
    stub_torchvision_meta()
    stub_device()
    stub_sgl_kernel_module()

    import sglang

    work = Path(tempfile.mkdtemp(prefix="sgl-order-"))
    (work / "config.json").write_text(json.dumps(tiny_qwen3_5_config()), encoding="utf-8")
    server_args = build_server_args(work)
    from sglang.srt.managers.scheduler import Scheduler
    from sglang.srt.server_args import PortArgs

    found = install_probes()
    port_args = PortArgs.init_new(server_args)
    wanted = {
        "server_args": server_args,
        "port_args": port_args,
        "gpu_id": 0,
        "tp_rank": 0,
        "moe_ep_rank": 0,
        "pp_rank": 0,
        "attn_cp_rank": 0,
        "moe_dp_rank": 0,
        "dp_rank": None,
    }
    params = inspect.signature(Scheduler.__init__).parameters
    publish_context(server_args)
    result: dict[str, Any] = {
        "sglang": sglang.__version__,
        "environment": environment(),
        "command": " ".join([sys.executable, *sys.argv]),
        "stubbed": STUBBED,
        "probes": found,
        "config": tiny_qwen3_5_config(),
    }
    try:
        Scheduler(**{k: v for k, v in wanted.items() if k in params})
        result["stopped"] = "scheduler init finished without reaching the stop"
    except StopAfterPools:
        result["stopped"] = "after the pools and the draft's set_embed_and_head (on purpose)"
    except Exception:  # the point is to write down what blocked the run
        result["stopped"] = "error"
        result["error"] = traceback.format_exc()[-4000:]
    result["events"] = EVENTS
    Path(ns.out).write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    print(result["stopped"])
    return 0 if result["stopped"] != "error" else 1


if __name__ == "__main__":
    sys.exit(main())
