"""The launch-command lint, on the real command files and with bash itself as the oracle."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.command.lint import RULES, LogFacts, launch_step, lint
from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.command.walk import run_there, walk, where
from sglang_logscope.findings import CODES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
COMMANDS = sorted((ROOT / "fixtures" / "commands").glob("*.txt"))
STALE = LogFacts("sglang-serve.log", untouched=True)


def _codes(text: str, log: LogFacts | None = None) -> list[str]:
    return [h.code for h in lint(text, log)]


def test_every_rule_has_a_documented_code_in_its_range() -> None:
    codes = [r.code for r in RULES]
    assert len(set(codes)) == len(codes)
    for code in codes:
        assert "LS030" <= code <= "LS059" and code in CODES
        assert (ROOT / "docs" / "findings" / f"{code}.md").is_file()


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_real_commands_from_public_threads_are_clean(path: Path) -> None:
    """None of the public commands kills its shell, misorders redirects or pastes ``\\ ``."""
    assert _codes(path.read_text()) == []


@pytest.mark.parametrize("name", ["command.txt", "command-multiline.txt"])
def test_demo_story_pkill_kills_its_own_shell_first(name: str) -> None:
    hits = lint((DEMO / name).read_text(), STALE)
    first = hits[0]
    assert first.code == "LS030"
    assert "matches its own shell" in first.message and "SIGKILL" in first.message
    assert "`rm -f /root/sglang-serve.log`" in first.message  # what never ran
    assert "pkill -9 -f ^/root/ml-env/bin/python3.-m.sglang.launch_server" in first.fix
    codes = [h.code for h in hits]
    assert {"LS030", "LS031", "LS033", "LS036"} <= set(codes)
    assert ("LS037" in codes) is (name == "command.txt")  # only the flattened paste
    assert "LS032" not in codes  # the launch has nohup
    assert "LS035" not in codes  # it writes sglang-serve.log, the file checked


def test_log_rules_need_the_log() -> None:
    text = (DEMO / "command.txt").read_text()
    assert "LS031" not in _codes(text)  # no log facts: nothing to say
    assert "LS031" not in _codes(text, LogFacts("sglang-serve.log", untouched=False))
    other = lint(text, LogFacts("other.log", untouched=True))
    assert next(h for h in other if h.code == "LS035").message.startswith(
        "Your command writes the server's output to /root/sglang-serve.log"
    )


def test_pid_echo_is_expanded_by_the_outer_shell() -> None:
    hits = [h for h in lint((DEMO / "command.txt").read_text()) if h.code == "LS033"]
    assert len(hits) == 1 and "root@gpu-box" in hits[0].message
    # Escaped, the inner shell expands it after its own `&`: nothing to report.
    fixed = (DEMO / "command.txt").read_text().replace("PID=$!", "PID=\\$!")
    assert "LS033" not in _codes(fixed)
    assert "LS033" in _codes("python -m sglang.launch_server --model-path m; echo PID=$!")
    assert "LS033" not in _codes("python -m sglang.launch_server --model-path m & echo PID=$!")


# 054.txt (a real command, fixtures/commands/054.txt) with its redirect changed: synthetic variants.
REAL_054 = "CUDA_VISIBLE_DEVICES=0,2 python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --port 9991 --tp-size 2"


def test_redirect_order() -> None:
    hits = lint(f"nohup {REAL_054} 2>&1 > exp001.log &")
    assert [h.code for h in hits] == ["LS034"]
    assert hits[0].fix.startswith("`python -m sglang.launch_server") is False
    assert "> exp001.log 2>&1 &`" in hits[0].fix
    assert _codes(f"nohup {REAL_054} > exp001.log 2>&1 &") == []


def test_background_in_a_session_without_nohup() -> None:
    text = f"ssh gpu1 'cd /srv; {REAL_054} > exp001.log 2>&1 &'"
    hits = lint(text)
    assert [h.code for h in hits] == ["LS032"]
    assert hits[0].fix.startswith("`nohup setsid python -m sglang.launch_server")
    assert _codes(text.replace("cd /srv; ", "cd /srv; nohup ")) == []
    assert _codes(text.replace("&'", "& disown'")) == []
    assert _codes(f"{REAL_054} > exp001.log 2>&1 &") == []  # a local shell: no session to end


def test_fixed_sleep_after_kill() -> None:
    base = f"pkill -9 -f ^python.-m.sglang; sleep 5; {REAL_054} > x.log 2>&1"
    assert _codes(base) == ["LS036"]
    waits = base.replace("sleep 5", "while pgrep -f ^python.-m.sglang; do sleep 1; done")
    assert _codes(waits) == []
    assert _codes(base.replace("pkill -9", "pkill")) == []  # SIGTERM: SGLang cleans up itself


def test_killall_and_pgrep_in_kill() -> None:
    text = f"bash -c 'kill -9 $(pgrep -f sglang); {REAL_054}'"
    assert _codes(text)[0] == "LS030"
    assert "LS030" not in _codes(f"bash -c 'killall python; {REAL_054}'")  # names, not cmdlines


# ----------------------------------------------------------------------- bash is the oracle


def _bash(script: str, cwd: Path, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs procps and /proc")
def test_pkill_self_match_in_a_real_bash_and_the_fixed_line(tmp_path: Path) -> None:
    """The story's command shape, run by bash: the shell dies at pkill; the fix survives."""
    module = f"sglang_zzprobe_{os.getpid()}"
    (tmp_path / module).mkdir()
    (tmp_path / module / "__init__.py").write_text("")
    (tmp_path / module / "launch_server.py").write_text(
        "import signal\nprint('up', flush=True)\nsignal.pause()\n"  # until killed: no timer
    )
    (tmp_path / "server.log").write_text("[old run]\n")
    python = sys.executable
    inner = (
        f"pkill -9 -f {module}; sleep 0.2; rm -f server.log; "
        f"nohup {python} -m {module}.launch_server --port 1 > server.log 2>&1 & echo PID=$!"
    )
    text = f"bash -c {shlex.quote(inner)}"
    hits = lint(text, LogFacts("server.log", untouched=True))
    assert hits[0].code == "LS030"
    done = _bash(text, tmp_path)
    assert done.returncode in (-9, 137) and "PID=" not in done.stdout  # killed by its own pkill
    assert (tmp_path / "server.log").read_text() == "[old run]\n"  # rm never ran
    assert "LS031" in [h.code for h in hits]

    fix = hits[0].fix.split("`")[1]
    assert fix == f"pkill -9 -f ^{python}.-m.{module}.launch_server"
    old = subprocess.Popen(
        [python, "-m", f"{module}.launch_server"], cwd=tmp_path, stdout=subprocess.PIPE, text=True
    )
    try:
        assert old.stdout is not None and old.stdout.readline() == "up\n"  # running: pkill sees it
        fixed = text.replace(f"pkill -9 -f {module}", fix)
        assert "LS030" not in [h.code for h in lint(fixed)]
        done = _bash(fixed.replace("& echo", "& sleep 0.5; echo"), tmp_path)
        assert done.returncode == 0 and done.stdout.startswith("PID=")
        assert old.wait(timeout=10) == -9  # the fixed pattern still kills the old server
        pid = int(done.stdout.strip().split("=")[1])
        os.kill(pid, 9)
    finally:
        if old.poll() is None:
            old.kill()


