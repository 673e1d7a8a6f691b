"""A model known from its run's own printed figures (issue 32, the last tier of evidence).

When no config, cache entry or exact bundled profile gives the model's shapes, a run that
printed its pool still says what the arithmetic needs of them: the KV bytes per token on one
rank (``KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB``: (X + Y) / N) and its
weights per GPU (``Load weight end ... mem usage=W GB``, read by
:func:`~.from_run.measured_from_run`). The budget of that run then names ``sources.model =
"log"``. Declined (None) where those figures cannot carry it: no pool line or no weights line,
a pool too small for the printed 0.01 GB rounding to stay under 0.5 %, and the pools whose
bytes per token are not one KV cell (sliding-window, mamba state, a speculative draft's layers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import LogscopeError
from ..events import EventKind
from ..log.figures import kv_pool_gib
from ..log.runs import Run
from .estimates import GIB, arg_value, kv_element_bytes
from .models import ModelFacts, ModelUnknown, model_name_of

__all__ = ["MIN_POOL_GIB", "REPRODUCE_PCT", "LoggedFiguresOff", "model_from_run"]

#: The run's own figures must give back its printed ``#tokens`` this closely (percent).
REPRODUCE_PCT = 1.0
#: The smallest printed K + V for which the lines' 0.01 GB rounding stays within 0.5 %.
MIN_POOL_GIB = 2.0


def model_from_run(
    run: Run, args: Mapping[str, Any], *, tokens: Any, weights_known: bool
) -> ModelFacts | None:
    """The model as the run's own pool and weight lines describe it, or None (see module).

    ``tokens`` is the pool's printed size (its ``#tokens``, or ``max_total_num_tokens`` where
    the line has none); ``weights_known`` whether the run's weight lines gave its weights."""
    kv = run.first(EventKind.KV_CACHE_ALLOCATED)
    if kv is None or not weights_known or _other_pools(run, args):
        return None
    pool = kv_pool_gib(kv)
    if not isinstance(tokens, int) or tokens <= 0 or pool is None or pool < MIN_POOL_GIB:
        return None
    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    dp = int(arg_value(args, "dp_size", 1)) if args.get("enable_dp_attention") else 1
    cell = pool * GIB / tokens
    name = model_name_of(str(args.get("model_path") or "unknown model"))
    facts = ModelFacts(
        name=name,
        source="log",
        architecture="unknown (from the log's pool lines)",
        hidden_size=0,
        num_layers=0,
        num_attention_heads=0,
        num_kv_heads=0,
        head_dim=0,
        v_head_dim=0,
        full_attention_layers=(),
        vocab_size=0,
        logged_cell_bytes=cell,
        notes=(
            f"model shapes unknown: KV bytes per token ({cell:,.0f} B per rank) from the run's "
            f"pool line ({pool:.2f} GB for {tokens:,} tokens), weights from its Load weight "
            "end line; another tp/pp/KV dtype scales the cell as KV heads over tp",
        ),
    )
    kv_bytes, _ = kv_element_bytes(args.get("kv_cache_dtype"), facts)
    return replace(facts, logged_at=(max(tp // max(dp, 1), 1), pp, kv_bytes))


def _other_pools(run: Run, args: Mapping[str, Any]) -> bool:
    """Pools whose bytes per token are not one KV cell: SWA, mamba state, a draft's layers."""
    if run.of_kind(EventKind.SWA_POOL, EventKind.MAMBA_CACHE_ALLOCATED):
        return True
    return bool(args.get("speculative_algorithm"))


class LoggedFiguresOff(ModelUnknown):
    """The run's own figures, priced back, do not give its printed ``#tokens`` within
    :data:`REPRODUCE_PCT`: no figure rests on them."""

    def __init__(self, model_path: str | None, error_pct: float | None) -> None:
        super().__init__(model_path)
        off = "cannot be compared" if error_pct is None else f"is {error_pct:+.2f}% off"
        LogscopeError.__init__(
            self,
            f"no figure: unknown model {model_path!r}: its shapes are not known here, and the "
            f"budget from the run's own pool and weight lines {off} its printed #tokens (over "
            f"{REPRODUCE_PCT:g}%); pass {self.advice}",
        )
