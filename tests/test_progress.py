"""Progress on stderr (issue 33): a line with the share read, on a terminal only, never on
stdout, erased at the end; the readers count once per block. The CLI runs in a child process
whose stderr is a pseudo-terminal (``pty``); ``LOGSCOPE_PROGRESS_DELAY=0`` (hidden, for
tests) draws the line at once instead of after a second, so no assertion waits on a clock."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sglang_logscope import meter
from sglang_logscope.log.reader import read_log
from sglang_logscope.parse import source as _source

pty = pytest.importorskip("pty")  # platform: POSIX only

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real" / "069" / "server.log"  # a real log (see its meta.json)
PERCENT = re.compile(rb"\b\d{1,2}%")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real log four times over (~630 kB): several 256 KiB blocks."""
    path = tmp_path_factory.mktemp("progress") / "server.log"
    path.write_bytes(REAL.read_bytes() * 4)
    return path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LOGSCOPE_NO_PROGRESS"}
    return {**env, "TERM": "xterm", "LOGSCOPE_PROGRESS_DELAY": "0", **extra}


def _drain(fd: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            return
        if not chunk:
            return
        into.extend(chunk)


def _run(
    argv: list[str], *, tty_stderr: bool = True, tty_stdout: bool = False, **env: str
) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of ``logscope ARGV``, stderr (and stdout) a terminal when
    asked; the terminal is read while the child runs, so it never blocks on a full one."""
    cmd = [sys.executable, "-m", "sglang_logscope", *argv]
    if not tty_stderr:
        done = subprocess.run(cmd, capture_output=True, env=_env(**env), timeout=300)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    got = bytearray()
    reader = threading.Thread(target=_drain, args=(master, got))
    out = slave if tty_stdout else subprocess.PIPE
    try:
        child = subprocess.Popen(cmd, stdout=out, stderr=slave, env=_env(**env))
        os.close(slave)
        reader.start()
        stdout, _ = child.communicate(timeout=300)
        reader.join(timeout=60)
    finally:
        os.close(master)
    return child.returncode, stdout or b"", bytes(got)


@pytest.mark.parametrize(
    "argv",
    [["summary"], ["check"], ["runs"], ["report", "--markdown", "-"]],
    ids=lambda a: a[0],
)
def test_a_terminal_sees_the_share_read_and_stdout_never_does(argv: list[str], big: Path) -> None:
    code, out, err = _run([*argv, str(big)])
    plain_code, plain_out, plain_err = _run([*argv, str(big)], tty_stderr=False)
    assert PERCENT.search(err), err[-300:]
    assert str(big).encode() in err  # the label names the file
    assert err.rstrip(b"\r\n").endswith(b"\x1b[2K")  # erased at the end
    assert (code, out) == (plain_code, plain_out)  # stdout is the same, progress or not
    assert b"\x1b" not in plain_err and not PERCENT.search(plain_err)  # not a TTY: silent


def test_events_streaming_to_a_pipe_shows_progress_and_keeps_stdout_clean(big: Path) -> None:
    code, out, err = _run(["events", "-f", "jsonl", str(big)])
    assert code == 0 and PERCENT.search(err)
    lines = out.decode().splitlines()
    assert lines and all(json.loads(line)["line"] >= 1 for line in lines)


def test_events_to_the_terminal_itself_draws_no_line(big: Path) -> None:
    """A command writing as it reads would have its lines cut by the redraws."""
    code, _, both = _run(["events", "-f", "jsonl", str(big)], tty_stdout=True)
    assert code == 0 and b'"kind"' in both
    assert b"reading " not in both and b"\x1b[2K" not in both


def test_no_progress_setting_and_dumb_terminal_silence_it(big: Path) -> None:
    for env in ({"LOGSCOPE_NO_PROGRESS": "1"}, {"TERM": "dumb"}):
        _, _, err = _run(["summary", str(big)], **env)
        assert not PERCENT.search(err) and b"\x1b[2K" not in err, env


def test_a_size_is_known_for_plain_local_files_only(tmp_path: Path, big: Path) -> None:
    packed = tmp_path / "server.log.gz"
    packed.write_bytes(gzip.compress(big.read_bytes()))
    link = tmp_path / "link.log"
    link.symlink_to(big)
    size = big.stat().st_size
    assert meter.input_size([str(big)]) == size
    assert meter.input_size([str(big), str(REAL)]) == size + REAL.stat().st_size
    for names in (["-"], ["s3://bucket/x.log"], [str(tmp_path)], [str(packed)], [str(link)]):
        assert meter.input_size(names) is None, names
    assert meter.input_size([str(tmp_path / "missing.log")]) is None


def test_the_share_is_capped_until_the_end_and_unknown_without_a_size() -> None:
    counted = meter.Meter(100)
    counted.add(40)
    assert counted.share() == 0.4
    counted.add(200)  # a part read twice
    assert counted.share() == 0.99
    assert meter.Meter(None).share() is None and meter.Meter(0).share() is None


def test_readers_count_once_per_block_not_per_line(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real_add = meter.Meter.add

    def counting(self: meter.Meter, n: int) -> None:
        calls.append(n)
        real_add(self, n)

    monkeypatch.setattr(meter.Meter, "add", counting)
    meter.advance(10)  # no meter open: nothing is counted
    assert calls == []
    with meter.metered(big.stat().st_size) as m:
        log = read_log(str(big), helper=False)
    lines = big.read_bytes().count(b"\n")
    assert m.done == big.stat().st_size  # every byte, once
    assert len(calls) <= big.stat().st_size // _source.PIECE_BYTES + 2 < lines // 100
    assert log.runs  # (the read itself is the ordinary one)
