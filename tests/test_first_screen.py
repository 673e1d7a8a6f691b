"""Issue 27: the first screen of ``logscope check`` — the right culprit, the outcome first, dead is
not fresh, one corrected command, a short default."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
STORY = DEMO / "command-story.txt"  # three pkills in one `bash -c` (the reviewer's form A)
LAUNCHED = "2026-05-09 09:31:05"


# ---------------------------------------------------------------- item 2: the culprit


def test_the_cause_is_the_first_pkill_that_kills_the_shell(stale_log: Path) -> None:
    report = check(stale_log, STORY, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert report.cause["message"].startswith("`pkill -9 -f sglang 2>/dev/null`")
    prevents = report.cause["prevents"]
    assert prevents[0] == "pkill -9 -f launch_server 2>/dev/null"  # the later pkills never ran
    assert "rm -f /root/sglang-serve.log" in prevents
    assert any("sglang.launch_server" in p and p.startswith("nohup") for p in prevents)
    first = report.next_steps[0]
    assert first.startswith("Likely root cause (LS030): `pkill -9 -f sglang 2>/dev/null`")
    # the later self-killing pkills are findings, not next steps; no step is said twice
    assert sum(s.count("LS030") for s in report.next_steps) == 1
    assert len(set(report.next_steps)) == len(report.next_steps)
    assert [f.code for f in report.findings].count("LS030") == 3


def test_a_backslash_space_paste_does_not_steal_the_cause(stale_log: Path) -> None:
    """The demo's `\\ ` before each flag would make the launch exit 2, but the pkill before it
    already killed the shell: the launch never ran, so the pkill is the cause."""
    report = check(stale_log, DEMO / "command.txt", LAUNCHED)
    codes = [f.code for f in report.findings]
    assert "LS037" in codes and "LS030" in codes
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert report.to_dict()["cause"]["code"] == "LS030"
    assert not any(s.startswith("Likely root cause (LS037)") for s in report.next_steps)


def test_without_a_killer_the_paste_is_the_cause(stale_log: Path) -> None:
    text = (DEMO / "command.txt").read_text().replace("pkill -9 -f sglang 2>/dev/null;", "")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS037"
    assert report.cause["prevents"] and "status 2" in report.cause["prevents"][0]


# ------------------------------------------------- item 1: the outcome first; item 6: dead


REAL = ROOT / "fixtures" / "real"


@pytest.mark.parametrize(
    ("case", "first_word", "code"),
    [("069", "READY since 2026-05-25 17:43:44", 0), ("053", "COMPLETED", 0), ("040", "CRASHED", 1)],
)
def test_without_a_launch_the_first_line_is_the_outcome(
    case: str, first_word: str, code: int
) -> None:
    report = check(REAL / case / "server.log", live=False)
    assert not report.expected and report.to_dict()["expected"] is False
    assert report.headline.startswith(first_word)
    assert "INCONCLUSIVE" not in report.headline
    assert report.exit_code == code and report.to_dict()["exit_code"] == code
    assert any("pass --expect-args" in s for s in report.next_steps)


def test_a_crash_says_when_and_why_on_line_one(stale_log: Path) -> None:
    report = check(stale_log, live=False)
    assert report.headline.startswith(
        "CRASHED at 2026-05-09 09:18:31: not enough memory for the KV pool "
        "(mem_fraction_static=0.85)"
    )
    assert report.exit_code == 1


def test_every_failure_kind_has_words() -> None:
    from sglang_logscope.events import FAILURE_WORDS
    from sglang_logscope.log.runs import FailureKind

    assert set(FAILURE_WORDS) == set(FailureKind)
    assert all(kind.words == FAILURE_WORDS[kind] for kind in FailureKind)


def test_the_exit_table_is_what_check_returns(stale_log: Path, tmp_path: Path) -> None:
    """Each row of EXIT_CODES (docs/cli.md renders it) against a report of that kind."""
    from sglang_logscope.staleness.verdict import EXIT_CODES

    assert [c for _, _, c in EXIT_CODES] == [0, 1, 0, 1, 1, 2]
    assert check(REAL / "069" / "server.log", live=False).exit_code == EXIT_CODES[0][2]
    assert check(stale_log, live=False).exit_code == EXIT_CODES[1][2]
    stale = check(stale_log, STORY, LAUNCHED, live=False)
    assert stale.verdict.value == "stale" and stale.exit_code == EXIT_CODES[3][2]
    junk = tmp_path / "junk.log"
    junk.write_text("hello\nworld\n")
    assert check(junk, live=False).verdict.value == "no_run"
    assert check(junk, live=False).exit_code == EXIT_CODES[4][2]
    docs = (ROOT / "docs" / "cli.md").read_text()
    assert all(answer.split(":")[0] in docs for _, answer, _ in EXIT_CODES)


# ------------------------------------------------------------- item 4: one corrected command

COMMANDS = sorted(
    [
        *(ROOT / "fixtures" / "commands").glob("*.txt"),
        *(ROOT / "fixtures" / "commands").glob("*.sh"),
        *(ROOT / "fixtures" / "commands" / "scripts").glob("*.sh"),
    ]
)
DEMOS = sorted(DEMO.glob("command*.txt"))


def _errors(text: str, script: str | None = None) -> list[str]:
    from sglang_logscope.command.lint import lint
    from sglang_logscope.findings import CODES, Severity

    return [h.code for h in lint(text, script=script) if CODES[h.code].severity is Severity.ERROR]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_every_fixture_command_comes_back_lint_clean(path: Path) -> None:
    from sglang_logscope import fix_command

    fixed = fix_command(path)
    assert _errors(fixed.text, str(path)) == []
    if not _errors(path.read_text(), str(path)) and not fixed.changes:
        assert fixed.text == path.read_text()  # nothing to fix: the command as it was


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.name)
def test_the_demo_commands_come_back_clean_and_fitting(path: Path, stale_log: Path) -> None:
    """The corrected command passes the tool's own lint (no error, and no self-kill, no `\\ `,
    no outer `$!`, no fixed sleep) and fits by the tool's own budget on the logged GPUs."""
    from sglang_logscope import fix_command
    from sglang_logscope.command.lint import lint

    before = check(stale_log, path, LAUNCHED, live=False)
    assert before.budget is not None and before.budget.fits is False
    fixed = fix_command(path, stale_log)
    assert _errors(fixed.text) == [] and [h.code for h in lint(fixed.text)] == []
    after = check(stale_log, fixed.text, LAUNCHED, live=False)
    assert after.budget is not None and after.budget.fits is True
    codes = {c.code for c in fixed.changes}
    assert {"LS030", "LS033", "LS036", "LS024"} <= codes
    assert ("LS037" in codes) is (path.name == "command.txt")
    text = fixed.text
    assert text.count("ssh root@gpu-box 'pct exec 129 -- bash -c \"") == 1  # the form kept
    assert "echo PID=\\$!" in text and "sleep 5" not in text
    assert text.count("pkill -9") == 1  # one kill for the whole block
    assert text.index("nvidia-smi") < text.index("rm -f /root/sglang-serve.log")
    assert "--max-running-requests 11" in text
    if path.name == "command-multiline.txt":
        assert text.count("\n") == path.read_text().count("\n")  # still one flag a line
    assert check(stale_log, path, LAUNCHED, live=False).to_dict()["fixed_command"] == {
        "text": text,
        "changes": [c.to_dict() for c in fixed.changes],
        "unfixed": [],
    }


