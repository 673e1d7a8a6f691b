"""Files read on the user's behalf but named by untrusted input (issue 29, items 3-4): a
command's ``--config``, the launch record, the scan index. None is followed through a symbolic
link, each must be a small regular file, and what is refused is never shown."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_run import completed
from test_long_run import _make
from test_scan_index import _fast, indexed  # noqa: F401 - the fixture, used by name

from sglang_logscope.command.parse import parse_launch_command
from sglang_logscope.errors import CommandError, LogscopeError
from sglang_logscope.log import scan_index

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
SECRET = "root:$6$s3cr3tHASH:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n"


#: The CLI in this process: each case is an exit code and what stdout and stderr say.
_cli = completed


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A command and a config beside it, as a bundle from someone else arrives."""
    (tmp_path / "victim.txt").write_text(SECRET)
    (tmp_path / "cmd.txt").write_text(
        "python -m sglang.launch_server --model-path Q --tp 2 --config shadow.yaml\n"
    )
    shutil.copyfile(DEMO / "sglang-serve.log", tmp_path / "demo.log")
    return tmp_path


@pytest.mark.parametrize("form", ["link", "copy"])
@pytest.mark.parametrize(
    "command",
    [
        ("args", "cmd.txt"),
        ("check", "-e", "cmd.txt", "-f", "json", "demo.log"),
        ("report", "demo.log", "-e", "cmd.txt", "--html", "r.html"),
    ],
)
def test_a_config_that_is_a_link_or_not_options_is_never_shown(
    bundle: Path, form: str, command: tuple[str, ...]
) -> None:
    """The red team's N28: ``shadow.yaml -> /etc/shadow`` printed each line as a flag in
    ``args``, check's JSON and the HTML report."""
    target = bundle / "shadow.yaml"
    if form == "link":
        target.symlink_to(bundle / "victim.txt")
    else:
        shutil.copyfile(bundle / "victim.txt", target)
    done = _cli(*command, cwd=bundle)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1
    said = (
        "is a symbolic link; logscope does not follow it"
        if form == "link"
        else "not SGLang option names"
    )
    assert said in done.stderr
    shown = done.stdout + done.stderr
    if (bundle / "r.html").exists():
        shown += (bundle / "r.html").read_text(encoding="utf-8")
    assert "s3cr3tHASH" not in shown and "daemon" not in shown and "root:" not in shown


def test_a_config_of_options_still_reads(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("model-path: /m\ntp_size: 2\n")
    cmd = parse_launch_command("python -m sglang.launch_server --config ok.yaml", base_dir=tmp_path)
    assert cmd.args["model_path"] == "/m" and cmd.unknown == ("--tp_size",)
    (tmp_path / "half.yaml").write_text("model-path: /m\nnot-an-option-at-all: 1\n")
    with pytest.raises(CommandError, match="refused, 1 of its 2 keys are not SGLang option names"):
        parse_launch_command("python -m sglang.launch_server --config half.yaml", base_dir=tmp_path)


def test_a_launch_record_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    from sglang_logscope.staleness.judge import check

    log = tmp_path / "demo.log"
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    (tmp_path / "elsewhere.json").write_text(
        json.dumps({"pid": os.getpid(), "launched_at": "2026-05-09T09:31:05"})
    )
    (tmp_path / "demo.log.launch.json").symlink_to(tmp_path / "elsewhere.json")
    report = check(log)
    assert report.process is None or report.process.pid != os.getpid()


# -- the scan index (item 4) -----------------------------------------------------------------


def _entry(path: Path) -> Path:
    entry = scan_index._entry(str(path))
    assert entry is not None
    return entry


@pytest.mark.usefixtures("indexed")
@pytest.mark.parametrize("planted", ["fifo", "deep", "link", "big", "world-writable"])
def test_whatever_sits_at_the_index_name_is_ignored(tmp_path: Path, planted: str) -> None:
    """The red team's N7/N8: a FIFO at the index's predictable name blocked ``check`` in
    open(); 300 k nested brackets ended in an internal error (RecursionError)."""
    path, _ = _make(tmp_path, "long", 15, "plain")
    entry = _entry(path)
    entry.parent.mkdir(parents=True, exist_ok=True)
    if planted == "fifo":
        os.mkfifo(entry)
    elif planted == "deep":
        entry.write_text("[" * 300_000 + "]" * 300_000)
    elif planted == "link":
        (tmp_path / "real.json").write_text("{}")
        entry.symlink_to(tmp_path / "real.json")
    elif planted == "big":
        with entry.open("wb") as f:
            f.truncate(scan_index.MAX_INDEX_BYTES + 1)
    else:
        entry.write_text("{}")
        entry.chmod(0o666)
    assert scan_index.load(str(path)) is None
    assert _fast(path).resumed_from_line == 0  # read whole, not hung, no error


@pytest.mark.usefixtures("indexed")
def test_a_same_size_edit_in_place_drops_the_index(tmp_path: Path) -> None:
    """The red team's N5: an edit in place outside the sampled windows (same inode, same size)
    gave the wrong last run. A write in place moves ctime: the index is not used."""
    path, _ = _make(tmp_path, "long", 15, "plain")
    _fast(path)
    assert _fast(path).resumed_from_line > 0  # unchanged: the index is used
    kept = json.loads(_entry(path).read_text())["ctime_ns"]
    data = path.read_bytes()
    at = data.index(b"\n", len(data) * 3 // 34) + 1  # between the first two samples
    while path.stat().st_ctime_ns == kept:  # (a clock tick may hold several writes)
        with path.open("r+b") as f:  # the same byte, written in place
            f.seek(at)
            f.write(data[at : at + 1])
    assert scan_index.load(str(path)) is None
    assert _fast(path).resumed_from_line == 0


@pytest.mark.usefixtures("indexed")
def test_a_grown_log_still_goes_on_from_its_index(tmp_path: Path) -> None:
    path, _ = _make(tmp_path, "long", 15, "plain")
    _fast(path)
    with path.open("ab") as f:
        f.write(
            b"[2026-05-24 12:00:00 TP0] Decode batch, #running-req: 1, #token: 5, gen throughput (token/s): 1.0\n"
        )
    assert _fast(path).resumed_from_line > 0


def test_any_index_content_is_never_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(scan_index.CACHE_ENV, str(tmp_path / "idx"))
    log = tmp_path / "x.log"
    log.write_bytes(b"x\n" * 10)
    entry = _entry(log)
    entry.parent.mkdir()
    for content in (
        b"{" * 100_000,
        b'{"format": 2, "code": []}',
        b"\xff\xfe",
        b"1e999999",
        b"[" * 10 + b"]" * 10,
    ):
        entry.write_bytes(content)
        entry.chmod(0o600)
        try:
            assert scan_index.load(str(log)) is None
        except LogscopeError:  # pragma: no cover - would be a finding, never a crash
            raise
