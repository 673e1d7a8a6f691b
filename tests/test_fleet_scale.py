"""Issue 30's fleet at scale: grouping looks launches up by their keys (linear in the files,
where trying every group in turn was quadratic: 4.4 s for 800 files), with the same launches,
evidence and notes as trying every group and every pair in turn; a fleet task carries a batch
of files, and a file's runs travel without their events, to the same fleet table."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.log import launches as L
from sglang_logscope.log.fleet import (
    FLEET_KINDS,
    MAX_BATCH,
    MIN_BATCH,
    TASKS_PER_THREAD,
    FleetItem,
    FleetTable,
    batch_size,
    batch_sizes,
    fleet_batch,
    fleet_item,
    fleet_items,
    fleet_table,
)
from sglang_logscope.log.launches import Launch, group_launches, header_runs
from sglang_logscope.log.listing import expand_sources
from sglang_logscope.log.reader import iter_runs
from sglang_logscope.log.runs import Run

ROOT = Path(__file__).resolve().parent.parent
LOGS = expand_sources([str(ROOT / "fixtures" / "launches")], recursive=True)
RUNS = [r for p in LOGS for r in header_runs(p) if r.server_args]


def _mark_older_pairwise(launches: list[Launch]) -> tuple[Launch, ...]:
    """The older-launch note as it was found before (every pair of launches in turn)."""
    out = []
    for i, launch in enumerate(launches):
        later = [
            j
            for j, other in enumerate(launches)
            if j != i
            and L._cluster_keys(launch) & L._cluster_keys(other)
            and L._before(launch, other)
        ]
        if later:
            note = (
                f"an older launch of the same cluster as launch {later[0]}: its runs ended "
                f"({L._iso(launch.ended_at)}) before that one started"
            )
            launch = Launch(launch.members, launch.evidence, (*launch.notes, note))
        out.append(launch)
    return tuple(out)


def _pairwise(files: list[tuple[str, tuple[Run, ...]]]) -> list[dict[str, Any]]:
    """group_launches with one key for every member (so every group is tried in turn) and
    the older-launch note found pair by pair: the grouping before keys."""
    with (
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setattr(L, "_key", lambda args, keys: 0)
        patch.setattr(L, "_mark_older", _mark_older_pairwise)
        return [x.to_dict() for x in group_launches(files)]


def _variant(run: Run, how: dict[str, Any], hours: int) -> Run:
    args = {**(run.server_args or {}), **how}
    shift = timedelta(hours=hours)
    return replace(
        run,
        server_args=args,
        started_at=run.started_at + shift if run.started_at else None,
        ended_at=run.ended_at + shift if run.ended_at else None,
    )


VARIANT = st.fixed_dictionaries(
    {},
    optional={
        "dist_init_addr": st.sampled_from(["10.0.0.1:5000", "10.0.0.2:5000"]),
        "node_rank": st.integers(0, 2),
        "nnodes": st.sampled_from([1, 2, 3]),
        "model_path": st.sampled_from(["m/a", "m/b"]),
        "disaggregation_mode": st.sampled_from(["prefill", "decode", "null"]),
        "tp_size": st.sampled_from([1, 8, [8]]),  # a list: a value that cannot be hashed
    },
)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(RUNS) - 1), VARIANT, st.sampled_from([0, 0, 1, 30])),
        min_size=1,
        max_size=14,
    )
)
def test_grouping_by_keys_is_grouping_by_trying_every_group(
    picks: list[tuple[int, dict[str, Any], int]],
) -> None:
    files = [(f"f{i}.log", (_variant(RUNS[n], how, h),)) for i, (n, how, h) in enumerate(picks)]
    assert [x.to_dict() for x in group_launches(files)] == _pairwise(files)


def test_the_fixture_launches_group_as_pair_by_pair() -> None:
    files = [(p, header_runs(p)) for p in LOGS]
    got = [x.to_dict() for x in group_launches(files)]
    assert got == _pairwise(files)
    assert any(len(x["files"]) > 1 for x in got) and any(x["notes"] for x in got)


def test_a_fleet_task_reads_its_batch_in_order() -> None:
    assert [i.source for i in fleet_items(LOGS)] == [fleet_item(p).source for p in LOGS]


def test_a_dask_task_sends_its_batch_as_one_object_of_the_same_items() -> None:
    assert fleet_batch(LOGS).items == tuple(fleet_items(LOGS))


def test_batches_aim_at_several_tasks_a_thread_and_stay_bounded() -> None:
    assert batch_size(10, 16) == 1  # few files: one a task, as before
    assert batch_size(10_000, 16) == MAX_BATCH
    assert batch_size(2_000, 16) == 2_000 // (16 * TASKS_PER_THREAD)
    assert batch_size(0, 0) == 1


@pytest.mark.parametrize(
    ("files", "threads", "largest"), [(10_000, 16, 128), (10, 16, 1), (7, 2, 3)]
)
def test_batches_shrink_toward_the_end_and_cover_every_file(
    files: int, threads: int, largest: int
) -> None:
    sizes = batch_sizes(files, threads, largest)
    assert sum(sizes) == files and sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= largest and (sizes[0] == largest or files < largest)
    assert all(s >= min(MIN_BATCH, largest) for s in sizes[:-1])
    if files == 10_000:  # the last tasks a fraction of the first
        assert all(s <= MIN_BATCH for s in sizes[-threads:])
    assert batch_sizes(0, threads, largest) == []


def test_the_table_made_as_items_arrive_in_any_order_is_the_same() -> None:
    items = [fleet_item(p) for p in LOGS]
    table = FleetTable()
    for item in reversed(items):  # Dask's items come as their tasks complete
        table.add(item)
    assert table.rows() == fleet_table(items)


def test_runs_travel_without_events_to_the_same_table() -> None:
    lean = [fleet_item(p) for p in LOGS]
    full = [FleetItem(p, None, tuple(iter_runs(p, FLEET_KINDS, helper=False))) for p in LOGS]
    assert all(r.events == () for i in lean for r in i.runs)
    assert any(r.events for i in full for r in i.runs)
    assert fleet_table(lean) == fleet_table(full)
    for a, b in zip(lean, full, strict=True):
        assert [r.sglang_release for r in a.runs] == [r.sglang_release for r in b.runs]
