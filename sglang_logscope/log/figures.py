"""Key memory figures a run printed: free memory at each stage, weights, pools, graphs."""

from __future__ import annotations

from typing import Any

from ..events import Event, EventKind
from .runs import Run


def _per_rank(events: list[Event], key: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for e in events:
        value = e.fields.get(key)
        if isinstance(value, (int, float)):
            out.setdefault(e.rank.label if e.rank else "-", float(value))
    return out


def _first(events: list[Event], key: str) -> Any:
    for e in events:
        if key in e.fields:
            return e.fields[key]
    return None


def run_memory(run: Run) -> dict[str, Any]:
    """Figures by stage. GiB values as printed (SGLang's 'GB' are GiB); per rank where printed.

    ``free_before_weights_gib`` (F0) is the minimum across ranks of ``Load weight begin``.
    """
    begin = run.of_kind(EventKind.LOAD_WEIGHT_BEGIN)
    end = run.of_kind(EventKind.LOAD_WEIGHT_END)
    kv = run.of_kind(EventKind.KV_CACHE_ALLOCATED)
    mamba = run.of_kind(EventKind.MAMBA_CACHE_ALLOCATED)
    pool = run.of_kind(EventKind.MEMORY_POOL_END)
    graph = run.of_kind(EventKind.CUDA_GRAPH_END)
    summary = run.first(EventKind.TOKEN_SUMMARY)
    f0 = _per_rank(begin, "avail_gib")
    after_weights = _per_rank(end, "avail_gib")
    weights = _per_rank(end, "mem_usage_gib")
    kv_tokens = _first(kv, "tokens")
    out: dict[str, Any] = {
        "free_before_weights_gib": min(f0.values()) if f0 else None,
        "free_before_weights_by_rank": f0,
        "weights_gib": max(weights.values()) if weights else None,
        "free_after_weights_gib": min(after_weights.values()) if after_weights else None,
        "kv_tokens": kv_tokens,
        "kv_gib": kv_pool_gib(kv[0]) if kv else None,
        "mamba_slots": _first(mamba, "max_mamba_cache_size"),
        "mamba_gib": _mamba_gib(mamba[0]) if mamba else None,
        "free_after_pools_gib": min(_per_rank(pool, "avail_gib").values(), default=None),
        "free_after_cuda_graph_gib": min(_per_rank(graph, "avail_gib").values(), default=None),
        "max_total_num_tokens": summary.fields.get("max_total_num_tokens") if summary else None,
        "max_running_requests": summary.fields.get("max_running_requests") if summary else None,
        "context_len": summary.fields.get("context_len") if summary else None,
    }
    return out


def kv_pool_gib(e: Event) -> float | None:
    """The KV pool's size from a ``KV Cache is allocated`` line: K + V (or the one KV size)."""
    parts = [e.fields.get(k) for k in ("k_gib", "v_gib", "kv_gib")]
    nums = [float(p) for p in parts if isinstance(p, (int, float))]
    return round(sum(nums), 2) if nums else None


def _mamba_gib(e: Event) -> float | None:
    nums = [
        float(v) for k, v in e.fields.items() if k.endswith("_gib") and isinstance(v, (int, float))
    ]
    return round(sum(nums), 2) if nums else None
