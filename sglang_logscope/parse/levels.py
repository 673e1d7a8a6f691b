"""Levels and priorities of SGLang's failure messages, shared by the line parser and the bulk
path: the level a message implies when its header names none, and which exception of a
traceback block names the failure."""

from __future__ import annotations

from ..events import EventKind

LEVEL_HINT = {
    EventKind.ARGS_ADJUSTED: "WARNING",
    EventKind.SCHEDULER_EXCEPTION: "ERROR",
    EventKind.NOT_ENOUGH_MEMORY: "ERROR",
    EventKind.CUDA_OOM: "ERROR",
    EventKind.ENVIRONMENT_ERROR: "ERROR",  # issue 28
    EventKind.ABORTED: "ERROR",  # issue 28
}

#: Traceback kinds, most specific first: the first one found among a block's exceptions wins.
FAILURE_PRIORITY = (
    EventKind.NOT_ENOUGH_MEMORY,
    EventKind.WEIGHTS_LEAVE_NO_MEMORY,
    EventKind.MAMBA_STATE_TOO_SMALL,
    EventKind.CUDA_OOM,
    EventKind.PORT_IN_USE,
    EventKind.NCCL_ERROR,
    EventKind.ENVIRONMENT_ERROR,  # issue 28
    EventKind.SCHEDULER_DEAD,
    EventKind.CUDA_GRAPH_FAILED,
)

EXCEPTION_KINDS = frozenset(FAILURE_PRIORITY) | {
    EventKind.EXCEPTION,
    EventKind.SCHEDULER_EXCEPTION,
    EventKind.ARGPARSE_ERROR,
}
#: Known lines that may still sit inside a traceback (its exception text); the main process's
#: 'Rank 0 scheduler is dead.' after a scheduler traceback is a record of its own.
CONTINUES_TRACEBACK = EXCEPTION_KINDS - {EventKind.SCHEDULER_DEAD, EventKind.CUDA_GRAPH_FAILED}
