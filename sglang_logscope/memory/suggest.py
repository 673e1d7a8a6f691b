"""The smallest single changes that make a launch fit, each checked by re-running the budget."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .budget_types import Suggestion

if TYPE_CHECKING:
    from .budget_types import Budget, Suggestion

#: Slack below this (GiB) is called risky when a suggestion raises --mem-fraction-static.
RISKY_SLACK_GIB = 4.0
MAX_MFS = 0.95

Rerun = Callable[..., "Budget"]


def _effect(b: Budget) -> str:
    g = b.per_gpu
    mrr = (
        f", max_running_requests {b.max_running_requests}"
        if b.max_running_requests is not None
        else ""
    )
    return f"fits: {g.kv_tokens:,} KV tokens ({g.kv_gib:.2f} GiB){mrr}"


#: Budgets the search may recompute, whatever the inputs (issue 20: 10**9 draft tokens
#: once meant 10**9 reruns). Today's searches need at most ~70.
MAX_RERUNS = 256
#: Draft-token counts tried below the current one.
MAX_DRAFT_STEPS = 32


class _Spent(Exception):
    """The search used its :data:`MAX_RERUNS`."""


def suggestions(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[Suggestion]:
    """The smallest changes that fit, found in at most :data:`MAX_RERUNS` budgets (what was
    found when the limit is reached is kept)."""
    out: list[Suggestion] = []
    spent = [0]

    def counted(*a: Any, **k: Any) -> Budget:
        spent[0] += 1
        if spent[0] > MAX_RERUNS:
            raise _Spent
        return rerun(*a, **k)

    with contextlib.suppress(_Spent):
        _search(b, counted, out)
    return out


def _search(b: Budget, rerun: Rerun, out: list[Suggestion]) -> None:

    inputs = b.inputs
    hybrid = b.per_gpu.mamba_slot_bytes > 0
    spec = inputs.get("speculative_algorithm")
    mrr = inputs.get("max_running_requests")

    def usable(r: Budget) -> bool:
        """Fits and the KV pool holds at least one full-length request."""
        return r.fits and r.per_gpu.kv_tokens >= int(inputs.get("context_len") or 0)

    def add(change: str, changed: Mapping[str, Any], note: str = "") -> bool:
        r = rerun(changed)
        if not r.fits:
            return False
        out.append(Suggestion(change, _effect(r) + note, dict(changed)))
        return True

    # 1. fewer running requests (hybrid: state slots and spec scratch scale with it)
    if hybrid and isinstance(mrr, int) and mrr > 1:
        best = _largest(1, mrr - 1, lambda n: usable(rerun({"max_running_requests": n})))
        if best is None:
            best = _largest(1, mrr - 1, lambda n: rerun({"max_running_requests": n}).fits)
        if best is not None:
            add(f"--max-running-requests {best}", {"max_running_requests": best})
    # 2. bf16 ssm state
    if hybrid and inputs.get("mamba_ssm_dtype") == "float32":
        add(
            "--mamba-ssm-dtype bfloat16",
            {"mamba_ssm_dtype": "bfloat16"},
            " (state precision halves)",
        )
    # 3. fewer draft tokens
    d = inputs.get("speculative_num_draft_tokens")
    topk = inputs.get("speculative_eagle_topk")
    if spec and isinstance(d, int) and d > 2:
        for n in range(d - 1, max(1, d - 1 - MAX_DRAFT_STEPS), -1):
            changed: dict[str, Any] = {"speculative_num_draft_tokens": n}
            if topk in (None, 1):
                changed["speculative_num_steps"] = n - 1
                text = f"--speculative-num-steps {n - 1} --speculative-num-draft-tokens {n}"
            else:
                text = f"--speculative-num-draft-tokens {n}"
            if add(text, changed):
                break
    # 4. fp8 KV cache
    kvd = str(inputs.get("kv_cache_dtype") or "auto").lower()
    if not kvd.startswith("fp8"):
        add("--kv-cache-dtype fp8_e4m3", {"kv_cache_dtype": "fp8_e4m3"})
    # 5. a higher --mem-fraction-static
    cur = float(inputs.get("mem_fraction_static") or 0.0)
    steps = [round(cur + i * 0.005, 3) for i in range(1, 200) if cur + i * 0.005 <= MAX_MFS + 1e-9]
    first = next((m for m in steps if usable(rerun({"mem_fraction_static": m}))), None)
    if first is None:
        first = next((m for m in steps if rerun({"mem_fraction_static": m}).fits), None)
    if first is not None:
        r = rerun({"mem_fraction_static": first})
        risk = (
            f"; slack only {r.per_gpu.slack_gib:.2f} GiB for CUDA graphs and activations: risk of a later CUDA OOM"
            if r.per_gpu.slack_gib < RISKY_SLACK_GIB or r.warnings
            else f"; slack {r.per_gpu.slack_gib:.2f} GiB"
        )
        out.append(
            Suggestion(
                f"--mem-fraction-static {first}", _effect(r) + risk, {"mem_fraction_static": first}
            )
        )
    # 6. larger tensor parallelism
    tp = int(inputs.get("tp_size") or 1)
    for new_tp in (tp * 2, tp * 4):
        if new_tp > 8:
            break
        if add(f"--tp {new_tp}", {"tp_size": new_tp}, f" (needs {new_tp} GPUs)"):
            break


def _largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
    """Largest n in [lo, hi] with ok(n), assuming ok is monotone (true below a threshold)."""
    if not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
