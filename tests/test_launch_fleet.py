"""Fleets on a real engine (issue 30, item 4): ``summary s3://bucket/prefix/ --recursive
--dask ADDRESS`` lists the objects through fsspec and reads them on a Dask ``LocalCluster``,
one task per file, over moto's S3 server on 127.0.0.1 (no credential look-up leaves the
machine: ``AWS_EC2_METADATA_DISABLED=true``); the fleet table in JSON and Parquet."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import run_captured as _run
from stand_ins import moto_s3

from sglang_logscope.errors import LogscopeError
from sglang_logscope.log.fleet import (
    FLEET_COLUMNS,
    MAX_BATCH,
    fleet_item,
    fleet_table,
    read_fleet,
)
from sglang_logscope.log.listing import expand_sources
from sglang_logscope.log.reader import summarize_source

ROOT = Path(__file__).resolve().parent.parent
LAUNCHES = ROOT / "fixtures" / "launches"
LOGS = expand_sources([str(LAUNCHES)], recursive=True)
#: the two decode nodes of the PD set
DECODE_NODES = [str(LAUNCHES / "real-pd-2x2" / f"decode-node{n}.log") for n in (0, 1)]
BUCKET = "fleet-logs"


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    """moto's S3 server on 127.0.0.1 holding the launch fixtures under ``fleet-logs/``
    (one level down for the PD set); the environment points boto/s3fs at it."""
    objects = {}
    for path in LOGS:
        rel = Path(path).relative_to(LAUNCHES)
        key = rel.name if rel.parent.name == "two-node-oom" else str(rel)
        objects[key] = Path(path).read_bytes()
    objects["notes.txt"] = b"not a log\n"
    with moto_s3(BUCKET, objects):
        yield f"s3://{BUCKET}/"


@pytest.fixture(scope="module")
def cluster(s3: str) -> Iterator[str]:
    """A LocalCluster of two worker processes started after the S3 environment is set (the
    workers inherit it); yields the scheduler's address."""
    distributed = pytest.importorskip("distributed", reason="dev dependency dask[distributed]")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, dashboard_address=None, processes=True
    ) as made:
        yield made.scheduler_address


def test_a_url_prefix_lists_its_objects(s3: str) -> None:
    top = expand_sources([s3])
    assert [u.rsplit("/", 1)[1] for u in top] == [
        "node0.log",
        "node1-old.log",
        "node1.log",
        "notes.txt",
    ]
    deep = expand_sources([s3], recursive=True)
    below = [p for p in LOGS if Path(p).parent.name != "two-node-oom"]  # one level down
    assert len(deep) == len(top) + len(below) == len(top) + 6  # real-pd-2x2 and pd-serving
    assert all(u.startswith(s3) for u in deep)
    assert expand_sources([f"{s3}node1*"]) == [f"{s3}node1-old.log", f"{s3}node1.log"]


def test_summary_on_dask_over_s3_streams_summaries_then_the_fleet(
    s3: str, cluster: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["summary", "-f", "json", "--dask", cluster, "-r", s3], capsys)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    *summaries, last = lines
    logs = {s["log"] for s in summaries}
    assert len(summaries) == len(LOGS) + 1 == 10  # every log, and notes.txt
    assert f"{s3}notes.txt" in logs  # read: it holds no run
    for s in summaries:  # each the summary this process makes of the same object
        assert s == summarize_source(s["log"])
    fleet = last["fleet"]
    assert [(r["files"], r["outcome"]) for r in fleet][:3] == [
        (4, "starting"),
        (1, "ready"),
        (2, "crashed"),
    ]
    crashed = fleet[2]
    assert crashed["failure_kind"] == "cuda_oom" and crashed["failure_line"] == 4
    assert crashed["failure_file"] == f"{s3}node1.log" and crashed["gpus"] == 16
    assert fleet[0]["gpus"] == 32 and fleet[0]["release"] == "0.5.8-0.5.8.post1"


def test_an_unreadable_member_is_named_and_the_fleet_answered(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "gone.log")
    code, out, err = _run(
        ["summary", "-f", "json", "--dask", cluster, *DECODE_NODES, missing], capsys
    )
    assert code == 0 and err == f"logscope: {missing}: no such file\n"
    *summaries, last = [json.loads(line) for line in out.splitlines()]
    assert len(summaries) == 2 and last["fleet"][0]["roles"] == "decode node0, decode node1"
    code, out, err = _run(["summary", "--dask", cluster, missing], capsys)
    assert code == 2 and err.splitlines()[-1].startswith("logscope: error: no log could be read")


def test_the_fleet_table_as_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow", reason="the [fleet] extra")
    out = tmp_path / "fleet.parquet"
    code, _, err = _run(["summary", "--parquet", str(out), "-r", str(LAUNCHES)], capsys)
    assert code == 0, err
    frame = pd.read_parquet(out)
    assert list(frame.columns) == list(FLEET_COLUMNS)
    want = fleet_table([fleet_item(p) for p in LOGS])
    assert frame.astype(object).where(frame.notna(), None).to_dict("records") == want
    assert str(frame["failure_line"].dtype) == "Int64"


def test_read_fleet_in_this_process_is_lazy_and_keeps_what_it_read() -> None:
    fleet = read_fleet(DECODE_NODES)
    assert fleet.seen == [] and fleet.read == 0
    assert [i.source for i in fleet] == DECODE_NODES
    assert fleet.read == 2 and len(fleet.table()) == 1


@pytest.mark.parametrize("batch", [3, MAX_BATCH])
def test_batched_tasks_on_dask_give_every_file_and_the_same_table(cluster: str, batch: int) -> None:
    fleet = read_fleet(LOGS, cluster, batch=batch)
    items = list(fleet)
    assert sorted(i.source for i in items) == sorted(LOGS)
    assert all(i.error is None for i in items)
    assert fleet.table() == fleet_table([fleet_item(p) for p in LOGS])
    assert {i.source: i.summary for i in items} == {p: fleet_item(p).summary for p in LOGS}


def test_a_batch_is_at_least_one_file(cluster: str) -> None:
    with pytest.raises(LogscopeError, match="at least one file"):
        list(read_fleet(LOGS, cluster, batch=0))
