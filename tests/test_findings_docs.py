"""docs/findings/ is generated from the finding-code table and must stay in sync with it."""

from __future__ import annotations

from pathlib import Path

from scripts.gen_findings_docs import DOCS, GPUS, gpus_page, pages
from sglang_logscope.findings import ALL_CODES, CODES, PF_CODES, Finding, code_of
from sglang_logscope.machine import preflight


def test_every_code_has_an_up_to_date_page() -> None:
    expected = pages()
    for name, text in expected.items():
        page = DOCS / name
        assert page.is_file(), f"missing {page}; run scripts/gen_findings_docs.py"
        assert page.read_text(encoding="utf-8") == text, (
            f"{page} is stale; run scripts/gen_findings_docs.py"
        )
    stray = {p.name for p in Path(DOCS).glob("*.md")} - set(expected)
    assert not stray, f"pages for unknown codes: {stray}"


def test_codes_are_well_formed_and_unique_by_name() -> None:
    names = [c.name for c in CODES.values()]
    assert len(names) == len(set(names))
    for code, entry in CODES.items():
        assert code == entry.code and code.startswith("LS") and len(code) == 5
        assert Finding.of(code).to_dict()["code"] == code


def test_one_registry_holds_ls_and_pf_codes() -> None:
    assert preflight.CODES is PF_CODES
    assert ALL_CODES == {**CODES, **PF_CODES} and not set(CODES) & set(PF_CODES)
    for code, entry in PF_CODES.items():
        assert code == entry.code and code.startswith("PF") and len(code) == 5
        assert entry.action, f"{code} needs its fix text (what to do)"
        assert code_of(code) is entry
    names = [c.name for c in PF_CODES.values()]
    assert len(names) == len(set(names))
    # the one name the two families share predates the merge; codes are never renamed
    shared = {c.name for c in CODES.values()} & set(names)
    assert shared == {"budget-does-not-fit"}
    # a pre-flight finding draws its name and severity from the same registry as an LS one
    pf = preflight.Finding("PF007", "in use", gpu=None).to_dict()
    ls = Finding.of("LS030", "in use").to_dict()
    assert list(pf)[:4] == list(ls) == ["code", "name", "severity", "message"]
    assert (pf["name"], pf["severity"]) == ("port-in-use", "error")


def test_gpus_page_table_is_generated_from_the_registry() -> None:
    text = GPUS.read_text(encoding="utf-8")
    assert text == gpus_page(text), (
        "docs/gpus.md's PF table is stale; run scripts/gen_findings_docs.py"
    )
