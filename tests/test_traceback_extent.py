"""Issue 17: a traceback block ends where the traceback ends — its exception line (with the
lines its message runs over), chains joined — never at the end of the file, never over the
next record. On every real fixture log with a traceback, and as a property."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sglang_logscope.events import Event, EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.parse.extent import exception_line, foreign_record
from sglang_logscope.parse.header import split_header
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.watch.follow import EventStream

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = FIXTURES / "real"
TRACEBACKS = FIXTURES / "tracebacks"
WITH_TRACEBACK = sorted(
    p
    for p in [*REAL.glob("*/server.log"), *TRACEBACKS.glob("*.log")]
    if "Traceback (most recent call last)" in p.read_text(encoding="utf-8", errors="replace")
)


def _blocks(path: Path) -> list[Event]:
    return [e for e in iter_events(path) if e.end_line > e.line and "Traceback" in e.text]


def _extents(path: Path) -> list[tuple[int, int]]:
    return [(e.line, e.end_line) for e in _blocks(path)]


def test_the_real_logs_with_a_traceback_are_all_here() -> None:
    """19 corpus logs in fixtures/real print a traceback, plus the two of fixtures/tracebacks."""
    assert len(WITH_TRACEBACK) == 21


@pytest.mark.parametrize("path", WITH_TRACEBACK, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_real_traceback_block_holds_no_other_record(path: Path) -> None:
    """In every real log with a traceback: a block's lines after its first are never headed,
    never another program's record, never a second traceback that no chain line joins; it
    ends on text, not on the blank line after it; where it has an exception line, nothing
    after that but the lines its message runs over."""
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    for block in _blocks(path):
        body = lines[block.line - 1 : block.end_line]
        assert body[-1].strip(), (path, block.line)
        for n, text in enumerate(body[1:], block.line + 1):
            assert not split_header(text).headed, (path, n)
            assert not foreign_record(text), (path, n)
        heads = [i for i, t in enumerate(body) if "Traceback (most recent call last)" in t]
        for i in heads[1:]:
            before = [t for t in body[:i] if t.strip()]
            assert before[-1].startswith(("During handling", "The above exception")), (path, i)


def test_a_traceback_cut_short_ends_before_the_next_command() -> None:
    """fixtures/real/003: a pasted scheduler traceback cut mid-frame, then a blank line, the
    next launch command and vLLM's platform line: the block is the 7 traceback lines only."""
    path = REAL / "003" / "server.log"
    assert _extents(path) == [(1, 7)]
    kinds = {e.line: e.kind for e in iter_events(path)}
    assert kinds[9] is EventKind.TEXT and kinds[10] is EventKind.TEXT  # the command, vLLM
    assert kinds[11] is EventKind.SERVER_ARGS


def test_a_traceback_followed_by_server_lines() -> None:
    """fixtures/real/065 (RDNA4, 2 ranks): TP1's CUDA OOM traceback ends on its
    ``torch.OutOfMemoryError`` line; the main process's sigquit line after it is its own."""
    path = REAL / "065" / "server.log"
    (block,) = _blocks(path)
    assert (block.line, block.end_line) == (38, 98)
    assert block.kind is EventKind.CUDA_OOM
    assert block.text.split("\n")[-1].startswith("torch.OutOfMemoryError: CUDA out of memory.")
    after = [e for e in iter_events(path) if e.line > block.end_line and e.message.strip()]
    assert after[0].message.startswith("Received sigquit from a child process")


def test_tracebacks_of_two_ranks_one_after_the_other() -> None:
    """fixtures/real/007 (TP7 then TP0, both 'Scheduler hit an exception'): two blocks, the
    second cut short by the paste."""
    assert _extents(REAL / "007" / "server.log") == [(1, 13), (15, 22)]


