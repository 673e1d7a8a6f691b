"""The conventions a command-line user expects: version, help, completion, exit codes, pipes,
ASCII terminals, narrow terminals, progress and streamed tables (issue #16)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
from cli_run import completed

from sglang_logscope import cli
from sglang_logscope.events import Event
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.render import progress
from sglang_logscope.render.events import write_events_table
from sglang_logscope.render.streams import ASCII_STAND_INS

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
COMMAND = DEMO / "command.txt"


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **env},
        check=False,
    )


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_is_the_installed_distributions(flag: str) -> None:
    out = _cli(flag)
    assert out.returncode == 0
    # the version, then the C fast lane's state (issue 33: tests/test_fast_lane_state.py)
    assert out.stdout.startswith(f"logscope {version('sglang-logscope')} (C fast lane: ")
    assert out.stdout.endswith(")\n") and out.stdout.count("\n") == 1


def test_short_help_and_bare_logscope_print_the_help() -> None:
    short, bare = _cli("-h"), _cli()
    assert short.returncode == 0 and bare.returncode == 0
    assert "Commands" in short.stdout and "check" in short.stdout
    assert bare.stdout.strip() == short.stdout.strip()
    assert "-h, --help" in _cli("check", "-h").stdout


def _complete(words: str) -> list[str]:
    """What bash completion offers for ``words`` (the installed ``logscope`` script: the
    completion variable is named after the program)."""
    script = Path(sys.executable).parent / "logscope"
    if not script.exists():
        pytest.skip("no installed logscope script beside this interpreter")
    env = {
        **os.environ,
        "_LOGSCOPE_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1),
    }
    out = subprocess.run([str(script)], capture_output=True, text=True, env=env, check=False)
    return out.stdout.split()


def test_shell_completion_completes_commands_and_options() -> None:
    assert _complete("logscope ch") == ["check"]
    assert _complete("logscope check --la") == ["--launched-at"]
    assert "--install-completion" in _cli("-h").stdout


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("something the code did not expect\nsecond line")


def test_an_internal_error_is_exit_3_and_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sglang_logscope.staleness.judge as judge

    monkeypatch.setattr(judge, "check", _boom)
    monkeypatch.setattr(cli, "_debug", False)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["check", str(LOG)])
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("logscope: internal error: RuntimeError: something the code")
    assert "please report" in err and "--debug" in err


def test_debug_adds_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sglang_logscope.staleness.judge as judge

    monkeypatch.setattr(judge, "check", _boom)
    monkeypatch.setattr(cli, "_debug", False)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--debug", "check", str(LOG)])
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert err.splitlines()[-1].startswith("logscope: internal error: RuntimeError")


def test_a_closed_pipe_is_quiet_and_exit_0(tmp_path: Path) -> None:
    """``logscope events LOG | head -1``: far more output than a pipe buffer holds."""
    big = tmp_path / "big.log"
    big.write_text(LOG.read_text(encoding="utf-8") * 400, encoding="utf-8")
    for args in (["events", str(big)], ["events", "-f", "jsonl", str(big)]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "sglang_logscope", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait() == 0, err
        assert err == b"", err


def test_an_ascii_stdout_gets_stand_ins_and_json_stays_whole() -> None:
    utf = _cli("check", "-v", "-e", str(COMMAND), str(LOG))  # -v: the next steps' arrows
    ascii_ = _cli("check", "-v", "-e", str(COMMAND), str(LOG), PYTHONIOENCODING="ascii")
    assert ascii_.returncode == utf.returncode == 1  # the demo is stale: the answer, not a crash
    assert "UnicodeEncodeError" not in ascii_.stderr
    assert ascii_.stdout.isascii() and not utf.stdout.isascii()
    assert "->" in ascii_.stdout and "→" in utf.stdout
    as_json = _cli("summary", "-f", "json", str(LOG), PYTHONIOENCODING="ascii")
    assert as_json.stdout.isascii()
    assert json.loads(as_json.stdout) == json.loads(_cli("summary", "-f", "json", str(LOG)).stdout)


def test_every_stand_in_is_ascii() -> None:
    assert all(v.isascii() and not k.isascii() for k, v in ASCII_STAND_INS.items())


def test_a_narrow_terminal_keeps_argument_names_whole() -> None:
    """At 80 columns the five-column table cut ``mem_fraction_stat…``; now each name is whole."""
    names = json.loads(completed("check", "-f", "json", "-e", str(COMMAND), str(LOG)).stdout)
    wanted = [d["arg"] for d in names["arg_diff"]]
    assert "mem_fraction_static" in wanted
    for columns in ("60", "80", "120", "200"):
        out = _cli("check", "-v", "-e", str(COMMAND), str(LOG), COLUMNS=columns).stdout
        assert "…" not in out.split("Argument differences", 1)[1].split("Matching", 1)[0]
        for name in wanted:
            assert name in out, (columns, name)
        # the corrected command (issue 27) is printed unwrapped: a newline in it breaks the paste
        pasted = set(names["fixed_command"]["text"].splitlines())
        assert max(len(line) for line in out.splitlines() if line not in pasted) <= int(columns)


def test_events_table_writes_each_row_before_reading_the_next() -> None:
    out = io.StringIO()
    seen: list[int] = []

    def events() -> Iterator[Event]:
        for n, event in enumerate(iter_events(str(LOG))):
            # every earlier event is already on the page when the next one is parsed
            assert out.getvalue().count("\n") >= n + 1
            seen.append(event.line)
            yield event

    count = write_events_table(events(), out)
    assert count == len(seen) > 10
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["line", "time", "rank", "kind", "message"]
    assert all(len(line) <= 120 for line in lines)


def test_events_table_wraps_long_messages_under_the_message_column() -> None:
    out = io.StringIO()
    long = next(e for e in iter_events(str(LOG)) if len(e.message) > 100)
    write_events_table([long], out)
    first, *rest = out.getvalue().splitlines()[1:]
    indent = first.index(long.message.split()[0])
    assert rest and all(line[:indent].strip() == "" for line in rest)


class _Tty(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Event()

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        n = super().write(text)
        if "reading big.log" in self.getvalue():
            self.written.set()
        return n


def test_progress_shows_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOGSCOPE_NO_PROGRESS", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not progress.wanted()
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert progress.wanted()
    with progress.working("reading big.log", delay=0.0):
        # the spinner's first frame, however busy the machine (the bound only stops a hang)
        tty.written.wait(timeout=300)
    assert "reading big.log" in tty.getvalue()
    monkeypatch.setenv("TERM", "dumb")
    assert not progress.wanted()


def test_quick_work_shows_no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    with progress.working("quick", delay=3600):
        pass
    assert tty.getvalue() == ""


def test_failure_has_one_shape_in_every_json_document() -> None:
    """``runs`` gave the failure's kind alone; check and summary an object."""
    runs = json.loads(completed("runs", "-f", "json", str(LOG)).stdout)["runs"][-1]["failure"]
    checked = json.loads(completed("check", "-f", "json", str(LOG)).stdout)["failure"]
    summary = json.loads(completed("summary", "-f", "json", str(LOG)).stdout)["runs"][-1]["failure"]
    assert runs == checked
    assert set(runs) == set(checked) == {"kind", "message", "line", "effective"}
    assert runs["kind"] == summary["kind"] == "not_enough_memory"
    assert runs["line"] == summary["line"]
