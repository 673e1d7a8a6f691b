"""The budget of a run from its own log: F0 and weights from its ``Load weight`` lines (the
measured inputs), the SGLang release its messages point to, and what it printed about its pools
(for comparison only, never used for the prediction)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import regex

from ..errors import LogscopeError
from ..events import EventKind
from ..limits import could_not_use
from ..log.figures import kv_pool_gib
from ..log.release import choose_release
from ..log.runs import FailureKind, Run
from ..parse.versions import release_key
from .budget import budget
from .budget_types import Budget, MeasuredFigures
from .eras import NEWEST_READ, Era, rules_for
from .estimates import arg_value, estimate_weights_gib
from .gpus import GpuSpec
from .models import ModelFacts, bundled_profiles, facts_from_config, resolve_model

_TOKENS = regex.compile(r"max_total_num_tokens=(\d+)")


def measured_from_run(run: Run, *, era: Era | None = None, spec: bool = False) -> MeasuredFigures:
    """F0 (``Load weight begin``), free memory after weights and weights (``Load weight end``).

    Never reads the pool lines. In era D with speculative decoding the draft's own
    ``Load weight end`` (the second per rank) gives the free memory SGLang profiled.
    """
    begins: dict[str, list[float]] = {}
    ends: dict[str, list[tuple[float | None, float | None]]] = {}
    for e in run.of_kind(EventKind.LOAD_WEIGHT_BEGIN, EventKind.LOAD_WEIGHT_END):
        rank = e.rank.label if e.rank else "-"
        if e.kind is EventKind.LOAD_WEIGHT_BEGIN:
            v = e.fields.get("avail_gib")
            if isinstance(v, (int, float)):
                begins.setdefault(rank, []).append(float(v))
        else:
            a, u = e.fields.get("avail_gib"), e.fields.get("mem_usage_gib")
            ends.setdefault(rank, []).append(
                (
                    float(a) if isinstance(a, (int, float)) else None,
                    float(u) if isinstance(u, (int, float)) else None,
                )
            )
    f0_by_rank = {r: v[0] for r, v in begins.items()}
    f0 = min(f0_by_rank.values()) if f0_by_rank else None
    first = [v[0] for v in ends.values() if v]
    after = [a for a, _ in first if a is not None]
    usage = [u for _, u in first if u is not None]
    free_after = min(after) if after else None
    draft: float | None = None
    from_draft = False
    if era is Era.D and spec:
        second = [v[1] for v in ends.values() if len(v) > 1]
        if second:
            after2 = [a for a, _ in second if a is not None]
            draft_u = [u for _, u in second if u is not None]
            free_after = min(after2) if after2 else free_after
            draft = max(draft_u) if draft_u else None
            from_draft = bool(after2)
    origin = "log: Load weight begin/end"
    if f0 is None and free_after is not None and usage:
        f0 = free_after + max(usage)
        origin = "log: Load weight end (F0 = avail + mem usage)"
    if f0 is not None and free_after is not None:
        weights: float | None = f0 - free_after - (draft or 0.0)
    else:
        weights = max(usage) if usage else None
    return MeasuredFigures(
        f0_gib=f0,
        free_after_weights_gib=free_after,
        weights_gib=weights,
        draft_weights_gib=draft,
        f0_by_rank=f0_by_rank,
        origin=origin,
        from_draft_line=from_draft,
    )


def reported_from_run(run: Run) -> dict[str, Any]:
    """What SGLang printed about its pools (for side-by-side comparison only)."""
    kv = run.first(EventKind.KV_CACHE_ALLOCATED)
    mamba = run.first(EventKind.MAMBA_CACHE_ALLOCATED)
    summary = run.first(EventKind.TOKEN_SUMMARY)
    swa = run.first(EventKind.SWA_POOL)
    tokens = kv.fields.get("tokens") if kv else None
    if swa is not None:  # an SWA pool prints one KV line per sub-pool: the full one counts
        tokens = swa.fields.get("full_layer_tokens", swa.fields.get("swa_layer_tokens"))
    if tokens is None and summary is not None:
        tokens = summary.fields.get("max_total_num_tokens")
        if tokens is None:
            m = _TOKENS.search(summary.message)
            tokens = int(m.group(1)) if m else None
    out: dict[str, Any] = {
        "kv_tokens": tokens,
        "mamba_slots": mamba.fields.get("max_mamba_cache_size") if mamba else None,
        "max_running_requests": summary.fields.get("max_running_requests") if summary else None,
    }
    if kv is not None and swa is None:
        out["kv_gib"] = kv_pool_gib(kv)
    if swa is not None:
        out["swa_tokens"] = swa.fields.get("swa_layer_tokens")
    return out


def _error_pct(pred: float | None, rep: Any) -> float | None:
    if pred is None or not isinstance(rep, (int, float)) or rep == 0:
        return None
    return round((pred - rep) / rep * 100, 2)


def version_for_run(run: Run, sglang_version: str | None) -> tuple[str | None, str | None]:
    """(version, note): the given version, else an OOM text's dated wording, else the oldest
    release of the range the run is read with (:func:`~..log.release.choose_release`)."""
    if sglang_version is not None:
        return sglang_version, None
    fingerprint = _failure_fingerprint(run)
    if fingerprint is not None:
        return fingerprint
    # the run's release as the check reads it (the pinning, narrowed by the hint; issue 17)
    chosen = choose_release(run)
    if chosen is not None:
        return chosen.era, f"{chosen.note}; {chosen.era} used"
    return None, None


def _failure_fingerprint(run: Run) -> tuple[str, str] | None:
    """The release an OOM message's wording points to (see docs/memory.md, fingerprints)."""
    f = run.failure
    if f is None:
        return None
    if f.kind is FailureKind.NOT_ENOUGH_MEMORY:
        if "self.server_args.mem_fraction_static" in f.message:
            return (
                "0.5.9",
                "SGLang 0.5.5-0.5.9 inferred from the error text ('Current value: "
                "self.server_args...'); 0.5.9 used (same dense arithmetic)",
            )
        if "Current value: mem_fraction_static" in f.message:
            return (
                "0.5.10",
                "SGLang 0.5.10 inferred from the error text ('Current value: mem_fraction_static=')",
            )
        if "Current value" not in f.message:
            return _bare_not_enough_memory(run)
    if f.kind is FailureKind.WEIGHTS_LEAVE_NO_MEMORY:
        return (
            "0.5.15",
            "'Loaded weights leave no GPU memory' exists from 0.5.14/0.5.15; 0.5.15 used",
        )
    return None


