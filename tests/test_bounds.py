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
    assert code == 2 and err.rstrip().endswith(f"not a {kind}"), err


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
