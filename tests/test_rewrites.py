"""SGLang's own value rewrites as data per release (issue 28, item 4): read from the wheels by
``scripts/extract_sglang_rewrites.py`` into ``data/args/rewrites.json``; an explained
difference names the file, function and releases."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from sglang_logscope.command.argtable import (
    _table_data,
    all_rewrites,
    available_versions,
    find_rewrite,
    rewrites_for,
)
from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.errors import CommandError
from sglang_logscope.log.reader import read_log
from sglang_logscope.staleness.argdiff import DiffStatus, arg_diff

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "sglang_logscope" / "data" / "args" / "rewrites.json"


def _script() -> ModuleType:
    path = ROOT / "scripts" / "extract_sglang_rewrites.py"
    spec = importlib.util.spec_from_file_location("extract_sglang_rewrites", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_release_of_the_argument_tables_was_read_from_the_same_wheel() -> None:
    """A release added to releases.jsonl without its rewrites read fails here; so does a
    rewrites table read from another file than the argument table."""
    read = json.loads(DATA.read_text(encoding="utf-8"))["releases_read"]
    assert [r["release"] for r in read] == available_versions()
    for row in read:
        source = _table_data(row["release"])["source"]
        assert (row["distribution"], row["sha256"]) == (source["distribution"], source["sha256"])


def test_the_rows_sglang_is_known_for() -> None:
    """The issue's example and the NEXTN alias, with their releases as read from the wheels."""
    rows = {(r.field, r.before, r.after, r.first, r.last) for r in all_rewrites()}
    assert ("speculative_draft_model_quantization", "unquant", None, "0.5.7", "0.5.18") in rows
    assert ("speculative_algorithm", "NEXTN", "EAGLE", "0.4.3.post3", "0.5.2") in rows
    assert ("quantization", "unquant", None, "0.5.19", "0.5.23") in rows
    for rw in all_rewrites():
        assert rw.first in available_versions() and rw.last in available_versions()


def test_a_release_gets_only_its_own_rewrites_and_a_release_less_log_every_one() -> None:
    assert not [r for r in rewrites_for("0.4.0") if r.field == "speculative_algorithm"]
    assert [r for r in rewrites_for("0.5.9") if r.field == "speculative_algorithm"]
    assert rewrites_for(None) == all_rewrites()
    assert find_rewrite("quantization", "unquant", None, ("0.5.0", "0.5.9")) is None
    assert find_rewrite("quantization", "unquant", None, ("0.5.9", "0.5.12")) is not None
    assert find_rewrite("quantization", "unquant", None, None) is not None
    assert find_rewrite("quantization", "unquant", "awq", None) is None


#: The fixtures whose command and banner differ by one of SGLang's rewrites (every one found
#: by comparing each fixture command with its log; test_fixture_commands_are_covered re-finds
#: them).
REWRITTEN = {
    "heldout/001": ("speculative_draft_model_quantization", "unquant", None),
    "heldout/002": ("speculative_draft_model_quantization", "unquant", None),
    "heldout/003": ("speculative_algorithm", "NEXTN", "EAGLE"),
    "heldout/004": ("speculative_algorithm", "NEXTN", "EAGLE"),
    "heldout/007": ("speculative_draft_model_quantization", "unquant", None),
    "heldout/008": ("speculative_algorithm", "NEXTN", "EAGLE"),
    "heldout/010": ("speculative_algorithm", "NEXTN", "EAGLE"),
    "demo": ("speculative_algorithm", "NEXTN", "EAGLE"),
}


def _pairs() -> list[tuple[str, Path, Path]]:
    out = []
    demo = ROOT / "fixtures" / "demo" / "command.txt"
    for cmd in [*sorted(ROOT.glob("fixtures/*/*/command.txt")), demo]:
        logs = [p for p in sorted(cmd.parent.iterdir()) if p.name == "log" or p.suffix == ".log"]
        if logs:
            out.append((str(cmd.parent.relative_to(ROOT / "fixtures")), cmd, logs[0]))
    return out


