"""What each event kind means is one row of ``events.KIND_ROLES``; every kind set is derived.

The pinned sets below are the hand-written tables as they stood before they were derived
(issue 26): the derivation must give them back exactly. A new kind adds one row to the table
(``test_every_kind_has_a_row``) and, where it changes a set, the pinned value here.
"""

from __future__ import annotations

from sglang_logscope.events import KIND_ROLES, OOM_FAILURES, EventKind, FailureKind, Phase
from sglang_logscope.log import pinning, runs, tail
from sglang_logscope.parse import levels
from sglang_logscope.parse.messages import CATALOG
from sglang_logscope.watch import phases

K = EventKind


def test_every_kind_has_a_row() -> None:
    missing = [k.name for k in EventKind if k not in KIND_ROLES]
    assert missing == [], f"add a KindRole row in events.KIND_ROLES for {missing}"
    assert list(KIND_ROLES) == list(EventKind), "keep KIND_ROLES in the enum's order"


def test_roles_are_consistent() -> None:
    for kind, role in KIND_ROLES.items():
        assert role.oom <= (role.failure is not None and role.failure.is_oom), kind
        assert (role.traceback_rank is None) or role.exception, kind
        assert role.own_record <= role.exception, kind
        assert role.batch <= role.serving_row, kind
        assert role.progress <= (role.phase is not None), kind
        assert role.level_hint in (None, "WARNING", "ERROR"), kind
    ranks = [r.traceback_rank for r in KIND_ROLES.values() if r.traceback_rank is not None]
    assert sorted(ranks) == list(range(1, len(ranks) + 1)), "traceback ranks are 1..n, once each"


def test_level_and_traceback_tables() -> None:
    assert levels.LEVEL_HINT == {
        K.ARGS_ADJUSTED: "WARNING",
        K.SCHEDULER_EXCEPTION: "ERROR",
        K.NOT_ENOUGH_MEMORY: "ERROR",
        K.CUDA_OOM: "ERROR",
        K.ENVIRONMENT_ERROR: "ERROR",  # issue 28
        K.ABORTED: "ERROR",  # issue 28
    }
    assert levels.FAILURE_PRIORITY == (
        K.NOT_ENOUGH_MEMORY,
        K.WEIGHTS_LEAVE_NO_MEMORY,
        K.MAMBA_STATE_TOO_SMALL,
        K.CUDA_OOM,
        K.PORT_IN_USE,
        K.NCCL_ERROR,
        K.ENVIRONMENT_ERROR,  # issue 28
        K.SCHEDULER_DEAD,
        K.CUDA_GRAPH_FAILED,
    )
    exceptions = frozenset(levels.FAILURE_PRIORITY) | {
        K.EXCEPTION,
        K.SCHEDULER_EXCEPTION,
        K.ARGPARSE_ERROR,
    }
    assert exceptions == levels.EXCEPTION_KINDS
    assert exceptions - {K.SCHEDULER_DEAD, K.CUDA_GRAPH_FAILED} == levels.CONTINUES_TRACEBACK


