"""Changes a user can act on, each checked by re-running the budget, ranked by what they keep.

A suggestion ``fits`` only when SGLang starts *and* its KV pool holds at least one request of
the context length. Ranking: fitting first, then changes within the GPUs given, then those that
keep the context length, then the most requests of that length served at once, then keeping
speculative decoding; a raise of ``--mem-fraction-static`` that leaves a thin slack ranks last
among the fitting ones, and so does one whose own budget warns (each suggestion is the full
budget of the changed command and carries that budget's warnings).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from .._record import record
from .budget_types import Budget, Suggestion

#: Slack below this (GiB) is called risky when a suggestion raises --mem-fraction-static.
RISKY_SLACK_GIB = 4.0
MAX_MFS = 0.95

Rerun = Callable[..., Budget]

#: Budgets the search may recompute, whatever the inputs (issue 20: 10**9 draft tokens
#: once meant 10**9 reruns). Today's searches need at most ~70.
MAX_RERUNS = 256
#: Draft-token counts tried below the current one.
MAX_DRAFT_STEPS = 32


class _Spent(Exception):
    """The search used its :data:`MAX_RERUNS`."""


@record
class _Candidate:
    """A change to suggest, with what it keeps and gives up (for ranking)."""

    suggestion: Suggestion
    keeps_context: bool = True
    keeps_spec: bool = True
    risky: bool = False
    order: int = 0

    def rank(self) -> tuple[Any, ...]:
        s = self.suggestion
        served = _served(s.concurrency_at_context, s.max_running_requests)
        return (
            not s.fits,
            s.needs_more_gpus,
            self.risky,
            bool(s.warnings),  # the changed command's own budget warns (a later CUDA OOM)
            not self.keeps_context,
            -int(served),
            not self.keeps_spec,
            self.order,
        )


def _served(conc: float | None, mrr: int | None) -> float:
    """Requests of the full context length served at once: the pool and the slots both bound it."""
    c = conc or 0.0
    return min(c, float(mrr)) if mrr is not None else c


def usable(r: Budget) -> bool:
    """Starts, and the KV pool holds at least one full-length request."""
    conc = r.concurrency_at_context
    return r.fits and (conc is None or conc >= 1)


def _effect(r: Budget, note: str = "") -> str:
    if not r.fits:
        kind = r.failure_kind.value if r.failure_kind else "no request slots"
        return f"still does not fit ({kind}){note}"
    if r.not_modelled:
        return f"starts; KV tokens not modelled ({', '.join(r.not_modelled)}){note}"
    g = r.per_gpu
    mrr = f", max_running_requests {r.max_running_requests}" if r.max_running_requests else ""
    conc = r.concurrency_at_context
    lead = "fits" if usable(r) else "starts but holds less than one full request"
    at = f", {conc:.1f} requests of {r.context_len:,} tokens at once" if conc is not None else ""
    return f"{lead}: {g.kv_tokens:,} KV tokens ({g.kv_gib:.2f} GiB){mrr}{at}{note}"


def _make(
    r: Budget, change: str, changed: Mapping[str, Any], note: str = "", **kw: Any
) -> Suggestion:
    return Suggestion(
        change,
        _effect(r, note),
        dict(changed),
        fits=usable(r),
        kv_tokens=r.kv_tokens,
        max_running_requests=r.max_running_requests,
        concurrency_at_context=r.concurrency_at_context,
        needs_more_gpus=bool(kw.get("needs_more_gpus", False)),
        warnings=tuple(r.warnings),
        confidence=str(r.confidence.get("level", "")) or None,
    )


def suggestions(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[Suggestion]:
    """Every single change that makes the launch start, ranked (see the module docstring),
    found in at most :data:`MAX_RERUNS` budgets (what was found when the limit is reached is
    kept)."""
    out: list[_Candidate] = []
    spent = [0]

    def counted(*a: Any, **k: Any) -> Budget:
        spent[0] += 1
        if spent[0] > MAX_RERUNS:
            raise _Spent
        return rerun(*a, **k)

    with contextlib.suppress(_Spent):
        for maker in (_fewer_requests, _state_and_spec, _kv_and_context, _more_memory, _more_gpus):
            out.extend(maker(b, args, counted))
    ordered = sorted((replace(c, order=i) for i, c in enumerate(out)), key=lambda c: c.rank())
    return [c.suggestion for c in ordered]


def _fewer_requests(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[_Candidate]:
    """Hybrid: state slots and spec scratch scale with max_running_requests. Pick the count
    whose pool still serves that many full-length requests (else the largest that starts)."""
    mrr = b.inputs.get("max_running_requests")
    if b.per_gpu.mamba_slot_bytes <= 0 or not isinstance(mrr, int) or mrr <= 1:
        return []
    ctx = b.context_len

    def serves_all(n: int) -> bool:
        r = rerun({"max_running_requests": n})
        return r.fits and r.per_gpu.kv_tokens >= n * ctx

    best = _largest(1, mrr - 1, serves_all)
    if best is None:
        best = _largest(1, mrr - 1, lambda n: rerun({"max_running_requests": n}).fits)
    if best is None:
        return []
    changed = {"max_running_requests": best}
    r = rerun(changed)
    return [_Candidate(_make(r, f"--max-running-requests {best}", changed))]


def _state_and_spec(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[_Candidate]:
    """bf16 mamba state, fewer draft tokens, or no speculative decoding at all."""
    out: list[_Candidate] = []
    inputs = b.inputs
    if b.per_gpu.mamba_slot_bytes > 0 and inputs.get("mamba_ssm_dtype") == "float32":
        changed: dict[str, Any] = {"mamba_ssm_dtype": "bfloat16"}
        r = rerun(changed)
        if r.fits:
            note = " (state precision halves)"
            out.append(_Candidate(_make(r, "--mamba-ssm-dtype bfloat16", changed, note)))
    spec = inputs.get("speculative_algorithm")
    d = inputs.get("speculative_num_draft_tokens")
    topk = inputs.get("speculative_eagle_topk")
    if spec and isinstance(d, int) and d > 2:
        for n in range(d - 1, max(1, d - 1 - MAX_DRAFT_STEPS), -1):
            changed = {"speculative_num_draft_tokens": n}
            if topk in (None, 1):
                changed["speculative_num_steps"] = n - 1
                text = f"--speculative-num-steps {n - 1} --speculative-num-draft-tokens {n}"
            else:
                text = f"--speculative-num-draft-tokens {n}"
            r = rerun(changed)
            if r.fits:
                out.append(_Candidate(_make(r, text, changed, " (fewer tokens drafted per step)")))
                break
    if spec:
        changed = {k: None for k in args if k.startswith("speculative_")}
        changed["speculative_algorithm"] = None
        r = rerun(changed)
        if r.fits:
            text = f"drop --speculative-algorithm {spec} and its --speculative-* flags"
            note = " (no speculative decoding: slower decode per request)"
            out.append(_Candidate(_make(r, text, changed, note), keeps_spec=False))
    return out


def _kv_and_context(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[_Candidate]:
    """fp8 KV cache; a shorter context when the pool cannot hold one full-length request."""
    out: list[_Candidate] = []
    kvd = str(b.inputs.get("kv_cache_dtype") or "auto").lower()
    if not kvd.startswith("fp8"):
        changed: dict[str, Any] = {"kv_cache_dtype": "fp8_e4m3"}
        r = rerun(changed)
        if r.fits:
            out.append(_Candidate(_make(r, "--kv-cache-dtype fp8_e4m3", changed)))
    ctx = b.context_len
    conc = b.concurrency_at_context
    if b.fits and conc is not None and conc < 1 and ctx > 1024:
        n = ctx // 2
        while n >= 1024:
            changed = {"context_length": n}
            r = rerun(changed)
            if usable(r):
                out.append(
                    _Candidate(_make(r, f"--context-length {n}", changed), keeps_context=False)
                )
                break
            n //= 2
    return out


def _more_memory(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[_Candidate]:
    """The smallest --mem-fraction-static raise that fits (risky when the slack gets thin);
    when none holds a full-length request, the largest that starts (up to 0.95)."""
    cur = float(b.inputs.get("mem_fraction_static") or 0.0)
    steps = [round(cur + i * 0.005, 3) for i in range(1, 200) if cur + i * 0.005 <= MAX_MFS + 1e-9]
    first = next((m for m in steps if usable(rerun({"mem_fraction_static": m}))), None)
    if first is None:  # none holds a full request: show the most that still starts
        first = next((m for m in reversed(steps) if rerun({"mem_fraction_static": m}).fits), None)
    if first is None:
        return []
    changed = {"mem_fraction_static": first}
    r = rerun(changed)
    risky = r.per_gpu.slack_gib < RISKY_SLACK_GIB or bool(r.warnings)
    risk = (
        f"; slack only {r.per_gpu.slack_gib:.2f} GiB for CUDA graphs and activations: risk of a later CUDA OOM"
        if risky
        else f"; slack {r.per_gpu.slack_gib:.2f} GiB"
    )
    return [_Candidate(_make(r, f"--mem-fraction-static {first}", changed, risk), risky=risky)]


def _more_gpus(b: Budget, args: Mapping[str, Any], rerun: Rerun) -> list[_Candidate]:
    """A larger --tp: within the GPUs given first; beyond them labelled ``needs_more_gpus``."""
    tp = int(b.inputs.get("tp_size") or 1)
    pp = int(b.inputs.get("pp_size") or 1)
    have = b.gpus
    basis = b.sources.get("gpu_basis", "")
    given = "assumed" if b.sources.get("gpu") == "assumed" else "given"
    if "count from tp x pp" in basis or "as logged" in basis:
        given = "from tp x pp"
    out: list[_Candidate] = []
    for new_tp in (tp * 2, tp * 4):
        if new_tp > 8:
            break
        beyond = new_tp * pp > have
        changed = {"tp_size": new_tp}
        r = rerun(changed)
        if not r.fits:
            continue
        if beyond:
            note = f" (needs {new_tp * pp} GPUs; {have} {given})"
        else:
            note = f" (uses {new_tp * pp} of the {have} GPUs)"
        out.append(_Candidate(_make(r, f"--tp {new_tp}", changed, note, needs_more_gpus=beyond)))
        break
    return out


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
