"""Every ``--format json`` document against the JSON Schema shipped for it (issue #16): the
real fixture logs and commands through the CLI, checked by ``logscope schema check`` and by
the ``jsonschema`` package (Draft 2020-12), which also checks the schemas themselves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_run import run_main

from sglang_logscope.cli import main
from sglang_logscope.render.schema import NAMES, check_text, errors, load_schema

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))
DEMO = ROOT / "fixtures" / "demo"
COMMANDS = sorted((ROOT / "fixtures" / "commands").glob("*.txt"))


_json = run_main


def _valid(name: str, text: str) -> None:
    assert check_text(name, text) == [], name
    validator = jsonschema.Draft202012Validator(load_schema(name))
    for line in text.strip().splitlines() if name == "summary" else [text]:
        if line.strip():
            validator.validate(json.loads(line))


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_log_documents_of_every_real_log() -> None:
    # in this process (the same main(), no interpreter start-up for each of ~80 runs); the
    # documents through a child process: test_command_documents and tests/test_times.py
    logs = [str(p) for p in [*REAL, DEMO / "sglang-serve.log"]]
    for name in ("runs", "events"):
        for log in logs[::5]:
            _valid(name, run_main(name, "-f", "json", log))
    _valid("summary", run_main("summary", "-f", "json", *logs))  # JSON lines, one per log
    for log in logs:
        _valid("check", run_main("check", "-f", "json", log))
    _valid("check", _json("check", "-f", "json", "-e", str(DEMO / "command.txt"), logs[-1]))


def test_command_documents() -> None:
    for cmd in COMMANDS:
        _valid("args", _json("args", "-f", "json", str(cmd)))
    command = str(DEMO / "command.txt")
    log = str(DEMO / "sglang-serve.log")
    _valid("budget", _json("budget", "-f", "json", "--log", log))  # the run's own numbers
    _valid("preflight", _json("preflight", "-f", "json", "-e", str(COMMANDS[0])))
    # a command that runs on another machine: exit 4 (issue 33: was 2, usage's code), and the
    # JSON says where to run it
    _valid("preflight", _json("preflight", "-f", "json", "-e", command, codes=(4,)))


def test_gpus_document(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from sglang_logscope.machine import gpus as g
    from tests.test_gpus import H200, StaticReader, smi

    reading = smi(H200 / "smi-gpus-holder.csv", H200 / "smi-apps-holder.csv")
    monkeypatch.setattr(g, "reader_for", lambda source: StaticReader(reading))
    with pytest.raises(SystemExit):
        main(["gpus", "--format", "json"])
    _valid("gpus", capsys.readouterr().out)


def test_the_check_finds_what_is_wrong() -> None:
    good: dict[str, Any] = json.loads(_json("runs", "-f", "json", str(DEMO / "sglang-serve.log")))
    bad = json.loads(json.dumps(good))
    bad["runs"][0]["failure"] = "not_enough_memory"  # the old string form
    del bad["runs"][0]["outcome"]
    bad["schema_version"] = 1
    problems = errors(bad, load_schema("runs"))
    assert "$.runs[0].failure: str where object or null is due" in problems
    assert "$.runs[0]: no 'outcome'" in problems
    assert "$.schema_version: 1 where 2 is due" in problems
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, load_schema("runs"))


def test_cli_schema_check_and_show(tmp_path: Path) -> None:
    doc = tmp_path / "runs.json"
    doc.write_text(_json("runs", "-f", "json", str(DEMO / "sglang-serve.log")), encoding="utf-8")
    run = [sys.executable, "-m", "sglang_logscope", "schema"]
    ok = subprocess.run([*run, "check", "runs", str(doc)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("ok")
    wrong = subprocess.run([*run, "check", "check", str(doc)], capture_output=True, text=True)
    assert wrong.returncode == 1 and "no 'verdict'" in wrong.stdout
    shown = subprocess.run([*run, "show", "check"], capture_output=True, text=True)
    assert json.loads(shown.stdout) == load_schema("check")
    unknown = subprocess.run([*run, "show", "nope"], capture_output=True, text=True)
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1


def test_the_enums_are_the_codes() -> None:
    """A new outcome or verdict in the code is a new value in the schemas."""
    from sglang_logscope.log.runs import Outcome
    from sglang_logscope.staleness.verdict import Verdict

    outcomes = [o.value for o in Outcome]
    for name in ("runs", "summary", "check"):
        assert load_schema(name)["$defs"]["run"]["properties"]["outcome"]["enum"] == outcomes
    assert load_schema("check")["properties"]["verdict"]["enum"] == [v.value for v in Verdict]


def test_the_zone_sources_are_the_codes() -> None:
    """A new source of a document's zone in the code is a new value in the schemas."""
    from sglang_logscope._text import ZoneSource

    sources = [s.value for s in ZoneSource]
    for name in ("summary", "check"):
        schema = load_schema(name)
        assert schema["$defs"]["time_zone_source"]["enum"] == sources
        assert schema["$defs"]["run"]["properties"]["time_zone_source"] == {
            "$ref": "#/$defs/time_zone_source"
        }
    assert "time_zone_source" in load_schema("check")["properties"]
