"""The JSON documents of several logs (issue 30) against the schemas shipped for them:
``launches`` (``summary --launches``, ``runs`` of several logs), ``launch_check`` (``check``
of several logs) and ``fleet`` (the JSON lines of ``summary --parquet`` / ``--dask``), the
real CLI's output on the launch fixtures, checked by ``logscope schema check``'s checker and
by ``jsonschema`` (Draft 2020-12)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_run import run_main

from sglang_logscope.log.fleet import FLEET_COLUMNS
from sglang_logscope.log.launches import CONSEQUENCES, PD_MODES
from sglang_logscope.log.listing import expand_sources
from sglang_logscope.log.runs import Outcome
from sglang_logscope.render.schema import NAMES, check_text, errors, load_schema
from sglang_logscope.staleness.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
LAUNCHES = ROOT / "fixtures" / "launches"
PD = LAUNCHES / "real-pd-2x2"
OOM = LAUNCHES / "two-node-oom"
OOM_LOGS = [str(OOM / n) for n in ("node0.log", "node1.log", "node1-old.log")]
NEW = ("launches", "launch_check", "fleet")


def _docs(name: str, text: str) -> list[dict[str, Any]]:
    """The documents of ``text`` (JSON, or JSON lines), each valid against ``name`` by both
    checkers."""
    assert check_text(name, text) == [], check_text(name, text)
    validator = jsonschema.Draft202012Validator(load_schema(name))
    stripped = text.strip()
    lines = stripped.splitlines() if stripped.startswith("{") and "\n{" in stripped else [text]
    docs = [json.loads(line) for line in lines if line.strip()]
    for doc in docs:
        validator.validate(doc)
    return docs


@pytest.mark.parametrize("name", NEW)
def test_each_new_schema_is_listed_whole_and_valid(name: str) -> None:
    assert name in NAMES
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    refs = [r for r in _refs(schema) if not r.startswith("#/$defs/")]
    assert refs == []  # every part of another schema file is inlined: the schema is whole
    for ref in _refs(schema):  # and every local reference names a definition there
        assert ref.removeprefix("#/$defs/") in schema["$defs"], ref


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_summary_launches_and_runs_of_several_logs() -> None:
    for logs in ([str(PD)], OOM_LOGS, [str(LAUNCHES), "-r"]):
        (doc,) = _docs("launches", run_main("summary", "--launches", "-f", "json", *logs))
        assert doc["launches"]
        (same,) = _docs("launches", run_main("runs", "-f", "json", *logs))
        assert same == doc
    (oom,) = _docs("launches", run_main("summary", "--launches", "-f", "json", *OOM_LOGS))
    consequences = [c["consequence"] for launch in oom["launches"] for c in launch["consequences"]]
    assert consequences and None not in consequences  # the watchdog and exit -3 are named


def test_summary_launches_with_an_unreadable_member(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone.log")
    (doc,) = _docs("launches", run_main("summary", "--launches", "-f", "json", *OOM_LOGS, missing))
    assert [u["file"] for u in doc["unreadable"]] == [missing]


def test_check_of_several_logs() -> None:
    pd_logs = sorted(str(p) for p in PD.glob("*.log"))
    expects = [f"-e{p.stem}={p}" for p in sorted(PD.glob("*.txt"))]
    (doc,) = _docs("launch_check", run_main("check", "-f", "json", *expects, *pd_logs))
    assert [f["expect_args"] is not None for f in doc["files"]] == [True] * 4
    (oom,) = _docs("launch_check", run_main("check", "-f", "json", *OOM_LOGS))
    assert oom["verdict"] == "stale" and oom["exit_code"] == 1
    # each file's own check is a whole check document
    for f in oom["files"]:
        assert errors(f["check"], load_schema("check")) == []


def test_fleet_json_lines(tmp_path: Path) -> None:
    out = run_main(
        "summary", "--parquet", str(tmp_path / "f.parquet"), "-f", "json", "-r", str(LAUNCHES)
    )
    docs = _docs("fleet", out)
    *summaries, table = docs
    logs = expand_sources([str(LAUNCHES)], recursive=True)
    assert sorted(s["log"] for s in summaries) == sorted(logs)
    assert list(table) == ["schema_version", "fleet"]
    assert [list(row) for row in table["fleet"]] == [list(FLEET_COLUMNS)] * len(table["fleet"])


def test_the_checks_find_what_is_wrong() -> None:
    doc = json.loads(run_main("check", "-f", "json", *OOM_LOGS))
    bad = json.loads(json.dumps(doc))
    bad["files"][0]["check"]["verdict"] = "ghost"
    del bad["launches"][0]["timeline"]
    bad["launches"][0]["roles"][0]["disaggregation_mode"] = "both"
    problems = errors(bad, load_schema("launch_check"))
    assert "$.files[0].check.verdict: 'ghost' is not one of " in "".join(problems)
    assert "$.launches[0]: no 'timeline'" in problems
    assert any(p.startswith("$.launches[0].roles[0].disaggregation_mode:") for p in problems)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, load_schema("launch_check"))
    row = {"schema_version": 2, "fleet": [{"launch": 0}]}
    assert errors(row, load_schema("fleet")) == ["$: matches none of the allowed shapes"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(row, load_schema("fleet"))


def test_the_enums_are_the_codes() -> None:
    """A new outcome, verdict, consequence pattern or mode in the code is a new value here."""
    launches = load_schema("launches")["$defs"]
    assert launches["outcome"]["enum"] == [o.value for o in Outcome]
    assert launches["moment"]["properties"]["consequence"]["enum"] == [*CONSEQUENCES, None]
    member = launches["member"]["properties"]
    assert member["disaggregation_mode"]["enum"] == [*PD_MODES, None]
    check = load_schema("launch_check")["$defs"]
    assert check["verdict"]["enum"] == [v.value for v in Verdict]
    fleet = load_schema("fleet")["$defs"]["row"]
    assert fleet["required"] == list(FLEET_COLUMNS) == list(fleet["properties"])


def test_cli_schema_show_and_check(tmp_path: Path) -> None:
    doc = tmp_path / "check.json"
    doc.write_text(run_main("check", "-f", "json", *OOM_LOGS), encoding="utf-8")
    run = [sys.executable, "-m", "sglang_logscope", "schema"]
    ok = subprocess.run([*run, "check", "launch_check", str(doc)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("ok"), ok.stdout
    launches = tmp_path / "launches.json"
    launches.write_text(run_main("summary", "--launches", "-f", "json", *OOM_LOGS), "utf-8")
    wrong = subprocess.run(
        [*run, "check", "launch_check", str(launches)], capture_output=True, text=True
    )
    assert wrong.returncode == 1 and "$: no 'verdict'" in wrong.stdout
    shown = subprocess.run([*run, "show", "fleet"], capture_output=True, text=True)
    assert json.loads(shown.stdout) == load_schema("fleet")