def test_four_ranks_then_the_main_process() -> None:
    """fixtures/tracebacks/dsv4_mi300x_ranks.log (sgl-project/sglang#25118, dp 4): the four
    schedulers' tracebacks, PyTorch's ``[rank0]:[W513 ...]`` warning and the main process's
    chained ``EOFError`` → ``RuntimeError: Rank 0 scheduler died`` traceback are 6 records;
    the warning belongs to no traceback."""
    path = TRACEBACKS / "dsv4_mi300x_ranks.log"
    blocks = _blocks(path)
    assert [(b.line, b.end_line) for b in blocks] == [
        (10, 43),
        (45, 78),
        (80, 113),
        (115, 148),
        (151, 181),
    ]
    assert [b.rank.tp if b.rank else None for b in blocks] == [3, 0, 1, 2, None]
    assert {b.fields["exc_type"] for b in blocks[:4]} == {"AssertionError"}
    assert blocks[4].kind is EventKind.SCHEDULER_DEAD
    assert blocks[4].fields["exceptions"][0] == "EOFError: "
    warning = next(e for e in iter_events(path) if e.line == 150)
    assert warning.kind is EventKind.TEXT and warning.message.startswith("[rank0]:[W513")
    run = read_log(path).runs[-1]
    assert run.failure is not None


def test_a_chain_and_an_exception_message_over_a_blank_line() -> None:
    """fixtures/tracebacks/glm5_mi355x_chained.log: ``KeyError`` → ``During handling ...`` →
    ``ValueError: The checkpoint ... model type `glm_moe_dsa` ...`` whose text goes on after
    a blank line (``You can update Transformers ...``): one block, lines 3-46."""
    path = TRACEBACKS / "glm5_mi355x_chained.log"
    (block,) = _blocks(path)
    assert (block.line, block.end_line) == (3, 46)
    assert block.fields["exc_type"] == "ValueError"
    assert block.fields["exceptions"][0] == "KeyError: 'glm_moe_dsa'"
    assert block.text.split("\n")[-1].startswith("You can update Transformers")


def test_a_second_traceback_without_a_chain_line_is_a_record_of_its_own() -> None:
    """Two processes' tracebacks one after the other, a blank line between and no chain
    line (synthetic): two events, not one."""
    one = (
        'Traceback (most recent call last):\n  File "/x/a.py", line 1, in f\n    g()\nKeyError: 1\n'
    )
    events = list(iter_events(io.StringIO(one + "\n" + one)))
    assert [(e.kind, e.line, e.end_line) for e in events] == [
        (EventKind.EXCEPTION, 1, 4),
        (EventKind.TEXT, 5, 5),
        (EventKind.EXCEPTION, 6, 9),
    ]


def test_exception_lines() -> None:
    assert exception_line("KeyError: 'glm_moe_dsa'") == ("KeyError", "'glm_moe_dsa'")
    assert exception_line("AssertionError") == ("AssertionError", "")
    assert exception_line("torch.OutOfMemoryError: CUDA out of memory.") is not None
    for other in ("python3 -m sglang.launch_server", "s", "    raise X", "", "During handling"):
        assert exception_line(other) is None


