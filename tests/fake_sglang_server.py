"""A stand-in SGLang server for the watch/launch tests.

It prints SGLang-like lines — the sample lines of the message catalog
(``sglang_logscope.parse.messages.SPECS[*].samples``), re-stamped with the current time — with small
delays, like a server starting up: banner, distributed init, weights (a tqdm shard bar redrawn
with ``\\r``), KV / mamba pools, CUDA graphs, ready. Then it stays up (as a server does), or it
crashes with a chosen failure kind, or it never writes at all.

Behaviour comes from the environment (so its argv stays an SGLang command line):

- ``LOGSCOPE_FAKE_MODE``: ``ready`` (default), ``crash``, ``silent`` (stay up, write nothing),
  ``exit`` (exit 0 at once, writing nothing)
- ``LOGSCOPE_FAKE_FAILURE``: with ``crash``: ``not_enough_memory``, ``cuda_oom``,
  ``argparse_error``, ``weights_leave_no_memory``, ``mamba_state_too_small``, ``nccl_error``,
  ``port_in_use``, ``exception``
- ``LOGSCOPE_FAKE_DELAY``: seconds between lines (default 0.02)
- ``LOGSCOPE_FAKE_HOLD``: seconds to stay up after ready / when silent (default 300)
- ``LOGSCOPE_FAKE_SLOW_AFTER``: with ``ready``: stop writing for this long after the weights
  begin (to test timeouts); default 0

Run it as ``python tests/fake_sglang_server.py ARGS`` or through a ``sglang/launch_server.py``
shim (the tests write one) as ``python -m sglang.launch_server ARGS``.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from datetime import datetime

from sglang_logscope.events import EventKind
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.messages import SPECS

_STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?")
_EXC = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception): ")
_BAR = re.compile(r"\d+% Completed \| \d+/\d+")

#: Where each failure happens (after which step of the startup) and the kind it is printed as.
FAILURES = {
    "not_enough_memory": ("after_weights", EventKind.NOT_ENOUGH_MEMORY),
    "weights_leave_no_memory": ("after_weights", EventKind.WEIGHTS_LEAVE_NO_MEMORY),
    "mamba_state_too_small": ("after_kv", EventKind.MAMBA_STATE_TOO_SMALL),
    "cuda_oom": ("in_graphs", EventKind.CUDA_OOM),
    "nccl_error": ("in_dist", EventKind.NCCL_ERROR),
    "port_in_use": ("after_graphs", EventKind.PORT_IN_USE),
    "exception": ("after_weights", EventKind.EXCEPTION),
    "argparse_error": ("at_once", EventKind.ARGPARSE_ERROR),
}


def _kind_of(line: str) -> EventKind:
    events = list(iter_events(io.StringIO(line + "\n")))
    return events[0].kind if len(events) == 1 else EventKind.TEXT


def sample(kind: EventKind, *, form: str = "headed", contains: str = "") -> str:
    """A catalog sample of ``kind``, its header time replaced by now.

    ``form``: ``headed``, a line that starts with SGLang's ``[YYYY-mm-dd HH:MM:SS ...]`` header
    (no docker or journald prefix); ``exception``, an exception line (``SomeError: ...``) as it
    ends a traceback; ``plain``, any line.
    Only a sample that still parses as ``kind`` is taken, so catalog changes cannot slip by.
    """
    for spec in SPECS:
        if spec.kind is not kind:
            continue
        for smp in spec.samples:
            line = smp.line
            if contains not in line:
                continue
            if form == "headed" and not _STAMP.match(line):
                continue
            if form == "exception" and not _EXC.match(line):
                continue
            line = _STAMP.sub(lambda _m: "[" + _now(), line, count=1)
            if _kind_of(line) is kind:
                return line
    raise LookupError(
        f"no usable catalog sample of {kind.value} (form={form}, contains={contains!r})"
    )


def _now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")


def _args(argv: list[str]) -> dict[str, str]:
    """``--flag value`` / ``--flag`` pairs as SGLang names them (``tp_size``)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("--"):
            key, eq, value = word[2:].partition("=")
            key = key.replace("-", "_")
            if key == "tp":
                key = "tp_size"
            if eq:
                out[key] = value
            elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out[key] = argv[i + 1]
                i += 1
            else:
                out[key] = "True"
        i += 1
    return out


