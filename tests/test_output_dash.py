"""``-`` means stdout for an output file, as it means stdin for LOG (issue 33): ``report --html -``
wrote a file literally named ``-``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang_logscope.cli import main

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "demo" / "sglang-serve.log"


def test_report_html_dash_writes_the_page_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["report", "--html", "-", str(LOG)])
    out = capsys.readouterr()
    assert exc.value.code == 0
    assert out.out.startswith("<!DOCTYPE html>") and out.out.rstrip().endswith("</html>")
    assert "wrote" not in out.err
    assert list(tmp_path.iterdir()) == []  # no file named '-'