def test_the_issues_probe_terminated_143(tmp_path: Path) -> None:
    """The issue's own check: `bash -c "pkill -f P; echo survived; true P"` never says survived."""
    probe = f"zzprobe{os.getpid()}"
    text = f'bash -c "pkill -f {probe}; echo survived; true {probe}"'
    done = _bash(text, tmp_path)
    assert done.returncode in (-15, 143) and "survived" not in done.stdout
    hit = lint(text)[0]
    assert hit.code == "LS030" and "SIGTERM (bash reports 'Terminated', status 143)" in hit.message


def test_escaped_space_is_what_bash_passes(tmp_path: Path) -> None:
    """``\\ `` before a flag: the argv logscope reports is the argv bash hands the program."""
    dump = tmp_path / "dump.py"
    dump.write_text("import sys, json\nprint(json.dumps(sys.argv[1:]))\n")
    tail = "\\ --model-path /m \\ --tp-size 2 --port 30000 \\ > out.txt"
    done = _bash(f"{sys.executable} {dump} {tail}", tmp_path)
    import json

    bash_argv = json.loads((tmp_path / "out.txt").read_text())
    assert bash_argv == [" --model-path", "/m", " --tp-size", "2", "--port", "30000", " "]
    assert done.returncode == 0
    cmd = parse_launch_command(f"python -m sglang.launch_server {tail}", sglang_version="0.5.9")
    assert list(cmd.argv) == bash_argv
    assert cmd.rejected and cmd.meant is not None
    assert cmd.meant.args["tp_size"] == 2 and not cmd.meant.rejected
    hits = lint(f"python -m sglang.launch_server {tail}")
    assert [h.code for h in hits] == ["LS037"]
    assert "' --model-path'" in hits[0].message and "only a space" in hits[0].message