def _bare_not_enough_memory(run: Run) -> tuple[str, str]:
    """A bare 'Not enough memory' is printed by 0.4.x-0.5.2 and by 0.5.11+: the run's other
    messages decide when they bound the release below 0.5.3, else 0.5.11 is used and the
    doubt is said."""
    hint = run.release_hint or ""
    low, _, high = hint.partition("-")
    top = high or low
    exact = regex.fullmatch(r"\d+\.\d+\.\d+(?:\.post\d+)?", top)
    if exact and not hint.startswith(">=") and release_key(top)[:3] < (0, 5, 3):
        return low, f"bare 'Not enough memory' text and log messages point to {hint}"
    return (
        "0.5.11",
        "bare 'Not enough memory' text is printed by 0.4.x-0.5.2 and 0.5.11+; 0.5.11 used",
    )


def model_for_run(
    run: Run, args: Mapping[str, Any], measured: MeasuredFigures
) -> tuple[ModelFacts, str | None]:
    """The launch's model (config dir, HF cache, bundled profile by name); when none matches,
    the bundled profile of the log's own architecture (``Load weight end ... type=``) whose
    estimated weights are nearest to what the run measured. Raises when neither exists."""
    end = run.first(EventKind.LOAD_WEIGHT_END)
    fields = end.fields if end is not None else {}
    arch = fields.get("model_class")
    try:
        return resolve_model(args), None
    except LogscopeError:
        candidates = [
            p for p in bundled_profiles() if (p.config.get("architectures") or [None])[0] == arch
        ]
        if not candidates or measured.weights_gib is None:
            raise
    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    quant = str(args.get("quantization") or fields.get("quant") or "").lower() or None
    quant = None if quant in ("none", "bf16") else quant

    def estimate(p: Any) -> float:
        f = facts_from_config(p.config, name=p.name, source=p.source, quantization=quant)
        return estimate_weights_gib(f, tp=tp, pp=pp, quant=quant)[0]

    best = min(candidates, key=lambda p: abs(estimate(p) - float(measured.weights_gib or 0)))
    facts = facts_from_config(
        best.config,
        name=best.name,
        source=f"bundled profile {best.name} chosen by the log's architecture {arch}",
        quantization=quant,
    )
    note = (
        f"model {args.get('model_path')!r} not known: the shapes of {best.name} are used, the "
        f"bundled profile of the log's architecture ({arch}) whose estimated weights "
        f"({estimate(best):.2f} GiB) are nearest to the run's measured {measured.weights_gib:.2f} GiB"
    )
    return facts, note


