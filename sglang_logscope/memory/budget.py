"""SGLang's startup memory arithmetic, per release era: weights, slack, hybrid state, spec scratch
and the KV pool, and whether the launch fits. See ``docs/memory.md`` for the model.

:func:`budget` resolves a launch's inputs (model, GPUs, version, defaults) and hands them to the
:mod:`.solver`; the pieces live beside it (:mod:`.budget_types`, :mod:`.estimates`,
:mod:`.from_run`) and their public names are re-exported here."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from .._record import record
from ..limits import clean, could_not_use
from ..parse.versions import release_key
from .budget_types import Budget, MeasuredFigures, PerGpu
from .confidence import confidence, deciding_assumption
from .eras import (
    NEWEST_READ,
    DefaultMfs,
    Era,
    EraRules,
    decode_graph_batch_sizes,
    default_mfs,
    early_graph_max_bs,
    mamba_ratio,
    piecewise_enabled,
    rules_for,
    vlm_factor,
)
from .estimates import (
    GIB,
    WEIGHTS_OVERHEAD_GIB,
    arg_value,
    draft_head_copies_gib,
    estimate_draft_gib,
    estimate_weights_gib,
    kv_cell_bytes,
    kv_element_bytes,
    spec_defaults,
    ssm_element_bytes,
    weight_scheme,
)
from .gpus import DEFAULT_GPU, F0_OVERHEAD_GIB, GpuSpec, as_gpu_list
from .models import ModelFacts, resolve_model
from .solver import (
    DRAFT_PATH_AUTO,
    EAGLE_FAMILY,
    Inputs,
    Solution,
    shortfall_gib,
    slack_warnings,
    solve,
)
from .suggest import suggestions
from .swa import SwaDecision
from .swa import decide as swa_decision

#: Speculative algorithms that reset ``max_running_requests`` to 48 when it is unset.
_SPEC_RESET = {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH"}


def budget(
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None = None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
    measured: MeasuredFigures | None = None,
    explicit: Collection[str] | None = None,
    model_config: Any = None,
    version_source: str | None = None,
) -> Budget:
    """Recompute SGLang's startup memory budget for ``args`` (ServerArgs field → value).

    ``gpus`` gives capacities: a list (its length is the GPU count), one GpuSpec (the count is
    tp x pp), else the ``measured`` log figures, else 48 GB cards are assumed. ``model`` the model
    facts (else resolved from ``model_path``); ``sglang_version`` picks the era (else the newest
    release read; ``version_source`` says where a given one came from: ``given`` or ``log``).
    ``explicit`` names the args the user really passed; ``mem_fraction_static`` not among them
    is recomputed the way that release does. Suggestions are added when the launch does not
    fit or its KV pool holds less than one request of the context length. A value SGLang
    would not accept (:mod:`..limits`) is left out, and the budget says so.
    """
    kept, refused = clean(args, "arguments")
    if refused:
        b = budget(kept, gpus=gpus, model=model, sglang_version=sglang_version,
                   measured=measured, explicit=explicit, model_config=model_config,
                   version_source=version_source)  # fmt: skip
        return replace(b, assumptions=(*could_not_use(refused), *b.assumptions))
    b = _budget(
        args,
        gpus=gpus,
        model=model,
        sglang_version=sglang_version,
        measured=measured,
        explicit=explicit,
        model_config=model_config,
        version_source=version_source,
    )
    conc = b.concurrency_at_context
    if b.fits and (conc is None or conc >= 1):
        return b
    return _with_suggestions(
        b,
        args,
        gpus=gpus,
        model=model if model is not None else _resolve(args, model_config),
        sglang_version=sglang_version,
        measured=measured,
        explicit=explicit,
        version_source=version_source,
    )


def _with_suggestions(
    b: Budget,
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None,
    model: ModelFacts,
    sglang_version: str | None,
    measured: MeasuredFigures | None,
    explicit: Collection[str] | None,
    version_source: str | None,
) -> Budget:
    """``b`` (a launch that does not fit, or holds less than one request of its context) with
    the changes that would fix it: each candidate is priced by the same arithmetic, on the
    model resolved once, with the measured weights scaled when tp changes."""

    def rerun(changed: Mapping[str, Any], gpus_override: Sequence[GpuSpec] | None = None) -> Budget:
        new_explicit = None if explicit is None else {*explicit, *changed}
        return _budget(
            {**args, **changed},
            gpus=gpus_override if gpus_override is not None else gpus,
            model=model,
            sglang_version=sglang_version,
            measured=_scale_measured(measured, args, changed),
            explicit=new_explicit,
            model_config=None,
            version_source=version_source,
        )

    return replace(b, suggestions=tuple(suggestions(b, args, rerun)))


def _scale_measured(
    measured: MeasuredFigures | None, args: Mapping[str, Any], changed: Mapping[str, Any]
) -> MeasuredFigures | None:
    """Measured weights scale with 1/tp when a suggestion changes tp (F0 stays)."""
    if measured is None or "tp_size" not in changed:
        return measured
    old = int(arg_value(args, "tp_size", 1))
    new = int(changed["tp_size"])
    f = old / new
    return replace(
        measured,
        weights_gib=None if measured.weights_gib is None else measured.weights_gib * f,
        draft_weights_gib=None
        if measured.draft_weights_gib is None
        else measured.draft_weights_gib * f,
        free_after_weights_gib=None,
        origin="log, weights scaled by tp",
    )


def _resolve(args: Mapping[str, Any], model_config: Any) -> ModelFacts:

    return resolve_model(args, Path(model_config) if model_config is not None else None)


@record(frozen=False)
class _Notes:
    """What the resolution assumed, warned about, and where each input came from."""

    assumptions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    #: The chunked prefill size the default-mfs heuristic used (None when mfs was given).
    chunked_prefill: int | None = None
    cuda_graph_max_bs: int | None = None
    #: SGLang's own default mfs for this launch: a slack it would leave itself is not warned of.
    default_mfs: float | None = None


@record
class _Hardware:
    """The GPUs a budget is priced on: their memory and their count."""

    total_gib: float | None
    capacity_mib: float | None
    n_gpus: int
    #: Capacity estimated from a logged F0 (F0 + the usual overhead) when none is known: used
    #: only to judge whether SGLang's own default would leave as little slack, never priced.
    capacity_estimate_mib: float | None = None


@record
class _Spec:
    """The speculative decoding settings a budget prices (draft steps, top-k, weights)."""

    raw: str | None
    norm: str | None
    steps: Any
    topk: Any
    draft_tokens: Any
    draft_weights: float


def gpus_needed(args: Mapping[str, Any]) -> int:
    """GPUs a launch occupies: tp x pp, times dp when DP replicas are whole servers."""
    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    dp = int(arg_value(args, "dp_size", 1))
    return tp * pp * (1 if args.get("enable_dp_attention") else max(dp, 1))


def _hardware(
    args: Mapping[str, Any],
    gpus: GpuSpec | Sequence[GpuSpec] | None,
    measured: MeasuredFigures | None,
    notes: _Notes,
) -> _Hardware:
    needed = gpus_needed(args)
    gpu_list = as_gpu_list(gpus)
    if gpu_list is not None:
        smallest = min(gpu_list, key=lambda g: g.total_mib)
        n = len(gpu_list) if not isinstance(gpus, GpuSpec) else needed
        if isinstance(gpus, GpuSpec) and smallest.source == "log":
            how = "capacity from the log's OOM message, count from tp x pp"
        elif isinstance(gpus, GpuSpec):
            how = "model given, count from tp x pp"
        else:
            how = "count given, model assumed" if smallest.source == "assumed" else "given"
        notes.sources["gpu"] = (
            "log"  # the run's own lines name its GPU (issue 32): said as such
            if smallest.source == "log"
            else f"{n} x {smallest.name} ({smallest.total_mib:.0f} MiB, {smallest.source})"
        )
        notes.sources["gpu_basis"] = f"{n} x {smallest.name} ({how})"
        if n < needed:
            notes.warnings.append(
                f"the launch needs {needed} GPUs (tp x pp) but only {n} are given"
            )
        return _Hardware(smallest.total_gib, smallest.total_mib, n)
    if measured is not None and measured.f0_gib is not None:
        notes.sources["gpu"] = "capacity unknown; the log's free-memory figures are used"
        notes.sources["gpu_basis"] = f"the free memory of {needed} GPU(s) as logged"
        estimate = (measured.f0_gib + F0_OVERHEAD_GIB) * 1024
        return _Hardware(None, None, needed, estimate)
    g = DEFAULT_GPU
    notes.assumptions.append(
        f"no GPU given: assumed {needed} x 48 GB ({g.name}, {g.total_mib:.0f} MiB), the count from tp x pp"
    )
    notes.sources["gpu"] = "assumed"
    notes.sources["gpu_basis"] = f"{needed} x {g.name} assumed"
    return _Hardware(g.total_gib, g.total_mib, needed)


def _weights(
    model: ModelFacts,
    measured: MeasuredFigures | None,
    hw: _Hardware,
    tp: int,
    pp: int,
    quant: str | None,
    notes: _Notes,
) -> tuple[float, float]:
    """(F0, target weights) per GPU: measured by the log, else assumed and estimated."""
    if measured is not None and measured.f0_gib is not None:
        f0 = measured.f0_gib
        notes.sources["f0"] = f"measured ({measured.origin})"
    else:
        assert hw.total_gib is not None
        f0 = hw.total_gib - F0_OVERHEAD_GIB
        notes.assumptions.append(
            f"F0 (free before weights) assumed = capacity - {F0_OVERHEAD_GIB} GiB = {f0:.2f} GiB"
        )
        notes.sources["f0"] = "assumed"
    if measured is not None and measured.weights_gib is not None:
        notes.sources["weights"] = f"measured ({measured.origin})"
        return f0, measured.weights_gib
    weights, note = estimate_weights_gib(model, tp=tp, pp=pp, quant=quant)
    if note:
        notes.assumptions.append(note)
    notes.sources["weights"] = (
        f"estimated ({model.params_language / 1e9:.2f}B language"
        + (f" + {model.params_vision / 1e9:.2f}B vision" if model.params_vision else "")
        + f" params, {_weights_price(quant, model)}, / tp {tp}, + {WEIGHTS_OVERHEAD_GIB} GiB buffers)"
    )
    return f0, weights


def _weights_price(quant: str | None, model: ModelFacts) -> str:
    scheme = weight_scheme(quant, model)
    return scheme.describe() if scheme is not None else "bf16"


def _spec(
    args: Mapping[str, Any],
    model: ModelFacts,
    measured: MeasuredFigures | None,
    tp: int,
    quant: str | None,
    notes: _Notes,
) -> _Spec:
    """The speculative algorithm, its step/top-k/draft-token defaults and the draft weights."""
    spec_raw = args.get("speculative_algorithm")
    spec = str(spec_raw).upper() if spec_raw else None
    norm = "EAGLE" if spec == "NEXTN" else spec
    steps = args.get("speculative_num_steps")
    topk = args.get("speculative_eagle_topk")
    draft_tokens = args.get("speculative_num_draft_tokens")
    if spec and spec != "NGRAM":
        ds, dk, dd = spec_defaults(model)
        if steps is None:
            steps = ds
            topk = topk if topk is not None else dk
            draft_tokens = draft_tokens if draft_tokens is not None else dd
            notes.assumptions.append(
                f"speculative steps/topk/draft tokens defaulted to {steps}/{topk}/{draft_tokens}"
            )
        topk = 1 if topk is None else topk
        if draft_tokens is None:
            draft_tokens = int(steps) + 1 if int(topk) == 1 else dd
    elif spec == "NGRAM":
        draft_tokens = draft_tokens if draft_tokens is not None else 8
    draft_weights = 0.0
    if norm in EAGLE_FAMILY:
        if measured is not None and measured.draft_weights_gib is not None:
            draft_weights = measured.draft_weights_gib
            notes.sources["draft_weights"] = f"measured ({measured.origin})"
        elif args.get("speculative_draft_model_path") and not model.mtp_layers:
            notes.assumptions.append("separate draft model not priced (its config is not known)")
            notes.sources["draft_weights"] = "unknown"
        else:
            draft_weights = estimate_draft_gib(model, tp=tp, quant=quant)
            notes.sources["draft_weights"] = f"estimated ({model.params_mtp / 1e9:.3f}B MTP params)"
    return _Spec(spec, norm, steps, topk, draft_tokens, draft_weights)


def _mfs(
    args: Mapping[str, Any],
    model: ModelFacts,
    rules: EraRules,
    hw: _Hardware,
    spec: _Spec,
    mrr_per_dp: int | None,
    explicit: Collection[str] | None,
    sglang_version: str,
    notes: _Notes,
) -> float:
    """``--mem-fraction-static`` as given, or as the release computes it when not given."""
    given = args.get("mem_fraction_static")
    dm = _default_mfs(args, model, rules, hw, spec, mrr_per_dp, explicit)
    if hw.capacity_mib is not None or hw.capacity_estimate_mib is not None:
        estimated = replace(hw, capacity_mib=hw.capacity_mib or hw.capacity_estimate_mib)
        notes.default_mfs = _default_mfs(
            args, model, rules, estimated, spec, mrr_per_dp, explicit
        ).value
    if given is not None and (explicit is None or "mem_fraction_static" in explicit):
        notes.sources["mem_fraction_static"] = "args"
        return float(given)
    notes.sources["mem_fraction_static"] = f"default of {sglang_version}: {dm.explanation}"
    notes.chunked_prefill = dm.chunked_prefill_size
    notes.cuda_graph_max_bs = (
        dm.cuda_graph_max_bs
        if rules.mfs_rule == "reserve"
        else early_graph_max_bs(rules, hw.capacity_mib, tp=int(arg_value(args, "tp_size", 1)))
    )
    return dm.value


def _default_mfs(
    args: Mapping[str, Any],
    model: ModelFacts,
    rules: EraRules,
    hw: _Hardware,
    spec: _Spec,
    mrr_per_dp: int | None,
    explicit: Collection[str] | None,
) -> DefaultMfs:
    """SGLang's own ``--mem-fraction-static`` for this launch and release (:func:`default_mfs`)."""

    def passed(key: str) -> int | None:
        return _int_or_none(args.get(key) if explicit is None or key in explicit else None)

    tp = int(arg_value(args, "tp_size", 1))
    dp_attn = int(arg_value(args, "dp_size", 1)) if args.get("enable_dp_attention") else 1
    vlm = (
        vlm_factor(model.vision_num_hidden_layers, model.vision_hidden_size)
        if model.is_multimodal and rules.vlm_factor
        else None
    )
    return default_mfs(
        rules,
        capacity_mib=hw.capacity_mib,
        tp=tp,
        pp=int(arg_value(args, "pp_size", 1)),
        chunked_prefill_size=passed("chunked_prefill_size"),
        cuda_graph_max_bs=passed("cuda_graph_max_bs"),
        spec_algorithm=spec.raw,
        max_running_requests=mrr_per_dp,
        is_mla=model.is_mla,
        vlm_factor=vlm,
        dp_attention_size=dp_attn,
        piecewise=piecewise_enabled(rules, args, model, spec.raw),
    )