def test_where_and_the_command_that_runs_there() -> None:
    w = walk((DEMO / "command.txt").read_text())
    launch = next(s for s in w.steps if s.head.startswith("python"))
    assert where(launch.hops) == "host root@gpu-box, Proxmox container 129"
    assert (
        run_there(launch.hops, "logscope preflight --expect-args -")
        == "ssh root@gpu-box 'pct exec 129 -- logscope preflight --expect-args -'"
    )
    kube = walk("kubectl exec -n ml sglang-0 -- python -m sglang.launch_server --model-path m")
    assert (
        run_there(kube.steps[-1].hops, "logscope gpus")
        == "kubectl exec -i sglang-0 -- logscope gpus"
    )


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=" \\'\"$!&;|<>()-_abcfkilmnpsx29\n", max_size=80))
def test_lint_never_raises(text: str) -> None:
    for hit in lint(text, STALE):
        assert hit.code in CODES and hit.fix


SCRIPTS = ROOT / "fixtures" / "commands" / "scripts"


def test_real_script_kills_with_sigkill_and_launches_at_once() -> None:
    """gongyisheng/oss-workspace run_sglang.sh: the last `pkill -9 python` is followed by no wait."""
    hits = lint((SCRIPTS / "run_sglang.sh").read_text())
    # issue 27: under its `set -ex`, the first `pkill -9 sglang` exits 1 on a machine with no
    # sglang process, and bash ends the script there (LS039, the cause; it comes first). Each of
    # its five pkills is a hazard; the lint lists each, in bash order.
    assert [h.code for h in hits] == ["LS039"] * 5 + ["LS036"]
    assert hits[0].stops and hits[0].message.startswith("Under `set -e`, `pkill -9 sglang`")
    assert hits[-1].message.startswith("Nothing waits between `pkill -9 python` and the launch")


def test_real_script_echoes_the_right_pid_and_writes_its_own_log() -> None:
    """wuyuVerse/code2sql sglang_start_command.sh: `$!` after the `&` is right; its log is its own."""
    text = (SCRIPTS / "sglang_start_command.sh").read_text()
    assert _codes(text) == []
    assert _codes(text, LogFacts("code2sql_sglang_8001.log", untouched=False)) == []
    other = lint(text, LogFacts("sglang-serve.log", untouched=False))
    assert [h.code for h in other] == ["LS035"]
    assert "code2sql_sglang_8001.log" in other[0].message