def budget_for_run(
    run: Run,
    *,
    args: Mapping[str, Any] | None = None,
    gpus: GpuSpec | Sequence[GpuSpec] | None = None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
    model_config: Any = None,
) -> Budget:
    """The budget of a run from its own numbers (banner args, F0, weights), with what SGLang
    printed about its pools returned alongside as ``reported`` (never used for the prediction).

    ``args`` fills what the banner lacks (a log without a ``server_args`` line).
    """
    merged = _merged_args(run, args)
    version, note = version_for_run(run, sglang_version)
    rules = rules_for(release_key(version or NEWEST_READ))
    spec = bool(merged.get("speculative_algorithm"))

    measured = measured_from_run(run, era=rules.era, spec=spec)
    guessed_note = None
    if model is None and model_config is None:
        model, guessed_note = model_for_run(run, merged, measured)
    if measured.f0_gib is None:
        measured = replace(measured, f0_gib=None)
    b = budget(
        merged,
        gpus=gpus,
        model=model,
        sglang_version=version,
        measured=measured if measured.f0_gib is not None else None,
        explicit=None,
        model_config=model_config,
        version_source=None if sglang_version is not None else "log",
    )
    if note:
        b = replace(b, assumptions=(note, *b.assumptions))
    banner = run.first(EventKind.SERVER_ARGS)
    refused = banner.fields.get("rejected", ()) if banner is not None else ()
    if refused:
        b = replace(b, assumptions=(*could_not_use(refused), *b.assumptions))
    if guessed_note:
        b = replace(b, assumptions=(guessed_note, *b.assumptions))
    reported = _reported_with_errors(run, b)
    flags = prediction_mismatches(reported)
    reported["mismatches"] = flags
    confidence = dict(b.confidence)
    if flags:  # the run itself disagrees: whatever the terms, this budget is not to be trusted
        confidence["level"] = "low"
        confidence["disagrees_with_run"] = [f.split(" (", 1)[0] for f in flags]
    return replace(b, reported=reported, warnings=(*b.warnings, *flags), confidence=confidence)


def _merged_args(run: Run, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The caller's ``args`` overlaid by the run's banner (its non-null values win); raises
    when there is neither, as nothing is then known of the launch."""
    merged: dict[str, Any] = dict(args or {})
    for k, v in (run.server_args or {}).items():
        if v is not None:
            merged[k] = v
    if not merged and run.server_args is None:
        raise LogscopeError(f"run {run.index} has no server_args banner; pass the launch arguments")
    return merged


def _reported_with_errors(run: Run, b: Budget) -> dict[str, Any]:
    """What the run printed about its pools, each figure beside the prediction's error against
    it (percent), kept out of :func:`budget_for_run` so that reads as its steps."""
    reported = reported_from_run(run)
    reported["kv_tokens_error_pct"] = _error_pct(b.kv_tokens, reported.get("kv_tokens"))
    reported["mamba_slots_error_pct"] = _error_pct(
        float(b.per_gpu.mamba_slots) if b.per_gpu.mamba_slots is not None else None,
        reported.get("mamba_slots"),
    )
    reported["max_running_requests_error_pct"] = _error_pct(
        b.max_running_requests, reported.get("max_running_requests")
    )
    if "swa_tokens" in reported:
        reported["swa_tokens_error_pct"] = _error_pct(
            None if b.not_modelled else b.per_gpu.swa_tokens, reported.get("swa_tokens")
        )
    return reported


#: A prediction further than this from what the same run printed is flagged (percent).
MISMATCH_PCT = 2.0


def prediction_mismatches(reported: Mapping[str, Any]) -> list[str]:
    """One warning per figure predicted more than :data:`MISMATCH_PCT` off the run's own."""
    out = []
    for key, label in (
        ("kv_tokens", "KV tokens"),
        ("swa_tokens", "sliding-window tokens"),
        ("mamba_slots", "mamba slots"),
        ("max_running_requests", "max_running_requests"),
    ):
        err = reported.get(f"{key}_error_pct")
        if isinstance(err, (int, float)) and abs(err) > MISMATCH_PCT:
            out.append(
                f"prediction off by {err:+.1f}% from what this run printed ({label} "
                f"{reported.get(key)}): an input or rule differs from this run's"
            )
    return out
