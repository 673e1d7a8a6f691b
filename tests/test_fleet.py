"""Fleets of logs (issue #16): the documented Dask recipe on a real LocalCluster equals
``logscope summary -f json`` over the same files, and ``summarize_files`` works inside a
(daemonic) worker. The code run here is the recipe in docs/performance.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sglang_logscope._text import to_json

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))


def _recipe() -> str:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- fleet-recipe -->\n```python\n", 1)[1]
    return block.split("```", 1)[0]


def test_dask_local_cluster_equals_the_cli() -> None:
    pytest.importorskip("distributed")
    paths = [str(p) for p in REAL[::4]] + [str(ROOT / "fixtures" / "demo" / "sglang-serve.log")]
    scope: dict[str, Any] = {"paths": paths}
    exec(compile(_recipe(), str(DOC), "exec"), scope)  # the documented code, as written
    cli = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", "summary", "-f", "json", *paths],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [json.loads(line) for line in cli.stdout.splitlines()]
    assert len(expected) == len(paths) > 10
    assert json.loads(to_json(scope["summaries"])) == expected
    assert json.loads(to_json(scope["in_one_worker"])) == expected


def test_summarize_files_in_a_daemonic_process_starts_no_pool() -> None:
    """What a Dask or multiprocessing worker is: before, "daemonic processes are not allowed
    to have children"."""
    import multiprocessing

    from sglang_logscope.log.reader import summarize_files

    paths = [str(p) for p in REAL[:3]]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:  # pool workers are daemonic
        inside = pool.apply(summarize_files, (paths,))
    assert json.loads(to_json(inside)) == json.loads(to_json(summarize_files(paths, workers=1)))


def test_a_pool_started_beside_another_thread_does_not_fork_it() -> None:
    """A fork while another thread runs (a progress line, the caller's server) can deadlock
    the child: then the workers come from a fork server, with the same summaries."""
    import threading

    from sglang_logscope.log import reader
    from sglang_logscope.parse.split import process_threads

    paths = [str(p) for p in REAL[:3]]
    threads = process_threads(threading.active_count())  # (xdist's worker has threads)
    alone = reader._pool_context().get_start_method()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        beside = reader._pool_context().get_start_method()
        summaries = reader.summarize_files(paths, workers=2)
    finally:
        stop.set()
        other.join()
    assert beside == "forkserver"
    assert alone == ("fork" if threads == 1 else "forkserver")
    one = reader.summarize_files(paths, workers=1)
    assert json.loads(to_json(summaries)) == json.loads(to_json(one))


def test_a_thread_threading_does_not_see_stops_the_fork_too() -> None:
    """A thread started through ``_thread`` (execnet's, a C extension's) is not in
    ``threading.active_count()``: the kernel's count is read, so no fork beside it (Python
    3.13 warned 'This process is multi-threaded, use of fork() may lead to deadlocks')."""
    import _thread
    import threading

    from sglang_logscope.log import reader

    if not os.path.isdir("/proc/self/task"):
        pytest.skip("no /proc/self/task to count threads by")
    hold, started = threading.Lock(), threading.Event()
    hold.acquire()

    def wait() -> None:
        started.set()
        with hold:
            pass

    _thread.start_new_thread(wait, ())
    try:
        started.wait()
        assert reader._pool_context().get_start_method() != "fork"
    finally:
        hold.release()