def _radix(
    args: Mapping[str, Any],
    model: ModelFacts,
    rules: EraRules,
    spec: _Spec,
    sglang_version: str,
    notes: _Notes,
) -> tuple[bool, str, int]:
    """(radix cache off, hybrid radix strategy, state slots per running request)."""
    radix_disabled = bool(args.get("disable_radix_cache"))
    overlap = not bool(args.get("disable_overlap_schedule"))
    page_size = int(arg_value(args, "page_size", 1))
    strategy = str(
        arg_value(
            args, "mamba_scheduler_strategy", arg_value(args, "mamba_radix_cache_strategy", "auto")
        )
    )
    if model.is_hybrid and rules.hybrid_rule == "radix_off" and not radix_disabled:
        radix_disabled = True
        notes.assumptions.append(
            f"{sglang_version} turns the radix cache off for a hybrid GDN model"
        )
    if model.is_hybrid:
        if strategy == "auto":
            d_era = rules.era is Era.D and (overlap or page_size > 1)
            strategy = "extra_buffer" if d_era else "no_buffer"
        if strategy == "no_buffer" and rules.era is not Era.D:
            overlap = False
        if spec.raw and not radix_disabled and strategy == "no_buffer":
            if rules.spec_disables_radix:
                radix_disabled = True
                notes.assumptions.append(
                    f"{sglang_version} turns the radix cache off for a hybrid model with speculative decoding"
                )
            elif rules.spec_radix_no_buffer_error:
                radix_disabled = True
                notes.warnings.append(
                    f"SGLang {sglang_version} refuses speculative decoding with the radix cache in no_buffer mode; "
                    "computed as with --disable-radix-cache"
                )
    ratio = mamba_ratio(
        rules,
        radix_disabled=radix_disabled,
        strategy=strategy,
        spec=bool(spec.raw),
        overlap=overlap,
    )
    return radix_disabled, strategy, ratio


