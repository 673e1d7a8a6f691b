"""Several logs, one launch (issue 30): the runs of many files grouped into launches by the
evidence of their headers, one timeline and one first failure per launch, the others'
watchdog timeouts marked as consequences, a node from an older launch called stale.

Fixtures: ``fixtures/launches/real-pd-2x2`` holds one real node's log of a 4-node PD launch
(decode node 0) and the four real launch commands; its other three logs are synthetic (written
by ``scripts/make_launch_fixtures.py`` from the real one). ``two-node-oom`` is synthetic: no
public set of a failed multi-node launch with every node's log was found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime, timedelta
from itertools import permutations
from pathlib import Path

import pytest
from cli_run import completed
from cli_run import run_captured as _run
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.errors import LogscopeError
from sglang_logscope.log.launches import (
    CONSEQUENCES,
    group_launches,
    header_runs,
    read_launches,
)
from sglang_logscope.log.listing import expand_sources, list_sources
from sglang_logscope.log.runs import Outcome, Run
from sglang_logscope.staleness.launch_check import check_launch, parse_expects
from sglang_logscope.staleness.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
PD = ROOT / "fixtures" / "launches" / "real-pd-2x2"
OOM = ROOT / "fixtures" / "launches" / "two-node-oom"
PD_LOGS = sorted(str(p) for p in PD.glob("*.log"))
OOM_LOGS = [str(OOM / n) for n in ("node0.log", "node1.log", "node1-old.log")]


def test_the_real_pd_launch_is_one_launch_of_four_roles() -> None:
    (launch,) = read_launches(PD_LOGS).launches
    roles = {Path(m.file).name: m.role for m in launch.members}
    assert roles == {
        "prefill-node0.log": "prefill node0",
        "prefill-node1.log": "prefill node1",
        "decode-node0.log": "decode node0",
        "decode-node1.log": "decode node1",
    }
    evidence = "\n".join(launch.evidence)
    assert "prefill: dist_init_addr=10.99.91.39:5000, nnodes=2, node_rank 0, 1" in evidence
    assert "decode: dist_init_addr=10.99.91.49:5000, nnodes=2, node_rank 0, 1" in evidence
    assert "prefill bootstrap 10.99.91.39:8998" in evidence
    assert "disaggregation_mode prefill and decode" in evidence
    assert launch.outcome is Outcome.STARTING and launch.first_failure is None
    assert launch.notes == ()


def test_the_real_node_alone_says_which_nodes_are_missing() -> None:
    (launch,) = read_launches([str(PD / "decode-node0.log")]).launches
    assert launch.notes == ("decode node_rank 1 of nnodes=2: no log given",)


def test_first_failure_is_the_oom_and_the_watchdog_a_consequence() -> None:
    launches = read_launches(OOM_LOGS[:2]).launches
    (launch,) = launches
    first = launch.first_failure
    assert first is not None
    assert (Path(first.file).name, first.line, str(first.time), first.kind) == (
        "node1.log",
        4,
        "2026-03-01 10:02:30",
        "cuda_oom",
    )
    data = launch.to_dict()
    assert data["first_failure"]["consequence"] is None
    (after,) = data["consequences"]
    assert Path(after["file"]).name == "node0.log" and after["kind"] == "nccl_error"
    assert after["consequence"] == "nccl_watchdog_timeout"
    whats = [(Path(t["file"]).name, t["what"]) for t in data["timeline"]]
    assert whats.index(("node1.log", "first failure")) < whats.index(
        ("node0.log", "consequence (nccl_watchdog_timeout)")
    )
    assert launch.outcome is Outcome.CRASHED


def test_the_older_node_log_is_its_own_launch_and_said_older() -> None:
    launches = read_launches(OOM_LOGS).launches
    assert [sorted(Path(f).name for f in x.files) for x in launches] == [
        ["node1-old.log"],
        ["node0.log", "node1.log"],
    ]
    assert any("an older launch of the same cluster as launch 1" in n for n in launches[0].notes)
    assert not any("older" in n for n in launches[1].notes)


def test_logs_of_different_launches_are_never_merged() -> None:
    launches = read_launches(PD_LOGS + OOM_LOGS).launches
    assert len(launches) == 3
    for launch in launches:
        dirs = {Path(f).parent.name for f in launch.files}
        assert len(dirs) == 1, launch.files
        ranks = [(m.mode, m.node_rank) for m in launch.members]
        assert len(ranks) == len(set(ranks))  # a node rank once per role


def test_grouping_does_not_depend_on_the_order_of_the_files() -> None:
    read = [(f, header_runs(f)) for f in PD_LOGS[:2] + OOM_LOGS]
    want = {frozenset(x.files) for x in group_launches(read)}
    for order in permutations(read):
        assert {frozenset(x.files) for x in group_launches(list(order))} == want


def test_a_run_without_header_joins_nothing(tmp_path: Path) -> None:
    bare = tmp_path / "bare.log"
    bare.write_text(
        "[2026-03-01 10:00:05 TP0] Init torch distributed begin.\n"
        "[2026-03-01 10:00:06 TP0] Load weight begin. avail mem=78.38 GB\n",
        encoding="utf-8",
    )
    launches = read_launches([*OOM_LOGS[:2], str(bare)]).launches
    alone = [x for x in launches if x.files == [str(bare)]]
    assert len(launches) == 2 and len(alone) == 1
    assert alone[0].evidence == ("no server_args header: nothing to join it by",)


def test_an_unreadable_member_is_named_and_the_rest_answered(tmp_path: Path) -> None:
    missing = str(tmp_path / "node2.log")
    result = read_launches([*OOM_LOGS[:2], missing])
    assert len(result.launches) == 1
    assert result.to_dict()["unreadable"] == [
        {"file": missing, "error": f"{missing}: no such file"}
    ]
    with pytest.raises(LogscopeError, match="no log could be read"):
        read_launches([missing])


def test_consequence_patterns_match_what_they_name() -> None:
    samples = {
        "nccl_watchdog_timeout": "[Rank 0] Watchdog caught collective operation timeout: W",
        "nccl_remote_error": "NCCL error: ncclRemoteError: A call failed possibly due to a peer",
        "killed_by_sigquit": "Rank 0 scheduler died during initialization (exit code: -3)",
        "peer_closed_connection": "ConnectionResetError: Connection reset by peer",
    }
    assert set(samples) == set(CONSEQUENCES)  # a new pattern needs its sample here
    for name, text in samples.items():
        assert [n for n, p in CONSEQUENCES.items() if p.search(text)] == [name]
    assert not any(p.search("exit code: -30") for p in CONSEQUENCES.values())


@settings(max_examples=examples(40), deadline=None)
@given(st.text(max_size=200))
def test_consequence_patterns_take_any_text(text: str) -> None:
    for pattern in CONSEQUENCES.values():
        pattern.search(text)  # no exception, bounded (no nested quantifiers)


# ------------------------------------------------------------------ sources: dirs, globs


def test_a_directory_names_its_logs_and_not_its_commands(tmp_path: Path) -> None:
    assert expand_sources([str(PD)]) == PD_LOGS  # the .txt commands and meta.json left out
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    shutil.copy(OOM / "node0.log", nested / "node0.log")
    shutil.copy(OOM / "node1.log", tmp_path / "a" / "node1.log.1")
    (tmp_path / "a" / "link.log").symlink_to(OOM / "node1-old.log")
    os.mkfifo(tmp_path / "a" / "pipe.log")  # would block a reader: left out too
    top = str(tmp_path / "a")
    assert expand_sources([top]) == [os.path.join(top, "node1.log.1")]
    assert list_sources([top])[1] == [
        (os.path.join(top, "link.log"), "a symbolic link"),
        (os.path.join(top, "pipe.log"), "a FIFO"),
    ]
    assert list_sources([os.path.join(top, "*")])[1] == list_sources([top])[1]  # not b/
    assert expand_sources([top], recursive=True) == [
        os.path.join(top, "b", "node0.log"),
        os.path.join(top, "node1.log.1"),
    ]


def test_what_a_listing_leaves_out_is_named_and_the_rest_answered(tmp_path: Path) -> None:
    """An entry not read (a link, a FIFO) is named on stderr, not dropped silently."""
    shutil.copy(OOM / "node0.log", tmp_path / "node0.log")
    (tmp_path / "link.log").symlink_to(OOM / "node1.log")
    os.mkfifo(tmp_path / "pipe.log")
    done = completed("summary", str(tmp_path), "-f", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["log"].endswith("node0.log")
    assert done.stderr.count("\n") == 1 and "link.log (a symbolic link)" in done.stderr
    assert "pipe.log (a FIFO)" in done.stderr
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "x.log").symlink_to(OOM / "node1.log")
    done = completed("summary", str(alone))
    assert done.returncode == 2 and "x.log (a symbolic link)" in done.stderr
    assert "no log files found" in done.stderr


def test_a_glob_names_its_files_and_a_plain_name_stays() -> None:
    assert expand_sources([str(OOM / "node1*.log")]) == sorted(OOM_LOGS[1:])
    assert expand_sources(["-", "nope.log"]) == ["-", "nope.log"]


# ------------------------------------------------------------------ check of a launch


def test_check_holds_each_node_to_its_roles_command() -> None:
    specs = [f"{n}={PD / n}.txt" for n in ("prefill-node0", "prefill-node1", "decode-node0")]
    specs.append(f"decode={PD / 'decode-node1.txt'}")
    result = check_launch(PD_LOGS, parse_expects(specs))
    expects = {Path(f.file).stem: Path(f.expect or "").stem for f in result.files}
    assert expects == {n: n for n in expects}
    assert {f.report.verdict for f in result.files} == {Verdict.INCONCLUSIVE}
    # decode node 1 held to node 0's command: its host and node_rank differ
    wrong = check_launch(PD_LOGS[1:2], parse_expects([f"decode={PD / 'decode-node0.txt'}"]))
    assert wrong.files[0].verdict is Verdict.MISMATCH
    assert "node_rank=1 (you: 0)" in wrong.files[0].report.headline


def test_check_calls_the_older_node_log_stale() -> None:
    result = check_launch(OOM_LOGS)
    verdicts = {Path(f.file).name: f.verdict for f in result.files}
    assert verdicts["node1-old.log"] is Verdict.STALE
    assert verdicts["node0.log"] is not Verdict.STALE
    assert result.verdict is Verdict.STALE and result.exit_code == 1


def test_expect_args_roles_are_read_apart_from_plain_files(tmp_path: Path) -> None:
    assert parse_expects(["prefill=p.txt", "Decode-Node1=d.txt"]) == {
        "prefill": "p.txt",
        "decode node1": "d.txt",
    }
    odd = tmp_path / "a=b.txt"
    odd.write_text("python -m sglang.launch_server --model-path m\n", encoding="utf-8")
    assert parse_expects([str(odd)]) == {None: str(odd)}
    with pytest.raises(LogscopeError, match="name the role"):
        parse_expects(["p.txt", "d.txt"])


# ------------------------------------------------------------------ the CLI


def test_cli_summary_launches_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["summary", "--launches", "-f", "json", str(OOM)], capsys)
    assert code == 0
    data = json.loads(out)
    assert [sorted(Path(f).name for f in x["files"]) for x in data["launches"]] == [
        ["node1-old.log"],
        ["node0.log", "node1.log"],
    ]
    launch = data["launches"][1]
    assert set(launch) >= {"files", "evidence", "roles", "outcome", "first_failure"}
    first = launch["first_failure"]
    assert {k: first[k] for k in ("line", "time", "kind")} == {
        "line": 4,
        "time": "2026-03-01 10:02:30",
        "kind": "cuda_oom",
    }
    assert Path(first["file"]).name == "node1.log"


def test_cli_runs_of_a_directory_and_check_with_a_missing_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["runs", str(PD)], capsys)
    assert code == 0 and "prefill node1" in out and "decode node0" in out
    missing = str(tmp_path / "gone.log")
    code, out, err = _run(["check", "-f", "json", *OOM_LOGS, missing], capsys)
    data = json.loads(out)
    assert code == 1 and err == ""
    assert data["unreadable"] == [{"file": missing, "error": f"{missing}: no such file"}]
    assert data["verdict"] == "stale" and len(data["files"]) == 3


def test_cli_nothing_readable_is_exit_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["check", str(tmp_path / "a.log"), str(tmp_path / "b.log")],
        ["summary", "--launches", str(tmp_path / "a.log")],
        ["runs", str(tmp_path / "*.log")],
    ):
        code, _, err = _run(argv, capsys)
        assert code == 2 and err.startswith("logscope: error:") and err.count("\n") == 1, err


def test_cli_summary_of_several_names_the_unreadable_and_answers_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "gone.log")
    outs = {}
    for fmt in ("json", "text"):
        code, out, err = _run(["summary", "-f", fmt, *OOM_LOGS], capsys)
        assert code == 0, err
        argv = ["summary", "-f", fmt, OOM_LOGS[0], missing, *OOM_LOGS[1:]]
        code, outs[fmt], err = _run(argv, capsys)
        assert code == 0 and outs[fmt] == out  # the readable files' output, unchanged
        assert err.count("\n") == 1 and err.startswith(f"logscope: unreadable: {missing}: ")
    lines = [json.loads(line) for line in outs["json"].splitlines()]
    assert [d["log"] for d in lines] == OOM_LOGS  # JSON lines, in input order
    # one readable file of two: still a JSON line, not a document of its own
    code, out, err = _run(["summary", "-f", "json", OOM_LOGS[0], missing], capsys)
    assert code == 0 and json.loads(out)["log"] == OOM_LOGS[0] and out.count("\n") == 1
    code, out, err = _run(["summary", missing, str(tmp_path / "gone2.log")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "gone2.log" in err


# ------------------------------------------------------------------ report of several logs


def test_report_of_several_logs_draws_each_worker_and_escapes_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "<b>odd.log"  # a file name is untrusted text too
    shutil.copy(ROOT / "fixtures" / "real" / "055" / "server.log", odd)
    logs = [str(ROOT / "fixtures" / "real" / "069" / "server.log"), str(odd), OOM_LOGS[0]]
    page = tmp_path / "r.html"
    code, _, err = _run(["report", "--html", str(page), *logs], capsys)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "<b>odd" not in html and "&lt;b&gt;odd.log" in html
    across = html.split("<section id='workers'>")[1].split("</section>")[0]
    assert across.count("<svg") == 2  # tokens and throughput, every worker in each
    titles = re.findall(r"<polyline[^>]*><title>([^<]*)</title>", html)
    assert "server.log TP0" in titles and "&lt;b&gt;odd.log all" in titles
    assert "Launch 2: crashed" in html or "Launch 1: crashed" in html


# ------------------------------------------------------------------ grouping, as a property

_ADDRS = st.sampled_from(["10.0.0.1:5000", "10.0.0.9:5000"])
_MODES = st.sampled_from(["null", "prefill", "decode"])


@st.composite
def _runs(draw: st.DrawFn) -> list[tuple[str, list[Run]]]:
    files = []
    for n in range(draw(st.integers(1, 7))):
        start = datetime(2026, 3, 1, 10) + timedelta(minutes=draw(st.integers(0, 120)))
        args = {
            "dist_init_addr": draw(_ADDRS),
            "nnodes": draw(st.sampled_from([1, 2, 2, 4])),
            "node_rank": draw(st.integers(0, 3)),
            "model_path": draw(st.sampled_from(["/m/a", "/m/b"])),
            "tp_size": draw(st.sampled_from([8, 16])),
            "disaggregation_mode": draw(_MODES),
            "disaggregation_transfer_backend": "mooncake",
        }
        run = Run(
            index=0,
            events=(),
            started_at=start,
            ended_at=start + timedelta(minutes=draw(st.integers(0, 30))),
            first_line=1,
            last_line=2,
            server_args=args if draw(st.booleans()) or n == 0 else None,
            outcome=Outcome.READY,
            failure=None,
            release_hint=None,
            has_banner=True,
        )
        files.append((f"f{n}.log", [run]))
    return files


@settings(max_examples=examples(300), deadline=None)
@given(_runs())
def test_grouping_joins_only_on_shared_evidence(files: list[tuple[str, list[Run]]]) -> None:
    launches = group_launches(files)
    assert sorted(f for x in launches for f in x.files) == sorted(f for f, _ in files)
    for launch in launches:
        assert launch.evidence  # every launch says why it is one
        members = launch.members
        if len(members) == 1:
            continue
        assert all(m.run.server_args is not None for m in members)
        nodes = [
            (m.mode, m.args["dist_init_addr"], m.node_rank)
            for m in members
            if m.node_rank is not None
        ]
        assert len(set(nodes)) == len(nodes)  # a node rank once per cluster
        assert len({m.args["model_path"] for m in members}) == 1
        for mode in {m.mode for m in members}:
            same = [m for m in members if m.mode == mode]
            assert len({m.args["dist_init_addr"] for m in same}) == 1 or mode is not None
        if any(m.mode is None for m in members):  # no PD join: one multi-node group
            assert len({m.args["dist_init_addr"] for m in members}) == 1
            assert all(m.node_rank is not None for m in members)


def test_launches_render_in_a_notebook_escaped(tmp_path: Path) -> None:
    odd = tmp_path / "<i>node1.log"
    shutil.copy(OOM / "node1.log", odd)
    html = read_launches([OOM_LOGS[0], str(odd)])._repr_html_()
    assert "<i>node1" not in html and "&lt;i&gt;node1.log:4 cuda_oom" in html
    assert html.count("<tr>") == 2  # the head and one launch


def test_input_format_reaches_every_log_of_a_launch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kubectl --timestamps copies of the two nodes: read with --input-format kubectl, the
    launch is the plain one's."""
    logs = []
    for name in ("node0.log", "node1.log"):
        lines = (OOM / name).read_text(encoding="utf-8").splitlines(keepends=True)
        wrapped = tmp_path / name
        wrapped.write_text(
            "".join(f"2026-03-01T09:00:00.000000000Z {line}" for line in lines), encoding="utf-8"
        )
        logs.append(str(wrapped))
    code, out, _ = _run(
        ["summary", "--launches", "-f", "json", "--input-format", "kubectl", *logs], capsys
    )
    assert code == 0
    (launch,) = json.loads(out)["launches"]
    assert launch["first_failure"]["kind"] == "cuda_oom" and len(launch["files"]) == 2
