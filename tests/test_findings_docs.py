"""docs/findings/ is generated from the finding-code table and must stay in sync with it."""

from __future__ import annotations

from pathlib import Path

from scripts.gen_findings_docs import DOCS, pages
from sglang_logscope.findings import CODES, Finding


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
