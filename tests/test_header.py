"""Every header format SGLang (and the tools around it) print, split into time/rank/level/message."""

from __future__ import annotations

import io
from datetime import datetime

import pytest

from sglang_logscope.events import EventKind, Rank
from sglang_logscope.parse.header import parse_rank, parse_timestamp, split_header
from sglang_logscope.parse.lines import iter_events

MSG = "Load weight begin. avail mem=78.12 GB"


@pytest.mark.parametrize(
    ("line", "timestamp", "rank"),
    [
        (f"[2024-12-03 14:05:31 TP0] {MSG}", datetime(2024, 12, 3, 14, 5, 31), "TP0"),
        (f"[2025-10-06 14:05:31] {MSG}", datetime(2025, 10, 6, 14, 5, 31), None),
        (f"[2026-02-23 14:05:31.042 TP2] {MSG}", datetime(2026, 2, 23, 14, 5, 31, 42000), "TP2"),
        (f"[14:05:31 TP0] {MSG}", datetime(1900, 1, 1, 14, 5, 31), "TP0"),
        (f"[2025-10-06 14:05:31 DP0 TP1] {MSG}", datetime(2025, 10, 6, 14, 5, 31), "DP0 TP1"),
        (
            f"[2026-02-23 14:05:31 DP0 PP1 TP3 EP3] {MSG}",
            datetime(2026, 2, 23, 14, 5, 31),
            "DP0 PP1 TP3 EP3",
        ),
        (
            f"[2025-10-06 14:05:31 DP0 TP3 EP3 PP1] {MSG}",
            datetime(2025, 10, 6, 14, 5, 31),
            "DP0 TP3 EP3 PP1",
        ),
        (
            f"[2026-02-23 14:05:31 DP1 ATTN_CP1 MOE_DP0 TP2 EP2] {MSG}",
            datetime(2026, 2, 23, 14, 5, 31),
            "DP1 ATTN_CP1 MOE_DP0 TP2 EP2",
        ),
        (f"[2024-11-22 14:05:31 DP-1 TP0] {MSG}", datetime(2024, 11, 22, 14, 5, 31), "DP-1 TP0"),
        (
            f"[2026-07-10 14:05:31 encode_dp_worker[3]] {MSG}",
            datetime(2026, 7, 10, 14, 5, 31),
            "encode_dp_worker[3]",
        ),
        (f"[gpu_id=0] {MSG}", None, "TP0"),
        (f"[gpu=3] {MSG}", None, "TP3"),
        (f"sglang-1  | [2025-10-06 14:05:31 TP0] {MSG}", datetime(2025, 10, 6, 14, 5, 31), "TP0"),
        (
            f"2025-02-04 21:29:17 [2025-02-04 05:29:17 TP0] {MSG}",
            datetime(2025, 2, 4, 5, 29, 17),
            "TP0",
        ),
        (
            f"2025-02-04T21:29:17.123456789Z [2025-02-04 05:29:17] {MSG}",
            datetime(2025, 2, 4, 5, 29, 17),
            None,
        ),
        (
            f"(Scheduler pid=1234, ip=10.0.0.5) [2025-10-06 14:05:31 TP0] {MSG}",
            datetime(2025, 10, 6, 14, 5, 31),
            "TP0",
        ),
        (
            f"2025-03-07 23:50:27,727 - __main__ - INFO - [2025-03-07 23:50:27 TP0] {MSG}",
            datetime(2025, 3, 7, 23, 50, 27),
            "TP0",
        ),
        (f" [2026-06-15 13:26:40 TP0] {MSG}", datetime(2026, 6, 15, 13, 26, 40), "TP0"),
        (f"[10-06 14:05:31 TP0] {MSG}", datetime(1900, 10, 6, 14, 5, 31), "TP0"),
        (
            f"Multi-thread loading shards:   0% Completed | 0/1 [00:00<?, ?it/s][2026-05-25 17:42:26 TP0] {MSG}",
            datetime(2026, 5, 25, 17, 42, 26),
            "TP0",
        ),
    ],
)
def test_header_forms(line: str, timestamp: datetime | None, rank: str | None) -> None:
    header = split_header(line)
    assert header.headed
    assert header.timestamp == timestamp
    assert (header.rank.label if header.rank else None) == rank
    assert header.message == MSG
    event = next(iter_events(io.StringIO(line + "\n")))
    assert event.kind is EventKind.LOAD_WEIGHT_BEGIN
    assert event.fields["avail_gib"] == 78.12


