"""SGLang's startup memory arithmetic, per release era: weights, slack, hybrid state, spec scratch
and the KV pool, and whether the launch fits. See ``docs/memory.md`` for the model.

:func:`budget` resolves a launch's inputs (model, GPUs, version, defaults) and hands them to the
:mod:`.solver`; the pieces live beside it (:mod:`.budget_types`, :mod:`.estimates`,
:mod:`.from_run`) and their public names are re-exported here."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..limits import clean, could_not_use
from .budget_types import Budget, MeasuredFigures, PerGpu
from .eras import (
    NEWEST_READ,
    Era,
    default_mfs,
    mamba_ratio,
    parse_version,
    rules_for,
    vlm_factor,
)
from .estimates import (
    GIB,
    WEIGHTS_OVERHEAD_GIB,
    arg_value,
    estimate_draft_gib,
    estimate_weights_gib,
    kv_cell_bytes,
    kv_element_bytes,
    spec_defaults,
    ssm_element_bytes,
)
from .gpus import DEFAULT_COUNT, DEFAULT_GPU, F0_OVERHEAD_GIB, GpuSpec, as_gpu_list
from .models import ModelFacts, resolve_model
from .solver import EAGLE_FAMILY, Inputs, shortfall_gib, slack_warnings, solve
from .suggest import suggestions

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
) -> Budget:
    """Recompute SGLang's startup memory budget for ``args`` (ServerArgs field → value).

    ``gpus`` gives capacities (else the ``measured`` log figures, else 2 x 48 GB is assumed);
    ``model`` the model facts (else resolved from ``model_path``); ``sglang_version`` picks the
    era (else the newest release read). ``explicit`` names the args the user really passed;
    ``mem_fraction_static`` not among them is recomputed the way that release does. A value
    SGLang would not accept (:mod:`..limits`) is left out, and the budget says so.
    """
    kept, refused = clean(args, "arguments")
    if refused:
        b = budget(kept, gpus=gpus, model=model, sglang_version=sglang_version,
                   measured=measured, explicit=explicit, model_config=model_config)  # fmt: skip
        return replace(b, assumptions=(*could_not_use(refused), *b.assumptions))
    b = _budget(
        args,
        gpus=gpus,
        model=model,
        sglang_version=sglang_version,
        measured=measured,
        explicit=explicit,
        model_config=model_config,
    )
    if b.fits:
        return b

    def rerun(changed: Mapping[str, Any], gpus_override: Sequence[GpuSpec] | None = None) -> Budget:
        new_explicit = None if explicit is None else {*explicit, *changed}
        return _budget(
            {**args, **changed},
            gpus=gpus_override if gpus_override is not None else gpus,
            model=b_model,
            sglang_version=sglang_version,
            measured=_scale_measured(measured, args, changed),
            explicit=new_explicit,
            model_config=None,
        )

    b_model = model if model is not None else _resolve(args, model_config)
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


def _budget(
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None,
    model: ModelFacts | None,
    sglang_version: str | None,
    measured: MeasuredFigures | None,
    explicit: Collection[str] | None,
    model_config: Any,
) -> Budget:
    assumptions: list[str] = []
    warnings: list[str] = []
    sources: dict[str, str] = {}
    if model is None:
        model = _resolve(args, model_config)
    sources["model"] = model.source
    assumptions.extend(model.notes)
    if sglang_version is None:
        sglang_version = NEWEST_READ
        assumptions.append(
            f"SGLang version unknown: the arithmetic of {NEWEST_READ} (era D) is used"
        )
        sources["sglang_version"] = "assumed"
    else:
        sources.setdefault("sglang_version", "given")
    version = parse_version(sglang_version)
    rules = rules_for(version)
    if version[:3] < (0, 5, 9):
        assumptions.append(f"{sglang_version} predates the releases read; era A arithmetic is used")

    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    dp = int(arg_value(args, "dp_size", 1)) if args.get("enable_dp_attention") else 1
    gpu_list = as_gpu_list(gpus)
    total_gib: float | None
    capacity_mib: float | None
    if gpu_list is not None:
        smallest = min(gpu_list, key=lambda g: g.total_mib)
        total_gib, capacity_mib = smallest.total_gib, smallest.total_mib
        n_gpus = len(gpu_list)
        sources["gpu"] = (
            f"{n_gpus} x {smallest.name} ({smallest.total_mib:.0f} MiB, {smallest.source})"
        )
    elif measured is not None and measured.f0_gib is not None:
        total_gib = capacity_mib = None
        n_gpus = tp * pp
        sources["gpu"] = "capacity unknown; the log's free-memory figures are used"
    else:
        smallest = DEFAULT_GPU
        total_gib, capacity_mib = smallest.total_gib, smallest.total_mib
        n_gpus = DEFAULT_COUNT
        assumptions.append(
            f"no GPU given: assumed {DEFAULT_COUNT} x 48 GB ({smallest.name}, {smallest.total_mib:.0f} MiB)"
        )
        sources["gpu"] = "assumed"
    if n_gpus < tp * pp:
        warnings.append(f"tp x pp = {tp * pp} needs {tp * pp} GPUs but only {n_gpus} are given")

    # F0 and weights
    quant = args.get("quantization") or model.quantization
    quant = str(quant).lower() if quant else None
    if measured is not None and measured.f0_gib is not None:
        f0 = measured.f0_gib
        sources["f0"] = f"measured ({measured.origin})"
    else:
        assert total_gib is not None
        f0 = total_gib - F0_OVERHEAD_GIB
        assumptions.append(
            f"F0 (free before weights) assumed = capacity - {F0_OVERHEAD_GIB} GiB = {f0:.2f} GiB"
        )
        sources["f0"] = "assumed"
    if measured is not None and measured.weights_gib is not None:
        weights = measured.weights_gib
        sources["weights"] = f"measured ({measured.origin})"
    else:
        weights, note = estimate_weights_gib(model, tp=tp, pp=pp, quant=quant)
        if note:
            assumptions.append(note)
        sources["weights"] = (
            f"estimated ({model.params_language / 1e9:.2f}B language"
            + (f" + {model.params_vision / 1e9:.2f}B vision" if model.params_vision else "")
            + f" params, {quant or 'bf16'}, / tp {tp}, + {WEIGHTS_OVERHEAD_GIB} GiB buffers)"
        )
    free_after = measured.free_after_weights_gib if measured is not None else None

    # speculative decoding
    spec_raw = args.get("speculative_algorithm")
    spec = str(spec_raw).upper() if spec_raw else None
    if spec == "NEXTN":
        spec_norm: str | None = "EAGLE"
    else:
        spec_norm = spec
    steps = args.get("speculative_num_steps")
    topk = args.get("speculative_eagle_topk")
    draft_tokens = args.get("speculative_num_draft_tokens")
    if spec and spec != "NGRAM":
        ds, dk, dd = spec_defaults(model)
        if steps is None:
            steps, topk, draft_tokens = (
                ds,
                (topk if topk is not None else dk),
                (draft_tokens if draft_tokens is not None else dd),
            )
            assumptions.append(
                f"speculative steps/topk/draft tokens defaulted to {steps}/{topk}/{draft_tokens}"
            )
        if topk is None:
            topk = 1
        if draft_tokens is None:
            draft_tokens = int(steps) + 1 if int(topk) == 1 else dd
    elif spec == "NGRAM":
        draft_tokens = draft_tokens if draft_tokens is not None else 8
    draft_weights = 0.0
    if spec_norm in EAGLE_FAMILY:
        if measured is not None and measured.draft_weights_gib is not None:
            draft_weights = measured.draft_weights_gib
            sources["draft_weights"] = f"measured ({measured.origin})"
        elif args.get("speculative_draft_model_path") and not model.mtp_layers:
            assumptions.append("separate draft model not priced (its config is not known)")
            sources["draft_weights"] = "unknown"
        else:
            draft_weights = estimate_draft_gib(model, tp=tp, quant=quant)
            sources["draft_weights"] = f"estimated ({model.params_mtp / 1e9:.3f}B MTP params)"
    mrr = args.get("max_running_requests")
    if mrr is None and spec in _SPEC_RESET:
        mrr = 48
        assumptions.append(
            "max_running_requests reset to 48 for speculative decoding (SGLang's default)"
        )
    mrr_per_dp = int(mrr) // dp if mrr is not None else None

    # mem_fraction_static
    mfs_given = args.get("mem_fraction_static")
    if mfs_given is not None and (explicit is None or "mem_fraction_static" in explicit):
        mfs = float(mfs_given)
        sources["mem_fraction_static"] = "args"
    else:
        vlm = (
            vlm_factor(model.vision_num_hidden_layers, model.vision_hidden_size)
            if model.is_multimodal
            else None
        )
        dm = default_mfs(
            rules,
            capacity_mib=capacity_mib,
            tp=tp,
            pp=pp,
            chunked_prefill_size=_int_or_none(
                args.get("chunked_prefill_size")
                if explicit is None or "chunked_prefill_size" in explicit
                else None
            ),
            cuda_graph_max_bs=_int_or_none(
                args.get("cuda_graph_max_bs")
                if explicit is None or "cuda_graph_max_bs" in explicit
                else None
            ),
            spec_algorithm=spec,
            max_running_requests=mrr_per_dp,
            is_mla=model.is_mla,
            vlm_factor=vlm,
            dp_attention_size=dp,
        )
        mfs = dm.value
        sources["mem_fraction_static"] = f"default of {sglang_version}: {dm.explanation}"

    # hybrid radix mode
    radix_disabled = bool(args.get("disable_radix_cache"))
    overlap = not bool(args.get("disable_overlap_schedule"))
    page_size = int(arg_value(args, "page_size", 1))
    strategy = str(
        arg_value(
            args, "mamba_scheduler_strategy", arg_value(args, "mamba_radix_cache_strategy", "auto")
        )
    )
    if model.is_hybrid:
        if strategy == "auto":
            strategy = (
                "extra_buffer" if rules.era is Era.D and (overlap or page_size > 1) else "no_buffer"
            )
        if strategy == "no_buffer" and rules.era is not Era.D:
            overlap = False
        if spec and not radix_disabled and strategy == "no_buffer":
            if rules.spec_disables_radix:
                radix_disabled = True
                assumptions.append(
                    f"{sglang_version} turns the radix cache off for a hybrid model with speculative decoding"
                )
            elif rules.spec_radix_no_buffer_error:
                radix_disabled = True
                warnings.append(
                    f"SGLang {sglang_version} refuses speculative decoding with the radix cache in no_buffer mode; "
                    "computed as with --disable-radix-cache"
                )
    ratio = mamba_ratio(
        rules, radix_disabled=radix_disabled, strategy=strategy, spec=bool(spec), overlap=overlap
    )
    kv_bytes, kv_note = kv_element_bytes(args.get("kv_cache_dtype"), model)
    if kv_note:
        assumptions.append(kv_note)
    context_len = int(arg_value(args, "context_length", model.max_position_embeddings or 32768))
    mmcs = args.get("max_mamba_cache_size")
    inputs = Inputs(
        rules=rules,
        model=model,
        tp=tp,
        pp=pp,
        dp=dp,
        mfs=mfs,
        total_gib=total_gib,
        f0=f0,
        free_after_weights=free_after,
        weights=weights,
        draft_weights=draft_weights,
        spec=spec_norm,
        draft_tokens=int(draft_tokens or 0),
        mrr=mrr_per_dp,
        radix_disabled=radix_disabled,
        ratio=ratio,
        mamba_full_memory_ratio=float(arg_value(args, "mamba_full_memory_ratio", 0.9)),
        max_mamba_cache_size=int(mmcs) if mmcs is not None else None,
        ssm_bytes=ssm_element_bytes(args, model),
        kv_bytes=kv_bytes,
        page_size=page_size,
        max_total_tokens=_int_or_none(args.get("max_total_tokens")),
        context_len=context_len,
    )
    sol = solve(inputs)
    shortfall = 0.0 if sol.fits else shortfall_gib(inputs)
    if rules.era is not Era.D and spec_norm in EAGLE_FAMILY:
        draft_kv = (
            max(sol.tokens, 0)
            * kv_cell_bytes(model, tp=tp, pp=pp, kv_bytes=kv_bytes)
            / max(len(model.full_attention_layers), 1)
            / GIB
        )
    else:
        draft_kv = 0.0
    per_gpu = PerGpu(
        total_gib=total_gib,
        f0_gib=f0,
        weights_gib=weights,
        draft_weights_gib=draft_weights,
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
    )
    if sol.fits:
        warnings.extend(slack_warnings(inputs, per_gpu, args))
    elif sol.failure is None and sol.mrr is not None and sol.mrr <= 0:
        warnings.append(
            f"the mamba pool ({sol.slots} slots, {ratio} per request) leaves no request slots: "
            "SGLang starts but cannot serve"
        )
    return Budget(
        sglang_version=sglang_version,
        era=rules.era,
        era_label=rules.label,
        model=model.name,
        per_gpu=per_gpu,
        gpus=n_gpus,
        max_running_requests=sol.mrr,
        fits=sol.fits,
        failure_kind=sol.failure,
        shortfall_gib=shortfall,
        suggestions=(),
        assumptions=tuple(assumptions),
        sources=sources,
        warnings=tuple(warnings),
        inputs={
            "tp_size": tp,
            "pp_size": pp,
            "mem_fraction_static": round(mfs, 4),
            "speculative_algorithm": spec,
            "speculative_num_steps": steps,
            "speculative_eagle_topk": topk,
            "speculative_num_draft_tokens": draft_tokens,
            "max_running_requests": mrr,
            "radix_cache": "off" if radix_disabled else strategy,
            "mamba_ratio": ratio if model.is_hybrid else None,
            "kv_cache_dtype": args.get("kv_cache_dtype") or "auto",
            "mamba_ssm_dtype": ("float32" if inputs.ssm_bytes == 4 else "bfloat16")
            if model.is_hybrid
            else None,
            "quantization": quant,
            "context_len": context_len,
        },
    )


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


#: Signature of the re-run callback handed to the suggestion engine.
Rerun = Callable[[Mapping[str, Any]], Budget]