#: Real pieces to splice (lines of the fixtures above), headed and not.
PIECES = [
    "[2026-05-13 02:15:18 DP3 TP3] Scheduler hit an exception: Traceback (most recent call last):",
    "[2026-05-25 18:03:34] Received sigquit from a child process. It usually means the child failed.",
    "[2025-03-29 18:12:40 TP0] Load weight begin. avail mem=31.42 GB",
    "[2026-02-26 04:55:25] INFO core.py:501: import [module_aiter_enum] under /x.so",
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3958, in f',
    "    scheduler = Scheduler(",
    "           ^^^^^^^^^^^^^^^^^^^^^",
    "AssertionError",
    "KeyError: 'glm_moe_dsa'",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 384.00 MiB.",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
    "You can update Transformers with the command `pip install --upgrade transformers`.",
    "[rank0]:[W513 02:15:19.747860733 ProcessGroupNCCL.cpp:1524] Warning: WARNING: x",
    "INFO 03-29 18:12:39 __init__.py:190] Automatically detected platform cuda.",
    "python3 -m sglang.launch_server --model-path /m --port 30000",
    "(WorkerDict pid=26103) ",
    "(WorkerDict pid=26106) ",
    "",
]
LINE = st.lists(st.sampled_from(PIECES) | st.text(max_size=30), min_size=1, max_size=2).map("".join)
DOCUMENT = st.lists(LINE, max_size=40).map("\n".join)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENT)
def test_an_extent_never_crosses_a_headed_sglang_line(text: str) -> None:
    """Never raises; every line in one event; no multi-line event holds, after its first
    line, a line the header parser reads as a headed SGLang line; no block ends on a blank."""
    data = text.encode("utf-8", "surrogatepass")
    events = list(iter_events(io.BytesIO(data)))
    covered = [n for e in events for n in range(e.line, e.end_line + 1)]
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    assert covered == list(range(1, n_lines + 1))
    for e in events:
        if e.end_line > e.line:
            inner = e.text.split("\n")[1:]
            assert not any(split_header(line).headed for line in inner)
            if "Traceback" in e.text:
                assert e.text.split("\n")[-1].strip()


def test_a_chain_after_blank_lines_still_joins_when_followed_live() -> None:
    """``watch`` parses as lines arrive: a traceback and the blank line after it are not final
    while a chain line may still come; when it comes, one record (the GLM-5 log fed line by
    line)."""
    lines = (TRACEBACKS / "glm5_mi355x_chained.log").read_bytes().split(b"\n")[:-1]
    stream = EventStream()
    final = [e for line in lines for e in stream.feed([line])]
    assert stream.provisional is not None
    blocks = [e for e in [*final, stream.provisional] if "Traceback" in e.text]
    assert [(b.line, b.end_line) for b in blocks] == [(3, 46)]


RAY = (
    "(WorkerDict pid=26103) [2025-11-20 01:13:05 TP1] Scheduler hit an exception: "
    "Traceback (most recent call last):\n"
    '(WorkerDict pid=26103)   File "/env/site-packages/sglang/srt/managers/scheduler.py", '
    "line 2534, in run_scheduler_process\n"
    "(WorkerDict pid=26103)     scheduler = Scheduler(\n"
    "(WorkerDict pid=26103) RuntimeError: nonce == returnedNonce INTERNAL ASSERT FAILED\n"
    "(WorkerDict pid=26103) \n"
    "(WorkerDict pid=26106) [rank3]:[W1120 01:13:20.886572352 TCPStore.cpp:125] [c10d] "
    "recvValue failed\n"
    "(WorkerDict pid=26106) Exception raised from recvBytes at Utils.hpp:675 "
    "(most recent call first):\n"
)


def test_ray_actors_interleaved_in_one_file() -> None:
    """Ray prefixes every line of an actor (``(WorkerDict pid=N) ``; the shape of a public
    verl + SGLang log, synthetic here): a traceback's lines are those of its own actor,
    read after the prefix (its exception line names it); another actor's line ends it."""
    events = list(iter_events(io.StringIO(RAY)))
    assert [(e.line, e.end_line) for e in events][:2] == [(1, 4), (5, 5)]
    assert events[0].fields["exc_type"] == "RuntimeError"
    assert all(e.end_line == e.line for e in events[1:])


def test_a_redrawn_line_that_was_headed_ends_the_traceback() -> None:
    """Found by the property above: a headed line whose last redraw (after ``\\r``) is a bare
    ``0`` was taken into the traceback before it."""
    head = "[2026-05-13 02:15:18 DP3 TP3] Scheduler hit an exception: Traceback (most recent call last):"
    events = list(iter_events(io.BytesIO(f"{head}\n{head}\r0".encode())))
    assert [(e.line, max(e.end_line, e.line)) for e in events] == [(1, 1), (2, 2)]
