"""Bounded work on hostile files (issue 20, item 2): ``--config`` YAML and launch records are
small regular files with bounded aliases, depth and expanded size; anything else is one line
on stderr and exit 2 — never a hang (a FIFO, an alias bomb) or a traceback (10 000 levels)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_values import DEMO, run_cli

from sglang_logscope.command import config_yaml
from sglang_logscope.errors import LogscopeError
from sglang_logscope.watch.launch import read_record, record_path

COMMAND = "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --config {name}\n"


def _laughs(levels: int = 9, width: int = 9) -> str:
    """The "billion laughs" document: ``width ** levels`` strings from ``levels * width``
    aliases."""
    text = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    prev = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * width) + "]\n"
        prev = name
    return text


def _dict_laughs() -> str:
    text = "a: &a {x: 1, y: 1}\n"
    prev = "a"
    for name in "bcdefghijklmnopqrstuvwxyz":
        text += f"{name}: &{name} {{x: *{prev}, y: *{prev}}}\n"
        prev = name
    return text


def _wide_laughs() -> str:
    """Few aliases (under MAX_ALIASES), but 30 000 items once expanded."""
    text = "a: &a [" + ", ".join(["1"] * 1000) + "]\n"
    return text + "b: [" + ", ".join(["*a"] * 30) + "]\n"


HOSTILE_YAML = {
    "laughs": (_laughs(), "aliases"),
    "dict-laughs": (_dict_laughs(), "aliases"),
    "wide-laughs": (_wide_laughs(), "items"),
    "deep": ("tp-size: " + "[" * 10_000 + "]" * 10_000 + "\n", "deeper than 50"),
    "deep-map": ("a: " + "{b: " * 5000 + "1" + "}" * 5000 + "\n", "deeper than 50"),
    "huge-int": ("tp-size: " + "9" * 5000 + "\n", "refused"),
    "infinity": ("mem-fraction-static: .inf\n", "finite"),
    "big": ("# " + "x" * (config_yaml.CONFIG_MAX_BYTES + 10) + "\n", "over"),
    "control": ("\x1f\n", "not valid YAML"),
    "not-utf8": ("\udcff", "UTF-8"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
@pytest.mark.parametrize("command", ["args", "check", "budget"])
def test_hostile_config_yaml_is_one_line_and_exit_2(
    tmp_path: Path, case: str, command: str
) -> None:
    text, why = HOSTILE_YAML[case]
    (tmp_path / "c.yaml").write_bytes(text.encode("utf-8", "surrogateescape"))
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(COMMAND.format(name="c.yaml"), encoding="utf-8")
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    argv = {
        "args": ["args", str(cmd)],
        "check": ["check", "--expect-args", str(cmd), str(log)],
        "budget": ["budget", "-e", str(cmd)],
    }[command]
    code, _, err = run_cli(argv)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert why in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["FIFO", "directory", "character device"])
def test_config_that_is_no_regular_file_is_refused_without_waiting(
    tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "c.yaml"
    if kind == "FIFO":
        os.mkfifo(target)  # no writer: reading it would wait for ever
    elif kind == "directory":
        target.mkdir()
    else:
        target.symlink_to("/dev/zero")  # endless
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(COMMAND.format(name="c.yaml"), encoding="utf-8")
    code, _, err = run_cli(["args", str(cmd)])
    # issue 29: a --config named by a command file is not followed through a link at all, so
    # the link to /dev/zero is refused as a link, before its target is looked at
    said = (
        "is a symbolic link; logscope does not follow it"
        if kind == "character device"
        else f"not a {kind}"
    )
    assert code == 2 and err.rstrip().endswith(said), err


def test_an_ordinary_config_still_merges(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("tp-size: 2\nmem-fraction-static: 0.8\n", encoding="utf-8")
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(COMMAND.format(name="c.yaml"), encoding="utf-8")
    code, out, _ = run_cli(["args", "-f", "json", str(cmd)])
    assert code == 0 and json.loads(out)["args"]["mem_fraction_static"] == 0.8


@pytest.mark.parametrize(
    "body",
    [b"[" * 200_000, b'{"pid": ' + b"9" * 5000 + b"}", b"x" * (2 << 20), b"\xff\xfe"],
    ids=["deep", "huge-int", "big", "not-utf8"],
)
def test_hostile_launch_records_are_one_line(tmp_path: Path, body: bytes) -> None:
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    record_path(log).write_bytes(body)
    with pytest.raises(LogscopeError) as caught:
        read_record(log)
    assert "\n" not in str(caught.value)
    code, _, err = run_cli(["check", str(log)])  # the check ignores a bad record
    assert code in (0, 1) and "Traceback" not in err


def test_a_launch_record_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    os.mkfifo(record_path(log))
    with pytest.raises(LogscopeError, match="not a FIFO"):
        read_record(log)
    code, _, _ = run_cli(["check", str(log)])
    assert code in (0, 1)


# ------------------------------------------------------------------ files (item 5)


def _big_log(tmp_path: Path) -> Path:
    """Over the tail scan's 4 MiB: the demo log appended to itself (many runs)."""
    log = tmp_path / "big.log"
    log.write_text(DEMO * (5 * (1 << 20) // len(DEMO) + 1), encoding="utf-8")
    return log


def test_a_log_truncated_while_check_scans_it_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``> LOG`` does to a log ``check`` reads: with a memory map this was a bus error
    (exit 135, no message); the scan now reads by offset and checks every block's size."""
    from sglang_logscope.log import starters

    log = _big_log(tmp_path)
    real = starters._Blocks.read
    calls = []

    def truncating(self: starters._Blocks, at: int, n: int) -> bytes:
        calls.append(at)
        if len(calls) == 2:
            os.truncate(log, 0)
        return real(self, at, n)

    monkeypatch.setattr(starters._Blocks, "read", truncating)
    code, _, err = run_cli(["check", str(log)])
    assert code == 2 and "shrank while it was read" in err and len(err.splitlines()) == 1


def test_a_log_removed_while_check_reads_it_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sglang_logscope.log import tail_end

    log = _big_log(tmp_path)
    real = tail_end.scan_region

    def removing(path: str, start: int = 0, first_line: int = 1) -> object:
        found = real(path, start, first_line)
        log.unlink()  # between the scan and the parse of the last run
        return found

    monkeypatch.setattr(tail_end, "scan_region", removing)
    code, _, err = run_cli(["check", str(log)])
    assert code == 2 and "removed or replaced" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("command", ["summary", "runs", "events", "check"])
def test_a_character_device_is_no_log(command: str) -> None:
    code, _, err = run_cli([command, "/dev/zero"])  # read for ever before
    assert code == 2 and "is a device" in err


def test_gzip_of_empty_lines_is_bounded_by_lines(tmp_path: Path) -> None:
    """10 KB of gzip holding 10 million empty lines took minutes and 2.4 GB (issue 20)."""
    import gzip

    path = tmp_path / "empty.log.gz"
    path.write_bytes(gzip.compress(b"\n" * 10_000_000, 9))
    assert path.stat().st_size < 20_000
    code, _, err = run_cli(["summary", str(path)])
    assert code == 2 and "lines" in err and "decompression bomb" in err


def test_a_real_gzip_log_is_not_a_bomb(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "server.log.gz"
    path.write_bytes(gzip.compress(DEMO.encode("utf-8") * 200))
    code, _, _ = run_cli(["summary", str(path)])
    assert code == 0


def test_report_never_writes_onto_its_input(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    link = tmp_path / "report.html"
    link.symlink_to(log)
    for target in (log, link):
        code, _, err = run_cli(["report", str(log), "--html", str(target)])
        assert code == 2 and "is an input" in err
    assert log.read_text(encoding="utf-8") == DEMO


# ------------------------------------------------------------------ option values (item 5)


@pytest.mark.parametrize(
    "argv",
    [
        ["watch", "LOG", "--poll-interval", "inf"],
        ["watch", "LOG", "--poll-interval", "nan"],
        ["watch", "LOG", "--timeout", "99999999h"],
        ["launch", "--keep", "1000000000", "--log", "LOG2", "--", "true"],
        ["launch", "--alive-after", "nan", "--log", "LOG2", "--", "true"],
        ["launch", "--poll-interval", "inf", "--log", "LOG2", "--", "true"],
    ],
    ids=lambda a: " ".join(a[:4]),
)
def test_option_values_are_finite_and_bounded(tmp_path: Path, argv: list[str]) -> None:
    log = tmp_path / "server.log"
    log.write_text(DEMO, encoding="utf-8")
    subs = {"LOG": str(log), "LOG2": str(tmp_path / "new.log")}
    code, _, err = run_cli([subs.get(a, a) for a in argv])
    assert code == 2 and "Traceback" not in err
    assert not (tmp_path / "new.log").exists()  # nothing started


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_watch_refuses_what_it_cannot_follow_at_once(tmp_path: Path, kind: str) -> None:
    """A FIFO with no writer made ``watch`` wait past its --timeout (the open blocked)."""
    target = tmp_path / "wf"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    code, _, err = run_cli(["watch", str(target), "--timeout", "2s", "-f", "jsonl"])
    assert code == 2 and "regular file" in err


def test_docs_list_every_limit() -> None:
    """docs/limits.md has a row for every field of data/args/limits.json, with its bounds."""
    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "limits.md").read_text(encoding="utf-8")
    table = json.loads((root / "sglang_logscope" / "data" / "args" / "limits.json").read_text())
    for name, rule in table["fields"].items():
        row = next((line for line in page.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"docs/limits.md lacks {name}"
        assert f"| {rule['type']} |" in row
        if rule["type"] in ("int", "float") and rule["max"] < 2**20:
            assert str(rule["max"]) in row, row
    assert "(docs/limits.md)" in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        ["args", "/dev/zero"],
        ["check", "--expect-args", "/dev/zero", "LOG"],
        ["budget", "-e", "CMD", "--model-config", "/dev/zero"],
        ["budget", "-e", "CMD", "--model-config", "FIFO"],
        ["budget", "-e", "CMD", "--model-config", "INF"],
    ],
    ids=lambda a: " ".join(a[:2] + a[-1:]),
)
def test_command_files_and_model_configs_are_bounded(tmp_path: Path, argv: list[str]) -> None:
    """``/dev/zero`` as a command file or model config was read for ever; a FIFO config
    waited for a writer; ``Infinity`` in a config reached the arithmetic."""
    log, cmd, fifo, inf = (tmp_path / n for n in ("s.log", "cmd.txt", "fifo", "inf.json"))
    log.write_text(DEMO, encoding="utf-8")
    cmd.write_text(COMMAND.format(name="none.yaml").replace(" --config none.yaml", ""))
    os.mkfifo(fifo)
    inf.write_text('{"hidden_size": Infinity}', encoding="utf-8")
    subs = {"LOG": str(log), "CMD": str(cmd), "FIFO": str(fifo), "INF": str(inf)}
    code, _, err = run_cli([subs.get(a, a) for a in argv])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "regular file" in err or "not a finite number" in err


def test_a_command_from_a_pipe_is_still_read() -> None:
    """``logscope args <(echo ...)`` reads ``/dev/fd/N``, a pipe: still read (in full)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"python -m sglang.launch_server --model-path m --tp-size 2\n")
        os.close(write_end)
        code, out, _ = run_cli(["args", "-f", "json", f"/dev/fd/{read_end}"])
    finally:
        os.close(read_end)
    assert code == 0 and json.loads(out)["args"]["tp_size"] == 2
