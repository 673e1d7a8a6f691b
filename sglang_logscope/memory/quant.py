"""What a quantised checkpoint's weights cost on the GPU, read from its ``quantization_config``.

SGLang keeps a packed int4 (or int8) ``qweight`` plus fp16 ``scales`` (and, with zero points, a
packed ``qzeros``) for every quantised linear layer, one scale per ``group_size`` inputs
(``layers/quantization/awq.py``, ``gptq.py``; compressed-tensors ``weight_packed`` /
``weight_scale`` / ``weight_zero_point``). Layers the config leaves out stay in the model dtype:
``modules_to_not_convert`` (AWQ, matched as a substring of the module name, SGLang's
``is_layer_skipped_awq``) or ``ignore`` (compressed-tensors: a name, or ``re:`` + a regex).
Embeddings, the LM head, norms, MoE router gates, the gated-delta-net ``in_proj_ba`` and
``conv1d`` are never quantised linears; the vision tower is assumed to stay in bf16.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._record import record

#: Methods whose weights are a flat number of bytes per parameter (no groups to read).
_FLAT_BYTES = {
    "fp8": 1.0,
    "w8a8_fp8": 1.0,
    "modelopt_fp8": 1.0,
    "fbgemm_fp8": 1.0,
    "w8a8_int8": 1.0,
    "mxfp4": 0.5625,
    "modelopt_fp4": 0.5625,
    "nvfp4": 0.5625,
}
#: Group-quantised methods: (bits, group size, zero points) when the config says nothing.
_GROUPED_DEFAULTS = {
    "awq": (4, 128, True),
    "awq_marlin": (4, 128, True),
    "gptq": (4, 128, True),
    "gptq_marlin": (4, 128, True),
    "moe_wna16": (4, 128, True),
    "compressed-tensors": (4, 128, False),
}
#: Longest ``re:`` pattern read from a config; longer ones are not matched (treated as absent).
_MAX_PATTERN = 200
_REGEX_TIMEOUT_S = 0.05


@record
class QuantScheme:
    """How one checkpoint's linear layers are stored."""

    method: str
    bits: int = 16
    group_size: int = 128
    zero_point: bool = False
    #: Flat bytes per parameter for methods without groups (fp8, fp4); None for grouped ones.
    flat_bytes: float | None = None
    #: ``modules_to_not_convert`` / ``ignore`` entries, as the config gives them.
    not_converted: tuple[str, ...] = ()
    #: ``config`` when read from ``quantization_config``, else ``default`` (the method's usual).
    source: str = "default"

    @property
    def bytes_per_param(self) -> float:
        """Packed weight plus per-group fp16 scales (and packed zero points)."""
        if self.flat_bytes is not None:
            return self.flat_bytes
        if not self.priced:
            return 0.0
        per_group = 2.0 + (self.bits / 8 if self.zero_point else 0.0)
        group = self.group_size if self.group_size > 0 else 4096  # per channel: ~1 scale per row
        return self.bits / 8 + per_group / group

    @property
    def priced(self) -> bool:
        """False for a method this module has no price for (weights then cost the model dtype)."""
        return self.flat_bytes is not None or self.bits > 0

    def skips(self, module: str) -> bool:
        """Whether ``module`` (a checkpoint name) stays unquantised under this config."""
        return SkipMatcher(self.not_converted)(module)

    def describe(self) -> str:
        if self.flat_bytes is not None:
            return f"{self.method} ({self.flat_bytes:g} B/param)"
        zp = " + zeros" if self.zero_point else ""
        return (
            f"{self.method} int{self.bits}, group {self.group_size}: "
            f"{self.bytes_per_param:.4f} B/param (packed + fp16 scales{zp})"
        )


class SkipMatcher:
    """``modules_to_not_convert`` / ``ignore`` entries as one matcher: substrings, and ``re:``
    patterns compiled once; a pattern that runs past its time limit is dropped for good, so an
    untrusted config cannot make a budget slow (one timeout per pattern at most)."""

    def __init__(self, entries: Iterable[str]) -> None:
        listed = list(entries)
        self.names = [e for e in listed if e and not e.startswith("re:")]
        self.patterns: list[Any] = []
        untrusted = [e[3:] for e in listed if e.startswith("re:") and len(e) - 3 <= _MAX_PATTERN]
        if not untrusted:
            return
        # start-up: the regex module (its timeout) only for a config's ``re:`` entries
        import regex

        for pattern in untrusted:
            try:
                self.patterns.append(regex.compile(pattern))
            except regex.error:
                continue

    def __call__(self, module: str) -> bool:
        if any(name in module for name in self.names):
            return True
        for p in list(self.patterns):
            try:
                if p.match(module, timeout=_REGEX_TIMEOUT_S) is not None:
                    return True
            except TimeoutError:
                self.patterns.remove(p)
        return False


def scheme_for(method: str | None, config: Mapping[str, Any] | None = None) -> QuantScheme | None:
    """The scheme of ``method`` (``--quantization`` or the config's ``quant_method``), refined by
    ``config`` (a ``quantization_config``) when given; None for an unquantised model."""
    m = (method or "").lower()
    if m in ("", "none", "bf16", "bfloat16", "fp16", "float16"):
        return None
    q = config if isinstance(config, Mapping) else {}
    skipped = _names(q.get("modules_to_not_convert")) + _names(q.get("ignore"))
    source = "config" if q else "default"
    if m in _FLAT_BYTES:
        return QuantScheme(m, flat_bytes=_FLAT_BYTES[m], not_converted=skipped, source=source)
    if m not in _GROUPED_DEFAULTS:
        return QuantScheme(m, flat_bytes=None, bits=0, not_converted=skipped, source="unknown")
    bits, group, zero = _GROUPED_DEFAULTS[m]
    w: Mapping[str, Any] = _ct_weights(q) if m == "compressed-tensors" else q
    bits = _int(w.get("bits", w.get("num_bits", w.get("w_bit"))), bits, 1, 16)
    group = _int(w.get("group_size", w.get("q_group_size")), group, -1, 1 << 20) or group
    if m.startswith("gptq"):
        zero = True  # a GPTQ checkpoint stores qzeros even when symmetric (SGLang loads them)
    elif "zero_point" in w:
        zero = bool(w.get("zero_point"))
    elif "sym" in w:
        zero = not bool(w.get("sym"))
    elif "symmetric" in w:
        zero = not bool(w.get("symmetric"))
    return QuantScheme(m, bits, group, zero, None, skipped, source)


def _ct_weights(q: Mapping[str, Any]) -> Mapping[str, Any]:
    """The first config group's ``weights`` block of a compressed-tensors config."""
    groups = q.get("config_groups")
    if isinstance(groups, Mapping):
        for group in groups.values():
            w = group.get("weights") if isinstance(group, Mapping) else None
            if isinstance(w, Mapping):
                return w
    return {}


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(str(v) for v in value[:512] if isinstance(v, str))


def _int(value: Any, default: int, lo: int, hi: int) -> int:
    """``value`` when it is an int within [lo, hi] (a config is untrusted), else ``default``."""
    ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    return value if ok else default


def linear_bytes(
    parts: Iterable[tuple[str, float]], scheme: QuantScheme | None, dtype_bytes: float
) -> float:
    """Bytes of the quantisable linear layers: each part (a representative checkpoint module
    name and its parameter count) at the scheme's price unless the config skips it."""
    total = 0.0
    skips = SkipMatcher(scheme.not_converted if scheme is not None else ())
    for name, params in parts:
        if scheme is None or not scheme.priced or skips(name):
            total += params * dtype_bytes
        else:
            total += params * scheme.bytes_per_param
    return total
