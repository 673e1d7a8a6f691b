"""docs/memory-accuracy.md is the table the real-log cases produce today, and dense is within 1%."""

from __future__ import annotations

from pathlib import Path

from sglang_logscope.log.reader import read_log
from sglang_logscope.memory.accuracy import (
    END,
    FAMILY_END,
    FAMILY_START,
    START,
    evaluate_all,
    render_families,
    render_table,
)
from sglang_logscope.memory.from_run import budget_for_run
from sglang_logscope.memory.models import profile_facts

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "memory" / "cases"


def test_doc_table_is_current() -> None:
    doc = (ROOT / "docs" / "memory-accuracy.md").read_text(encoding="utf-8")
    table = doc.split(START, 1)[1].split(END, 1)[0].strip()
    assert table == render_table(evaluate_all(CASES)), (
        "docs/memory-accuracy.md is out of date: run "
        "`python -m sglang_logscope.memory.accuracy fixtures/memory/cases` and paste the table"
    )


def test_doc_family_table_is_current_and_has_a_declined_row() -> None:
    """Issue 32: a row per family and a row "declined" (the cases given no figure)."""
    doc = (ROOT / "docs" / "memory-accuracy.md").read_text(encoding="utf-8")
    table = doc.split(FAMILY_START, 1)[1].split(FAMILY_END, 1)[0].strip()
    rows = evaluate_all(CASES)
    assert table == render_families(rows)
    families = {line.split("|")[1].strip() for line in table.splitlines()[2:]}
    assert families == {r.category for r in rows} | {"declined"}


def test_dense_and_mla_within_one_percent_and_hybrid_explained() -> None:
    rows = evaluate_all(CASES)
    assert len(rows) == len([p for p in CASES.iterdir() if (p / "case.json").is_file()])
    computed = [r for r in rows if r.predicted_tokens is not None]
    assert any(r.category == "dense" for r in computed)
    for r in computed:
        assert r.reported_tokens is not None
        if r.category in ("dense", "mla", "moe", "swa"):
            assert r.tokens_error_pct is not None and abs(r.tokens_error_pct) <= 1.0, r
        else:
            assert r.tokens_error_pct is not None and abs(r.tokens_error_pct) <= 2.0, r
        if r.flagged or r.tokens_error_pct or r.slots_error_pct:
            assert r.note, f"case {r.case} differs without an explanation"
        for what in r.flagged:  # every figure more than 2 % off names its cause in the note
            word = {"tokens": "Tokens", "slots": "slot", "requests": "Requests"}[what]
            assert word.lower() in r.note.lower(), (r.case, what)


def test_a_prediction_far_from_what_the_run_printed_is_flagged() -> None:
    """069: 81 slots predicted vs 40 printed (the audit's example) carries the >2% warning."""
    rows = {r.case: r for r in evaluate_all(CASES)}
    assert rows["069"].flagged == ("slots", "requests")
    assert rows["037"].flagged == () and rows["055"].flagged == ()
    run = read_log(str(CASES / "069" / "server.log")).runs[0]
    b = budget_for_run(run, model=profile_facts("Qwen3.6-27B"), sglang_version="0.5.15")
    assert any("mamba slots 40" in w and "+102.5%" in w for w in b.warnings)
    assert b.confidence["level"] == "low" and b.confidence["disagrees_with_run"]