def test_run_tables() -> None:
    f = FailureKind
    assert runs.FAILURE_OF == {
        K.NOT_ENOUGH_MEMORY: f.NOT_ENOUGH_MEMORY,
        K.WEIGHTS_LEAVE_NO_MEMORY: f.WEIGHTS_LEAVE_NO_MEMORY,
        K.MAMBA_STATE_TOO_SMALL: f.MAMBA_STATE_TOO_SMALL,
        K.CUDA_OOM: f.CUDA_OOM,
        K.ARGPARSE_ERROR: f.ARGPARSE_ERROR,
        K.PORT_IN_USE: f.PORT_IN_USE,
        K.NCCL_ERROR: f.NCCL_ERROR,
        K.ENVIRONMENT_ERROR: f.ENVIRONMENT,  # issue 28
        K.SCHEDULER_EXCEPTION: f.EXCEPTION,
        K.EXCEPTION: f.EXCEPTION,
        K.SCHEDULER_DEAD: f.EXCEPTION,
        K.WARMUP_FAILED: f.EXCEPTION,
        K.CUDA_GRAPH_FAILED: f.EXCEPTION,
        K.ABORTED: f.ABORTED,  # issue 28
    }
    oom = {f.NOT_ENOUGH_MEMORY, f.WEIGHTS_LEAVE_NO_MEMORY, f.MAMBA_STATE_TOO_SMALL, f.CUDA_OOM}
    assert OOM_FAILURES == runs._OOM_KINDS == oom
    assert [k for k in FailureKind if k.is_oom] == [k for k in FailureKind if k in oom]
    assert runs._FAILURE_ORDER == [
        f.NOT_ENOUGH_MEMORY, f.WEIGHTS_LEAVE_NO_MEMORY, f.MAMBA_STATE_TOO_SMALL, f.CUDA_OOM,
        f.ARGPARSE_ERROR, f.PORT_IN_USE, f.NCCL_ERROR, f.ENVIRONMENT, f.EXCEPTION, f.ABORTED,
    ]  # fmt: skip
    assert (
        set(runs.FAILURE_OF)
        | {
            K.SIGQUIT,
            K.SHUTDOWN,
            K.ARGPARSE_USAGE,
            K.BENCH_RESULT,
        }
        == runs._TERMINAL
    )
    assert {K.SCHEDULER_DEAD, K.SIGQUIT, K.ABORTED} == runs._STOP_CHAIN
    assert {
        K.ARGS_ADJUSTED, K.ATTENTION_BACKEND, K.LAUNCH_WARNING, K.SGLANG_MESSAGE, K.UNKNOWN, K.TEXT,
    } == runs.PREAMBLE_KINDS  # fmt: skip
    assert {K.TEXT, K.UNKNOWN, K.SGLANG_MESSAGE, K.FOREIGN_TRACEBACK} == runs._NO_PROGRESS
    assert {K.SERVER_READY} == runs._READY
    assert {K.PREFILL_BATCH, K.DECODE_BATCH} == runs._SERVING
    assert frozenset(EventKind) - tail.CHECK_KINDS == {
        K.PREFILL_BATCH,
        K.DECODE_BATCH,
        K.HTTP_ACCESS,
    }


def test_phase_tables() -> None:
    p = Phase
    assert phases._PHASE_OF == {
        K.SERVER_ARGS: p.ARGS, K.ARGS_ADJUSTED: p.ARGS, K.ATTENTION_BACKEND: p.ARGS,
        K.LAUNCH_WARNING: p.ARGS,
        K.DIST_INIT_BEGIN: p.DIST_INIT, K.DIST_INIT_END: p.DIST_INIT,
        K.MEMORY_BASELINE: p.DIST_INIT, K.MEMORY_UNBALANCED: p.DIST_INIT,
        K.LOAD_WEIGHT_BEGIN: p.WEIGHTS, K.WEIGHT_PROGRESS: p.WEIGHTS, K.LOAD_WEIGHT_END: p.WEIGHTS,
        K.KV_CACHE_ALLOCATED: p.POOLS, K.MAMBA_CACHE_ALLOCATED: p.POOLS, K.SWA_POOL: p.POOLS,
        K.MEMORY_POOL_END: p.POOLS, K.TOKEN_SUMMARY: p.POOLS,
        K.CUDA_GRAPH_BEGIN: p.CUDA_GRAPH, K.CUDA_GRAPH_PROGRESS: p.CUDA_GRAPH,
        K.CUDA_GRAPH_END: p.CUDA_GRAPH,
        K.SERVER_READY: p.READY, K.PREFILL_BATCH: p.READY, K.DECODE_BATCH: p.READY,
    }  # fmt: skip
    assert {K.WEIGHT_PROGRESS, K.CUDA_GRAPH_PROGRESS} == phases.PROGRESS_KINDS
    assert (
        frozenset(phases._PHASE_OF)
        - {
            K.PREFILL_BATCH,
            K.DECODE_BATCH,
        }
        | {K.ARGPARSE_USAGE, K.ARGPARSE_ERROR, K.UVICORN_STARTED, K.UVICORN_RUNNING}
        == phases.STARTUP_KINDS
    )
    # a kind whose figures the phase view reads must belong to a phase
    assert set(phases._FIGURE_READERS) <= set(phases._PHASE_OF)
    assert (
        runs.FailureKind is FailureKind and phases.Phase is Phase
    )  # the old homes still name them


def test_release_evidence_tables() -> None:
    bulk = {s.kind for s in CATALOG.specs if s.bulk}
    assert frozenset({K.UNKNOWN, K.TEXT} | bulk) == pinning._SKIP
    assert {K.TEXT, K.SGLANG_MESSAGE} == pinning._WARNED