def banner(argv: list[str]) -> str:
    parts = []
    for key, value in _args(argv).items():
        try:
            float(value)
            text = value
        except ValueError:
            text = value if value in ("True", "False") else repr(value)
        parts.append(f"{key}={text}")
    # The catalog's banner sample, with this launch's arguments.
    template = sample(EventKind.SERVER_ARGS, contains="ServerArgs(")
    head = template.split("server_args=", 1)[0]
    return f"{head}server_args=ServerArgs({', '.join(parts)})"


class Server:
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.delay = float(os.environ.get("LOGSCOPE_FAKE_DELAY", "0.02"))
        self.hold = float(os.environ.get("LOGSCOPE_FAKE_HOLD", "300"))
        self.slow = float(os.environ.get("LOGSCOPE_FAKE_SLOW_AFTER", "0"))
        self.out = sys.stdout

    def say(self, text: str, end: str = "\n") -> None:
        self.out.write(text + end)
        self.out.flush()
        time.sleep(self.delay)

    def crash(self, failure: str) -> int:
        kind = FAILURES[failure][1]
        if kind is EventKind.PORT_IN_USE:
            self.say(sample(kind, contains="Errno 98"))
            return 1
        if kind is EventKind.EXCEPTION:
            exc = "RuntimeError: something unexpected happened in the stand-in"
        else:
            exc = sample(kind, form="exception")
        self.say(sample(EventKind.SCHEDULER_EXCEPTION, contains="Scheduler hit an exception"))
        self.say('  File "/sglang/srt/managers/scheduler.py", line 3918, in run_scheduler_process')
        self.say("    scheduler = Scheduler(")
        self.say(exc)
        self.say("")
        self.say(sample(EventKind.SIGQUIT, contains="child process"))
        return 1

    def run(self, mode: str, failure: str | None) -> int:
        if mode == "exit":
            return 0
        if mode == "silent":
            time.sleep(self.hold)
            return 0
        if mode == "crash" and failure not in FAILURES:
            sys.stderr.write(f"fake server: unknown failure {failure!r}\n")
            return 3
        where = FAILURES[failure or ""][0] if mode == "crash" else ""
        K = EventKind
        if where == "at_once":
            self.say(sample(K.ARGPARSE_USAGE, form="plain", contains="launch_server.py"))
            self.say(sample(K.ARGPARSE_ERROR, form="plain", contains="unrecognized arguments"))
            return 2
        self.say(sample(K.ARGS_ADJUSTED, contains="Max running requests is reset"))
        self.say(banner(self.argv))
        self.say(sample(K.DIST_INIT_BEGIN))
        if where == "in_dist":
            return self.crash(failure or "")
        self.say(sample(K.DIST_INIT_END, contains="elapsed="))
        self.say(sample(K.LOAD_WEIGHT_BEGIN))
        if self.slow:
            time.sleep(self.slow)
        bar = _weights_bar()
        for done in range(3):
            self.say("\r" + _BAR.sub(f"{done * 50}% Completed | {done}/2", bar), end="")
        self.say("")
        self.say(sample(K.LOAD_WEIGHT_END, contains="mem usage="))
        if where == "after_weights":
            return self.crash(failure or "")
        self.say(sample(K.KV_CACHE_ALLOCATED, contains="#tokens"))
        self.say(sample(K.MAMBA_CACHE_ALLOCATED, contains="max_mamba_cache_size"))
        if where == "after_kv":
            return self.crash(failure or "")
        self.say(sample(K.MEMORY_POOL_END))
        self.say(sample(K.TOKEN_SUMMARY))
        self.say(sample(K.CUDA_GRAPH_BEGIN, contains="avail mem"))
        if where == "in_graphs":
            return self.crash(failure or "")
        self.say(sample(K.CUDA_GRAPH_END, contains="avail mem"))
        if where == "after_graphs":
            return self.crash(failure or "")
        self.say(sample(K.UVICORN_STARTED))
        self.say(sample(K.UVICORN_RUNNING))
        self.say(sample(K.SERVER_READY))
        time.sleep(self.hold)
        return 0


def _weights_bar() -> str:
    for spec in SPECS:
        if spec.kind is EventKind.WEIGHT_PROGRESS:
            for smp in spec.samples:
                if "safetensors" in smp.line and _BAR.search(smp.line):
                    return smp.line
    raise LookupError("no safetensors shard bar among the catalog samples")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    mode = os.environ.get("LOGSCOPE_FAKE_MODE", "ready")
    failure = os.environ.get("LOGSCOPE_FAKE_FAILURE")
    return Server(args).run(mode, failure)


if __name__ == "__main__":
    sys.exit(main())
