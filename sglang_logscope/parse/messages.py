"""SGLang's vocabulary: one declarative entry per message the server prints.

Each entry gives the pattern (over the message, after the ``[time rank]`` header), the typed
fields, the releases that print it, and sample lines with the fields they must yield.
``tests/test_catalog.py`` parses every sample through the full parser. Sample sources:
``corpus/NNN`` are real lines from public logs (copied into ``fixtures/real/NNN/``); ``sglang
X.Y.Z file.py`` are lines built from that release's format string (as recorded in the project's
log-format notes), filled in with plausible values.

Patterns start with literal text wherever possible (the catalog dispatches on the first
characters); every quantifier is bounded or possessive, so no line can make matching run away.
Order matters only within a dispatch bucket: more specific entries first.
"""

from __future__ import annotations

from ..events import EventKind as K
from .catalog import Catalog, MessageSpec, Ref, Sample

#: A GiB figure as SGLang prints it (``%.2f``), including the nan/inf a broken probe prints.
GIB = r"(?:-?\d{1,9}+(?:\.\d{1,6}+)?|nan|inf)"
#: A PyTorch ``format_size`` value: ``32.00 MiB``, ``512 bytes``.
SIZE = r"\d{1,12}+(?:\.\d{1,6}+)? ?(?:[KMGTP]i?B|bytes)"
INT = r"-?\d{1,18}+"
FLOAT = r"-?\d{1,12}+(?:\.\d{1,12}+)?"
#: "CUDA out of memory" (or "CUDA error: out of memory", HIP, NPU, ...) just before, as
#: look-behinds of one width each (``re`` takes no variable-width one).
_OOM_WORDS_BEHIND = "|".join(
    f"(?<={device} {code}out of memory)"
    for device in ("CUDA", "HIP", "NPU", "XPU", "MUSA")
    for code in ("", "error: ")
)