def _draft_layers_in_cell(
    rules: EraRules, model: ModelFacts, args: Mapping[str, Any], spec: _Spec
) -> int:
    """Era D prices draft KV into the cell only when SGLang sets ``eagle_draft_num_layers``."""
    if rules.era is not Era.D or spec.norm not in EAGLE_FAMILY:
        return 0
    path = bool(args.get("speculative_draft_model_path")) or model.architecture in DRAFT_PATH_AUTO
    if path or (rules.draft_layers_from_target and model.nextn_field):
        return max(1, min(model.mtp_layers, 1)) if model.mtp_layers else 1
    return 0


def _budget(
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None,
    model: ModelFacts | None,
    sglang_version: str | None,
    measured: MeasuredFigures | None,
    explicit: Collection[str] | None,
    model_config: Any,
    version_source: str | None = None,
) -> Budget:
    notes = _Notes()
    model = _model_facts(args, model, model_config, notes)
    sglang_version = _version(sglang_version, version_source, notes)
    rules = rules_for(release_key(sglang_version))
    tp, pp, dp = _parallel_sizes(args)
    hw = _hardware(args, gpus, measured, notes)
    quant = str(args.get("quantization") or model.quantization or "").lower() or None
    f0, weights = _weights(model, measured, hw, tp, pp, quant, notes)
    spec = _spec(args, model, measured, tp, quant, notes)
    mrr = _max_running_requests(args, spec, notes)
    mrr_per_dp = int(mrr) // dp if mrr is not None else None
    mfs = _mfs(args, model, rules, hw, spec, mrr_per_dp, explicit, sglang_version, notes)
    free_after, draft_weights = _draft_copies_at_profiling(measured, model, tp, spec, rules, notes)
    radix_disabled, strategy, ratio = _radix(args, model, rules, spec, sglang_version, notes)
    kv_bytes = _kv_bytes(args, model, notes)
    swa = _swa(args, model, rules, tp, dp, kv_bytes, notes)
    context_len = _context_len(args, model, notes)
    inputs = Inputs(
        rules=rules,
        model=model,
        tp=tp,
        pp=pp,
        dp=dp,
        mfs=mfs,
        total_gib=hw.total_gib,
        f0=f0,
        free_after_weights=free_after,
        weights=weights,
        draft_weights=draft_weights,
        spec=spec.norm,
        draft_tokens=int(spec.draft_tokens or 0),
        mrr=mrr_per_dp,
        radix_disabled=radix_disabled,
        ratio=ratio,
        kv_bytes=kv_bytes,
        context_len=context_len,
        **_pool_args(args, model),
        **_draft_inputs(rules, model, args, spec),
        swa=swa.pool,
        swa_not_modelled=swa.not_modelled,
    )
    resolved = _resolved_flags(args, rules, spec, dp, mrr, radix_disabled, strategy, quant, notes)
    return _assemble(inputs, args, hw, sglang_version, _resolved(inputs, resolved), notes)