def test_ssh_remote_command_kills_its_login_shell() -> None:
    """ssh runs the remote words in the user's login shell (`bash -c '...'`): it matches too."""
    text = "ssh gpu1 'pkill -f sglang; nohup python3 -m sglang.launch_server --model-path m > s.log 2>&1 &'"
    hit = lint(text)[0]
    assert hit.code == "LS030" and "`bash -c pkill -f sglang;" in hit.message
    assert hit.fix.startswith("`pkill -f ^python3.-m.sglang.launch_server`")


def test_real_script_run_by_its_shebang_kills_itself(tmp_path: Path) -> None:
    """run_sglang.sh runs `pkill -9 sglang` (process names): run as ./run_sglang.sh, its own
    name matches. Checked on a miniature of it in bash; the real script is only linted."""
    real = (SCRIPTS / "run_sglang.sh").read_text()
    hits = lint(real, script="run_sglang.sh")
    # issue 27: the next `pkill -9 ray` fails under `set -ex` when no ray runs (LS039): a later
    # hazard, listed after the cause (the self-killing pkill, LS030).
    assert [h.code for h in hits] == ["LS030"] + ["LS039"] * 4 + ["LS036"]
    assert hits[1].message.startswith("Under `set -e`, `pkill -9 ray`")
    assert "its name is 'run_sglang.sh'" in hits[0].message
    assert hits[0].fix.startswith("`pkill -9 -f ^python.-m.sglang.launch_server`")
    assert "LS030" not in _codes(real)  # without the file name nothing says how it is run
    tag = f"zz{os.getpid() % 100000}"
    script = tmp_path / f"run_{tag}.sh"
    script.write_text(f"#!/bin/bash\npkill -9 {tag}\necho survived\n")
    script.chmod(0o755)
    done = subprocess.run(
        [f"./{script.name}"], cwd=tmp_path, capture_output=True, text=True, timeout=20
    )
    assert done.returncode in (-9, 137) and "survived" not in done.stdout
    assert lint(script.read_text(), script=f"./{script.name}")[0].code == "LS030"


@pytest.mark.parametrize(
    "path",
    [
        *COMMANDS,
        DEMO / "command.txt",
        DEMO / "command-multiline.txt",
        *sorted(SCRIPTS.glob("*.sh")),
    ],
    ids=lambda p: p.name,
)
def test_the_walk_finds_the_same_launch_as_the_parser(path: Path) -> None:
    """The lint's launch step is the command `parse_launch_command` reads (same argv)."""
    from sglang_logscope.command.expand import expand

    text = path.read_text()
    step = launch_step(walk(text))
    assert step is not None
    cmd = parse_launch_command(text)
    # the parser expands the variables the text sets (``${MODEL_PATH}``); the walk keeps words
    words = tuple(expand(w, cmd.env)[0] for w in step.words[-len(cmd.argv) :])
    assert words == cmd.argv


_PLAIN = "sglang_-/:=#&~<>!,;%@`'\" \t0129üß"


@settings(max_examples=examples(300), deadline=None)
@given(
    pattern=st.text(alphabet=_PLAIN + ".^$", min_size=1, max_size=8),
    text=st.text(alphabet=_PLAIN + ".*+?()[]|^$\\{}", max_size=30),
)
def test_a_plain_pattern_matches_as_its_regex_does(pattern: str, text: str) -> None:
    """The fast paths of a pkill/pgrep pattern (a substring where it has none of the regex
    syntax characters, ``re`` where it has only ``.^$``) equal ``regex.search``."""
    import regex

    from sglang_logscope.command.lint import _matches

    assert _matches(pattern, text) == (regex.search(pattern, text) is not None)


def test_every_other_ascii_character_is_itself_in_a_regex() -> None:
    """A printable character outside ``_REGEX_SYNTAX`` matches itself and only itself."""
    import regex

    from sglang_logscope.command.lint import _REGEX_SYNTAX

    chars = [chr(c) for c in range(32, 127) if chr(c) not in _REGEX_SYNTAX]
    for c in chars:
        assert [d for d in chars if regex.fullmatch(c, d)] == [c], c
