"""One shape per JSON key across commands (issue 33): ``runs`` is the array of runs wherever it
is one and ``run_count`` their count in every document that speaks of runs (``check.runs``,
the count until check's schema 3, is the array too); ``gpus -f json`` answers a document even without a reading;
exit codes come from one table, and ``preflight``'s "runs elsewhere" is not usage's 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.cli import main
from sglang_logscope.errors import EXIT_CODES, EXIT_ELSEWHERE
from sglang_logscope.machine import gpus as g
from sglang_logscope.machine.gpu_readers import GpuReadError

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "demo" / "sglang-serve.log"
COMMAND = ROOT / "fixtures" / "demo" / "command.txt"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    code = exc.value.code
    return int(code) if isinstance(code, int) else 1, json.loads(capsys.readouterr().out)


def test_run_count_is_the_number_of_runs_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "relaunched.log"  # the demo run twice: a log with an earlier run
    log.write_bytes(LOG.read_bytes() * 2)
    _, summary = _json(["summary", "-f", "json", str(log)], capsys)
    _, runs = _json(["runs", "-f", "json", str(log)], capsys)
    _, checked = _json(["check", "-f", "json", "-e", str(COMMAND), str(log)], capsys)
    assert isinstance(summary["runs"], list) and isinstance(runs["runs"], list)
    count = len(summary["runs"])
    assert count == 2
    assert summary["run_count"] == runs["run_count"] == len(runs["runs"]) == count
    earlier = checked["earlier_runs"]
    assert isinstance(earlier, list)
    assert checked["run_count"] == len(earlier) + 1 == count
    # check schema 3 (issue 33): ``runs`` is the array, each run as ``logscope runs`` lists it
    assert checked["schema_version"] == 3
    # the same keys and values; only the zone's source is the check's (it may assume local time)
    same = [{**r, "time_zone_source": None} for r in checked["runs"]]
    assert same == [{**r, "time_zone_source": None} for r in runs["runs"]]
    assert checked["runs"][-1] == {**checked["run"], "failure": checked["failure"]}


def test_gpus_json_without_a_reading_is_a_document(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class NoReading:
        def read(self) -> g.Reading:
            raise GpuReadError("no GPU reading: nvidia-smi not found")

    monkeypatch.setattr(g, "reader_for", lambda source: NoReading())
    with pytest.raises(SystemExit) as exc:
        main(["gpus", "-f", "json"])
    out = capsys.readouterr()
    assert exc.value.code == 2
    data = json.loads(out.out)
    assert data["gpus"] == [] and data["reason"] == "no GPU reading: nvidia-smi not found"
    assert out.err == "logscope: error: no GPU reading: nvidia-smi not found\n"
    with pytest.raises(SystemExit) as exc:
        main(["gpus"])
    text = capsys.readouterr()
    assert exc.value.code == 2 and text.out == "" and "nvidia-smi not found" in text.err


def test_exit_codes_are_one_table_and_elsewhere_is_not_usage() -> None:
    assert EXIT_ELSEWHERE in EXIT_CODES and EXIT_ELSEWHERE != 2
    assert "usage" in EXIT_CODES[2] and "preflight" in EXIT_CODES[EXIT_ELSEWHERE]
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES.items():
        assert f"| `{code}` | {' '.join(meaning.split())} |" in doc


@pytest.mark.parametrize("command", ["summary", "check", "events", "runs"])
def test_a_bad_format_names_the_choices_in_our_words(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--format", "yaml", str(LOG)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1
    assert "'yaml' is not one of 't" in err and "Value error" not in err
