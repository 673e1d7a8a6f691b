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
from sglang_logscope.log import tail
from sglang_logscope.log.launches import read_launches
from sglang_logscope.log.reader import read_log, summarize_each
from sglang_logscope.parse import source as _source
from sglang_logscope.render.progress import _Elapsed
from sglang_logscope.staleness.judge import check
from sglang_logscope.staleness.launch_check import check_launch

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


# Of several files (the leftovers of issue 33): how many are done, and a share only where the
# work reads each file once, in this process or counted as a worker's result arrives.


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two copies of the real log (~315 kB each) under other names: two files, one launch."""
    folder = tmp_path_factory.mktemp("several")
    paths = [folder / "a.log", folder / "b.log"]
    for path in paths:
        path.write_bytes(REAL.read_bytes() * 2)
    return paths


@pytest.mark.parametrize(
    ("argv", "step", "share"),
    [
        pytest.param(["runs"], b"grouping ", True, id="runs"),
        pytest.param(["summary"], b"", True, id="summary"),
        pytest.param(["summary", "--launches"], b"grouping ", True, id="summary-launches"),
        pytest.param(["check"], b"judging ", False, id="check"),
        pytest.param(["report", "--html", "-"], b"series ", False, id="report"),
    ],
)
def test_several_files_show_how_many_are_done(
    argv: list[str], step: bytes, share: bool, pair: list[Path]
) -> None:
    """The line's last frame (drawn as the work ends, before it is erased) counts every file;
    a share only where it can reach the whole, else the MB read."""
    code, out, err = _run([*argv, *map(str, pair)])
    plain_code, plain_out, _ = _run([*argv, *map(str, pair)], tty_stderr=False)
    assert step + b"2 of 2 files" in err, err[-400:]
    assert bool(PERCENT.search(err)) is share, err[-400:]
    assert share or b" MB read" in err
    assert err.rstrip(b"\r\n").endswith(b"\x1b[2K")
    assert code in (0, 1) and (code, out) == (plain_code, plain_out)


def _sizes(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def test_grouping_reads_each_file_whole_once(pair: list[Path]) -> None:
    """Why ``runs`` and ``summary --launches`` of several show a share: the header runs are
    read from every byte of every file, each byte once."""
    with meter.metered(_sizes(pair)) as m:
        read_launches([str(p) for p in pair])
    assert (m.done, m.step, m.files, m.files_done) == (_sizes(pair), "grouping", 2, 2)


@pytest.mark.parametrize("workers", [1, 2], ids=["here", "pool"])
def test_summaries_count_each_file_and_its_bytes_once(pair: list[Path], workers: int) -> None:
    """Read here, the readers count the bytes; in worker processes, this process adds each
    file's size as its result arrives: the same count either way."""
    with meter.metered(_sizes(pair)) as m:
        results = summarize_each([str(p) for p in pair], workers=workers)
    assert all(summary is not None for summary, _ in results)
    assert (m.done, m.files, m.files_done, m.step) == (_sizes(pair), 2, 2, "")
    assert m.share() == 0.99  # the last 1 % is said by the end of the line


def test_a_check_of_several_reads_more_than_the_files(pair: list[Path]) -> None:
    """Why ``check`` (and ``report``) of several show files and MB, no share: grouping reads
    each file whole, then each file's check reads it again (its end, its byte pass)."""
    with meter.metered(None) as m:
        check_launch([str(p) for p in pair])
    assert (m.step, m.files, m.files_done) == ("judging", 2, 2)
    assert m.done > _sizes(pair)


def test_the_line_says_the_pass_the_files_and_the_share() -> None:
    counted = meter.Meter(1000)
    line = _Elapsed("reading 3 files", 0.0, counted)
    assert line.read() == "  0%"
    counted.begin(3, "grouping")
    counted.file_done(250)
    assert line.read() == "  grouping 1 of 3 files  25%"
    counted.begin(3)  # another pass: the count restarts
    assert line.read() == "  0 of 3 files  25%"
    unsized = meter.Meter(None)
    unsized.begin(2, "judging")
    assert _Elapsed("x", 0.0, unsized).read() == "  judging 0 of 2 files"
    unsized.add(3_000_000)
    assert _Elapsed("x", 0.0, unsized).read() == "  judging 0 of 2 files  3 MB read"


def test_no_meter_open_counts_no_file() -> None:
    meter.files_begin(3, "grouping")  # nothing is open: nothing happens, nothing fails
    meter.file_done(10)
    with meter.metered(None) as m:
        pass
    assert (m.files, m.files_done, m.done) == (None, 0, 0)


def test_a_check_counts_its_byte_pass_once_however_many_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first check of a big log reads it whole once (the byte pass) and its last run again;
    the pass's look-backs at each banner found (its line, the lines before it in the block)
    are not counted: at 30 runs they were counted as 13 times the file, so the share stood at
    99 % a tenth of the way in."""
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path / "cache"))  # no index: a first check
    log = tmp_path / "server.log"
    log.write_bytes(REAL.read_bytes() * 30)  # 30 runs, past the size read from its end
    size = log.stat().st_size
    assert size > tail.FAST_MIN_BYTES
    with meter.metered(size) as m:
        report = check(str(log), live=False)
    assert len(report.runs) == 30
    assert size <= m.done < 1.3 * size
