"""Levels and priorities of SGLang's failure messages, shared by the line parser and the bulk
path: the level a message implies when its header names none, and which exception of a
traceback block names the failure. All derived from :data:`~sglang_logscope.events.KIND_ROLES`."""

from __future__ import annotations

from ..events import KIND_ROLES, EventKind, kinds_where

LEVEL_HINT = {k: r.level_hint for k, r in KIND_ROLES.items() if r.level_hint}


def _traceback_rank(kind: EventKind) -> int:
    return KIND_ROLES[kind].traceback_rank or 0


#: Traceback kinds, most specific first: the first one found among a block's exceptions wins.
FAILURE_PRIORITY: tuple[EventKind, ...] = tuple(
    sorted(kinds_where(lambda r: r.traceback_rank is not None), key=_traceback_rank)
)
EXCEPTION_KINDS = kinds_where(lambda r: r.exception)
#: Known lines that may still sit inside a traceback (its exception text); the main process's
#: 'Rank 0 scheduler is dead.' after a scheduler traceback is a record of its own.
CONTINUES_TRACEBACK = kinds_where(lambda r: r.exception and not r.own_record)