def test_level_and_source_form() -> None:
    line = "[2026-05-09 09:17:42] WARNING server_args.py:1761: Disabling radix cache since speculative decoding for X is not supported with radix cache yet."
    header = split_header(line)
    assert (header.level, header.source, header.rank) == ("WARNING", "server_args.py:1761", None)
    assert header.message.startswith("Disabling radix cache")
    ranked = split_header("[2026-05-09 09:17:42 TP1] ERROR scheduler.py:3000: boom")
    assert (ranked.level, ranked.source, ranked.rank) == (
        "ERROR",
        "scheduler.py:3000",
        Rank("TP1", tp=1),
    )
    assert ranked.message == "boom"


def test_uvicorn_lines() -> None:
    header = split_header(
        "[2025-10-06 12:00:21] INFO:     Uvicorn running on http://127.0.0.1:30000"
    )
    assert (header.level, header.message) == ("INFO", "Uvicorn running on http://127.0.0.1:30000")
    bare = split_header(
        "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use"
    )
    assert bare.headed and bare.level == "ERROR" and bare.message.startswith("[Errno 98]")
    event = next(iter_events(io.StringIO(bare.message + "\n")))
    assert event.kind is EventKind.PORT_IN_USE


def test_python_default_logging_format() -> None:
    header = split_header(
        "WARNING:sglang.srt.server_args:Overlap scheduler is disabled for embedding models."
    )
    assert header.headed and header.level == "WARNING" and header.source == "sglang.srt.server_args"
    assert header.message == "Overlap scheduler is disabled for embedding models."


def test_compose_prefix_on_continuation_lines() -> None:
    text = (
        "sglang-1  | [2025-11-05 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        'sglang-1  |   File "/x/memory_pool.py", line 600, in _create_buffers\n'
        "sglang-1  |     torch.zeros(\n"
        "sglang-1  | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 23.52 GiB of which 13.00 MiB is free.\n"
    )
    events = list(iter_events(io.StringIO(text)))
    assert len(events) == 1
    assert events[0].kind is EventKind.CUDA_OOM and (events[0].line, events[0].end_line) == (1, 4)
    assert events[0].fields["exc_type"] == "torch.OutOfMemoryError"
    assert (
        split_header("qwen3-next-80b-a3b |+ python -m sglang.launch_server").message
        == "+ python -m sglang.launch_server"
    )


def test_headless_and_continuation_lines() -> None:
    for line in (
        "",
        "plain text",
        '  File "x.py", line 1, in f',
        "100%|██████████| 4/4 [00:01<00:00,  3.10it/s]",
        "[Gloo] Rank 0 is connected",
    ):
        header = split_header(line)
        assert not header.headed and header.message == line and header.timestamp is None


def test_tqdm_redraws_keep_the_last_frame() -> None:
    line = "Capturing batches (bs=4 avail_mem=2.41 GB):  50%|█| 2/4\rCapturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4\r"
    events = list(iter_events(io.StringIO(line + "\n")))
    assert len(events) == 1 and events[0].kind is EventKind.CUDA_GRAPH_PROGRESS
    assert events[0].fields == {"bs": 1, "avail_gib": 2.39}
    assert "\r" in events[0].text


def test_malformed_stamps_are_not_dates() -> None:
    assert parse_timestamp("2026-13-45 99:99:99") is None
    assert not split_header("[2025-07-02 07:41:").headed


def test_parse_rank_any_order_and_subset() -> None:
    rank = parse_rank("EP3 TP3 PP1 DP0")
    assert (rank.dp, rank.pp, rank.tp, rank.ep) == (0, 1, 3, 3)
    rank = parse_rank("DP-1 TP0")
    assert (rank.dp, rank.tp) == (-1, 0)
    rank = parse_rank("ATTN_CP1 MOE_DP2 TP4")
    assert (rank.attn_cp, rank.moe_dp, rank.tp) == (1, 2, 4)
    assert str(parse_rank("TP7")) == "TP7"