SPECS: list[MessageSpec] = [
    # ================================================================= run configuration
    MessageSpec(
        name="server_args_banner",
        kind=K.SERVER_ARGS,
        pattern=r"server_args=(?P<_repr>(?:ServerArgs\(|\{).*)",
        releases="0.2.0-",
        description="The effective arguments after SGLang's own adjustments: the dataclass repr "
        "(0.2.0-0.5.15) or a plain dict (0.5.23). Parsed with ast, never evaluated; a truncated "
        "banner keeps its complete pairs.",
        samples=(
            Sample(
                "[2026-05-25 18:03:25] server_args=ServerArgs(model_path='/data/m', tp_size=2, mem_fraction_static=0.85)",
                {"args": {"model_path": "/data/m", "tp_size": 2, "mem_fraction_static": 0.85}},
                "corpus/065 (abridged to three fields)",
            ),
            Sample(
                "[16:53:16] server_args=ServerArgs(model_path='Qwen/Qwen2.5-0.5B-Instruct-AWQ', tokenizer_path='Qwen/Qwen2.5-0.5B-Instruct-AWQ', dp_size=8, mem_fraction_static=0.01",
                {
                    "args": {
                        "model_path": "Qwen/Qwen2.5-0.5B-Instruct-AWQ",
                        "tokenizer_path": "Qwen/Qwen2.5-0.5B-Instruct-AWQ",
                        "dp_size": 8,
                    }
                },
                "corpus/012 (abridged; truncated like the original)",
            ),
            Sample(
                "[2026-10-30 12:00:00] server_args={'model_path': 'Qwen/Qwen3-8B', 'tp_size': 1, 'mem_fraction_static': 0.836, 'cuda_graph_config': {'max_bs_decode': 256}}",
                {
                    "args": {
                        "model_path": "Qwen/Qwen3-8B",
                        "tp_size": 1,
                        "mem_fraction_static": 0.836,
                        "cuda_graph_config": {"max_bs_decode": 256},
                    }
                },
                "sglang 0.5.23 engine.py (_server_args_for_logging dict form)",
            ),
        ),
    ),
    MessageSpec(
        name="launch_server_deprecation",
        kind=K.LAUNCH_WARNING,
        pattern=r"(?P<path>\S{0,500}?launch_server\.py):(?P<lineno>\d{1,7}+): UserWarning: 'python -m sglang\.launch_server' is still supported",
        fields={"lineno": "int"},
        releases="0.5.10-",
        samples=(
            Sample(
                "/home/letsrtfm/AI/2x-R9700-RDNA4-GFX1201-sglang-inference/components/sglang/python/sglang/launch_server.py:54: UserWarning: 'python -m sglang.launch_server' is still supported, but 'sglang serve' is the recommended entrypoint.",
                {"lineno": 54},
                "corpus/065",
            ),
        ),
    ),
    # ================================================================= auto-adjust warnings
    # --- radix cache
    MessageSpec(
        name="adjust_radix_spec_mamba",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling radix cache since speculative decoding for (?P<model_arch>\w{1,200}+) is not supported with radix cache yet",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-05-09 09:17:42] WARNING server_args.py:1761: Disabling radix cache since speculative decoding for Qwen3_5ForConditionalGeneration is not supported with radix cache yet.",
                {
                    "model_arch": "Qwen3_5ForConditionalGeneration",
                    "sets": {"disable_radix_cache": True},
                },
                "sglang 0.5.9 server_args.py:1761 (in the '[ts] LEVEL file.py:LINE:' deployment format)",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_trtllm_mha",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling radix cache since trtllm_mha does not support page_size = 1",
        sets={"disable_radix_cache": True, "disable_overlap_schedule": False},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Disabling radix cache since trtllm_mha does not support page_size = 1, which is required by MambaRadixCache. Try to use --attention-backend triton if radix cache is necessary.",
                {"sets": {"disable_radix_cache": True, "disable_overlap_schedule": False}},
                "sglang 0.5.9 server_args.py:1754",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_unsupported_arch",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling Radix Cache for (?P<model_arch>\w{1,200}+) as it is not yet supported",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Disabling Radix Cache for FalconH1ForCausalLM as it is not yet supported.",
                {"model_arch": "FalconH1ForCausalLM", "sets": {"disable_radix_cache": True}},
                "sglang 0.5.9 server_args.py:1717",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_hybrid_gdn",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Hybrid GDN model detected, disable radix cache",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.3",
        samples=(
            Sample(
                "[2025-10-06 12:00:03 TP0] Hybrid GDN model detected, disable radix cache",
                {"sets": {"disable_radix_cache": True}},
                "sglang 0.5.3 model_runner.py (scheduler side)",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_decode_server",
        kind=K.ARGS_ADJUSTED,
        pattern=r"KV cache is forced as chunk cache for decode server",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.4.6-0.5.15",
        samples=(
            Sample(
                "KV cache is forced as chunk cache for decode server",
                {"sets": {"disable_radix_cache": True}},
                "sglang 0.5.9 server_args.py:2556",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_decode_server_v2",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Radix cache is disabled for decode server",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:00] Radix cache is disabled for decode server",
                {"sets": {"disable_radix_cache": True}},
                "sglang 0.5.23 arg_groups overrides",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_dllm",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Radix cache is disabled because of using diffusion LLM inference",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Radix cache is disabled because of using diffusion LLM inference",
                {"sets": {"disable_radix_cache": True}},
                "sglang 0.5.9 server_args.py:2824",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_mixed_dual_chunk",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Mixed chunk and radix cache are disabled when using dual-chunk flash attention backend",
        sets={"enable_mixed_chunk": False, "disable_radix_cache": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Mixed chunk and radix cache are disabled when using dual-chunk flash attention backend",
                {"sets": {"enable_mixed_chunk": False, "disable_radix_cache": True}},
                "sglang 0.5.9 server_args.py:1970",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_radix_deterministic",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Currently radix cache is not compatible with (?P<backend>\w{1,60}+) attention backend for deterministic inference",
        sets={"disable_radix_cache": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Currently radix cache is not compatible with triton attention backend for deterministic inference. It will be supported in the future.",
                {"backend": "triton", "sets": {"disable_radix_cache": True}},
                "sglang 0.5.9 server_args.py:2777",
            ),
        ),
    ),
    # --- attention backend (the default moved between processes and texts)
    MessageSpec(
        name="attention_backend_not_set",
        kind=K.ATTENTION_BACKEND,
        pattern=r"Attention backend not set\. Use (?P<backend>\w{1,60}+) backend by default",
        sets={"attention_backend": Ref("backend")},
        releases="0.4.6-0.4.8",
        samples=(
            Sample(
                "[2025-06-24 12:00:05 TP0] Attention backend not set. Use fa3 backend by default.",
                {"backend": "fa3", "sets": {"attention_backend": "fa3"}},
                "sglang 0.4.8 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="attention_backend_not_explicit",
        kind=K.ATTENTION_BACKEND,
        pattern=r"Attention backend not explicitly specified\. Use (?P<backend>\w{1,60}+) backend by default",
        sets={"attention_backend": Ref("backend")},
        releases="0.4.10-0.5.3",
        samples=(
            Sample(
                "[2025-10-06 12:00:05 TP0] Attention backend not explicitly specified. Use flashinfer backend by default.",
                {"backend": "flashinfer", "sets": {"attention_backend": "flashinfer"}},
                "sglang 0.5.3 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="attention_backend_not_specified",
        kind=K.ATTENTION_BACKEND,
        pattern=r"Attention backend not specified\. Use (?P<backend>\w{1,60}+) backend by default",
        sets={"attention_backend": Ref("backend")},
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-07-10 22:12:13] Attention backend not specified. Use flashinfer backend by default.",
                {"backend": "flashinfer", "sets": {"attention_backend": "flashinfer"}},
                "corpus/055",
            ),
        ),
    ),
    # --- max running requests / token budget
    MessageSpec(
        name="adjust_max_running_requests_spec",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Max running requests is reset to (?P<max_running_requests>\d{1,9}+) for speculative decoding",
        fields={"max_running_requests": "int"},
        sets={"max_running_requests": Ref("max_running_requests")},
        level="WARNING",
        releases="0.5.6-",
        samples=(
            Sample(
                "[2026-05-09 09:17:42] WARNING server_args.py:2364: Max running requests is reset to 48 for speculative decoding. You can override this by explicitly setting --max-running-requests.",
                {"max_running_requests": 48, "sets": {"max_running_requests": 48}},
                "sglang 0.5.9 server_args.py:2364",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_max_running_requests_mamba_cap",
        kind=K.ARGS_ADJUSTED,
        pattern=r"max_running_requests is capped to (?P<max_running_requests>\d{1,9}+) by the mamba state cache \(max_mamba_cache_size=(?P<max_mamba_cache_size>\d{1,9}+), (?P<slots_per_request>\d{1,6}+) state slots per request\)",
        fields={
            "max_running_requests": "int",
            "max_mamba_cache_size": "int",
            "slots_per_request": "int",
        },
        sets={"max_running_requests": Ref("max_running_requests")},
        level="WARNING",
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:40 TP0] max_running_requests is capped to 20 by the mamba state cache (max_mamba_cache_size=40, 2 state slots per request). To raise it: increase --mamba-full-memory-ratio or --max-mamba-cache-size, or halve the state size with --mamba-ssm-dtype bfloat16.",
                {
                    "max_running_requests": 20,
                    "max_mamba_cache_size": 40,
                    "slots_per_request": 2,
                    "sets": {"max_running_requests": 20},
                },
                "sglang 0.5.23 scheduler",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_max_running_requests_reduced",
        kind=K.ARGS_ADJUSTED,
        pattern=r"max_running_requests was reduced from the requested (?P<requested>\d{1,9}+) to (?P<max_running_requests>\d{1,9}+) \(per dp worker\) due to the available KV cache capacity",
        fields={"requested": "int", "max_running_requests": "int"},
        sets={"max_running_requests": Ref("max_running_requests")},
        level="WARNING",
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:40 TP0] max_running_requests was reduced from the requested 256 to 96 (per dp worker) due to the available KV cache capacity.",
                {
                    "requested": 256,
                    "max_running_requests": 96,
                    "sets": {"max_running_requests": 96},
                },
                "sglang 0.5.23 scheduler",
            ),
        ),
    ),
    MessageSpec(
        name="kv_pool_below_context_length",
        kind=K.ARGS_ADJUSTED,
        pattern=r"KV pool holds (?P<tokens>\d{1,12}+) tokens, fewer than --context-length (?P<context_length>\d{1,12}+)",
        fields={"tokens": "int", "context_length": "int"},
        level="WARNING",
        releases="0.5.23-",
        description="Changes no argument: the pool cannot hold one full-length request.",
        samples=(
            Sample(
                "[2026-10-30 12:00:40 TP0] KV pool holds 65536 tokens, fewer than --context-length 262144. One full-length request cannot fit, so long requests will be refused or truncated at serving time. Lower --context-length, raise --mem-fraction-static, or free memory taken before the pool is sized.",
                {"tokens": 65536, "context_length": 262144},
                "sglang 0.5.23 managers/tp_worker.py",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_max_total_tokens_profiled",
        kind=K.ARGS_ADJUSTED,
        pattern=r"max_total_tokens=(?P<requested>-?\d{1,12}+) is larger than the profiled value (?P<max_total_num_tokens>-?\d{1,12}+)\. Use the profiled value instead",
        fields={"requested": "int", "max_total_num_tokens": "int"},
        sets={"max_total_num_tokens": Ref("max_total_num_tokens")},
        level="WARNING",
        releases="0.2.14-",
        samples=(
            Sample(
                "[2025-07-02 07:41:10 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. Use the profiled value instead.",
                {
                    "requested": 131072,
                    "max_total_num_tokens": -561981,
                    "sets": {"max_total_num_tokens": -561981},
                },
                "corpus/022",
            ),
        ),
    ),
    # --- overlap schedule / mixed chunk / speculative
    MessageSpec(
        name="adjust_overlap_eagle",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Overlap scheduler is disabled because of using (?P<algorithm>eagle|eagle3 or standalone) speculative decoding",
        sets={"disable_overlap_schedule": True},
        level="WARNING",
        releases="0.4.6-0.5.6",
        samples=(
            Sample(
                "Overlap scheduler is disabled because of using eagle speculative decoding.",
                {"algorithm": "eagle", "sets": {"disable_overlap_schedule": True}},
                "sglang 0.4.10 server_args.py",
            ),
            Sample(
                "Overlap scheduler is disabled because of using eagle3 or standalone speculative decoding.",
                {"algorithm": "eagle3 or standalone", "sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.6 server_args.py",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_spec_v2_off",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Overlap scheduler is disabled when spec v2 is off",
        sets={"disable_overlap_schedule": True},
        level="WARNING",
        releases="0.5.9",
        samples=(
            Sample(
                "Overlap scheduler is disabled when spec v2 is off or using unsupported speculative algorithm. You can set env SGLANG_ENABLE_SPEC_V2=True to enable the experimental overlap scheduler. ",
                {"sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.9 server_args.py:2385",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_embedding",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Overlap scheduler is disabled (?P<reason>for embedding models|when using sparse head for embedding model)",
        sets={"disable_overlap_schedule": True},
        releases="0.4.6-",
        samples=(
            Sample(
                "[2026-02-23 10:00:04 TP0] Overlap scheduler is disabled for embedding models.",
                {"reason": "for embedding models", "sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.9 scheduler.py",
            ),
            Sample(
                "Overlap scheduler is disabled when using sparse head for embedding model.",
                {"sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.9 server_args.py:1668",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_spec_v2_on",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on",
        sets={"disable_overlap_schedule": False},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.",
                {"sets": {"disable_overlap_schedule": False}},
                "sglang 0.5.9 server_args.py:2373",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_ngram",
        kind=K.ARGS_ADJUSTED,
        pattern=r"The overlap scheduler and mixed chunked prefill are disabled because of using ngram speculative decoding",
        sets={"disable_overlap_schedule": True, "enable_mixed_chunk": False},
        level="WARNING",
        releases="0.5.3-",
        samples=(
            Sample(
                "The overlap scheduler and mixed chunked prefill are disabled because of using ngram speculative decoding.",
                {"sets": {"disable_overlap_schedule": True, "enable_mixed_chunk": False}},
                "sglang 0.5.9 server_args.py:2480",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_mamba_no_buffer",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule",
        sets={"disable_overlap_schedule": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-05-25 18:03:25] Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule, try to use --disable-radix-cache if overlap schedule is necessary",
                {"sets": {"disable_overlap_schedule": True}},
                "corpus/065",
            ),
            Sample(
                "WARNING:sglang.srt.server_args:Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule, try to use --disable-radix-cache if overlap schedule is necessary",
                {"sets": {"disable_overlap_schedule": True}},
                "corpus/053",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_pipeline",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Pipeline parallelism is incompatible with overlap schedule",
        sets={"disable_overlap_schedule": True},
        level="WARNING",
        releases="0.4.8-",
        samples=(
            Sample(
                "Pipeline parallelism is incompatible with overlap schedule.",
                {"sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.9 server_args.py:2274",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_overlap_dllm",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Overlap schedule is disabled because of using diffusion LLM inference",
        sets={"disable_overlap_schedule": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Overlap schedule is disabled because of using diffusion LLM inference",
                {"sets": {"disable_overlap_schedule": True}},
                "sglang 0.5.9 server_args.py:2819",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_mixed_chunk_eagle",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Mixed chunked prefill is disabled because of using (?P<reason>eagle speculative decoding|diffusion LLM inference)",
        sets={"enable_mixed_chunk": False},
        level="WARNING",
        releases="0.4.6-",
        samples=(
            Sample(
                "Mixed chunked prefill is disabled because of using eagle speculative decoding.",
                {"reason": "eagle speculative decoding", "sets": {"enable_mixed_chunk": False}},
                "sglang 0.5.9 server_args.py:2392",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_draft_tokens_topk1",
        kind=K.ARGS_ADJUSTED,
        pattern=r"speculative_num_draft_tokens is adjusted to speculative_num_steps \+ 1 when speculative_eagle_topk == 1",
        sets={"speculative_num_draft_tokens": "speculative_num_steps + 1"},
        level="WARNING",
        releases="0.4.6-",
        samples=(
            Sample(
                "[2026-02-23 10:00:00] speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1",
                {"sets": {"speculative_num_draft_tokens": "speculative_num_steps + 1"}},
                "sglang 0.5.9 server_args.py:2447",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_eagle_topk_page_size",
        kind=K.ARGS_ADJUSTED,
        pattern=r"speculative_eagle_topk is adjusted to 1 when page_size > 1",
        sets={"speculative_eagle_topk": 1},
        level="WARNING",
        releases="0.4.6",
        samples=(
            Sample(
                "speculative_eagle_topk is adjusted to 1 when page_size > 1",
                {"sets": {"speculative_eagle_topk": 1}},
                "sglang 0.4.6 server_args.py",
            ),
        ),
    ),
    # --- page size, per attention backend
    MessageSpec(
        name="adjust_page_size_flashmla",
        kind=K.ARGS_ADJUSTED,
        pattern=r"(?P<backend>FlashMLA|Cutlass MLA) only supports a page_size of (?P<page_size>\d{1,6}+), change page_size to \d{1,6}+",
        fields={"page_size": "int"},
        sets={"page_size": Ref("page_size")},
        level="WARNING",
        releases="0.4.6-",
        samples=(
            Sample(
                "FlashMLA only supports a page_size of 64, change page_size to 64.",
                {"backend": "FlashMLA", "page_size": 64, "sets": {"page_size": 64}},
                "sglang 0.5.9 server_args.py:1860",
            ),
            Sample(
                "Cutlass MLA only supports a page_size of 128, change page_size to 128.",
                {"backend": "Cutlass MLA", "page_size": 128, "sets": {"page_size": 128}},
                "sglang 0.5.9 server_args.py:1869",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_page_size_changing",
        kind=K.ARGS_ADJUSTED,
        pattern=r"(?P<backend>TensorRT-LLM MLA|TensorRT-LLM MHA|FA4 backend|Intel XPU attention backend) only supports page.{1,80}?, changing page_size from (?P<previous>-?\d{1,6}+|None) to (?P<page_size>\d{1,6}+)",
        fields={"page_size": "int"},
        sets={"page_size": Ref("page_size")},
        level="WARNING",
        releases="0.5.3-",
        samples=(
            Sample(
                "TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from 1 to 64.",
                {
                    "backend": "TensorRT-LLM MLA",
                    "previous": "1",
                    "page_size": 64,
                    "sets": {"page_size": 64},
                },
                "sglang 0.5.9 server_args.py:1884",
            ),
            Sample(
                "TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from 1 to 64.",
                {"backend": "TensorRT-LLM MHA", "page_size": 64, "sets": {"page_size": 64}},
                "sglang 0.5.9 server_args.py:1905",
            ),
            Sample(
                "FA4 backend only supports page size 128 for non-MLA model architectures, changing page_size from 1 to 128.",
                {"backend": "FA4 backend", "page_size": 128, "sets": {"page_size": 128}},
                "sglang 0.5.9 server_args.py:1918",
            ),
            Sample(
                "Intel XPU attention backend only supports page_size of 32, 64 or 128, changing page_size from 1 to 128.",
                {"page_size": 128, "sets": {"page_size": 128}},
                "sglang 0.5.9 server_args.py:1951",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_page_size_ascend",
        kind=K.ARGS_ADJUSTED,
        pattern=r"At this moment Ascend attention backend only supports a page_size of \d{1,6}+, change page_size to (?P<page_size>\d{1,6}+)",
        fields={"page_size": "int"},
        sets={"page_size": Ref("page_size")},
        level="WARNING",
        releases="0.5.3-",
        samples=(
            Sample(
                "[2025-11-07 12:20:13] WARNING server_args.py:1082: At this moment Ascend attention backend only supports a page_size of 128, change page_size to 128.",
                {"page_size": 128, "sets": {"page_size": 128}},
                "corpus/006",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_page_size_dsa",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Setting page size to (?P<page_size>\d{1,6}+) for DeepSeek DSA(?P<rocm> on ROCm)?",
        fields={"page_size": "int"},
        sets={"page_size": Ref("page_size")},
        level="WARNING",
        releases="0.5.6-",
        samples=(
            Sample(
                "Setting page size to 64 for DeepSeek DSA.",
                {"page_size": 64, "sets": {"page_size": 64}},
                "sglang 0.5.9 server_args.py:1259",
            ),
            Sample(
                "Setting page size to 1 for DeepSeek DSA on ROCm.",
                {"page_size": 1, "rocm": " on ROCm", "sets": {"page_size": 1}},
                "sglang 0.5.9 server_args.py:1253",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_kv_cache_dtype_dsa",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Setting KV cache dtype to (?P<kv_cache_dtype>\w{1,40}+) for DeepSeek DSA on SM(?P<sm>\d{1,4}+) device",
        fields={"sm": "int"},
        sets={"kv_cache_dtype": Ref("kv_cache_dtype")},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Setting KV cache dtype to fp8_e4m3 for DeepSeek DSA on SM10 device.",
                {"kv_cache_dtype": "fp8_e4m3", "sm": 10, "sets": {"kv_cache_dtype": "fp8_e4m3"}},
                "sglang 0.5.9 server_args.py:1144",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_mem_fraction_nsa",
        kind=K.ARGS_ADJUSTED,
        pattern=rf"Setting mem fraction static to (?P<mem_fraction_static>{FLOAT}) for DeepSeek NSA",
        fields={"mem_fraction_static": "float"},
        sets={"mem_fraction_static": Ref("mem_fraction_static")},
        level="WARNING",
        releases="0.5.3",
        samples=(
            Sample(
                "Setting mem fraction static to 0.8 for DeepSeek NSA.",
                {"mem_fraction_static": 0.8, "sets": {"mem_fraction_static": 0.8}},
                "sglang 0.5.3 server_args.py",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_mem_fraction_multimodal",
        kind=K.ARGS_ADJUSTED,
        pattern=rf"Multimodal model: Dynamically adjusted --mem-fraction-static from: (?P<previous>{FLOAT}) to: (?P<mem_fraction_static>{FLOAT})",
        fields={"previous": "float", "mem_fraction_static": "float"},
        sets={"mem_fraction_static": Ref("mem_fraction_static")},
        level="WARNING",
        releases="0.4.10-",
        samples=(
            Sample(
                "Multimodal model: Dynamically adjusted --mem-fraction-static from: 0.880 to: 0.836.",
                {
                    "previous": 0.88,
                    "mem_fraction_static": 0.836,
                    "sets": {"mem_fraction_static": 0.836},
                },
                "sglang 0.5.9 server_args.py (adjust_mem_fraction_for_vlm)",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_mem_fraction_multimodal_scheduler",
        kind=K.ARGS_ADJUSTED,
        pattern=rf"Automatically reduce --mem-fraction-static to (?P<mem_fraction_static>{FLOAT}) because this is a multimodal model",
        fields={"mem_fraction_static": "float"},
        sets={"mem_fraction_static": Ref("mem_fraction_static")},
        releases="0.4.0-0.4.8",
        samples=(
            Sample(
                "[2025-04-17 13:44:50 TP1] Automatically reduce --mem-fraction-static to 0.783 because this is a multimodal model.",
                {"mem_fraction_static": 0.783, "sets": {"mem_fraction_static": 0.783}},
                "corpus/059",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_chunked_prefill_off",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Automatically turn off --chunked-prefill-size (?:for multimodal model|as it is not supported for (?P<model_type>\S{1,200}+))",
        sets={"chunked_prefill_size": -1},
        releases="0.4.0-",
        samples=(
            Sample(
                "[2025-04-17 13:44:50 TP1] Automatically turn off --chunked-prefill-size for multimodal model.",
                {"sets": {"chunked_prefill_size": -1}},
                "corpus/059",
            ),
            Sample(
                "[2026-02-23 10:00:04 TP0] Automatically turn off --chunked-prefill-size as it is not supported for qwen2_vl",
                {"model_type": "qwen2_vl", "sets": {"chunked_prefill_size": -1}},
                "sglang 0.5.9 scheduler",
            ),
        ),
    ),
    # --- DP attention, expert parallel
    MessageSpec(
        name="adjust_dp_attention_chunked_prefill",
        kind=K.ARGS_ADJUSTED,
        pattern=r"DP attention is enabled\. The chunked prefill size is adjusted to (?P<chunked_prefill_size>-?\d{1,9}+) to avoid MoE kernel issues",
        fields={"chunked_prefill_size": "int"},
        sets={"chunked_prefill_size": Ref("chunked_prefill_size")},
        level="WARNING",
        releases="0.4.0-0.5.15",
        description="Also multiplies schedule_conservativeness by 0.3.",
        samples=(
            Sample(
                "DP attention is enabled. The chunked prefill size is adjusted to 1024 to avoid MoE kernel issues. ",
                {"chunked_prefill_size": 1024, "sets": {"chunked_prefill_size": 1024}},
                "sglang 0.5.9 server_args.py:2118",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_dp_attention_chunked_prefill_v2",
        kind=K.ARGS_ADJUSTED,
        pattern=r"DP attention is enabled\. chunked prefill size is adjusted from (?P<previous>-?\d{1,9}+) to (?P<chunked_prefill_size>-?\d{1,9}+)",
        fields={"previous": "int", "chunked_prefill_size": "int"},
        sets={"chunked_prefill_size": Ref("chunked_prefill_size")},
        level="WARNING",
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:00] DP attention is enabled. chunked prefill size is adjusted from 8192 to 1024.",
                {
                    "previous": 8192,
                    "chunked_prefill_size": 1024,
                    "sets": {"chunked_prefill_size": 1024},
                },
                "sglang 0.5.23 arg_groups hook",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_ep_size_deepep",
        kind=K.ARGS_ADJUSTED,
        pattern=r"DeepEP MoE is enabled\. The expert parallel size is adjusted to be the same as the tensor parallel size\[(?P<ep_size>\d{1,6}+)\]",
        fields={"ep_size": "int"},
        sets={"ep_size": Ref("ep_size")},
        level="WARNING",
        releases="0.4.6-",
        samples=(
            Sample(
                "DeepEP MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[8].",
                {"ep_size": 8, "sets": {"ep_size": 8}},
                "sglang 0.5.9 server_args.py:2183",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_ep_size_other_a2a",
        kind=K.ARGS_ADJUSTED,
        pattern=r"(?P<backend>Mooncake MoE|Ascend fused EP MoE|Flashinfer MoE A2A|MoRI MoE|EP MoE) is enabled\. The expert parallel size is adjusted to be the same as the tensor parallel size\[(?P<ep_size>\d{1,6}+)\]",
        fields={"ep_size": "int"},
        sets={"ep_size": Ref("ep_size")},
        level="WARNING",
        releases="0.4.6-",
        description="The other all-to-all backends (0.4.6 printed 'EP MoE is enabled' for --enable-ep-moe).",
        samples=(
            Sample(
                "Mooncake MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[4].",
                {"backend": "Mooncake MoE", "ep_size": 4, "sets": {"ep_size": 4}},
                "sglang 0.5.9 server_args.py:2189",
            ),
            Sample(
                "EP MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[8].",
                {"backend": "EP MoE", "ep_size": 8, "sets": {"ep_size": 8}},
                "sglang 0.4.6 server_args.py",
            ),
        ),
    ),
    # --- CUDA graph
    MessageSpec(
        name="adjust_cuda_graph_disabled",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Cuda graph is disabled (?P<reason>(?:because|for) .{1,300})",
        sets={"disable_cuda_graph": True},
        level="WARNING",
        releases="0.3.0-",
        description="Every 'Cuda graph is disabled because/for ...' variant: prefill server, torch "
        "native / flex attention, deepep normal mode, diffusion LLM on AMD.",
        samples=(
            Sample(
                "Cuda graph is disabled for prefill server",
                {"reason": "for prefill server", "sets": {"disable_cuda_graph": True}},
                "sglang 0.4.10 server_args.py",
            ),
            Sample(
                "Cuda graph is disabled for prefill server when piecewise cuda graph is not enabled.",
                {"sets": {"disable_cuda_graph": True}},
                "sglang 0.5.9 server_args.py:2569",
            ),
            Sample(
                "Cuda graph is disabled because of using torch native attention backend",
                {
                    "reason": "because of using torch native attention backend",
                    "sets": {"disable_cuda_graph": True},
                },
                "sglang 0.5.9 server_args.py:1841",
            ),
            Sample(
                "Cuda graph is disabled because deepep_mode=`normal`",
                {"sets": {"disable_cuda_graph": True}},
                "sglang 0.5.9 server_args.py:2180",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_cuda_graph_tensor_dump",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Cuda graph and server warmup are disabled because of using tensor dump mode",
        sets={"disable_cuda_graph": True, "skip_server_warmup": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Cuda graph and server warmup are disabled because of using tensor dump mode",
                {"sets": {"disable_cuda_graph": True, "skip_server_warmup": True}},
                "sglang 0.5.9 server_args.py:2855",
            ),
        ),
    ),
    # --- hybrid SWA
    MessageSpec(
        name="adjust_hybrid_swa_disable",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disable hybrid SWA memory for (?P<target>.{1,300})",
        sets={"disable_hybrid_swa_memory": True},
        level="WARNING",
        releases="0.5.3-",
        samples=(
            Sample(
                "Disable hybrid SWA memory for Gemma3ForConditionalGeneration as it is not yet supported.",
                {"sets": {"disable_hybrid_swa_memory": True}},
                "sglang 0.5.9 server_args.py:1484",
            ),
            Sample(
                "Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention backend.",
                {"sets": {"disable_hybrid_swa_memory": True}},
                "sglang 0.5.9 server_args.py:1360",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_hybrid_swa_disabling",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling hybrid SWA memory for (?P<model_arch>\w{1,200}+) as it is not yet supported",
        sets={"disable_hybrid_swa_memory": True},
        level="WARNING",
        releases="0.5.9-",
        samples=(
            Sample(
                "Disabling hybrid SWA memory for Exaone4ForCausalLM as it is not yet supported.",
                {"model_arch": "Exaone4ForCausalLM", "sets": {"disable_hybrid_swa_memory": True}},
                "sglang 0.5.9 server_args.py:1490",
            ),
        ),
    ),
    # --- dtype, shared experts, prefill CUDA graph (found in real logs)
    MessageSpec(
        name="adjust_dtype_below_sm80",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Compute capability below sm80\. Use float16 due to lack of bfloat16 support",
        sets={"dtype": "float16"},
        releases="0.2.14-",
        description="model_runner.py (0.5.23: model_runner_components/load_model_utils.py, which "
        "records the float16 override as a context override instead of writing server_args.dtype).",
        samples=(
            Sample(
                "[2025-04-17 13:44:52 TP0] Compute capability below sm80. Use float16 due to lack of bfloat16 support.",
                {"sets": {"dtype": "float16"}},
                "corpus/059",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_shared_experts_fusion_off",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Only Deepseek V3/R1 can use shared experts fusion optimization\. Shared expert",
        sets={"n_share_experts_fusion": 0},
        releases="0.4.5-0.4.6",
        description="models/deepseek_v2.py of 0.4.5 to 0.4.6.post1 (0.4.5 sets the value to None, "
        "0.4.6 to 0); later releases say 'Only Deepseek V3/R1 on NV-platform ...' instead. The "
        "pattern stops at 'Shared expert' because the real line is cut there.",
        samples=(
            Sample(
                "[2025-04-17 13:44:53 TP0] Only Deepseek V3/R1 can use shared experts fusion optimization. Shared expert",
                {"sets": {"n_share_experts_fusion": 0}},
                "corpus/059 (cut off as in the source)",
            ),
            Sample(
                "[2025-05-10 12:00:02 TP0] Only Deepseek V3/R1 can use shared experts fusion optimization. Shared experts fusion optimization is disabled.",
                {"sets": {"n_share_experts_fusion": 0}},
                "sglang 0.4.6 models/deepseek_v2.py",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_breakable_cuda_graph_prefill_off",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Breakable CUDA graph is incompatible with (?P<feature>[^;]{1,200}+); disabling prefill CUDA graph",
        sets={"cuda_graph_backend_prefill": "disabled"},
        level="WARNING",
        releases="0.5.15-",
        description="server_args.py (0.5.14-0.5.18; 0.5.19-: arg_groups/cuda_graph_hook.py): sets "
        "cuda_graph_config['prefill'].backend to 'disabled', the field "
        "--cuda-graph-backend-prefill folds into. First printed by 0.5.14 (MLA attention only).",
        samples=(
            Sample(
                "[22:12:13] Breakable CUDA graph is incompatible with multimodal model; disabling prefill CUDA graph.",
                {"feature": "multimodal model", "sets": {"cuda_graph_backend_prefill": "disabled"}},
                "corpus/055",
            ),
        ),
    ),
    # ================================================================= backend and kernel choices
    MessageSpec(
        name="mm_attention_backend_not_set",
        kind=K.ATTENTION_BACKEND,
        pattern=r"Multimodal attention backend not set\. Use (?P<mm_attention_backend>\w{1,60}+)\.",
        sets={"mm_attention_backend": Ref("mm_attention_backend")},
        releases="0.4.8-",
        description="layers/attention/vision.py: the default SGLang picks for the vision tower "
        "(the mm_attention_backend argument itself stays None in the banner). Also in the later "
        "0.4.6 post-releases (0.4.6.post5).",
        samples=(
            Sample(
                "[2026-04-14 16:08:44 TP1] Multimodal attention backend not set. Use triton_attn.",
                {
                    "mm_attention_backend": "triton_attn",
                    "sets": {"mm_attention_backend": "triton_attn"},
                },
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="mm_attention_backend_using",
        kind=K.LAUNCH_WARNING,
        pattern=r"Using (?P<mm_attention_backend>\w{1,60}+) as multimodal attention backend",
        releases="0.4.8-",
        description="layers/attention/vision.py, printed whether the backend was set or defaulted "
        "(info, not a warning). Also in the later 0.4.6 post-releases (0.4.6.post5).",
        samples=(
            Sample(
                "[2026-04-14 16:08:44 TP1] Using triton_attn as multimodal attention backend.",
                {"mm_attention_backend": "triton_attn"},
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="hybrid_linear_attention_backend",
        kind=K.LAUNCH_WARNING,
        pattern=r"Using hybrid linear attention backend for hybrid GDN models",
        releases="0.5.3-",
        description="layers/attention/attention_registry.py (info); printed for every hybrid "
        "linear-attention model, LFM2 included.",
        samples=(
            Sample(
                "[2025-12-26 23:02:03 DP1 TP1 EP1] Using hybrid linear attention backend for hybrid GDN models.",
                {},
                "corpus/027",
            ),
        ),
    ),
    MessageSpec(
        name="kv_cache_dtype",
        kind=K.LAUNCH_WARNING,
        pattern=r"Using KV cache dtype: (?P<dtype>[\w.]{1,60}+)",
        releases="0.5.3-0.5.12",
        description="model_runner.py (info) of PyPI 0.5.3 to 0.5.12; 0.5.13 and later releases "
        "print the dtype in the 'KV Cache is allocated' line instead.",
        samples=(
            Sample(
                "[2025-11-30 12:50:10] Using KV cache dtype: torch.bfloat16",
                {"dtype": "torch.bfloat16"},
                "corpus/028",
            ),
            Sample(
                "[2026-05-25 17:43:33 TP0] Using KV cache dtype: torch.float8_e4m3fn",
                {"dtype": "torch.float8_e4m3fn"},
                "corpus/069",
            ),
        ),
    ),
    MessageSpec(
        name="flashinfer_cutlass_off_piecewise",
        kind=K.LAUNCH_WARNING,
        pattern=r"CUTLASS backend is disabled when piecewise cuda graph is enabled",
        level="WARNING",
        releases="0.5.6-0.5.13",
        description="layers/attention/flashinfer_backend.py on SM100 (B200) with piecewise CUDA "
        "graph: the FlashInfer prefill FMHA backend falls back to 'auto' (a kernel choice, no "
        "server argument changes). PyPI 0.5.5 to 0.5.13.",
        samples=(
            Sample(
                "[2025-11-30 12:50:10] CUTLASS backend is disabled when piecewise cuda graph is enabled due to TMA descriptor initialization issues on B200. Using auto backend instead for stability.",
                {},
                "corpus/028",
            ),
        ),
    ),
    MessageSpec(
        name="piecewise_cuda_graph_disabled_by_flag",
        kind=K.LAUNCH_WARNING,
        pattern=r"Disable piecewise CUDA graph because --disable-piecewise-cuda-graph is set",
        releases="0.5.10-0.5.13",
        description="model_runner.py (info) of PyPI 0.5.10 to 0.5.13 only: it reports the flag "
        "the user set and changes no argument.",
        samples=(
            Sample(
                "[2026-04-14 16:08:55 TP1] Disable piecewise CUDA graph because --disable-piecewise-cuda-graph is set",
                {},
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="linear_attn_kernel_backend",
        kind=K.LAUNCH_WARNING,
        pattern=r"Linear attention kernel backend: decode=(?P<decode>[^,\s]{1,100}+), prefill=(?P<prefill>[^,\s]{1,100}+)(?!, verify=)",
        releases="0.5.10-0.5.15",
        description="layers/attention/linear/utils.py (info, rank 0): the linear-attention "
        "kernels chosen for decode and prefill. This form is PyPI 0.5.10 to 0.5.16; 0.5.17 and "
        "later add ', verify=...' (linear_attn_kernel_backend_verify).",
        samples=(
            Sample(
                "[2026-04-14 16:08:50 TP0] Linear attention kernel backend: decode=triton, prefill=triton",
                {"decode": "triton", "prefill": "triton"},
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="linear_attn_kernel_backend_verify",
        kind=K.LAUNCH_WARNING,
        pattern=r"Linear attention kernel backend: decode=(?P<decode>[^,\s]{1,100}+), prefill=(?P<prefill>[^,\s]{1,100}+), verify=(?P<verify>[^,\s]{1,100}+)",
        releases="0.5.23-",
        description="layers/attention/linear/utils.py (info, rank 0) of PyPI 0.5.17 and later: "
        "the linear-attention kernels for decode, prefill and speculative verify.",
        samples=(
            Sample(
                "[2026-10-30 12:00:09 TP0] Linear attention kernel backend: decode=triton, prefill=triton, verify=triton",
                {"decode": "triton", "prefill": "triton", "verify": "triton"},
                "sglang 0.5.23 layers/attention/linear/utils.py",
            ),
        ),
    ),
    MessageSpec(
        name="gdn_kernel_dispatcher",
        kind=K.LAUNCH_WARNING,
        pattern=r"GDN kernel dispatcher: decode=(?P<decode>\w{1,100}+), extend=(?P<extend>\w{1,100}+), verify=(?P<verify>\w{1,100}+) packed_decode=(?P<packed_decode>True|False)",
        fields={"packed_decode": "bool"},
        releases="0.5.10-",
        description="layers/attention/linear/gdn_backend.py (info, rank 0): the GDN kernel "
        "classes for decode, extend and verify, and whether packed decode is supported.",
        samples=(
            Sample(
                "[2026-04-14 16:08:50 TP0] GDN kernel dispatcher: decode=TritonGDNKernel, extend=TritonGDNKernel, verify=TritonGDNKernel packed_decode=True",
                {
                    "decode": "TritonGDNKernel",
                    "extend": "TritonGDNKernel",
                    "verify": "TritonGDNKernel",
                    "packed_decode": True,
                },
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="attn_output_gate",
        kind=K.LAUNCH_WARNING,
        pattern=r"using attn output gate!",
        level="WARNING",
        releases="0.5.3-",
        description="models/qwen3_next.py (0.5.9-: also models/qwen3_5.py), a warning_once while "
        "the full-attention layers of a Qwen3-Next / Qwen3.5 model are built with their output "
        "gate (the config default). First printed by PyPI 0.5.2 (not in 0.5.2rc0).",
        samples=(
            Sample(
                "[2026-04-14 16:08:44 TP1] using attn output gate!",
                {},
                "corpus/054",
            ),
        ),
    ),
    # ================================================================= distributed setup
    MessageSpec(
        name="custom_allreduce_failed",
        kind=K.LAUNCH_WARNING,
        pattern=r"Setup Custom allreduce failed with (?P<error>.{1,10000}?)\. To silence this warning, specify --disable-custom-all-reduce explicitly",
        level="WARNING",
        releases="0.4.5-",
        description="distributed/parallel_state.py: the custom all-reduce could not be set up "
        "(e.g. no P2P between the GPUs); SGLang falls back to NCCL. First printed by 0.4.5.",
        samples=(
            Sample(
                "[2026-04-14 16:08:44 TP1] Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.",
                {"error": "CUDART error: peer access is not supported between these two devices"},
                "corpus/054",
            ),
        ),
    ),
    MessageSpec(
        name="allreduce_path_nccl",
        kind=K.LAUNCH_WARNING,
        pattern=r"\[AR\] All-reduce call path: (?P<path>NCCL) \(custom AR disabled\)",
        releases="0.5.9-",
        description="distributed/parallel_state.py (info), ROCm only: custom all-reduce is off "
        "and all-reduce goes through NCCL/RCCL. First printed by 0.5.8.",
        samples=(
            Sample(
                "[2026-05-25 18:03:30 TP0] [AR] All-reduce call path: NCCL (custom AR disabled)",
                {"path": "NCCL"},
                "corpus/065",
            ),
        ),
    ),
    MessageSpec(
        name="nccl_version",
        kind=K.LAUNCH_WARNING,
        pattern=r"sglang is using nccl==(?P<nccl_version>\d{1,4}+\.\d{0,6}+\.\d{0,6}+)",
        releases="0.4.0-",
        description="distributed/device_communicators/pynccl.py (info): the NCCL (RCCL on ROCm) "
        "library the PyNccl communicator loaded, as major.minor.patch. Printed by every rank up "
        "to 0.4.x and by rank 0 only later; 0.3.x used vLLM's communicator, which says "
        "'vLLM is using nccl==' instead.",
        samples=(
            Sample(
                "[2026-04-14 16:08:43 TP0] sglang is using nccl==2.27.5",
                {"nccl_version": "2.27.5"},
                "corpus/054",
            ),
            Sample(
                "[2025-04-17 13:44:52 TP1] sglang is using nccl==2.21.5",
                {"nccl_version": "2.21.5"},
                "corpus/059",
            ),
        ),
    ),
    # ================================================================= environment and model loading
    MessageSpec(
        name="rlimit_nofile_failed",
        kind=K.LAUNCH_WARNING,
        pattern=r"Fail to set RLIMIT_NOFILE: (?P<error>.{1,2000}+)",
        level="WARNING",
        releases="0.2.0-",
        description="utils.py set_ulimit (0.5.3-: utils/common.py): raising the open-files soft "
        "limit to 65535 failed (the hard limit is lower); SGLang goes on with the current "
        "limit. Not in 0.1.18.",
        samples=(
            Sample(
                "[2025-05-19 08:38:37] Fail to set RLIMIT_NOFILE: current limit exceeds maximum limit",
                {"error": "current limit exceeds maximum limit"},
                "corpus/024",
            ),
        ),
    ),
    MessageSpec(
        name="model_import_error_ignored",
        kind=K.LAUNCH_WARNING,
        pattern=r"Ignore import error when loading (?P<module>\w{1,100}+(?:\.\w{1,100}+){0,30}+)(?:\. |: )(?P<error>.{1,10000}+)",
        level="WARNING",
        releases="0.3.3-",
        description="models/registry.py (0.3.3-0.3.6: model_executor/model_runner.py) and "
        "managers/multimodal_processor.py: a model or multimodal-processor module failed to "
        "import (often a transformers too old for it) and is skipped; only that architecture "
        "is unavailable. The registry wrote '{module}. {error}' up to 0.4.10.post2 and "
        "'{module}: {error}' from 0.5.x. Not in 0.3.0.",
        samples=(
            Sample(
                "[2026-04-14 16:08:44 TP1] Ignore import error when loading sglang.srt.models.gemma4_audio: cannot import name 'Gemma4AudioConfig' from 'transformers' (/root/wkspace/sglang/.venv/lib/python3.10/site-packages/transformers/__init__.py)",
                {
                    "module": "sglang.srt.models.gemma4_audio",
                    "error": "cannot import name 'Gemma4AudioConfig' from 'transformers' (/root/wkspace/sglang/.venv/lib/python3.10/site-packages/transformers/__init__.py)",
                },
                "corpus/054",
            ),
            Sample(
                "[2025-12-29 18:33:03 TP0] Ignore import error when loading sglang.srt.models.glmasr: cannot import name 'GlmAsrConfig' from 'transformers' (/home/blazingbhavneek/miniconda3/envs/sglang/lib/python3.11/site-packages/transformers/__init__.py)",
                {"module": "sglang.srt.models.glmasr"},
                "corpus/053",
            ),
            Sample(
                "[2025-03-01 12:00:00 TP0] Ignore import error when loading sglang.srt.models.deepseek_vl2. No module named 'timm'",
                {"module": "sglang.srt.models.deepseek_vl2", "error": "No module named 'timm'"},
                "sglang 0.4.3 models/registry.py",
            ),
        ),
    ),
    MessageSpec(
        name="quantization_not_optimized",
        kind=K.LAUNCH_WARNING,
        pattern=r"(?P<quantization>[\w-]{1,60}+) quantization is not fully optimized yet\. The speed can be slower than non-quantized models",
        level="WARNING",
        releases="0.4.0-",
        description="configs/model_config.py: the quantization method is not among SGLang's "
        "optimized ones (printed by the launcher and again by each scheduler). 0.3.x left this "
        "to vLLM's ModelConfig, which prints the same text under vLLM's own header.",
        samples=(
            Sample(
                "[2026-05-25 18:03:29 TP1] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
                {"quantization": "awq"},
                "corpus/065",
            ),
        ),
    ),
    MessageSpec(
        name="chat_template_content_format",
        kind=K.LAUNCH_WARNING,
        pattern=r"Using default HuggingFace chat template with detected content format: (?P<content_format>\w{1,40}+)",
        releases="0.4.10-",
        description="managers/template_manager.py (0.5.16-: parser/template_manager.py; info): "
        "no --chat-template given, the model's own Jinja template is used and its content "
        "format ('string' or 'openai') detected. First printed by PyPI 0.4.10 (not in "
        "0.4.9.post6).",
        samples=(
            Sample(
                "[2026-04-14 16:08:32] Using default HuggingFace chat template with detected content format: openai",
                {"content_format": "openai"},
                "corpus/054",
            ),
            Sample(
                "[2026-05-25 18:03:26] Using default HuggingFace chat template with detected content format: string",
                {"content_format": "string"},
                "corpus/065",
            ),
        ),
    ),
    MessageSpec(
        name="python_version_below_recommended",
        kind=K.LAUNCH_WARNING,
        pattern=r"Current Python version (?P<python_version>\d{1,2}+\.\d{1,3}+) is below the recommended (?P<recommended_version>\d{1,2}+\.\d{1,3}+) version",
        level="WARNING",
        releases="0.5.3-",
        description="layers/attention/fla/utils.py (0.5.16-: kernels/ops/attention/fla/utils.py), "
        "printed when the FLA kernels (GDN / linear attention models) are imported under "
        "Python older than 3.11. First printed by PyPI 0.5.2 (not in 0.5.2rc0).",
        samples=(
            Sample(
                "[2026-04-14 16:08:50 TP0] Current Python version 3.10 is below the recommended 3.11 version. It is recommended to upgrade to Python 3.11 or higher for the best experience.",
                {"python_version": "3.10", "recommended_version": "3.11"},
                "corpus/054",
            ),
        ),
    ),
]

SPECS += [
    # ================================================================= startup phases
    MessageSpec(
        name="dist_init_begin",
        kind=K.DIST_INIT_BEGIN,
        pattern=r"Init (?P<what>torch distributed|parallel) begin\.",
        releases="0.2.14-",
        samples=(
            Sample(
                "[2026-05-25 18:03:30 TP1] Init torch distributed begin.",
                {"what": "torch distributed"},
                "corpus/065",
            ),
            Sample(
                "[2026-10-30 12:00:05 TP0] Init parallel begin.",
                {"what": "parallel"},
                "sglang 0.5.23 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="dist_init_end",
        kind=K.DIST_INIT_END,
        pattern=r"Init (?P<what>torch distributed|parallel) ends\.(?P<_pairs>.*)",
        pairs={"mem usage": "mem_usage_gib", "elapsed": "elapsed_s"},
        releases="0.2.14-",
        samples=(
            Sample(
                "[2026-05-25 18:03:32 TP0] Init torch distributed ends. elapsed=2.73 s, mem usage=0.30 GB",
                {"what": "torch distributed", "elapsed_s": 2.73, "mem_usage_gib": 0.30},
                "corpus/065",
            ),
            Sample(
                "[2025-12-29 18:33:02 TP0] Init torch distributed ends. mem usage=0.00 GB",
                {"mem_usage_gib": 0.0},
                "corpus/053",
            ),
            Sample(
                "[2026-10-30 12:00:07 TP0] Init parallel ends. elapsed=1.52 s, mem usage=0.41 GB",
                {"what": "parallel", "elapsed_s": 1.52, "mem_usage_gib": 0.41},
                "sglang 0.5.23 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="memory_baseline",
        kind=K.MEMORY_BASELINE,
        pattern=r"Memory baseline taken\.(?P<_pairs>.*)",
        pairs={"mem usage": "mem_usage_gib", "avail mem": "avail_gib"},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:07 TP0] Memory baseline taken. mem usage=0.41 GB",
                {"mem_usage_gib": 0.41},
                "sglang 0.5.23 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="memory_unbalanced",
        kind=K.MEMORY_UNBALANCED,
        pattern=r"The memory capacity is unbalanced\. Some GPUs may be occupied by other processes\.(?P<_pairs>.*)",
        pairs={},
        level="WARNING",
        releases="0.3.6-",
        description="A warning; with SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK set the same text is "
        "raised, and the traceback that carries it is the run's failure.",
        samples=(
            Sample(
                "[2026-02-23 10:00:02 TP1] The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=20.5, local_gpu_memory=44.2, local_gpu_memory * 0.9=39.78",
                {"min_per_gpu_memory": 20.5, "local_gpu_memory": 44.2},
                "sglang 0.5.9 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="load_weight_begin",
        kind=K.LOAD_WEIGHT_BEGIN,
        pattern=rf"Load weight begin\. avail mem=(?P<avail_gib>{GIB}) ?GB",
        fields={"avail_gib": "gib"},
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 18:03:33 TP0] Load weight begin. avail mem=31.42 GB",
                {"avail_gib": 31.42},
                "corpus/065",
            ),
            Sample(
                "2025-02-04 21:21:40 [2025-02-04 05:21:40 TP0] Load weight begin. avail mem=22.76 GB",
                {"avail_gib": 22.76},
                "corpus/037 (docker -t outer timestamp)",
            ),
            Sample(
                "[gpu_id=0] Load weight begin. avail mem=78.12 GB",
                {"avail_gib": 78.12},
                "sglang 0.2.0 model_runner.py",
            ),
            Sample(
                "[gpu=0] Load weight begin. avail mem=78.12 GB",
                {"avail_gib": 78.12},
                "sglang 0.2.9 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="load_weight_end_committed",
        kind=K.LOAD_WEIGHT_END,
        pattern=rf"Load weight end\. Committed real weights after CUDA graph capture in (?P<elapsed_s>{FLOAT}) s \(capture overlap window (?P<overlap_window_s>{FLOAT}) s, startup overlap total (?P<overlap_total_s>{FLOAT}) s\)",
        fields={"elapsed_s": "float", "overlap_window_s": "float", "overlap_total_s": "float"},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:01:10 TP0] Load weight end. Committed real weights after CUDA graph capture in 3.21 s (capture overlap window 12.50 s, startup overlap total 15.71 s)",
                {"elapsed_s": 3.21, "overlap_window_s": 12.5, "overlap_total_s": 15.71},
                "sglang 0.5.23 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="load_weight_end",
        kind=K.LOAD_WEIGHT_END,
        pattern=r"Load weight end\.(?P<_pairs>.*)",
        pairs={
            "avail mem": "avail_gib",
            "mem usage": "mem_usage_gib",
            "elapsed": "elapsed_s",
            "type": "model_class",
        },
        releases="0.1.18-",
        samples=(
            Sample(
                "2025-02-04 21:29:17 [2025-02-04 05:29:17 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=8.37 GB",
                {"model_class": "Qwen2ForCausalLM", "dtype": "torch.bfloat16", "avail_gib": 8.37},
                "corpus/037",
            ),
            Sample(
                "[2025-07-02 07:41:09 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=21.73 GB, mem usage=166.59 GB.",
                {
                    "model_class": "DeepseekV3ForCausalLM",
                    "avail_gib": 21.73,
                    "mem_usage_gib": 166.59,
                },
                "corpus/022",
            ),
            Sample(
                "[2026-05-25 17:43:33 TP0] Load weight end. elapsed=12.03 s, type=Qwen3_5ForConditionalGeneration, quant=awq, bits=4, avail mem=17.00 GB, mem usage=14.49 GB.",
                {
                    "elapsed_s": 12.03,
                    "model_class": "Qwen3_5ForConditionalGeneration",
                    "quant": "awq",
                    "bits": 4,
                    "avail_gib": 17.0,
                    "mem_usage_gib": 14.49,
                },
                "corpus/069",
            ),
            Sample(
                "Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem usage=125.65 GB.",
                {"quant": "fp8", "fmt": "e4m3", "avail_gib": 12.25, "mem_usage_gib": 125.65},
                "corpus/025 (the reporter trimmed the line)",
            ),
        ),
    ),
    MessageSpec(
        name="weight_shards_progress",
        kind=K.WEIGHT_PROGRESS,
        pattern=r"Loading (?P<format>safetensors|pt) checkpoint shards:\s{0,8}+(?P<percent>\d{1,3}+)% Completed \| (?P<done>\d{1,7}+)/(?P<total>\d{1,7}+)",
        fields={"percent": "int", "done": "int", "total": "int"},
        releases="0.3.0-",
        samples=(
            Sample(
                "Loading safetensors checkpoint shards:  50% Completed | 1/2 [04:38<04:38, 278.99s/it]",
                {"format": "safetensors", "percent": 50, "done": 1, "total": 2},
                "corpus/037",
            ),
            Sample(
                "Loading pt checkpoint shards:   0% Completed | 0/1 [00:00<?, ?it/s]",
                {"format": "pt", "percent": 0, "done": 0, "total": 1},
                "corpus/032",
            ),
        ),
    ),
    MessageSpec(
        name="weight_multithread_progress",
        kind=K.WEIGHT_PROGRESS,
        pattern=r"Multi-thread loading shards:\s{0,8}+(?P<percent>\d{1,3}+)% Completed \| (?P<done>\d{1,7}+)/(?P<total>\d{1,7}+)",
        fields={"percent": "int", "done": "int", "total": "int"},
        releases="0.4.10-",
        samples=(
            Sample(
                "Multi-thread loading shards: 100% Completed | 142/142 [00:25<00:00,  5.66it/s]",
                {"percent": 100, "done": 142, "total": 142},
                "corpus/050",
            ),
        ),
    ),
    # ================================================================= memory pools
    MessageSpec(
        name="kv_cache_allocated",
        kind=K.KV_CACHE_ALLOCATED,
        pattern=r"KV Cache (?P<state>is allocated|VA upper bound)\.(?P<_pairs>.*)",
        pairs={"#tokens": "tokens", "K size": "k_gib", "V size": "v_gib", "KV size": "kv_gib"},
        releases="0.4.0-",
        description="'VA upper bound' (0.5.23) when post-capture KV sizing reserves address space first.",
        samples=(
            Sample(
                "2025-02-04 21:29:17 [2025-02-04 05:29:17 TP0] KV Cache is allocated. K size: 2.82 GB, V size: 2.82 GB.",
                {"k_gib": 2.82, "v_gib": 2.82},
                "corpus/037",
            ),
            Sample(
                "[2025-12-29 18:33:03 TP0] KV Cache is allocated. #tokens: 473854, K size: 2.71 GB, V size: 2.71 GB",
                {"tokens": 473854, "k_gib": 2.71, "v_gib": 2.71},
                "corpus/053",
            ),
            Sample(
                "[2026-07-10 22:12:20] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 535124, K size: 16.33 GB, V size: 16.33 GB",
                {"dtype": "torch.bfloat16", "tokens": 535124, "k_gib": 16.33, "v_gib": 16.33},
                "corpus/055",
            ),
            Sample(
                "[2026-02-23 10:00:10 TP0] KV Cache is allocated. #tokens: 1203456, KV size: 78.91 GB",
                {"tokens": 1203456, "kv_gib": 78.91},
                "sglang 0.5.9 memory_pool.py (MLA pool)",
            ),
            Sample(
                "[2026-10-30 12:00:30 TP0] KV Cache VA upper bound. dtype: torch.bfloat16, #tokens: 900000, K size: 20.00 GB, V size: 20.00 GB",
                {"state": "VA upper bound", "tokens": 900000, "k_gib": 20.0},
                "sglang 0.5.23 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="kv_cache_allocated_labelled",
        kind=K.KV_CACHE_ALLOCATED,
        pattern=r"(?P<label>[\w.-]{1,40}+(?: [\w.-]{1,40}+){0,5}) KV Cache (?P<state>is allocated|VA upper bound)\.(?P<_pairs>.*)",
        pairs={"#tokens": "tokens", "K size": "k_gib", "V size": "v_gib", "KV size": "kv_gib"},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:30 TP0] MiniMax MSA-v1 main NVFP4 KV Cache is allocated. dtype: torch.uint8, #tokens: 2000000, K size: 10.50 GB, V size: 10.50 GB",
                {"label": "MiniMax MSA-v1 main NVFP4", "tokens": 2000000, "k_gib": 10.5},
                "sglang 0.5.23 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="kv_cache_post_capture",
        kind=K.KV_CACHE_ALLOCATED,
        pattern=r"Post-capture KV sizing: KV cache allocated\.(?P<_pairs>.*)",
        pairs={"#tokens": "tokens", "KV size": "kv_gib", "avail mem": "avail_gib"},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:01:00 TP0] Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 850000, KV size: 38.91 GB, avail mem=3.20 GB",
                {"dtype": "torch.bfloat16", "tokens": 850000, "kv_gib": 38.91, "avail_gib": 3.2},
                "sglang 0.5.23 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="swa_pool_post_capture",
        kind=K.SWA_POOL,
        pattern=r"Post-capture KV sizing: full_layer_tokens=(?P<full_layer_tokens>\d{1,12}+), swa_layer_tokens=(?P<swa_layer_tokens>\d{1,12}+)",
        fields={"full_layer_tokens": "int", "swa_layer_tokens": "int"},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:01:00 TP0] Post-capture KV sizing: full_layer_tokens=850000, swa_layer_tokens=212500",
                {"full_layer_tokens": 850000, "swa_layer_tokens": 212500},
                "sglang 0.5.23 model_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="mamba_cache_allocated",
        kind=K.MAMBA_CACHE_ALLOCATED,
        pattern=(
            r"Mamba Cache is allocated\.(?: max_mamba_cache_size: (?P<max_mamba_cache_size>\d{1,12}+),)?"
            rf" conv_state size: (?P<conv_gib>{GIB}) ?GB,? ssm_state size: (?P<ssm_gib>{GIB}) ?GB"
            rf"(?:,? intermediate_ssm_state_cache size: (?P<intermediate_ssm_gib>{GIB}) ?GB)?"
            rf"(?:,? intermediate_conv_window_cache size: (?P<intermediate_conv_gib>{GIB}) ?GB)?"
        ),
        fields={
            "max_mamba_cache_size": "int",
            "conv_gib": "gib",
            "ssm_gib": "gib",
            "intermediate_ssm_gib": "gib",
            "intermediate_conv_gib": "gib",
        },
        releases="0.5.3-",
        description="0.5.3 prints no max_mamba_cache_size; the intermediate_* caches appear with "
        "speculative decoding.",
        samples=(
            Sample(
                "[2026-05-25 17:43:33 TP0] Mamba Cache is allocated. max_mamba_cache_size: 40, conv_state size: 0.11GB, ssm_state size: 5.77GB ",
                {"max_mamba_cache_size": 40, "conv_gib": 0.11, "ssm_gib": 5.77},
                "corpus/069",
            ),
            Sample(
                "[2025-10-06 12:00:10 TP0] Mamba Cache is allocated. conv_state size: 0.42GB, ssm_state size: 12.10GB intermediate_ssm_state_cache size: 1.50GB intermediate_conv_window_cache size: 0.05GB ",
                {
                    "conv_gib": 0.42,
                    "ssm_gib": 12.1,
                    "intermediate_ssm_gib": 1.5,
                    "intermediate_conv_gib": 0.05,
                },
                "sglang 0.5.3 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="swa_pool",
        kind=K.SWA_POOL,
        pattern=r"Use [Ss]liding window memory pool\. full_layer_tokens=(?P<full_layer_tokens>\d{1,12}+), swa_layer_tokens=(?P<swa_layer_tokens>\d{1,12}+)",
        fields={"full_layer_tokens": "int", "swa_layer_tokens": "int"},
        releases="0.4.10-",
        samples=(
            Sample(
                "[2025-08-03 10:00:10] Use Sliding window memory pool. full_layer_tokens=262144, swa_layer_tokens=65536",
                {"full_layer_tokens": 262144, "swa_layer_tokens": 65536},
                "sglang 0.4.10 memory_pool.py",
            ),
            Sample(
                "[2026-02-23 10:00:10 TP0] Use sliding window memory pool. full_layer_tokens=500000, swa_layer_tokens=400000",
                {"full_layer_tokens": 500000, "swa_layer_tokens": 400000},
                "sglang 0.5.9 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="swa_pool_all_swa",
        kind=K.SWA_POOL,
        pattern=r"Use sliding window memory pool \(all SWA\)\. swa_layer_tokens=(?P<swa_layer_tokens>\d{1,12}+)",
        fields={"swa_layer_tokens": "int"},
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-02-23 10:00:10 TP0] Use sliding window memory pool (all SWA). swa_layer_tokens=400000",
                {"swa_layer_tokens": 400000},
                "sglang 0.5.9 memory_pool.py",
            ),
        ),
    ),
    MessageSpec(
        name="memory_pool_end",
        kind=K.MEMORY_POOL_END,
        pattern=rf"Memory pool end\. avail mem=(?P<avail_gib>{GIB}) ?GB",
        fields={"avail_gib": "gib"},
        releases="0.2.14-",
        samples=(
            Sample(
                "[2025-12-29 18:33:03 TP0] Memory pool end. avail mem=2.43 GB",
                {"avail_gib": 2.43},
                "corpus/053",
            ),
            Sample(
                "[2025-12-26 10:00:00 DP2 TP2 EP2] Memory pool end. avail mem=34.12 GB",
                {"avail_gib": 34.12},
                "corpus/027",
            ),
        ),
    ),
    MessageSpec(
        name="token_summary",
        kind=K.TOKEN_SUMMARY,
        pattern=r"max_total_num_tokens=(?P<max_total_num_tokens>-?\d{1,12}+)(?P<_pairs>.*)",
        fields={"max_total_num_tokens": "int"},
        pairs={"available_gpu_mem": "available_gpu_gib", "available_cpu_mem": "available_cpu_gib"},
        releases="0.1.18-",
        samples=(
            Sample(
                "2025-02-04 21:29:20 [2025-02-04 05:29:20 TP0] max_total_num_tokens=105531, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=2049, context_len=131072",
                {
                    "max_total_num_tokens": 105531,
                    "chunked_prefill_size": 2048,
                    "max_prefill_tokens": 16384,
                    "max_running_requests": 2049,
                    "context_len": 131072,
                },
                "corpus/037",
            ),
            Sample(
                "[2026-05-25 17:43:38 TP0] max_total_num_tokens=422310, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=13, context_len=262144, available_gpu_mem=4.49 GB",
                {
                    "max_total_num_tokens": 422310,
                    "max_running_requests": 13,
                    "available_gpu_gib": 4.49,
                },
                "corpus/069",
            ),
            Sample(
                "[gpu_id=0] max_total_num_tokens=179626, max_prefill_tokens=65536, context_len=4096",
                {"max_total_num_tokens": 179626, "max_prefill_tokens": 65536, "context_len": 4096},
                "sglang 0.1.18 managers/router/model_rpc.py",
            ),
        ),
    ),
    # ================================================================= CUDA graphs
    MessageSpec(
        name="cuda_graph_batch_sizes",
        kind=K.CUDA_GRAPH_PROGRESS,
        pattern=r"Capture (?P<graph>[\w ]{1,60}?) graph (?:bs (?P<bs>\[[\d, ]{0,100000}+\])|num tokens (?P<num_tokens>\[[\d, ]{0,100000}+\]))",
        fields={"bs": "list", "num_tokens": "list"},
        releases="0.4.6-",
        description="The batch sizes (or piecewise token counts) about to be captured.",
        samples=(
            Sample(
                "[2025-12-29 18:33:03 TP0] Capture cuda graph bs [1, 2, 4, 8]",
                {"graph": "cuda", "bs": [1, 2, 4, 8]},
                "corpus/053",
            ),
            Sample(
                "[2025-11-30 10:00:00] Capture cuda graph num tokens [4, 8, 12, 16]",
                {"graph": "cuda", "num_tokens": [4, 8, 12, 16]},
                "corpus/028 (abridged list)",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_begin_role",
        kind=K.CUDA_GRAPH_BEGIN,
        pattern=r"Capture (?P<graph>(?:target|draft) (?:decode|verify|prefill|extend) CUDA) graph begin\.(?P<_pairs>.*)",
        pairs={"avail mem": "avail_gib"},
        releases="0.5.15-",
        samples=(
            Sample(
                "[2026-07-10 22:12:22] Capture target decode CUDA graph begin. backend=full, num_tokens_per_bs=1, bs=[1, 2, 4, 8], avail mem=21.04 GB",
                {
                    "graph": "target decode CUDA",
                    "backend": "full",
                    "num_tokens_per_bs": 1,
                    "bs": [1, 2, 4, 8],
                    "avail_gib": 21.04,
                },
                "sglang 0.5.15 cuda_graph_runner.py",
            ),
            Sample(
                "[2026-10-30 12:00:50 TP0] Capture draft extend CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=20.04 GB",
                {"graph": "draft extend CUDA", "num_tokens_per_req": 1, "avail_gib": 20.04},
                "sglang 0.5.23 runner_backend_utils",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_end_role",
        kind=K.CUDA_GRAPH_END,
        pattern=r"Capture (?P<graph>(?:target|draft) (?:decode|verify|prefill|extend) CUDA) graph end\.(?P<_pairs>.*)",
        pairs={"avail mem": "avail_gib", "mem usage": "mem_usage_gib", "elapsed": "elapsed_s"},
        releases="0.5.15-",
        samples=(
            Sample(
                "[2026-08-23 22:12:53] Capture target decode CUDA graph end. elapsed=30.54 s, mem usage=1.38 GB, avail mem=19.66 GB.",
                {
                    "graph": "target decode CUDA",
                    "elapsed_s": 30.54,
                    "mem_usage_gib": 1.38,
                    "avail_gib": 19.66,
                },
                "corpus/055",
            ),
            Sample(
                "[2026-10-30 12:01:00 TP0] Capture target decode CUDA graph end. bs=[1, 2, 4], elapsed=12.10 s, mem usage=0.80 GB, avail mem=20.24 GB.",
                {"bs": [1, 2, 4], "elapsed_s": 12.1, "avail_gib": 20.24},
                "sglang 0.5.23 runner_backend_utils",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_begin",
        kind=K.CUDA_GRAPH_BEGIN,
        pattern=r"Capture (?P<graph>[\w ]{1,60}?) graph begin\.(?P<_pairs>.*)",
        pairs={"avail mem": "avail_gib"},
        releases="0.2.0-",
        description="graph: 'cuda', 'cpu', 'npu', 'draft cuda', 'draft extend cuda', 'piecewise "
        "CUDA', or 0.5.15+ 'target decode CUDA', 'draft verify CUDA', 'target prefill CUDA'.",
        samples=(
            Sample(
                "[2024-10-22 06:31:49 TP0] Capture cuda graph begin. This can take up to several minutes.",
                {"graph": "cuda"},
                "corpus/016",
            ),
            Sample(
                "[2025-12-29 18:33:03 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=2.42 GB",
                {"graph": "cuda", "avail_gib": 2.42},
                "corpus/053",
            ),
            Sample(
                "[2026-02-23 10:00:20 TP0] Capture piecewise CUDA graph begin. avail mem=10.20 GB",
                {"graph": "piecewise CUDA", "avail_gib": 10.2},
                "sglang 0.5.9 piecewise_cuda_graph_runner.py",
            ),
            Sample(
                "[2026-02-23 10:00:30 TP0] Capture draft cuda graph begin. This can take up to several minutes. avail mem=9.10 GB",
                {"graph": "draft cuda", "avail_gib": 9.1},
                "sglang 0.5.9 eagle_draft_cuda_graph_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_end",
        kind=K.CUDA_GRAPH_END,
        pattern=r"Capture (?P<graph>[\w ]{1,60}?) graph end\.(?P<_pairs>.*)",
        pairs={
            "avail mem": "avail_gib",
            "mem usage": "mem_usage_gib",
            "Time elapsed": "elapsed_s",
            "elapsed": "elapsed_s",
        },
        releases="0.4.0-",
        samples=(
            Sample(
                "2025-02-04 21:29:19 [2025-02-04 05:29:19 TP0] Capture cuda graph end. Time elapsed: 1.79 s",
                {"graph": "cuda", "elapsed_s": 1.79},
                "corpus/037",
            ),
            Sample(
                "[2025-12-29 18:33:04 TP0] Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB.",
                {"graph": "cuda", "elapsed_s": 1.01, "mem_usage_gib": 0.03, "avail_gib": 2.39},
                "corpus/053",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_failed",
        kind=K.CUDA_GRAPH_FAILED,
        pattern=r"Capture (?P<graph>[\w ]{1,60}?) graph failed: (?P<error>.*)",
        releases="0.3.0-",
        description="Raised as an Exception; when the cause is a CUDA OOM the traceback is "
        "classified as cuda_oom instead.",
        samples=(
            Sample(
                "Capture cuda graph failed: Triton Error [CUDA]: an illegal memory access was encountered",
                {
                    "graph": "cuda",
                    "error": "Triton Error [CUDA]: an illegal memory access was encountered",
                },
                "sglang 0.5.9 cuda_graph_runner.py",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_progress",
        kind=K.CUDA_GRAPH_PROGRESS,
        pattern=rf"Capturing batches \(bs=(?P<bs>\d{{1,7}}+) avail_mem=(?P<avail_gib>{GIB}) ?GB\)",
        fields={"bs": "int", "avail_gib": "gib"},
        releases="0.4.6-",
        samples=(
            Sample(
                "Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4 [00:00<00:00,  7.80it/",
                {"bs": 1, "avail_gib": 2.39},
                "corpus/053",
            ),
            Sample(
                "Capturing batches (bs=24 avail_mem=4.00 GB):   0%|          | 0/7 [00:00<?, ?it/s]\rCapturing batches (bs=16 avail_mem=3.93 GB):  14%|█▍        | 1/7 [00:02<00:17,  2.96s/it]",
                {"bs": 16, "avail_gib": 3.93},
                "corpus/054 (two tqdm redraws on one line; the last one counts)",
            ),
        ),
    ),
    MessageSpec(
        name="piecewise_cuda_graph_progress",
        kind=K.CUDA_GRAPH_PROGRESS,
        pattern=rf"Capturing num tokens \(num_tokens=(?P<num_tokens>\d{{1,9}}+) avail_mem=(?P<avail_gib>{GIB}) ?GB\)",
        fields={"num_tokens": "int", "avail_gib": "gib"},
        releases="0.5.3-",  # 0.5.3.post2-0.5.20 in the wheels; the catalog knows coarser bounds
        description="The piecewise CUDA graph runner's capture bar (one graph per token count), "
        "read from piecewise_cuda_graph_runner.py of every release that has it (issue 28).",
        samples=(
            Sample(
                "Capturing num tokens (num_tokens=4 avail_mem=76.40 GB):  95%|█████████▍| 55/58 [00:02<00:00, 47.26it/s]Capturing num tokens (num_tokens=4 avail_mem=76.40 GB): 100%|██████████| 58/58 [00:02<00:00, 24.32it/s]",
                {"num_tokens": 4, "avail_gib": 76.40},
                "fixtures/engine/offline_engine_api.log (SGLang's docs build, two redraws joined)",
            ),
        ),
    ),
    # ================================================================= ready
    MessageSpec(
        name="engine_startup_timings",
        kind=K.STARTUP_TIMINGS,
        pattern=r"Engine startup timings \(s\):(?P<_pairs>.*)",
        pairs={},
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:01:05] Engine startup timings (s): load_weight=12.31, kv_cache_allocation=0.84, scheduler_e2e=41.20, cuda_graph={decode=20.10}, tokenizer_e2e=3.02",
                {
                    "load_weight": 12.31,
                    "kv_cache_allocation": 0.84,
                    "scheduler_e2e": 41.2,
                    "tokenizer_e2e": 3.02,
                },
                "sglang 0.5.23 engine.py",
            ),
        ),
    ),
    MessageSpec(
        name="uvicorn_started",
        kind=K.UVICORN_STARTED,
        pattern=r"Started server process \[(?P<pid>\d{1,10}+)\]",
        fields={"pid": "int"},
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 17:43:39] INFO:     Started server process [25892]",
                {"pid": 25892},
                "corpus/069",
            ),
        ),
    ),
    MessageSpec(
        name="uvicorn_waiting_startup",
        kind=K.UVICORN_STARTED,
        pattern=r"Waiting for application startup\.",
        releases="0.1.18-",
        description="uvicorn's lifespan/on.py (uvicorn 0.54, the same text in older uvicorn): "
        "right after 'Started server process', while the app's startup handlers run; the "
        "server is not listening yet.",
        samples=(
            Sample(
                "2025-02-04 21:29:20 [2025-02-04 05:29:20] INFO:     Waiting for application startup.",
                {},
                "corpus/037 (docker -t outer timestamp)",
            ),
            Sample(
                "[2026-05-25 17:43:39] INFO:     Waiting for application startup.", {}, "corpus/069"
            ),
        ),
    ),
    MessageSpec(
        name="uvicorn_startup_complete",
        kind=K.UVICORN_STARTED,
        pattern=r"Application startup complete\.",
        releases="0.1.18-",
        description="uvicorn's lifespan/on.py (uvicorn 0.54): the app's startup handlers are done. "
        "Still before the socket is bound ('Uvicorn running on' follows, or a bind error when "
        "the port is taken), so it is a uvicorn_started line, not uvicorn_running.",
        samples=(
            Sample(
                "2025-02-04 21:29:20 [2025-02-04 05:29:20] INFO:     Application startup complete.",
                {},
                "corpus/037 (docker -t outer timestamp)",
            ),
            Sample(
                "[2026-05-25 17:43:39] INFO:     Application startup complete.", {}, "corpus/069"
            ),
        ),
    ),
    MessageSpec(
        name="uvicorn_running",
        kind=K.UVICORN_RUNNING,
        pattern=r"Uvicorn running on (?P<url>[^\s()]{1,300}+)(?: with (?P<workers>\d{1,4}+) SO_REUSEPORT workers)?",
        fields={"workers": "int"},
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 17:43:39] INFO:     Uvicorn running on http://127.0.0.1:23334 (Press CTRL+C to quit)",
                {"url": "http://127.0.0.1:23334"},
                "corpus/069",
            ),
            Sample(
                "[2026-10-30 12:01:06] Uvicorn running on 0.0.0.0:30000 with 4 SO_REUSEPORT workers",
                {"url": "0.0.0.0:30000", "workers": 4},
                "sglang 0.5.23 http_server.py",
            ),
        ),
    ),
    MessageSpec(
        name="server_ready",
        kind=K.SERVER_READY,
        pattern=r"The server is fired up and ready to roll!",
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 17:43:44] The server is fired up and ready to roll!", {}, "corpus/069"
            ),
        ),
    ),
]

SPECS += [
    # ================================================================= serving
    MessageSpec(
        name="prefill_batch",
        kind=K.PREFILL_BATCH,
        pattern=r"Prefill batch(?:\(mixed #running-req: (?P<mixed_running_req>\d{1,9}+)\))?+(?: \[(?P<iter>\d{1,12}+)\])?+[.,](?P<_pairs>.*)",
        fields={"mixed_running_req": "int", "iter": "int"},
        pairs={
            "#new-seq": "new_seq",
            "#new-token": "new_token",
            "#cached-token": "cached_token",
            "#running-req": "running_req",
            "#queue-req": "queue_req",
            "input throughput (token/s)": "input_throughput",
        },
        bulk=True,
        releases="0.1.18-",
        description="'Prefill batch.' up to 0.5.3, 'Prefill batch,' from 0.5.6; usage is 'token "
        "usage', or 'full token usage' + 'swa token usage' (SWA) / 'mamba usage' (hybrid).",
        samples=(
            Sample(
                "2025-02-04 21:29:21 [2025-02-04 05:29:21 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0",
                {
                    "new_seq": 1,
                    "new_token": 7,
                    "cached_token": 0,
                    "cache_hit_rate": 0.0,
                    "token_usage": 0.0,
                    "running_req": 0,
                    "queue_req": 0,
                },
                "corpus/037",
            ),
            Sample(
                "[2026-05-25 17:43:42 TP0] Prefill batch, #new-seq: 1, #new-token: 80, #cached-token: 0, full token usage: 0.00, mamba usage: 0.05, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 2.77",
                {
                    "new_token": 80,
                    "full_token_usage": 0.0,
                    "mamba_usage": 0.05,
                    "pending_token": 0,
                    "cuda_graph": False,
                    "input_throughput": 2.77,
                },
                "corpus/069",
            ),
            Sample(
                "[2025-08-03 10:00:22] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, full token usage: 0.00, swa token usage: 0.00, #running-req: 0, #queue-req: 0, ",
                {"full_token_usage": 0.0, "swa_token_usage": 0.0, "queue_req": 0},
                "sglang 0.4.10 scheduler.py (hybrid SWA)",
            ),
            Sample(
                "[2024-08-26 10:00:22 TP0] Prefill batch(mixed #running-req: 3). #new-seq: 1, #new-token: 64, #cached-token: 0, cache hit rate: 0.00%, #running-req: 3, #queue-req: 0",
                {"mixed_running_req": 3, "new_token": 64, "running_req": 3},
                "sglang 0.2.14 scheduler (mixed chunk)",
            ),
            Sample(
                "[2026-02-23 10:00:25 TP0] Prefill batch [1234], #new-seq: 2, #new-token: 512, #cached-token: 128, token usage: 0.01, #running-req: 4, #queue-req: 0, input throughput (token/s): 8123.45, cuda graph: False",
                {"iter": 1234, "new_seq": 2, "cached_token": 128, "input_throughput": 8123.45},
                "sglang 0.5.9 scheduler_metrics_mixin.py (SGLANG_LOG_FORWARD_ITERS)",
            ),
        ),
    ),
    MessageSpec(
        name="decode_batch",
        kind=K.DECODE_BATCH,
        pattern=r"Decode batch(?: \[(?P<iter>\d{1,12}+)\])?+[.,](?P<_pairs>.*)",
        fields={"iter": "int"},
        pairs={
            "#running-req": "running_req",
            "#token": "token",
            "#queue-req": "queue_req",
            "gen throughput (token/s)": "gen_throughput",
            "#full token": "full_token",
            "#swa token": "swa_token",
            "mamba num": "mamba_num",
        },
        bulk=True,
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 17:43:55 TP0] Decode batch, #running-req: 1, #full token: 89, full token usage: 0.00, mamba num: 2, mamba usage: 0.05, cuda graph: False, gen throughput (token/s): 0.97, #queue-req: 0",
                {
                    "running_req": 1,
                    "full_token": 89,
                    "full_token_usage": 0.0,
                    "mamba_num": 2,
                    "mamba_usage": 0.05,
                    "cuda_graph": False,
                    "gen_throughput": 0.97,
                    "queue_req": 0,
                },
                "corpus/069",
            ),
            Sample(
                "[2025-08-03 10:00:25] Decode batch. #running-req: 1, #token: 47, token usage: 0.00, cuda graph: True, gen throughput (token/s): 94.12, #queue-req: 0, ",
                {
                    "running_req": 1,
                    "token": 47,
                    "token_usage": 0.0,
                    "cuda_graph": True,
                    "gen_throughput": 94.12,
                },
                "sglang 0.4.10 scheduler.py",
            ),
            Sample(
                "[2026-02-23 10:00:25 TP0] Decode batch, #running-req: 32, #token: 9120, token usage: 0.04, accept len: 2.71, accept rate: 0.57, cuda graph: True, gen throughput (token/s): 2450.10, #queue-req: 0",
                {"running_req": 32, "token": 9120, "accept_len": 2.71, "accept_rate": 0.57},
                "sglang 0.5.9 scheduler_metrics_mixin.py",
            ),
            Sample(
                "[2025-08-03 10:00:25] Decode batch. #running-req: 3, #full token: 900, full token usage: 0.01, #swa token: 300, swa token usage: 0.02, cuda graph: True, gen throughput (token/s): 50.00, #queue-req: 0, ",
                {"full_token": 900, "swa_token": 300, "swa_token_usage": 0.02},
                "sglang 0.4.10 scheduler.py (hybrid SWA)",
            ),
        ),
    ),
    MessageSpec(
        name="http_access",
        kind=K.HTTP_ACCESS,
        pattern=r'(?P<client>[\w.:\[\]%-]{1,100}+) - "(?P<method>[A-Z]{1,10}+) (?P<path>\S{1,4096}+) HTTP/(?P<http>[\d.]{1,5}+)" (?P<status>\d{3})',
        fields={"status": "int"},
        bulk=True,
        releases="0.1.18-",
        samples=(
            Sample(
                '2025-02-04 21:29:21 [2025-02-04 05:29:21] INFO:     127.0.0.1:35342 - "GET /get_model_info HTTP/1.1" 200 OK',
                {
                    "client": "127.0.0.1:35342",
                    "method": "GET",
                    "path": "/get_model_info",
                    "status": 200,
                },
                "corpus/037",
            ),
            Sample(
                ' [2026-06-15 13:26:40] INFO:     2001:1aef:159:5faa:b5a2:71ad:725f:ac6b:0 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                {
                    "client": "2001:1aef:159:5faa:b5a2:71ad:725f:ac6b:0",
                    "method": "POST",
                    "status": 200,
                },
                "corpus/018 (pasted with a leading space)",
            ),
        ),
    ),
    MessageSpec(
        name="kv_retract",
        kind=K.KV_RETRACT,
        pattern=r"KV cache pool is full\. Retract requests\.(?P<_pairs>.*)",
        pairs={"#retracted_reqs": "retracted_reqs", "#new_token_ratio": "new_token_ratio"},
        releases="0.4.8-",
        samples=(
            Sample(
                "[2026-02-23 11:00:00 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_tokens_gained: 2048, #new_token_ratio: 0.7000 -> 0.5000",
                {
                    "retracted_reqs": 3,
                    "new_tokens_gained": 2048,
                    "new_token_ratio": "0.7000 -> 0.5000",
                },
                "sglang 0.5.9 scheduler.py",
            ),
        ),
    ),
    MessageSpec(
        name="kv_retract_decode_oom",
        kind=K.KV_RETRACT,
        pattern=r"Decode out of memory happened\.(?P<_pairs>.*)",
        pairs={"#retracted_reqs": "retracted_reqs", "#new_token_ratio": "new_token_ratio"},
        releases="0.3.0-0.4.6",
        samples=(
            Sample(
                "[2025-04-27 11:00:00 TP0] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.4000 -> 0.6000",
                {"retracted_reqs": 1},
                "sglang 0.4.6 scheduler.py",
            ),
        ),
    ),
    MessageSpec(
        name="kv_retract_aborted",
        kind=K.KV_RETRACT,
        pattern=r"retract_decode: aborted last request (?P<rid>\S{1,200}+) due to OOM",
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-02-23 11:00:00 TP0] retract_decode: aborted last request 5f1c2d due to OOM",
                {"rid": "5f1c2d"},
                "sglang 0.5.9 schedule_batch.py",
            ),
        ),
    ),
    MessageSpec(
        name="prefill_out_of_memory_legacy",
        kind=K.SCHEDULER_DEAD,
        pattern=r"Prefill out of memory\. This should ne(?:ve|rve)r happen",
        level="ERROR",
        releases="-0.2.9",
        description="The token pool could not fit a prefill (KV accounting, not a CUDA OOM); the "
        "router (0.1.x) or scheduler (0.2.x) dumps its radix tree and calls exit() right after "
        "(0.1.14 router/infer_batch.py:237, 0.2.9 schedule_batch.py:387): the run is dead.",
        samples=(
            Sample("Prefill out of memory. This should nerver happen.", {}, "corpus/041"),
            Sample(
                "[2024-08-20 10:00:00 TP0] Prefill out of memory. This should never happen.",
                {},
                "sglang 0.2.9 schedule_batch.py:387",
            ),
        ),
    ),
    MessageSpec(
        name="decode_out_of_memory_legacy",
        kind=K.SCHEDULER_DEAD,
        pattern=r"Decode out of memory\. This should ne(?:ve|rve)r happen",
        level="ERROR",
        releases="-0.2.9",
        description="As prefill_out_of_memory_legacy for a decode step: the radix tree dump, then "
        "exit() (0.1.14 router/infer_batch.py:394, 0.2.9 schedule_batch.py:640).",
        samples=(
            Sample(
                "Decode out of memory. This should nerver happen.",
                {},
                "sglang 0.1.14 router/infer_batch.py:394",
            ),
        ),
    ),
    MessageSpec(
        name="watchdog_timeout",
        kind=K.WATCHDOG_TIMEOUT,
        pattern=rf"Watchdog timeout \(self\.watchdog_timeout=(?P<watchdog_timeout>{FLOAT})\)",
        fields={"watchdog_timeout": "float"},
        level="ERROR",
        releases="0.3.0-0.5.6",
        samples=(
            Sample(
                "[2025-10-06 13:00:00 TP0] Watchdog timeout (self.watchdog_timeout=300)",
                {"watchdog_timeout": 300.0},
                "sglang 0.5.3 scheduler.py",
            ),
        ),
    ),
    MessageSpec(
        name="watchdog_timeout_named",
        kind=K.WATCHDOG_TIMEOUT,
        pattern=rf"(?P<process>\w{{1,60}}+) watchdog timeout \(self\.watchdog_timeout=(?P<watchdog_timeout>{FLOAT}), self\.soft=(?P<soft>\w{{1,10}}+)\)",
        fields={"watchdog_timeout": "float", "soft": "bool"},
        level="ERROR",
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-02-23 13:00:00 TP0] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
                {"process": "Scheduler", "watchdog_timeout": 300.0, "soft": False},
                "sglang 0.5.9 watchdog.py",
            ),
        ),
    ),
    MessageSpec(
        name="warmup_failed",
        kind=K.WARMUP_FAILED,
        pattern=r"Initialization failed\. warmup error: ?(?P<first>.*)",
        block="traceback",
        level="ERROR",
        releases="0.3.0-",
        samples=(
            Sample(
                "[2026-02-23 10:01:00] Initialization failed. warmup error: Traceback (most recent call last):",
                {},
                "sglang 0.5.9 http_server.py",
            ),
        ),
    ),
    MessageSpec(
        name="sigterm_received",
        kind=K.SHUTDOWN,
        pattern=r"SIGTERM received\.(?P<_pairs>.*)",
        pairs={},
        releases="0.3.6-",
        description="SGLang's SIGTERM handler (from 0.3.5 per the wheels; the message index "
        "names each release): the start of a requested stop.",
        samples=(
            Sample(
                "[2026-02-23 12:00:00] SIGTERM received. signum=None frame=None. Draining requests and shutting down...",
                {},
                "sglang 0.5.9 tokenizer_manager.py",
            ),
        ),
    ),
    MessageSpec(
        name="graceful_exit",
        kind=K.SHUTDOWN,
        pattern=r"Gracefully exiting\.\.\. Remaining number of requests (?P<remaining>\d{1,9}+)",
        fields={"remaining": "int"},
        releases="0.4.6-",
        samples=(
            Sample(
                "[2026-02-23 12:00:01] Gracefully exiting... Remaining number of requests 0. Remaining requests remaining_rids=[].",
                {"remaining": 0},
                "sglang 0.5.9 tokenizer_manager.py",
            ),
        ),
    ),
    # ================================================================= offline entry points
    MessageSpec(
        name="bench_one_batch_total",
        kind=K.BENCH_RESULT,
        pattern=rf"Total\. latency: {{0,12}}+(?P<latency_s>{FLOAT}) s, throughput: {{0,12}}+(?P<throughput>{FLOAT}) token/s",
        fields={"latency_s": "float", "throughput": "float"},
        releases="0.1.18-",
        description="The last line of a bench_latency / bench_one_batch pass (printed after the "
        "warm-up and again after the benchmark): the offline entry point ran to its end.",
        samples=(
            Sample(
                "Total. latency:  5.225 s, throughput:   2351.56 token/s",
                {"latency_s": 5.225, "throughput": 2351.56},
                "corpus/053 (bench_one_batch, 0.5.6.post2 checkout)",
            ),
        ),
    ),
    MessageSpec(
        name="bench_offline_throughput_result",
        kind=K.BENCH_RESULT,
        pattern=r"={3,60}+ Offline Throughput Benchmark Result ={3,60}+",
        releases="0.3.6-",
        description="bench_offline_throughput's result table header: the benchmark finished.",
        samples=(
            Sample(
                "=============== Offline Throughput Benchmark Result ===============",
                {},
                "sglang 0.5.6 bench_offline_throughput.py ('{s:{c}^{n}}', n=50, c='=')",
            ),
        ),
    ),
    # ================================================================= failures: memory
    MessageSpec(
        name="not_enough_memory",
        kind=K.NOT_ENOUGH_MEMORY,
        pattern=rf"Not enough memory\. Please try to increase --mem-fraction-static\.(?: Current value: (?:[\w.]{{0,60}}mem_fraction_static=)?(?P<mem_fraction_static>{FLOAT}))?",
        fields={"mem_fraction_static": "float"},
        level="ERROR",
        releases="0.1.18-",
        description="RuntimeError raised in the scheduler when the KV pool gets <= 0 tokens; "
        "0.5.3-0.5.9 print the effective mem_fraction_static.",
        samples=(
            Sample(
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85",
                {"mem_fraction_static": 0.85, "exc_type": "RuntimeError"},
                "sglang 0.5.9 model_runner_kv_cache_mixin.py",
            ),
            Sample(
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: 0.82",
                {"mem_fraction_static": 0.82},
                "corpus/071",
            ),
            Sample(
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
                {"exc_type": "RuntimeError"},
                "sglang 0.4.6 model_runner.py",
            ),
            Sample(
                "Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.9",
                {"mem_fraction_static": 0.9},
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="weights_leave_no_memory",
        kind=K.WEIGHTS_LEAVE_NO_MEMORY,
        pattern=rf"Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=(?P<mem_fraction_static>{FLOAT})\.(?: Raise --mem-fraction-static above (?P<minimum>{FLOAT}))?",
        fields={"mem_fraction_static": "float", "minimum": "float"},
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.8. Raise --mem-fraction-static above 0.912 (minimum viable = 1 - available/pre = 0.9118). If using speculative decoding, draft weights are now counted.",
                {"mem_fraction_static": 0.8, "minimum": 0.912, "exc_type": "ValueError"},
                "sglang 0.5.15 pool_configurator.py",
            ),
            Sample(
                "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88.",
                {"mem_fraction_static": 0.88},
                "corpus/025 (line cut by the reporter)",
            ),
        ),
    ),
    MessageSpec(
        name="mamba_state_too_small",
        kind=K.MAMBA_STATE_TOO_SMALL,
        pattern=(
            r"Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache\."
            r"(?: Computed max_mamba_cache_size=(?P<max_mamba_cache_size>-?\d{1,12}+)"
            rf" \(total_rest_memory=(?P<total_rest_gib>{GIB}) ?GB,"
            rf" mamba_cache_per_req=(?P<mamba_cache_per_req_mib>{GIB}) ?MB\))?"
        ),
        fields={
            "max_mamba_cache_size": "int",
            "total_rest_gib": "gib",
            "mamba_cache_per_req_mib": "mib",
        },
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=0 (total_rest_memory=1.20 GB, mamba_cache_per_req=150.00 MB). Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, (3) reduce --speculative-num-draft-tokens, or (4) use GPUs with more memory.",
                {
                    "max_mamba_cache_size": 0,
                    "total_rest_gib": 1.2,
                    "mamba_cache_per_req_mib": 150.0,
                },
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="mamba_state_no_requests",
        kind=K.MAMBA_STATE_TOO_SMALL,
        pattern=r"Hybrid \(mamba/linear-attention\) state cache is too small to serve any requests\.(?P<_pairs>.*)",
        pairs={"max_mamba_cache_size": "max_mamba_cache_size"},
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any requests. max_mamba_cache_size=1, mamba_ratio=2, resulting max_num_reqs=0. Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, or (3) use GPUs with more memory.",
                {"max_mamba_cache_size": 1, "mamba_ratio": 2, "resulting_max_num_reqs": 0},
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="swa_pool_cap_no_room",
        kind=K.NOT_ENOUGH_MEMORY,
        pattern=rf"(?:The DSV4 )?SWA pool cap \((?P<swa_tokens>\d{{1,12}}+) tokens, (?P<swa_gib>{GIB}) GiB\) leaves no room for the full KV pool within the available (?P<available_gib>{GIB}) GiB",
        fields={"swa_tokens": "int", "swa_gib": "gib", "available_gib": "gib"},
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "ValueError: SWA pool cap (65536 tokens, 3.00 GiB) leaves no room for the full KV pool within the available 2.50 GiB. Reduce --max-running-requests, lower SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static.",
                {"swa_tokens": 65536, "swa_gib": 3.0, "available_gib": 2.5},
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="unified_pool_no_room",
        kind=K.NOT_ENOUGH_MEMORY,
        pattern=r"\[unified-memory-pool\] (?P<factory>[^:]{1,200}+): byte budget (?P<budget>\d{1,20}+) cannot fit ONE worst-case request",
        fields={"budget": "int"},
        level="ERROR",
        releases="0.5.23-",
        samples=(
            Sample(
                "RuntimeError: [unified-memory-pool] HybridPoolFactory: byte budget 1073741824 cannot fit ONE worst-case request (bs=1 floor 2147483648 = 1 x 262144 tokens x 8192 B). A pool this size retract-livelocks at runtime. Raise --mem-fraction-static, lower the model context length, or reduce reserved memory.",
                {"factory": "HybridPoolFactory", "budget": 1073741824},
                "sglang 0.5.23 mem_cache/kv_cache_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_oom",
        kind=K.CUDA_OOM,
        pattern=(
            # issue 28: the device word may say 'error:' (the runtime's own OOM code through
            # C10_CUDA_CHECK, no figures) or be MPS's 'backend' (aten/src/ATen/mps/MPSAllocator.mm)
            r"(?:(?P<device>CUDA|HIP|NPU|XPU|MUSA) (?P<_code>error: )?|(?P<device__2>MPS) backend )?"
            r"[Oo]ut of memory(?:"
            rf"\. (?:NPUWorkspaceAllocator t|T)ried to allocate (?P<tried>{SIZE})"
            r"(?:\. GPU (?P<gpu>\d{1,4}+)"
            rf"(?: has a total capac(?:i?ty) of (?P<capacity>{SIZE})(?: of\s{{1,80}}+which (?P<free>{SIZE}) is free\.)?"
            rf"| \.\.\. (?P<free__2>{SIZE}) is free\.)?"
            rf"(?: Including non-PyTorch memory, this process has (?P<process_usage>{SIZE}) memory in use\.)?"
            rf"| \((?:GPU|NPU) (?P<gpu__2>\d{{1,4}}+); (?P<capacity__2>{SIZE}) total capacity;"
            rf"(?:[^)]{{0,200}}? (?P<free__3>{SIZE}) free[;)])?)?"
            # ... the runtime's code, or the allocator text cut after its first sentence (the
            # figures on lines of their own): a device word is needed ...
            r"|(?:" + _OOM_WORDS_BEHIND + r")\.?\s{0,8}+$"
            # ... and MPS's figures
            rf"|(?<=MPS backend out of memory) \(MPS allocated: (?P<allocated>{SIZE})"
            rf"(?:, other allocations: (?P<other>{SIZE}))?, max allowed: (?P<capacity__3>{SIZE})\)"
            rf"(?:\. Tried to allocate (?P<tried__2>{SIZE}))?)"
        ),
        fields={"gpu": "int"},
        anywhere=True,
        level="ERROR",
        releases="all",
        description="PyTorch's allocator text, wherever it appears (a scheduler traceback, 'Capture "
        "cuda graph failed: ...', a fork's own wrapper). Old torch spelled 'capacty'; NPU/old torch "
        "use the '(GPU 0; X total capacity; ...)' form; torch_npu's workspace allocator says "
        "'NPUWorkspaceAllocator tried to allocate' (libtorch_npu.so 2.8.0 and 2.10.0).",
        samples=(
            Sample(
                "sglang-1  | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 23.52 GiB of which 13.00 MiB is free. Including non-PyTorch memory, this process has 23.48 GiB memory in use. Of the allocated memory 22.67 GiB is allocated by PyTorch, and 350.53 MiB is reserved by PyTorch but unallocated.",
                {
                    "device": "CUDA",
                    "tried": "32.00 MiB",
                    "gpu": 0,
                    "capacity": "23.52 GiB",
                    "free": "13.00 MiB",
                    "process_usage": "23.48 GiB",
                },
                "corpus/051",
            ),
            Sample(
                "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacty of 21.96 GiB of which 165.06 MiB is free. Including non-PyTorch memory, this process has 21.79 GiB memory in use.",
                {"tried": "224.00 MiB", "capacity": "21.96 GiB", "free": "165.06 MiB"},
                "torch 2.1 CUDACachingAllocator.cpp ('capacty' typo)",
            ),
            Sample(
                "RuntimeError: NPU out of memory. Tried to allocate 98.71 GiB (NPU 0; 60.96 GiB total capacity; 25.03 GiB already allocated; 25.03 GiB current active; 35.47 GiB free; 25.08 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
                {
                    "device": "NPU",
                    "tried": "98.71 GiB",
                    "gpu": 0,
                    "capacity": "60.96 GiB",
                    "free": "35.47 GiB",
                },
                "corpus/009",
            ),
            Sample(
                "RuntimeError: NPU out of memory. NPUWorkspaceAllocator tried to allocate 2.00 GiB (NPU 3; 60.96 GiB total capacity; 1.12 GiB free). If you want to reduce memory usage, take a try to set the environment variable TASK_QUEUE_ENABLE=1.",
                {
                    "device": "NPU",
                    "tried": "2.00 GiB",
                    "gpu": 3,
                    "capacity": "60.96 GiB",
                    "free": "1.12 GiB",
                },
                "torch_npu 2.10.0 libtorch_npu.so: a synthetic line assembled from its "
                "NPUWorkspaceAllocator text pieces (no real log with this wording found)",
            ),
            Sample(
                "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 384.00 MiB. GPU 1 has a total capacity of 31.86 GiB of which 124.00 MiB is free. Of the allocated memory 31.30 GiB is allocated by PyTorch.",
                {"device": "HIP", "gpu": 1, "free": "124.00 MiB"},
                "torch ROCm build (HIP variant of the allocator text)",
            ),
            Sample(
                "tvm.error.InternalError: CUDA out of memory. Tried to allocate 73.65 GiB. GPU 1 ... 50.40 GiB is free.",
                {"tried": "73.65 GiB", "gpu": 1, "free": "50.40 GiB"},
                "corpus/040 (abridged by the reporter)",
            ),
            Sample(
                "RuntimeError: CUDA error: out of memory",
                {"device": "CUDA"},
                "fixtures/failures/cuda_error_oom.log",
            ),
            Sample(
                "Exception: Capture cuda graph failed: CUDA out of memory.",
                {"device": "CUDA"},
                "fixtures/failures/cuda_graph_oom_wrapped.log",
            ),
            Sample(
                "## RuntimeError: MPS backend out of memory (MPS allocated: 17.36 GB, other allocations: 613.56 MB, max allowed: 18.13 GB). Tried to allocate 192.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure).",
                {
                    "device": "MPS",
                    "allocated": "17.36 GB",
                    "capacity": "18.13 GB",
                    "tried": "192.00 MB",
                },
                "fixtures/failures/mps_oom.log",
            ),
            Sample(
                "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 192.00 MiB.",
                {"device": "XPU", "tried": "192.00 MiB"},
                "fixtures/failures/xpu_oom.log",
            ),
        ),
    ),
    # ================================================================= failures: processes
    MessageSpec(
        name="process_exception",
        kind=K.SCHEDULER_EXCEPTION,
        pattern=r"(?P<process>\w{1,60}+) hit an exception: ?(?P<first>.*)",
        block="traceback",
        level="ERROR",
        releases="0.4.0-",
        description="Scheduler, DetokenizerManager, DataParallelController, TokenizerManager, "
        "TpModelWorkerClient, MultiTokenizerRouter, MultiDetokenizerRouter, GrpcRequestManager.",
        samples=(
            Sample(
                "[2026-05-25 18:03:34 TP1] Scheduler hit an exception: Traceback (most recent call last):",
                {"process": "Scheduler"},
                "corpus/065",
            ),
            Sample(
                "[2025-08-13 10:59:23 DP0 TP0] TpModelWorkerClient hit an exception: Traceback (most recent call last):",
                {"process": "TpModelWorkerClient"},
                "corpus/039",
            ),
            Sample(
                "[2026-02-23 10:05:00] DetokenizerManager hit an exception: Traceback (most recent call last):",
                {"process": "DetokenizerManager"},
                "sglang 0.5.9 detokenizer_manager.py",
            ),
        ),
    ),
    MessageSpec(
        name="process_exception_legacy",
        kind=K.SCHEDULER_EXCEPTION,
        pattern=r"Exception in (?P<process>\w{1,60}+):$",
        block="traceback",
        level="ERROR",
        releases="-0.2.14",
        description="0.1-0.2 router/controller processes announce the traceback on the next line.",
        samples=(
            Sample("Exception in ModelRpcClient:", {"process": "ModelRpcClient"}, "corpus/023"),
            Sample("Exception in ControllerSingle:", {"process": "ControllerSingle"}, "corpus/049"),
        ),
    ),
    MessageSpec(
        name="router_init_exception",
        kind=K.SCHEDULER_EXCEPTION,
        pattern=r"(?P<process>router|detokenizer) init state: (?P<first>Traceback \(most recent call last\):)",
        block="traceback",
        level="ERROR",
        releases="-0.2.0",
        samples=(
            Sample(
                "router init state: Traceback (most recent call last):",
                {"process": "router"},
                "corpus/010",
            ),
        ),
    ),
    MessageSpec(
        name="traceback",
        kind=K.EXCEPTION,
        pattern=r"Traceback \(most recent call last\):",
        block="traceback",
        releases="all",
        samples=(
            Sample("Traceback (most recent call last):", {}, "corpus/015"),
            Sample(
                "[2024-10-22 06:31:49 TP0] Traceback (most recent call last):", {}, "corpus/016"
            ),
        ),
    ),
    MessageSpec(
        name="traceback_fragment",
        kind=K.EXCEPTION,
        pattern=r" {1,8}+File \"(?P<file>[^\"]{1,2000}+)\", line (?P<lineno>\d{1,9}+)",
        fields={"lineno": "int"},
        block="traceback",
        releases="all",
        description="A traceback whose head was cut off (pasted excerpts): its first frame opens it.",
        samples=(
            Sample(
                '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 4062, in run_scheduler_process',
                {
                    "file": "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py",
                    "lineno": 4062,
                },
                "corpus/021",
            ),
        ),
    ),
    MessageSpec(
        name="sigquit_launch",
        kind=K.SIGQUIT,
        pattern=r"Received sigquit from a child process\. It usually means the child failed\.",
        level="ERROR",
        releases="0.4.6-",
        samples=(
            Sample(
                "[2026-05-25 18:03:35] Received sigquit from a child process. It usually means the child failed.",
                {},
                "corpus/065",
            ),
        ),
    ),
    MessageSpec(
        name="sigquit_running",
        kind=K.SIGQUIT,
        pattern=r"SIGQUIT received\.(?P<_pairs>.*)",
        pairs={},
        level="ERROR",
        releases="0.5.3-",
        samples=(
            Sample(
                "[2026-02-23 10:10:00] SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
                {"signum": "None"},
                "sglang 0.5.9 tokenizer_manager.py",
            ),
        ),
    ),
    MessageSpec(
        name="scheduler_dead",
        kind=K.SCHEDULER_DEAD,
        pattern=r"\[?Rank (?P<rank>\d{1,6}+) scheduler is dead\.",
        fields={"rank": "int"},
        level="ERROR",
        releases="0.3.6-0.5.9",
        samples=(
            Sample(
                "[2026-02-23 10:00:40] Rank 0 scheduler is dead. Please check if there are relevant logs.",
                {"rank": 0},
                "sglang 0.5.9 engine.py",
            ),
            Sample(
                "[Rank 0 scheduler is dead.]", {"rank": 0}, "corpus/071 (abridged by the author)"
            ),
        ),
    ),
    MessageSpec(
        name="scheduler_died_init",
        kind=K.SCHEDULER_DEAD,
        pattern=r"Rank (?P<rank>\d{1,6}+) scheduler died during initialization \(exit code: (?P<exit_code>-?\d{1,6}+)\)",
        fields={"rank": "int", "exit_code": "int"},
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.",
                {"rank": 0, "exit_code": -9},
                "sglang 0.5.15 engine.py",
            ),
        ),
    ),
    MessageSpec(
        name="subprocess_crashed",
        kind=K.SCHEDULER_DEAD,
        pattern=r"Subprocess (?P<process>\S{1,200}+) \(pid=(?P<pid>\d{1,10}+)\) crashed with exit code (?P<exit_code>-?\d{1,6}+)",
        fields={"pid": "int", "exit_code": "int"},
        level="ERROR",
        releases="0.5.15-",
        samples=(
            Sample(
                "[2026-07-10 10:00:40] Subprocess scheduler_0 (pid=4242) crashed with exit code -9. Triggering SIGQUIT for cleanup...",
                {"process": "scheduler_0", "pid": 4242, "exit_code": -9},
                "sglang 0.5.15 watchdog",
            ),
        ),
    ),
    # ================================================================= failures: launch
    MessageSpec(
        name="argparse_usage",
        kind=K.ARGPARSE_USAGE,
        pattern=r"usage: (?P<prog>\S{1,200}+(?: serve)?)",
        block="indented",
        releases="all",
        samples=(
            Sample(
                "usage: launch_server.py [-h] --model-path MODEL_PATH",
                {"prog": "launch_server.py"},
                "python argparse (SGLang parse_args)",
            ),
            Sample(
                "usage: sglang serve [-h] --model-path MODEL_PATH",
                {"prog": "sglang serve"},
                "sglang 0.5.23 ArgumentParser(prog='sglang serve')",
            ),
        ),
    ),
    MessageSpec(
        name="argparse_error",
        kind=K.ARGPARSE_ERROR,
        pattern=(
            r"(?P<prog>[\w.-]{1,80}+(?: serve)?): error: (?P<error>"
            r"unrecognized arguments: (?P<unrecognized>.*)"
            r"|ambiguous option: (?P<option>\S{1,200}+) could match (?P<candidates>.*)"
            r"|argument (?P<argument>[^:]{1,200}+): invalid choice: (?P<value>.{0,500}?) \(choose from (?P<choices>.*)\)"
            r"|.*)"
        ),
        level="ERROR",
        releases="all",
        samples=(
            Sample(
                "launch_server.py: error: unrecognized arguments: --mem-fraction-statc 0.88",
                {
                    "prog": "launch_server.py",
                    "error": "unrecognized arguments: --mem-fraction-statc 0.88",
                    "unrecognized": "--mem-fraction-statc 0.88",
                },
                "python argparse (SGLang uses parse_args)",
            ),
            Sample(
                "sglang serve: error: ambiguous option: --page could match --page-size, --paged-experts-num-resident",
                {
                    "prog": "sglang serve",
                    "option": "--page",
                    "candidates": "--page-size, --paged-experts-num-resident",
                },
                "python argparse, 0.5.23 option list",
            ),
            Sample(
                "launch_server.py: error: argument --speculative-algorithm: invalid choice: 'MTP' (choose from 'EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE', 'NGRAM')",
                {"argument": "--speculative-algorithm", "value": "'MTP'"},
                "python argparse, 0.5.9 choices",
            ),
            Sample(
                "launch_server.py: error: the following arguments are required: --model-path/--model",
                {"error": "the following arguments are required: --model-path/--model"},
                "python argparse",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_bind",
        kind=K.PORT_IN_USE,
        pattern=r"\[Errno (?P<errno>\d{1,6}+)\] error while attempting to bind on address \((?P<address>[^)]{1,200}+)\): (?:\[errno \d{1,6}+\] )?address already in use",
        fields={"errno": "int"},
        level="ERROR",
        releases="all",
        samples=(
            Sample(
                "[2025-10-06 12:00:21] ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
                {"errno": 98, "address": "'127.0.0.1', 30000"},
                "uvicorn 0.54 server.py",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_waiting",
        kind=K.PORT_WAIT,
        pattern=r"port (?P<port>\d{1,5}+) is in use\. Waiting for (?P<waited>\d{1,6}+) seconds for (?P<port_name>\S{1,100}+) to be available",
        fields={"port": "int", "waited": "int"},
        level="WARNING",
        releases="0.4.6-",
        samples=(
            Sample(
                "[2026-02-23 10:00:00] port 30001 is in use. Waiting for 2 seconds for scheduler_input_port to be available. scheduler_input_port is used by a process already. process.name()='python3' process.cmdline()=['python3'] process.status()='sleeping' pid=777",
                {"port": 30001, "waited": 2, "port_name": "scheduler_input_port"},
                "sglang 0.5.9 utils/common.py (wait_port_available)",
            ),
        ),
    ),
    MessageSpec(
        name="port_not_available",
        kind=K.PORT_IN_USE,
        pattern=r"(?P<port_name>\w{1,100}+) at (?P<port>\d{1,5}+) is not available in (?P<seconds>\d{1,6}+) seconds",
        fields={"port": "int", "seconds": "int"},
        level="ERROR",
        releases="0.4.6-",
        samples=(
            Sample(
                "ValueError: scheduler_input_port at 30001 is not available in 30 seconds. See above for which process holds it.",
                {"port_name": "scheduler_input_port", "port": 30001, "seconds": 30},
                "sglang 0.5.9 utils/common.py",
            ),
        ),
    ),
    MessageSpec(
        name="port_already_in_use",
        kind=K.PORT_IN_USE,
        pattern=(
            r"Port is already in use\.(?: dist_init_port=(?P<dist_init_port>\w{1,60}+))?"
            r"(?: port_base=(?P<port_base>\d{1,5}+))?(?: detokenizer_port=(?P<detokenizer_port>\d{1,5}+))?"
            r"(?: nccl_port=(?P<nccl_port>\w{1,60}+))?(?: scheduler_input_port=(?P<scheduler_input_port>\d{1,5}+))?"
        ),
        fields={
            "dist_init_port": "int",
            "port_base": "int",
            "detokenizer_port": "int",
            "nccl_port": "int",
            "scheduler_input_port": "int",
        },
        level="ERROR",
        releases="0.5.9-",
        samples=(
            Sample(
                "[2026-02-23 10:00:30] Port is already in use. dist_init_port=30005 port_base=30000 detokenizer_port=30001 nccl_port=30002 scheduler_input_port=30003",
                {"dist_init_port": 30005, "nccl_port": 30002},
                "sglang 0.5.9 server_args.py (PortArgs.init_new)",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_torch_store",
        kind=K.PORT_IN_USE,
        pattern=r"The server socket has failed to listen on any local network address\. port: (?P<port>\d{1,5}+), useIpv6: \w{1,5}+, code: -98, name: EADDRINUSE",
        fields={"port": "int"},
        level="ERROR",
        releases="all",
        samples=(
            Sample(
                "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
                {"port": 29500, "exc_type": "torch.distributed.DistNetworkError"},
                "torch c10d TCPStore",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_bootstrap",
        kind=K.PORT_IN_USE,
        pattern=r"engine_info_bootstrap_port (?P<port>\d{1,5}+) is already in use",
        fields={"port": "int"},
        level="ERROR",
        releases="0.5.23-",
        samples=(
            Sample(
                "[2026-10-30 12:00:00] engine_info_bootstrap_port 8998 is already in use. When running multiple instances on the same node, each instance must use a different --engine-info-bootstrap-port.",
                {"port": 8998},
                "sglang 0.5.23 engine.py",
            ),
        ),
    ),
    MessageSpec(
        name="nccl_error",
        kind=K.NCCL_ERROR,
        pattern=r"(?P<error>NCCL error in: \S{1,500}+|NCCL error:|ncclInternalError|ncclUnhandledCudaError|ncclSystemError|ncclInvalidUsage|ncclRemoteError|Watchdog caught collective operation timeout)(?P<detail>.{0,500})",
        anywhere=True,
        level="ERROR",
        releases="all",
        samples=(
            Sample(
                "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
                {
                    "error": "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970,"
                },
                "torch ProcessGroupNCCL",
            ),
            Sample(
                "[rank3]:[E1006 12:10:00.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.",
                {"error": "Watchdog caught collective operation timeout"},
                "torch ProcessGroupNCCL watchdog",
            ),
        ),
    ),
    # ================================================================= failures: issue 28
    MessageSpec(
        name="environment",
        kind=K.ENVIRONMENT_ERROR,
        pattern=(
            # a module not installed: CPython's runpy ('python3 -m sglang.launch_server' without
            # sglang) or an import's own text
            r"(?:(?=[^\s:]{1,300}+: )[^\s:]{0,294}?python[\d.]{0,8}+: (?:Error while finding module specification for "
            r"'(?P<entry>[\w.]{1,200}+)' \((?:ModuleNotFoundError|ImportError): )?)?"
            r"No module named '?(?P<module>[\w.]{1,200}+)'?"
            # a shared library missing or built against another ABI (the dynamic loader)
            r"|(?=[^\s:]{1,300}+: )(?P<library>[^\s:]{0,297}?\.so(?:\.[\d.]{1,20}+)?): "
            r"(?P<error>cannot open shared object file|undefined symbol)"
            # no usable GPU runtime (torch/cuda/__init__.py, cudaErrorInsufficientDriver)
            r"|(?P<error__2>The NVIDIA driver on your system is too old"
            r"|Found no NVIDIA driver on your system"
            r"|CUDA driver version is insufficient for CUDA runtime version"
            r"|No CUDA GPUs are available|No HIP GPUs are available"
            r"|Torch not compiled with CUDA enabled)"
            r"(?: \(found version (?P<found_version>\d{1,8}+)\))?"
            # a model path that is not there (transformers' AutoConfig / hub text)
            r"|(?P<path>\S{1,500}+) (?P<error__3>is not a local folder and is not a valid model "
            r"identifier|does not appear to have a file named config\.json)"
        ),
        fields={"found_version": "int"},
        level="ERROR",
        releases="all",
        description="The environment cannot run SGLang (the fix is not memory): a module or "
        "shared library missing, no usable GPU driver/runtime, a model path not there. Only as "
        "the exception a traceback ends with or a line of its own: SGLang's 'Ignore import error "
        "...: No module named' and torch's 'UserWarning: CUDA initialization: ...' are not it.",
        samples=(
            Sample(
                "/usr/bin/python3: Error while finding module specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang')",
                {"entry": "sglang.launch_server", "module": "sglang"},
                "python Lib/runpy.py (_get_module_details, _run_module_as_main)",
            ),
            Sample(
                "No module named 'sgl_kernel'",
                {"module": "sgl_kernel"},
                "python ModuleNotFoundError (import system)",
            ),
            Sample(
                "libcudart.so.13: cannot open shared object file: No such file or directory",
                {"library": "libcudart.so.13", "error": "cannot open shared object file"},
                "fixtures/failures/README.md (libcudart.so.13 on a CUDA 12.9 driver)",
            ),
            Sample(
                "The NVIDIA driver on your system is too old (found version 12090)",
                {
                    "error": "The NVIDIA driver on your system is too old",
                    "found_version": 12090,
                },
                "fixtures/failures/driver_too_old.log",
            ),
            Sample(
                "/models/Qwen3-8B does not appear to have a file named config.json. Checkout 'https://huggingface.co//models/Qwen3-8B/tree/None' for available files.",
                {"path": "/models/Qwen3-8B"},
                "transformers configuration_utils.py / utils/hub.py (OSError text)",
            ),
        ),
    ),
    MessageSpec(
        name="aborted",
        kind=K.ABORTED,
        pattern=(
            # the shell's report of a child killed by a signal: the whole line, or bash's job
            # line with the pid and the command
            r"(?:(?P<shell>[^\s:]{1,300}+): line \d{1,7}+: {0,8}+(?P<pid>\d{1,10}+) )?"
            r"(?P<signal>Killed|Aborted|Segmentation fault|Bus error|Illegal instruction"
            r"|Floating point exception)(?: \(core dumped\))?"
            r"(?:\s{0,8}+$| {2,80}+(?P<command>\S.{0,2000}))"
            # a native abort: std::terminate's text (an exception escaping a thread, e.g. NCCL's
            # watchdog: SIGABRT follows) or faulthandler's report
            r"|terminate called (?:after throwing an instance of '(?P<exception>[^']{1,300}+)'"
            r"|recursively|without an active exception)"
            r"|Fatal Python error: (?P<signal__2>Segmentation fault|Aborted|Bus error"
            r"|Floating point exception|Illegal instruction)"
        ),
        fields={"pid": "int"},
        level="ERROR",
        releases="all",
        description="The process died by a signal or a native abort, with no Python traceback "
        "(bash siglist.c/jobs.c wording; the C++ runtime's std::terminate; CPython's "
        "faulthandler). The signal is a field where the line names it.",
        samples=(
            Sample(
                "Killed",
                {"signal": "Killed"},
                "bash siglist.c (SIGKILL's description, printed for a killed foreground job)",
            ),
            Sample(
                "Aborted (core dumped)",
                {"signal": "Aborted"},
                "bash siglist.c and jobs.c (SIGABRT, '(core dumped)')",
            ),
            Sample(
                "run.sh: line 12: 48213 Segmentation fault      (core dumped) python3 -m sglang.launch_server --model-path m",
                {"signal": "Segmentation fault", "pid": 48213},
                "bash jobs.c (a job's status line: pid, signal, '(core dumped)', command)",
            ),
            Sample(
                "terminate called after throwing an instance of 'c10::DistBackendError'",
                {"exception": "c10::DistBackendError"},
                "fixtures/failures/terminate_abort.log",
            ),
            Sample(
                "Fatal Python error: Segmentation fault",
                {"signal": "Segmentation fault"},
                "python faulthandler (Fatal Python error)",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_zmq",
        kind=K.PORT_IN_USE,
        pattern=r"Address already in use(?: \(addr='(?P<address>[^']{1,300}+)'\))?",
        level="ERROR",
        releases="all",
        description="A listener SGLang opens other than uvicorn's: the ZMQ IPC/TCP sockets of "
        "get_zmq_socket (pyzmq's ZMQError names the address).",
        samples=(
            Sample(
                "Address already in use (addr='tcp://127.0.0.1:56617')",
                {"address": "tcp://127.0.0.1:56617"},
                "fixtures/failures/zmq_port.log",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_errno",
        kind=K.PORT_IN_USE,
        pattern=r"\[Errno (?P<errno>98|48|10048)\] Address already in use",
        fields={"errno": "int"},
        level="ERROR",
        releases="all",
        description="A plain socket.bind (OSError: [Errno 98]): the bootstrap and NCCL/gloo "
        "store listeners, SGLang's own port probes.",
        samples=(
            Sample(
                "[Errno 98] Address already in use",
                {"errno": 98},
                "python socket.bind (OSError errno 98)",
            ),
        ),
    ),
]

CATALOG = Catalog(SPECS)
