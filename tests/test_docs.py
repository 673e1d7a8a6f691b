"""The documentation is generated from the code or checked against it: CLI reference, API,
support matrix, links, the README's `check` excerpt, and the notebook tour runs."""

from __future__ import annotations

import io
import os
import re
import runpy
import shutil
import sys
from contextlib import redirect_stdout
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import sglang_logscope
from scripts import gen_api_docs, gen_cli_docs, gen_support_matrix
from sglang_logscope.cli import main
from sglang_logscope.parse.messages import CATALOG

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TOUR = DOCS / "examples" / "notebook_tour.py"

#: Public names whose owners have not written a docstring yet. Shrinks, never grows: the test
#: fails when one of these gains a docstring (take it off the list) or another one lacks it.
UNDOCUMENTED: set[str] = set()


@pytest.mark.parametrize(
    ("module", "script"),
    [
        (gen_cli_docs, "scripts/gen_cli_docs.py"),
        (gen_api_docs, "scripts/gen_api_docs.py"),
        (gen_support_matrix, "scripts/gen_support_matrix.py"),
    ],
)
def test_generated_docs_are_in_sync(module: Any, script: str) -> None:
    out: Path = module.OUT
    assert out.is_file(), f"missing {out}: run python {script}"
    assert out.read_text(encoding="utf-8") == module.render(), (
        f"{out} is stale: run python {script}"
    )


def test_every_command_and_option_is_documented_with_help() -> None:
    text = gen_cli_docs.OUT.read_text(encoding="utf-8")
    commands = gen_cli_docs.commands()
    assert {"check", "report", "budget", "events"} <= set(commands)
    for name, cmd in commands.items():
        assert (cmd.help or "").strip(), f"logscope {name} has no help text"
        assert f"## logscope {name}\n" in text, f"logscope {name} is not in docs/cli.md"
        for param in cmd.params:
            assert (param.help or "").strip(), f"logscope {name}: {param.name} has no help text"
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    section = text.split(f"## logscope {name}\n", 1)[1].split("\n## ", 1)[0]
                    assert f"`{opt}`" in section, f"logscope {name} {opt} is not in docs/cli.md"


def test_public_api_has_docstrings() -> None:
    missing = set()
    for name in sglang_logscope.__all__:
        obj = getattr(sglang_logscope, name)
        if callable(obj) and not gen_api_docs.own_doc(obj, name):
            import enum

            if isinstance(obj, type) and issubclass(obj, enum.Enum):
                continue  # documented by their values
            missing.add(name)
    assert missing == UNDOCUMENTED
    text = gen_api_docs.OUT.read_text(encoding="utf-8")
    for name in sglang_logscope.__all__:
        assert f"## `{name}`\n" in text


def test_support_matrix_backs_every_format_with_a_fixture() -> None:
    by_spec, kinds = gen_support_matrix.observed()
    for spec in CATALOG.specs:
        assert spec.samples or by_spec.get(spec.name), f"{spec.name}: no sample and no real log"
    text = gen_support_matrix.OUT.read_text(encoding="utf-8")
    for folder in gen_support_matrix.real_fixtures():
        assert f"[real/{folder.name}]" in text
    # the decode-batch format is seen in the real 256K smoke test, 78 times
    assert "069" in by_spec["decode_batch"] and kinds["069"]["decode_batch"] == 78


_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_relative_links_resolve() -> None:
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    broken = []
    for page in pages:
        text = _FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in _LINK.findall(_CODE.sub("", text)):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken


def _collapse(text: str) -> str:
    return " ".join(text.split())


def test_readme_check_excerpt_is_what_make_demo_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ logscope check", 1)[1].split("```", 1)[0]
    excerpt = [line for line in block.splitlines()[1:] if line.strip()]
    assert len(excerpt) >= 8
    log = tmp_path / "sglang-serve.log"
    shutil.copyfile(ROOT / "fixtures" / "demo" / "sglang-serve.log", log)
    stamp = datetime(2026, 5, 9, 9, 18, 32).timestamp()
    os.utime(log, (stamp, stamp))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(ROOT)  # as `make demo` runs it: the command file named as typed there
    argv = ["check", "--expect-args", "fixtures/demo/command.txt"]
    with pytest.raises(SystemExit):
        main([*argv, "--launched-at", "2026-05-09 09:31:05", str(log)])
    printed = _collapse(capsys.readouterr().out)
    for line in excerpt:
        assert _collapse(line) in printed, f"README excerpt line not in the output: {line!r}"


def _run_tour() -> tuple[dict[str, Any], str]:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with redirect_stdout(out):
            scope = runpy.run_path(str(TOUR), run_name="__main__")
    finally:
        os.chdir(cwd)
    return scope, out.getvalue()


def test_notebook_tour_runs_and_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib", reason="the [plot] extra (in [dev]) provides matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    scope, printed = _run_tour()
    assert "78.0" in printed  # 78 decode batches described
    fig = scope["fig"]
    tokens, speed = fig.axes
    assert len(tokens.lines) == 1 and len(tokens.lines[0].get_xdata()) == 78
    assert max(tokens.lines[0].get_ydata()) == 2969  # the peak '#full token' of the log
    assert len(speed.lines[0].get_ydata()) == 78
    budget = scope["budget"]
    assert budget.fits and "<svg" in budget._repr_html_()
    assert "<table>" in scope["log"]._repr_html_()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_notebook_tour_without_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    scope, printed = _run_tour()
    assert "matplotlib is not installed: skipping the plots" in printed
    assert "sglang-logscope[plot]" in printed
    assert "fig" not in scope and scope["plt"] is None
    assert scope["budget"].fits
