"""Hold GPU memory like a leftover server would: allocate N GiB with torch on one GPU and keep it.

    python tests/gpu/holder.py --gib 20 --device 0 --ready /tmp/holder.ready [--title NAME]

Writes ``--ready`` (a JSON line: pid, device, bytes held, free/total after allocating) once the
memory is held, then sleeps until SIGTERM / SIGINT. ``--title`` renames the process (its
``/proc/PID/comm``, 15 bytes at most) the way SGLang's ``setproctitle`` names its schedulers; run
it with ``argv[0]`` set to the same title (``subprocess.Popen([title, ...], executable=python)``)
to imitate a leftover ``sglang::scheduler_TP0`` in ``/proc/PID/cmdline`` too.

It uses plain device allocations (cudaMalloc through torch's allocator), never managed memory.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

GIB = 1024**3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gib", type=float, required=True, help="GiB to allocate and hold")
    parser.add_argument("--device", type=int, default=0, help="CUDA ordinal (default 0)")
    parser.add_argument("--ready", type=Path, required=True, help="file written once held")
    parser.add_argument("--title", default=None, help="process name (/proc/PID/comm)")
    parser.add_argument("--seconds", type=float, default=600.0, help="give up after (default 600)")
    args = parser.parse_args(argv)

    if args.title:
        try:
            Path("/proc/self/comm").write_text(args.title[:15])
        except OSError as exc:
            print(f"holder: could not set title: {exc}", file=sys.stderr)

    import torch

    stop = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    device = torch.device("cuda", args.device)
    nbytes = int(args.gib * GIB)
    block = torch.empty(nbytes, dtype=torch.uint8, device=device)
    block.fill_(1)  # touch it: the memory is really used
    torch.cuda.synchronize(device)
    free, total = torch.cuda.mem_get_info(device)
    info = {
        "pid": os.getpid(),
        "device": args.device,
        "bytes": nbytes,
        "free": free,
        "total": total,
    }
    tmp = args.ready.with_suffix(".tmp")
    tmp.write_text(json.dumps(info) + "\n")
    tmp.replace(args.ready)
    deadline = time.monotonic() + args.seconds
    while not stop and time.monotonic() < deadline:
        time.sleep(0.1)
    del block
    return 0


if __name__ == "__main__":
    sys.exit(main())
