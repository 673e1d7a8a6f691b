"""The budget of a run from its own log: F0 and weights from its ``Load weight`` lines (the
measured inputs), the SGLang release its messages point to, and what it printed about its pools
(for comparison only, never used for the prediction)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._text import lazy_regex
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
from .gpus import GpuSpec
from .log_gpus import gpu_from_run
from .log_model import REPRODUCE_PCT, LoggedFiguresOff, model_from_run
from .models import ModelFacts, ModelUnknown, resolve_model

_TOKENS = lazy_regex(r"max_total_num_tokens=(\d+)")


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
    exact = re.fullmatch(r"\d+\.\d+\.\d+(?:\.post\d+)?", top)
    if exact and not hint.startswith(">=") and release_key(top)[:3] < (0, 5, 3):
        return low, f"bare 'Not enough memory' text and log messages point to {hint}"
    return (
        "0.5.11",
        "bare 'Not enough memory' text is printed by 0.4.x-0.5.2 and 0.5.11+; 0.5.11 used",
    )


def budget_for_run(
    run: Run,
    *,
    args: Mapping[str, Any] | None = None,
    gpus: GpuSpec | Sequence[GpuSpec] | None = None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
    model_config: Any = None,
    assume_model: str | None = None,
) -> Budget:
    """The budget of a run from its own numbers (banner args, F0, weights), with what SGLang
    printed about its pools returned alongside as ``reported`` (never used for the prediction).

    ``args`` fills what the banner lacks (a log without a ``server_args`` line). The model is
    resolved by evidence only (:func:`~.models.resolve_model`); without any it raises
    :class:`~.models.ModelUnknown` unless ``assume_model`` names the profile to price it with.
    """
    merged = _merged_args(run, args)
    version, note = version_for_run(run, sglang_version)
    rules = rules_for(release_key(version or NEWEST_READ))
    spec = bool(merged.get("speculative_algorithm"))

    measured = measured_from_run(run, era=rules.era, spec=spec)
    if gpus is None:  # the log's own GPU before any default (issue 32)
        gpus = gpu_from_run(run)
    if model is None and model_config is None:
        model = _model_of_run(run, merged, assume_model, measured)
    if measured.f0_gib is None:
        measured = replace(measured, f0_gib=None)
    context_source = _context_source(run, args, merged, model)
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
    if context_source is not None:
        b = replace(b, sources={**b.sources, "context_length": context_source})
    banner = run.first(EventKind.SERVER_ARGS)
    refused = banner.fields.get("rejected", ()) if banner is not None else ()
    if refused:
        b = replace(b, assumptions=(*could_not_use(refused), *b.assumptions))
    reported = _reported_with_errors(run, b)
    _reproduced(b, reported, merged.get("model_path"))
    flags = prediction_mismatches(reported)
    reported["mismatches"] = flags
    confidence = dict(b.confidence)
    if flags:  # the run itself disagrees: whatever the terms, this budget is not to be trusted
        confidence["level"] = "low"
        confidence["disagrees_with_run"] = [f.split(" (", 1)[0] for f in flags]
    return replace(b, reported=reported, warnings=(*b.warnings, *flags), confidence=confidence)


def _context_source(
    run: Run, args: Mapping[str, Any] | None, merged: dict[str, Any], model: ModelFacts | None
) -> str | None:
    """Where a run's context length comes from: its banner, the caller's args, or (where the
    model's facts have no ``max_position_embeddings``, e.g. a model figured from the log) the
    ``context_len=`` SGLang printed in the run's token summary, put into ``merged``. None
    leaves the budget's own label (model config, or assumed)."""
    if (run.server_args or {}).get("context_length") is not None:
        return "log: server_args banner"
    if args and args.get("context_length") is not None:
        return "args"
    summary = run.first(EventKind.TOKEN_SUMMARY)
    logged = summary.fields.get("context_len") if summary is not None else None
    if model is not None and not model.max_position_embeddings and isinstance(logged, int):
        merged["context_length"] = logged
        return "log: context_len of the run's token summary line"
    return None


def _model_of_run(
    run: Run, args: Mapping[str, Any], assume_model: str | None, measured: MeasuredFigures
) -> ModelFacts:
    """The model by evidence (:func:`~.models.resolve_model`), else as the run's own pool and
    weight lines describe it (:func:`~.log_model.model_from_run`); else ``ModelUnknown``."""
    try:
        return resolve_model(args, assume_model=assume_model)
    except ModelUnknown:
        tokens = reported_from_run(run).get("kv_tokens")
        weights = measured.weights_gib is not None
        logged = model_from_run(run, args, tokens=tokens, weights_known=weights)
        if logged is None:
            raise
        return logged


def _reproduced(b: Budget, reported: Mapping[str, Any], model_path: Any) -> None:
    """A budget on the run's own figures (``sources.model = "log"``) stands only where it gives
    back the run's printed ``#tokens`` within :data:`~.log_model.REPRODUCE_PCT`."""
    if b.sources.get("model") != "log":
        return
    err = reported.get("kv_tokens_error_pct")
    if not isinstance(err, (int, float)) or abs(err) > REPRODUCE_PCT:
        raise LoggedFiguresOff(str(model_path or b.model), err)


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


def _same(a: Any, b: Any) -> bool:
    """Two launch values alike (paths without a trailing ``/``, numbers by value)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.rstrip("/") == b.rstrip("/")
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return bool(a == b)


def measured_for_command(run: Run, args: Mapping[str, Any]) -> MeasuredFigures | None:
    """What ``run`` measured on its GPUs that a budget of the command ``args`` may use: the free
    memory before weights (per GPU, whatever the model), and the weights too when the run
    printed its arguments and model, tp size and quantization are the command's. None when the
    run measured no free memory, or ran with another tp size."""
    seen = measured_from_run(run)
    if seen.f0_gib is None:
        return None
    banner = run.server_args
    if banner is None:  # no arguments printed: its GPUs' free memory is still evidence
        return MeasuredFigures(
            f0_gib=seen.f0_gib, f0_by_rank=seen.f0_by_rank, origin="log (free memory of these GPUs)"
        )
    if not _same(banner.get("tp_size"), args.get("tp_size", 1)):
        return None
    if all(_same(banner.get(k), args.get(k)) for k in ("model_path", "quantization")):
        return replace(seen, origin="log (the checked run, same GPUs)")
    return MeasuredFigures(
        f0_gib=seen.f0_gib, f0_by_rank=seen.f0_by_rank, origin="log (free memory of these GPUs)"
    )
