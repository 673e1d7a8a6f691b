"""SGLang's vocabulary: one declarative entry per message the server prints.

Each entry gives the pattern (over the message, after the ``[time rank]`` header), the typed
fields, the releases that print it (see ``docs/sglang-log-format`` notes), and real sample lines
with the fields they must yield. ``tests/test_catalog.py`` parses every sample. Sources:
``corpus/NNN`` are real logs from public threads (copied into ``fixtures/real/``); ``sglang X
file.py`` are format strings read from that released wheel, filled in with plausible values.
Order matters only within a dispatch bucket: more specific entries first.
"""

from __future__ import annotations

from .catalog import Catalog, MessageSpec, Ref, Sample
from .events import EventKind as K

GIB = r"(?:\d+(?:\.\d+)?|nan|inf)"

SPECS: list[MessageSpec] = [
    # ----------------------------------------------------------------- run configuration
    MessageSpec(
        name="server_args_banner",
        kind=K.SERVER_ARGS,
        pattern=r"server_args=(?P<_repr>(?:ServerArgs\(|\{).*)",
        releases="0.2.0-",
        description="The effective arguments after SGLang's own adjustments (dataclass repr, or a dict in 0.5.23).",
        samples=(
            Sample(
                "[2026-05-25 18:03:25] server_args=ServerArgs(model_path='/data/m', tp_size=2, mem_fraction_static=0.85)",
                {},
                "corpus/065 (abridged)",
            ),
        ),
    ),
    MessageSpec(
        name="launch_server_deprecation",
        kind=K.LAUNCH_WARNING,
        pattern=r"(?P<path>\S{1,500}+launch_server\.py):(?P<lineno>\d+): UserWarning: 'python -m sglang\.launch_server' is still supported",
        fields={"lineno": "int"},
        releases="0.5.15-",
        samples=(
            Sample(
                "/home/u/sglang/python/sglang/launch_server.py:54: UserWarning: 'python -m sglang.launch_server' is still supported, but 'sglang serve' is the recommended entrypoint.",
                {"lineno": 54},
                "corpus/065",
            ),
        ),
    ),
    # ----------------------------------------------------------------- auto-adjust warnings
    MessageSpec(
        name="adjust_radix_spec_mamba",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Disabling radix cache since speculative decoding for (?P<model_arch>\w+) is not supported with radix cache yet",
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
                "sglang 0.5.9 server_args.py:1761 (real deployment format, shared README)",
            ),
        ),
    ),
    MessageSpec(
        name="adjust_max_running_requests_spec",
        kind=K.ARGS_ADJUSTED,
        pattern=r"Max running requests is reset to (?P<max_running_requests>\d+) for speculative decoding",
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
        name="attention_backend_default",
        kind=K.ATTENTION_BACKEND,
        pattern=r"Attention backend not (?:explicitly )?(?:specified|set)\. Use (?P<backend>\w+) backend by default",
        sets={"attention_backend": Ref("backend")},
        releases="0.4.6-",
        samples=(
            Sample(
                "[2025-10-06 12:00:05 TP0] Attention backend not explicitly specified. Use flashinfer backend by default.",
                {"backend": "flashinfer", "sets": {"attention_backend": "flashinfer"}},
                "sglang 0.5.3 model_runner.py",
            ),
        ),
    ),
    # ----------------------------------------------------------------- startup phases
    MessageSpec(
        name="dist_init_begin",
        kind=K.DIST_INIT_BEGIN,
        pattern=r"Init (?:torch distributed|parallel) begin\.",
        releases="0.2.14-",
        samples=(
            Sample("[2026-05-25 18:03:30 TP1] Init torch distributed begin.", {}, "corpus/065"),
        ),
    ),
    MessageSpec(
        name="dist_init_end",
        kind=K.DIST_INIT_END,
        pattern=r"Init (?:torch distributed|parallel) ends\.(?P<_pairs>.*)",
        pairs={"mem usage": "mem_usage_gib", "elapsed": "elapsed_s"},
        releases="0.2.14-",
        samples=(
            Sample(
                "[2026-05-25 18:03:32 TP0] Init torch distributed ends. elapsed=2.73 s, mem usage=0.30 GB",
                {"elapsed_s": 2.73, "mem_usage_gib": 0.30},
                "corpus/065",
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
                "[gpu_id=0] Load weight begin. avail mem=78.12 GB",
                {"avail_gib": 78.12},
                "sglang 0.2.0 model_runner.py",
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
                "[2025-02-04 05:29:17 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=8.37 GB",
                {"model_class": "Qwen2ForCausalLM", "dtype": "torch.bfloat16", "avail_gib": 8.37},
                "corpus/037",
            ),
            Sample(
                "[2026-05-25 18:03:48 TP0] Load weight end. elapsed=12.03 s, type=Qwen3_5ForConditionalGeneration, quant=awq, bits=4, avail mem=17.00 GB, mem usage=14.49 GB.",
                {
                    "elapsed_s": 12.03,
                    "model_class": "Qwen3_5ForConditionalGeneration",
                    "quant": "awq",
                    "bits": 4,
                    "avail_gib": 17.0,
                    "mem_usage_gib": 14.49,
                },
                "corpus/067",
            ),
        ),
    ),
    MessageSpec(
        name="weight_shards_progress",
        kind=K.WEIGHT_PROGRESS,
        pattern=r"(?:Loading safetensors checkpoint shards|Multi-thread loading shards|Loading pt checkpoint shards):\s*+(?P<percent>\d+)% Completed \| (?P<done>\d+)/(?P<total>\d+)",
        fields={"percent": "int", "done": "int", "total": "int"},
        releases="0.3.0-",
        samples=(
            Sample(
                "Loading safetensors checkpoint shards:  50% Completed | 1/2 [04:38<04:38, 278.99s/it]",
                {"percent": 50, "done": 1, "total": 2},
                "corpus/037",
            ),
        ),
    ),
    MessageSpec(
        name="kv_cache_allocated",
        kind=K.KV_CACHE_ALLOCATED,
        pattern=r"(?:(?P<label>[\w .-]{1,80}?) )?KV Cache (?:is allocated|VA upper bound)\.(?P<_pairs>.*)",
        pairs={"#tokens": "tokens", "K size": "k_gib", "V size": "v_gib", "KV size": "kv_gib"},
        releases="0.4.6-",
        samples=(
            Sample(
                "[2025-12-29 18:33:03 TP0] KV Cache is allocated. #tokens: 473854, K size: 2.71 GB, V size: 2.71 GB",
                {"tokens": 473854, "k_gib": 2.71, "v_gib": 2.71},
                "corpus/053",
            ),
            Sample(
                "[2026-03-21 03:32:30 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 535124, K size: 16.33 GB, V size: 16.33 GB",
                {"dtype": "torch.bfloat16", "tokens": 535124, "k_gib": 16.33, "v_gib": 16.33},
                "corpus (0.5.15+ form)",
            ),
        ),
    ),
    MessageSpec(
        name="mamba_cache_allocated",
        kind=K.MAMBA_CACHE_ALLOCATED,
        pattern=r"Mamba Cache is allocated\.(?P<_pairs>.*)",
        pairs={
            "max_mamba_cache_size": "max_mamba_cache_size",
            "conv_state size": "conv_gib",
            "ssm_state size": "ssm_gib",
            "intermediate_ssm_state_cache size": "intermediate_ssm_gib",
            "intermediate_conv_window_cache size": "intermediate_conv_gib",
        },
        releases="0.5.3-",
        samples=(
            Sample(
                "[2025-12-29 18:33:03 TP0] Mamba Cache is allocated. max_mamba_cache_size: 85292, conv_state size: 4.88GB, ssm_state size: 0.00GB ",
                {"max_mamba_cache_size": 85292, "conv_gib": 4.88, "ssm_gib": 0.0},
                "corpus/053",
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
        ),
    ),
    MessageSpec(
        name="token_summary",
        kind=K.TOKEN_SUMMARY,
        pattern=r"max_total_num_tokens=(?P<_pairs>.*)",
        pairs={
            "max_total_num_tokens": "max_total_num_tokens",
            "available_gpu_mem": "available_gpu_gib",
        },
        releases="0.1.18-",
        samples=(
            Sample(
                "[2025-02-04 05:29:20 TP0] max_total_num_tokens=105531, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=2049, context_len=131072",
                {
                    "max_total_num_tokens": 105531,
                    "chunked_prefill_size": 2048,
                    "max_prefill_tokens": 16384,
                    "max_running_requests": 2049,
                    "context_len": 131072,
                },
                "corpus/037",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_begin",
        kind=K.CUDA_GRAPH_BEGIN,
        pattern=r"Capture (?P<graph>[\w ]{1,40}?) (?:CUDA )?graph begin\.(?P<_pairs>.*)",
        pairs={"avail mem": "avail_gib"},
        releases="0.2.0-",
        samples=(
            Sample(
                "[2025-12-29 18:33:03 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=2.42 GB",
                {"graph": "cuda", "avail_gib": 2.42},
                "corpus/053",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_end",
        kind=K.CUDA_GRAPH_END,
        pattern=r"Capture (?P<graph>[\w ]{1,40}?) (?:CUDA )?graph end\.(?P<_pairs>.*)",
        pairs={
            "avail mem": "avail_gib",
            "mem usage": "mem_usage_gib",
            "Time elapsed": "elapsed_s",
            "elapsed": "elapsed_s",
        },
        releases="0.4.6-",
        samples=(
            Sample(
                "[2025-12-29 18:33:04 TP0] Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB.",
                {"graph": "cuda", "elapsed_s": 1.01, "mem_usage_gib": 0.03, "avail_gib": 2.39},
                "corpus/053",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_graph_progress",
        kind=K.CUDA_GRAPH_PROGRESS,
        pattern=rf"Capturing batches \(bs=(?P<bs>\d+) avail_mem=(?P<avail_gib>{GIB}) ?GB\)",
        fields={"bs": "int", "avail_gib": "gib"},
        releases="0.4.0-",
        samples=(
            Sample(
                "Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4 [00:00<00:00,  7.80it/",
                {"bs": 1, "avail_gib": 2.39},
                "corpus/053",
            ),
        ),
    ),
    # ----------------------------------------------------------------- ready
    MessageSpec(
        name="uvicorn_started",
        kind=K.UVICORN_STARTED,
        pattern=r"Started server process \[(?P<pid>\d+)\]",
        fields={"pid": "int"},
        releases="0.1.18-",
        samples=(
            Sample(
                "[2025-02-04 05:29:20] INFO:     Started server process [1]",
                {"pid": 1},
                "corpus/037",
            ),
        ),
    ),
    MessageSpec(
        name="uvicorn_running",
        kind=K.UVICORN_RUNNING,
        pattern=r"Uvicorn running on (?P<url>\S+)",
        releases="0.1.18-",
        samples=(
            Sample(
                "[2025-02-04 05:29:20] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
                {"url": "http://0.0.0.0:30000"},
                "corpus/037",
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
                "[2025-02-04 05:29:23] The server is fired up and ready to roll!", {}, "corpus/037"
            ),
        ),
    ),
    # ----------------------------------------------------------------- serving
    MessageSpec(
        name="prefill_batch",
        kind=K.PREFILL_BATCH,
        pattern=r"Prefill batch(?:\(mixed #running-req: (?P<mixed_running_req>\d+)\))?(?: \[(?P<iter>\d+)\])?[.,](?P<_pairs>.*)",
        fields={"mixed_running_req": "int", "iter": "int"},
        pairs={
            "#new-seq": "new_seq",
            "#new-token": "new_token",
            "#cached-token": "cached_token",
            "#running-req": "running_req",
            "#queue-req": "queue_req",
            "input throughput (token/s)": "input_throughput",
        },
        releases="0.1.18-",
        samples=(
            Sample(
                "[2025-02-04 05:29:21 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0",
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
        ),
    ),
    MessageSpec(
        name="decode_batch",
        kind=K.DECODE_BATCH,
        pattern=r"Decode batch(?: \[(?P<iter>\d+)\])?[.,](?P<_pairs>.*)",
        fields={"iter": "int"},
        pairs={
            "#running-req": "running_req",
            "#token": "token",
            "#queue-req": "queue_req",
            "gen throughput (token/s)": "gen_throughput",
            "#full token": "full_token",
            "mamba num": "mamba_num",
        },
        releases="0.1.18-",
        samples=(
            Sample(
                "[2026-05-25 18:05:10 TP0] Decode batch, #running-req: 1, #full token: 1009, full token usage: 0.00, mamba num: 2, mamba usage: 0.05, cuda graph: False, gen throughput (token/s): 4.87, #queue-req: 0",
                {
                    "running_req": 1,
                    "full_token": 1009,
                    "full_token_usage": 0.0,
                    "mamba_num": 2,
                    "mamba_usage": 0.05,
                    "cuda_graph": False,
                    "gen_throughput": 4.87,
                    "queue_req": 0,
                },
                "corpus/069",
            ),
        ),
    ),
    MessageSpec(
        name="http_access",
        kind=K.HTTP_ACCESS,
        pattern=r'(?P<client>[\w.:\[\]-]{1,100}+) - "(?P<method>[A-Z]{1,10}+) (?P<path>\S{1,4096}+) HTTP/(?P<http>[\d.]{1,5}+)" (?P<status>\d{3})',
        fields={"status": "int"},
        releases="0.1.18-",
        samples=(
            Sample(
                '[2025-02-04 05:29:21] INFO:     127.0.0.1:35342 - "GET /get_model_info HTTP/1.1" 200 OK',
                {
                    "client": "127.0.0.1:35342",
                    "method": "GET",
                    "path": "/get_model_info",
                    "status": 200,
                },
                "corpus/037",
            ),
        ),
    ),
    # ----------------------------------------------------------------- failures
    MessageSpec(
        name="not_enough_memory",
        kind=K.NOT_ENOUGH_MEMORY,
        pattern=r"(?:RuntimeError: )?Not enough memory\. Please try to increase --mem-fraction-static\.(?: Current value: (?:[\w.]*mem_fraction_static=)?(?P<mem_fraction_static>[\d.]+))?",
        fields={"mem_fraction_static": "float"},
        releases="0.1.18-",
        samples=(
            Sample(
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85",
                {"mem_fraction_static": 0.85},
                "sglang 0.5.9 model_runner_kv_cache_mixin.py (the story in issue 4)",
            ),
            Sample(
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: 0.82",
                {"mem_fraction_static": 0.82},
                "corpus (real report)",
            ),
        ),
    ),
    MessageSpec(
        name="weights_leave_no_memory",
        kind=K.WEIGHTS_LEAVE_NO_MEMORY,
        pattern=r"(?:ValueError: )?Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=(?P<mem_fraction_static>[\d.]+)\. Raise --mem-fraction-static above (?P<minimum>[\d.]+)",
        fields={"mem_fraction_static": "float", "minimum": "float"},
        releases="0.5.15-",
        samples=(
            Sample(
                "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.8. Raise --mem-fraction-static above 0.912 (minimum viable = 1 - available/pre = 0.9118). If using speculative decoding, draft weights are now counted.",
                {"mem_fraction_static": 0.8, "minimum": 0.912},
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="mamba_state_too_small",
        kind=K.MAMBA_STATE_TOO_SMALL,
        pattern=r"(?:\w+: )?(?:Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache|Hybrid \(mamba/linear-attention\) state cache is too small to serve any requests)\.(?P<_pairs>.*)",
        pairs={
            "total_rest_memory": "total_rest_gib",
            "mamba_cache_per_req": "mamba_cache_per_req_mib",
        },
        releases="0.5.15-",
        samples=(
            Sample(
                "RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=0 (total_rest_memory=1.20 GB, mamba_cache_per_req=150.00 MB). Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, (3) reduce --speculative-num-draft-tokens, or (4) use GPUs with more memory.",
                {
                    "computed_max_mamba_cache_size": 0,
                    "total_rest_gib": 1.2,
                    "mamba_cache_per_req_mib": 150.0,
                },
                "sglang 0.5.15 pool_configurator.py",
            ),
        ),
    ),
    MessageSpec(
        name="cuda_oom",
        kind=K.CUDA_OOM,
        pattern=r"(?:CUDA|HIP|NPU|XPU)?\s?out of memory\. Tried to allocate (?P<tried>[\d.]+ [KMGT]i?B)\.(?: GPU (?P<gpu>\d+) has a total capacit(?:y|ty) of (?P<capacity>[\d.]+ [KMGT]i?B) of which (?P<free>[\d.]+ [KMGT]i?B) is free\.)?",
        anywhere=True,
        releases="all",
        samples=(
            Sample(
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 23.52 GiB of which 13.00 MiB is free. Including non-PyTorch memory, this process has 23.48 GiB memory in use.",
                {"tried": "32.00 MiB", "gpu": "0", "capacity": "23.52 GiB", "free": "13.00 MiB"},
                "corpus/051",
            ),
        ),
    ),
    MessageSpec(
        name="scheduler_exception",
        kind=K.SCHEDULER_EXCEPTION,
        pattern=r"(?P<process>\w+) hit an exception: ?(?P<first>.*)",
        block="traceback",
        level="ERROR",
        releases="0.4.0-",
        samples=(
            Sample(
                "[2026-05-25 18:03:34 TP1] Scheduler hit an exception: Traceback (most recent call last):",
                {"process": "Scheduler", "first": "Traceback (most recent call last):"},
                "corpus/065",
            ),
        ),
    ),
    MessageSpec(
        name="traceback",
        kind=K.EXCEPTION,
        pattern=r"Traceback \(most recent call last\):",
        block="traceback",
        releases="all",
        samples=(Sample("Traceback (most recent call last):", {}, "python"),),
    ),
    MessageSpec(
        name="sigquit_launch",
        kind=K.SIGQUIT,
        pattern=r"Received sigquit from a child process\. It usually means the child failed\.",
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
        pattern=r"SIGQUIT received\.",
        releases="0.5.3-",
        samples=(
            Sample(
                "[2026-02-23 10:10:00] SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
                {},
                "sglang 0.5.9 tokenizer_manager.py",
            ),
        ),
    ),
    MessageSpec(
        name="argparse_usage",
        kind=K.ARGPARSE_USAGE,
        pattern=r"usage: (?P<prog>\S+)",
        block="indented",
        releases="all",
        samples=(
            Sample(
                "usage: launch_server.py [-h] --model-path MODEL_PATH",
                {"prog": "launch_server.py"},
                "python argparse",
            ),
        ),
    ),
    MessageSpec(
        name="argparse_error",
        kind=K.ARGPARSE_ERROR,
        pattern=r"(?P<prog>[\w. -]{1,60}?): error: (?P<error>.*)",
        releases="all",
        samples=(
            Sample(
                "launch_server.py: error: unrecognized arguments: --mem-fraction-statc 0.88",
                {
                    "prog": "launch_server.py",
                    "error": "unrecognized arguments: --mem-fraction-statc 0.88",
                },
                "python argparse (SGLang uses parse_args)",
            ),
        ),
    ),
    MessageSpec(
        name="port_in_use_uvicorn",
        kind=K.PORT_IN_USE,
        pattern=r"\[Errno (?:98|48|10048)\] error while attempting to bind on address \((?P<address>[^)]{1,200}+)\): (?:\[errno \d+\] )?address already in use",
        releases="all",
        samples=(
            Sample(
                "[2025-10-06 12:00:21] ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
                {"address": "'127.0.0.1', 30000"},
                "uvicorn 0.54 server.py",
            ),
        ),
    ),
    MessageSpec(
        name="nccl_error",
        kind=K.NCCL_ERROR,
        pattern=r"(?:NCCL error in: |ncclInternalError|ncclUnhandledCudaError|ncclSystemError|DistBackendError)(?P<detail>.{0,300})",
        anywhere=True,
        releases="all",
        samples=(
            Sample(
                "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error",
                {
                    "detail": ": NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error"
                },
                "torch ProcessGroupNCCL",
            ),
        ),
    ),
]

CATALOG = Catalog(SPECS)