def test_every_lint_rule_has_an_edit_or_a_reason() -> None:
    from sglang_logscope.command.fix import FIXED_CODES, NO_EDIT
    from sglang_logscope.command.lint import RULES

    assert {r.code for r in RULES} == set(FIXED_CODES) | set(NO_EDIT)


def test_redirect_order_and_background_are_fixed() -> None:
    from sglang_logscope import fix_command

    text = "ssh gpu 'python -m sglang.launch_server --model-path m 2>&1 > s.log &'"
    fixed = fix_command(text)
    assert {c.code for c in fixed.changes} == {"LS034", "LS032"}
    assert "> s.log 2>&1" in fixed.text and "nohup setsid python -m" in fixed.text
    assert _errors(fixed.text) == []


def test_fix_cli_prints_the_command_alone_on_stdout(
    stale_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sglang_logscope.cli import main

    with pytest.raises(SystemExit) as done:
        main(["fix", "-e", str(DEMO / "command.txt"), str(stale_log)])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith("ssh root@gpu-box 'pct exec 129 -- bash -c \"")
    assert out.count("\n") == 1 and "# LS030:" in err and "# LS024:" in err


# ------------------------------------------------------------ item 3: a short default screen


def _screen(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> str:
    from sglang_logscope.cli import main

    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main(["check", *argv])
    return capsys.readouterr().out


def _rows(out: str, width: int = 100) -> int:
    """Lines on a terminal ``width`` columns wide (a long line wraps)."""
    return sum(max(1, -(-len(line) // width)) for line in out.splitlines())


def _repeated(out: str) -> list[str]:
    from sglang_logscope.render.views import sentences

    seen: set[str] = set()
    twice = []
    for sentence in sentences(out.replace("\n", " ")):
        if len(sentence) >= 30 and sentence in seen:
            twice.append(sentence)
        seen.add(sentence)
    return twice


@pytest.mark.parametrize("name", ["command-story.txt", "command.txt", "command-multiline.txt"])
def test_the_short_screen_of_the_story(
    name: str,
    stale_log: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = _screen(
        capsys, monkeypatch, "-e", str(DEMO / name), "--launched-at", LAUNCHED, str(stale_log)
    )
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("Corrected command")))
    end = next(i for i in range(at, len(lines)) if lines[i].startswith("Runs on "))
    if name != "command-multiline.txt":  # the seed story as pasted: one line
        assert _rows(out) <= 25, out
    assert _rows("\n".join(lines[:at] + lines[end:])) <= 18, out  # the rest, in any form
    assert lines[0].startswith("STALE: the last run started 2026-05-09 09:17:42")
    assert any(line.startswith("Cause (LS030): `pkill -9 -f sglang") for line in lines)
    assert any(line.startswith("Memory: ghost") for line in lines) and "Confidence low" in out
    assert lines[at + 1].startswith("ssh root@gpu-box 'pct exec 129 -- bash -c")
    assert lines[-1].startswith("more: --verbose")
    assert "Findings" not in lines and "Runs in this file" not in out
    assert _repeated(out) == []


def test_verbose_prints_everything_each_sentence_once(
    stale_log: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["-e", str(STORY), "--launched-at", LAUNCHED, str(stale_log)]
    out = _screen(capsys, monkeypatch, "--verbose", *argv)
    for part in (
        "Runs in this file",
        "Argument differences",
        "Findings",
        "Next",
        "try --max-running-requests 11",
        "Corrected command",
    ):
        assert part in out
    assert out.count("LS030 error") == 3  # every finding is listed ...
    assert _repeated(out) == []  # ... but no sentence twice
    assert _screen(capsys, monkeypatch, "-v", *argv) == out


def test_a_log_without_a_run_still_gets_the_command_fixed(tmp_path: Path) -> None:
    from sglang_logscope import fix_command

    junk = tmp_path / "sglang-serve.log"
    junk.write_text("hello\nworld\n")
    fixed = fix_command(DEMO / "command.txt", junk)
    assert {"LS030", "LS037", "LS036", "LS033"} <= {c.code for c in fixed.changes}
    assert _errors(fixed.text) == []