def _model_facts(
    args: Mapping[str, Any], model: ModelFacts | None, model_config: Any, notes: _Notes
) -> ModelFacts:
    """The model given, else the one the launch names; where its facts came from, and what
    they assume, go into the notes."""
    if model is None:
        model = _resolve(args, model_config)
    notes.sources["model"] = model.source
    notes.assumptions.extend(model.notes)
    return model


def _parallel_sizes(args: Mapping[str, Any]) -> tuple[int, int, int]:
    """(tp, pp, dp) of the launch; dp stays 1 unless DP attention is on."""
    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    dp = int(arg_value(args, "dp_size", 1)) if args.get("enable_dp_attention") else 1
    return tp, pp, dp


def _swa(
    args: Mapping[str, Any],
    model: ModelFacts,
    rules: EraRules,
    tp: int,
    dp: int,
    kv_bytes: float,
    notes: _Notes,
) -> SwaDecision:
    """The sliding-window pool decision, per attention-TP rank; its notes go to the assumptions."""
    swa = swa_decision(model, rules.version, args, attn_tp=max(tp // max(dp, 1), 1),
                       kv_bytes=kv_bytes, gpu_name=notes.sources.get("gpu", ""))  # fmt: skip
    notes.assumptions.extend(swa.notes)
    return swa


def _resolved_flags(
    args: Mapping[str, Any],
    rules: EraRules,
    spec: _Spec,
    dp: int,
    mrr: Any,
    radix_disabled: bool,
    strategy: str,
    quant: str | None,
    notes: _Notes,
) -> dict[str, Any]:
    """The launch flags as SGLang resolves them, kept apart so the budget reads as its steps."""
    return {
        "dp_size": int(arg_value(args, "dp_size", 1)),
        # with DP attention SGLang then splits the chunk over the DP ranks
        "chunked_prefill_size": _int_or_none(args.get("chunked_prefill_size"))
        or (notes.chunked_prefill // dp if notes.chunked_prefill else None),
        "cuda_graph_max_bs": _int_or_none(args.get("cuda_graph_max_bs")) or notes.cuda_graph_max_bs,
        "cuda_graph_bs": _graph_bs(args, rules, notes, bool(spec.norm)),
        **_spec_fields(spec),
        "max_running_requests": mrr,
        "radix_cache": "off" if radix_disabled else strategy,
        "kv_cache_dtype": args.get("kv_cache_dtype") or "auto",
        "quantization": quant,
    }


def _draft_inputs(
    rules: EraRules, model: ModelFacts, args: Mapping[str, Any], spec: _Spec
) -> dict[str, Any]:
    """The solver's draft inputs (draft layers in the KV cell, steps x top-k of the spec
    scratch), gathered so :func:`_budget` stays short."""
    return {
        "draft_layers": _draft_layers_in_cell(rules, model, args, spec),
        "spec_steps_topk": int(spec.steps or 0) * int(spec.topk or 1) if spec.norm else 0,
    }


def _graph_bs(args: Mapping[str, Any], rules: EraRules, notes: _Notes, spec: bool) -> Any:
    """``--cuda-graph-bs`` as given, else the release's decode capture list."""
    given = args.get("cuda_graph_bs")
    if given:
        return given
    max_bs = _int_or_none(args.get("cuda_graph_max_bs")) or notes.cuda_graph_max_bs
    padding_off = bool(args.get("disable_cuda_graph_padding"))
    return decode_graph_batch_sizes(rules, max_bs, spec=spec, padding_disabled=padding_off)


def _spec_fields(spec: _Spec) -> dict[str, Any]:
    return {
        "speculative_algorithm": spec.raw,
        "speculative_num_steps": spec.steps,
        "speculative_eagle_topk": spec.topk,
        "speculative_num_draft_tokens": spec.draft_tokens,
    }


#: The context length priced when neither the launch nor the model's facts give one.
ASSUMED_CONTEXT_LEN = 32768


def _context_len(args: Mapping[str, Any], model: ModelFacts, notes: _Notes) -> int:
    """``--context-length``, else the model's ``max_position_embeddings`` (as SGLang derives
    it), else :data:`ASSUMED_CONTEXT_LEN`, said as assumed. It sets the estimated
    max running requests (when not given) and the concurrency figure."""
    given = args.get("context_length")
    if given is not None:
        notes.sources["context_length"] = "args"
        return int(given)
    if model.max_position_embeddings:
        notes.sources["context_length"] = "model: max_position_embeddings (sources.model)"
        return int(model.max_position_embeddings)
    notes.sources["context_length"] = "assumed"
    notes.assumptions.append(
        f"context length {ASSUMED_CONTEXT_LEN:,} assumed (no --context-length and no "
        "max_position_embeddings in the model's facts): it sets the estimated max running "
        "requests and the concurrency figure"
    )
    return ASSUMED_CONTEXT_LEN


def _kv_bytes(args: Mapping[str, Any], model: ModelFacts, notes: _Notes) -> float:
    kv_bytes, note = kv_element_bytes(args.get("kv_cache_dtype"), model)
    if note:
        notes.assumptions.append(note)
    return kv_bytes


def _max_running_requests(args: Mapping[str, Any], spec: _Spec, notes: _Notes) -> Any:
    """The user's value, or SGLang's reset to 48 for speculative decoding."""
    mrr = args.get("max_running_requests")
    if mrr is None and spec.raw in _SPEC_RESET:
        notes.assumptions.append(
            "max_running_requests reset to 48 for speculative decoding (SGLang's default)"
        )
        return 48
    return mrr


def _pool_args(args: Mapping[str, Any], model: ModelFacts) -> dict[str, Any]:
    """The pool-sizing flags of the launch, with SGLang's defaults."""
    mmcs = args.get("max_mamba_cache_size")
    return {
        "mamba_full_memory_ratio": float(arg_value(args, "mamba_full_memory_ratio", 0.9)),
        "max_mamba_cache_size": int(mmcs) if mmcs is not None else None,
        "ssm_bytes": ssm_element_bytes(args, model),
        "page_size": int(arg_value(args, "page_size", 1)),
        "max_total_tokens": _int_or_none(args.get("max_total_tokens")),
    }


def _draft_copies_at_profiling(
    measured: MeasuredFigures | None,
    model: ModelFacts,
    tp: int,
    spec: _Spec,
    rules: EraRules,
    notes: _Notes,
) -> tuple[float | None, float]:
    """(free memory after weights, draft weights) as SGLang profiles them. From 0.5.14 the MTP
    draft loads before the pools, and its own embed/lm_head copies are still resident when the
    target's ``alloc_memory_pool`` profiles free memory: they are freed later, in the draft's
    ``alloc_memory_pool`` -> ``init_lm_head`` -> ``set_embed_and_head`` (read in the 0.5.15 and
    0.5.23 wheels; ``fixtures/memory/startup-order.json``). So they count as draft weights; a
    log's draft ``Load weight end`` already shows them held, and is used as it is."""
    free_after = measured.free_after_weights_gib if measured is not None else None
    draft = spec.draft_weights
    copies = draft_head_copies_gib(model, tp)
    if rules.era is not Era.D or spec.norm not in EAGLE_FAMILY or not copies:
        return free_after, draft
    if measured is not None and measured.from_draft_line:
        notes.assumptions.append(
            f"the draft's embed/lm_head copies ({copies:.2f} GiB per GPU) are still held when "
            "SGLang profiles, as at the draft's Load weight end line (SGLang >= 0.5.14 order)"
        )
        return free_after, draft
    if measured is not None and measured.draft_weights_gib is not None:
        return free_after, draft  # measured some other way: it already holds what it held
    notes.assumptions.append(
        f"the draft's own embed/lm_head copies ({copies:.2f} GiB per GPU) are held until after "
        "SGLang profiles free memory (SGLang >= 0.5.14 order): counted with the draft weights"
    )
    return free_after, draft + copies


def _version(sglang_version: str | None, version_source: str | None, notes: _Notes) -> str:
    """The release whose rules apply, and where it came from (``given`` / ``log`` / assumed)."""
    if sglang_version is None:
        notes.assumptions.append(
            f"SGLang version unknown: the arithmetic of {NEWEST_READ} (era D) is used"
        )
        notes.sources["sglang_version"] = "assumed"
        return NEWEST_READ
    notes.sources["sglang_version"] = version_source or "given"
    return sglang_version


def _resolved(x: Inputs, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The ``inputs`` of the JSON: what the arithmetic ran with, after SGLang's defaults."""
    hybrid = x.model.is_hybrid
    return {
        "tp_size": x.tp,
        "pp_size": x.pp,
        "attn_tp_size": x.attn_tp,
        "mem_fraction_static": round(x.mfs, 4),
        **extra,
        "mamba_ratio": x.ratio if hybrid else None,
        "mamba_ssm_dtype": ("float32" if x.ssm_bytes == 4 else "bfloat16") if hybrid else None,
        "context_len": x.context_len,
    }


def _assemble(
    x: Inputs,
    args: Mapping[str, Any],
    hw: _Hardware,
    sglang_version: str,
    resolved: dict[str, Any],
    notes: _Notes,
) -> Budget:
    """Solve, then collect the per-GPU figures, warnings and confidence into a Budget."""
    sol = solve(x)
    shortfall = 0.0 if sol.fits else shortfall_gib(x)
    per_gpu = _per_gpu(x, hw, sol)
    if sol.fits:
        notes.warnings.extend(slack_warnings(x, per_gpu, args, default_mfs=notes.default_mfs))
        notes.warnings.extend(_concurrency_warning(per_gpu.kv_tokens, x.context_len))
    elif sol.failure is None and sol.mrr is not None and sol.mrr <= 0:
        notes.warnings.append(
            f"the mamba pool ({sol.slots} slots, {x.ratio} per request) leaves no request slots: "
            "SGLang starts but cannot serve"
        )
    not_modelled = (*x.model.not_modelled, *x.rules.not_modelled_for(x.model), *x.swa_not_modelled)
    for what in not_modelled:
        notes.warnings.append(
            f"not modelled: {what}; the KV token and request figures are left out"
        )
    return Budget(
        sglang_version=sglang_version,
        era=x.rules.era,
        era_label=x.rules.label,
        model=x.model.name,
        per_gpu=per_gpu,
        gpus=hw.n_gpus,
        max_running_requests=None if not_modelled else sol.mrr,
        fits=sol.fits,
        failure_kind=sol.failure,
        shortfall_gib=shortfall,
        suggestions=(),
        assumptions=tuple(notes.assumptions),
        sources=notes.sources,
        warnings=tuple(notes.warnings),
        inputs=resolved,
        confidence=_confidence(x, per_gpu, sol.fits, shortfall, notes),
        not_modelled=not_modelled,
    )


def _confidence(
    x: Inputs, g: PerGpu, fits: bool, shortfall: float, notes: _Notes
) -> dict[str, Any]:
    """The confidence, with ``deciding`` (the assumption that can flip the verdict) if any."""
    out = confidence(x, notes.sources)
    deciding = deciding_assumption(x, g, fits=fits, shortfall=shortfall, sources=notes.sources)
    if deciding is not None:
        out["deciding"] = deciding
    return out


def _per_gpu(x: Inputs, hw: _Hardware, sol: Solution) -> PerGpu:
    """The solution as one GPU's figures, with the draft KV taken later from the slack."""
    draft_kv = 0.0
    if x.spec in EAGLE_FAMILY and not x.draft_layers:
        # the draft's own KV pool (the target's token count, one layer) comes out of the slack
        one_layer = kv_cell_bytes(x.model, tp=x.attn_tp, pp=x.pp, kv_bytes=x.kv_bytes)
        draft_kv = max(sol.tokens, 0) * one_layer / max(len(x.model.full_attention_layers), 1) / GIB
    return PerGpu(
        total_gib=hw.total_gib,
        f0_gib=x.f0,
        weights_gib=x.weights,
        draft_weights_gib=x.draft_weights,
        slack_gib=sol.slack,
        rest_gib=sol.rest + sol.state + sol.scratch,
        mamba_state_gib=sol.state,
        spec_scratch_gib=sol.scratch,
        kv_gib=sol.kv_gib,
        kv_tokens=max(sol.tokens, 0),
        kv_cell_bytes=sol.cell,
        mamba_slot_bytes=sol.slot_bytes,
        mamba_slots=sol.slots,
        mm_reserve_gib=sol.mm_reserve,
        draft_kv_gib=draft_kv,
        draft_in_slack=x.rules.era is not Era.D,
        swa_tokens=sol.swa_tokens,
    )


def _concurrency_warning(kv_tokens: int, context_len: int) -> list[str]:
    if context_len > 0 and kv_tokens < context_len:
        return [
            f"SGLang starts, but its {kv_tokens:,} KV tokens hold less than one request of the "
            f"context length ({context_len:,})"
        ]
    return []


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


#: Signature of the re-run callback handed to the suggestion engine.
Rerun = Callable[[Mapping[str, Any]], Budget]