def test_fixture_commands_are_covered() -> None:
    """Every difference between a fixture's command and its log that is a value of the rewrite
    table is explained by it, naming source file and release; no other difference is."""
    found = {}
    for name, cmd_path, log_path in _pairs():
        try:
            cmd = parse_launch_command(cmd_path.read_text(encoding="utf-8"))
        except CommandError:  # real/055 keeps the flags alone, no program
            continue
        cmd = cmd.meant or cmd
        diffs, _, _ = arg_diff(read_log(log_path).runs[-1], cmd)
        for d in diffs:
            rewritten = any(
                r.field == d.arg and str(r.before).upper() == str(d.intended).upper()
                for r in all_rewrites()
            )
            said = (d.explanation or "").startswith("SGLang rewrites")
            assert rewritten == said, (name, d)
            if said:
                assert d.status is DiffStatus.EXPLAINED
                assert ".py " in (d.explanation or "") and "release 0." in (d.explanation or "")
                found[name] = (d.arg, d.intended, d.effective)
    assert found == REWRITTEN


def test_the_issue_example_is_explained_by_source() -> None:
    """heldout/001 (a real Ascend launch): `--speculative-draft-model-quantization unquant`
    and the banner's None."""
    base = ROOT / "fixtures" / "heldout" / "001"
    cmd = parse_launch_command((base / "command.txt").read_text(encoding="utf-8"))
    diffs, _, _ = arg_diff(read_log(base / "log").runs[-1], cmd.meant or cmd)
    (d,) = [d for d in diffs if d.arg == "speculative_draft_model_quantization"]
    assert d.status is DiffStatus.EXPLAINED
    assert d.explanation is not None
    assert d.explanation.startswith("SGLang rewrites 'unquant' to None (server_args.py ")
    assert "release 0.5.7-0.5.18" in d.explanation


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # sglang 0.5.9 server_args.py, _handle_missing_default_values (verbatim)
            "class ServerArgs:\n"
            "    speculative_draft_model_quantization: str = None\n"
            "    def _handle_missing_default_values(self):\n"
            "        if self.speculative_draft_model_quantization is None:\n"
            "            self.speculative_draft_model_quantization = self.quantization\n"
            '        elif self.speculative_draft_model_quantization == "unquant":\n'
            "            self.speculative_draft_model_quantization = None\n",
            [("speculative_draft_model_quantization", "unquant", None, False, False)],
        ),
        (  # sglang 0.5.23 arg_groups/speculative_hook.py, the alias (abridged: the log call)
            "class ServerArgs:\n"
            "    speculative_algorithm: str = None\n"
            "def _resolve_speculative_algorithm_alias(speculative_algorithm, is_gemma4_draft):\n"
            '    if speculative_algorithm == "NEXTN" or speculative_algorithm == "EAGLE":\n'
            "        if is_gemma4_draft:\n"
            '            return "FROZEN_KV_MTP"\n'
            '        return "EAGLE"\n'
            "    return speculative_algorithm\n",
            [("speculative_algorithm", "NEXTN", "EAGLE", False, True)],
        ),
        (  # a test of another field, a computed value: no rewrite
            "class ServerArgs:\n"
            "    quantization: str = None\n"
            "    def f(self):\n"
            '        if self.device == "npu":\n'
            "            self.quantization = None\n"
            '        if self.quantization == "fp8":\n'
            "            self.quantization = self.pick()\n",
            [],
        ),
    ],
)
def test_the_script_reads_rewrites_from_a_wheel(
    tmp_path: Path, source: str, expected: list[tuple[object, ...]]
) -> None:
    wheel = tmp_path / "sglang-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("sglang/srt/server_args.py", source)
    rows = _script().read_release(wheel)
    got = [(r["field"], r["from"], r["to"], r["conditional"], r["exceptions"]) for r in rows]
    assert got == expected
