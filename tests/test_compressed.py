"""Compressed logs (``limits.COMPRESSED``): gzip, xz and bzip2 read as the plain log reads,
by every reader (the streamed one, ``check``'s tail scan, the lean reader, the progress meter);
zstd, lz4 and zip named in one line with the command that writes them out, not read as
garbage (a ``.xz`` log read as bytes made one "unknown" run of 19 binary lines)."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import completed

from sglang_logscope import limits, meter
from sglang_logscope.log import reader, tail
from sglang_logscope.parse import source

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
READ: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "gzip": (".gz", gzip.compress),
    "xz": (".xz", lzma.compress),
    "bzip2": (".bz2", bz2.compress),
}
#: Formats not read here: a header that starts each, as its tool writes it.
NOT_READ = {
    "zstd": b"\x28\xb5\x2f\xfd\x24\x00",
    "lz4": b"\x04\x22\x4d\x18\x64\x40",
    "zip": b"PK\x03\x04\x14\x00",
}


def test_the_table_and_the_openers_are_one() -> None:
    """Every format logscope reads has an opener, every other a command; the table's magic
    numbers are its formats' (each of these tests' headers and files is recognised)."""
    read = {name for name, _, command in limits.COMPRESSED if command is None}
    assert read == set(source._UNPACKERS) == set(READ)
    assert {name for name, _, command in limits.COMPRESSED if command} == set(NOT_READ)
    for name, (_, pack) in READ.items():
        assert limits.compression_of(pack(b"x\n")[: limits.MAGIC_BYTES]) == name
    for name, head in NOT_READ.items():
        assert limits.compression_of(head) == name
    assert limits.compression_of(LOG.read_bytes()[: limits.MAGIC_BYTES]) is None
    assert limits.compression_of(b"BZh") is None and limits.compression_of(b"BZhx") is None


def _without_name(text: str) -> dict[str, object]:
    doc = json.loads(text)
    doc.pop("log")
    return doc


@pytest.mark.parametrize("name", sorted(READ))
def test_a_compressed_log_reads_as_the_plain_one(name: str, tmp_path: Path) -> None:
    suffix, pack = READ[name]
    packed = tmp_path / f"sglang-serve.log{suffix}"
    packed.write_bytes(pack(LOG.read_bytes()))
    plain = completed("summary", "-f", "json", str(LOG))
    done = completed("summary", "-f", "json", str(packed))
    assert done.returncode == 0 and _without_name(done.stdout) == _without_name(plain.stdout)
    events = completed("events", "-f", "jsonl", str(packed))
    assert events.stdout == completed("events", "-f", "jsonl", str(LOG)).stdout
    cmd = str(DEMO / "command.txt")
    check = completed("check", "-e", cmd, "-f", "json", str(packed))
    reference = completed("check", "-e", cmd, "-f", "json", str(LOG))
    assert check.returncode == reference.returncode == 1
    verdicts = (json.loads(check.stdout)["verdict"], json.loads(reference.stdout)["verdict"])
    assert verdicts == ("mismatch", "mismatch")


@pytest.mark.parametrize("name", sorted(READ))
def test_readers_by_offset_leave_a_compressed_log_to_the_stream(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check``'s tail scan and the lean reader seek in a plain file: a compressed one of any
    size is read as a stream instead, and the progress meter gives it no byte total."""
    suffix, pack = READ[name]
    packed = tmp_path / f"x.log{suffix}"
    packed.write_bytes(pack(LOG.read_bytes()))
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(reader, "LEAN_MIN_BYTES", 0)
    fast = tail.read_last_run(str(packed))
    assert fast.runs[-1].to_dict() == tail.read_last_run(str(LOG)).runs[-1].to_dict()
    assert reader._plain_bytes(str(packed)) is None
    assert meter.input_size([str(packed)]) is None and meter.input_size([str(LOG)]) is not None


@pytest.mark.parametrize("name", sorted(NOT_READ))
def test_a_format_not_read_here_is_one_line_with_its_command(name: str, tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(NOT_READ[name] + b"\x00" * 64)
    command = next(c for n, _, c in limits.COMPRESSED if n == name)
    for args in (("summary",), ("check",), ("events", "-f", "jsonl")):
        done = completed(*args, str(path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"{name}-compressed" in done.stderr and f"{command} {path}" in done.stderr


@pytest.mark.parametrize("name", sorted(READ))
def test_a_cut_or_corrupt_file_is_one_line(name: str, tmp_path: Path) -> None:
    suffix, pack = READ[name]
    data = pack(LOG.read_bytes())
    cut = tmp_path / f"cut.log{suffix}"
    cut.write_bytes(data[: len(data) // 2])
    bad = tmp_path / f"bad.log{suffix}"
    bad.write_bytes(data[:8] + bytes(b ^ 0x5A for b in data[8:]))
    for path in (cut, bad):
        done = completed("summary", str(path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", sorted(READ))
def test_a_bomb_of_any_format_is_stopped(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suffix, pack = READ[name]
    monkeypatch.setattr(source, "UNPACKED_MIN_CAP", 1 << 20)
    path = tmp_path / f"bomb.log{suffix}"
    path.write_bytes(pack((b"x" * ((1 << 20) - 1) + b"\n") * 8))
    done = completed("runs", str(path))
    assert done.returncode == 2 and f"{name} data expands past" in done.stderr
    assert "decompression bomb" in done.stderr and done.stderr.count("\n") == 1


def test_a_directory_lists_its_compressed_logs(tmp_path: Path) -> None:
    """Rotated and compressed logs are a directory's logs; one not read here is named."""
    for suffix, pack in READ.values():
        (tmp_path / f"a.log.1{suffix}").write_bytes(pack(LOG.read_bytes()))
    (tmp_path / "b.log.zst").write_bytes(NOT_READ["zstd"] + b"\x00" * 64)
    done = completed("summary", "-f", "json", str(tmp_path))
    assert done.returncode == 0
    logs = [Path(json.loads(line)["log"]).name for line in done.stdout.splitlines()]
    assert logs == ["a.log.1.bz2", "a.log.1.gz", "a.log.1.xz"]
    assert "b.log.zst" in done.stderr and "zstd-compressed" in done.stderr


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))


@pytest.mark.parametrize("name", sorted(READ))
def test_compressed_standard_input_reads_as_the_plain_log(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cat x.log.gz | logscope summary -`` (it read the compressed bytes as lines)."""
    _, pack = READ[name]
    _stdin(monkeypatch, pack(LOG.read_bytes()))
    done = completed("summary", "-f", "json", "-")
    plain = completed("summary", "-f", "json", str(LOG))
    assert done.returncode == 0 and _without_name(done.stdout) == _without_name(plain.stdout)


def test_standard_input_not_read_here_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, NOT_READ["zstd"] + b"\x00" * 64)
    done = completed("summary", "-")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "zstd-compressed" in done.stderr and "zstdcat" in done.stderr


def test_standard_input_of_unknown_size_is_held_by_what_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No size to scale the caps by: they follow the compressed bytes read so far, so a
    bomb stops and a real log past the floor does not."""
    monkeypatch.setattr(source, "UNPACKED_MIN_LINES", 1_000)
    _stdin(monkeypatch, gzip.compress(b"\n" * 1_000_000, 9))
    done = completed("summary", "-")
    assert done.returncode == 2 and "decompression bomb" in done.stderr
    real = b"".join(LOG.read_bytes().replace(b"09:1", b"1%d:1" % (i % 10)) for i in range(40))
    assert real.count(b"\n") > 1_000
    _stdin(monkeypatch, gzip.compress(real))
    done = completed("summary", "-f", "json", "-")
    assert done.returncode == 0, done.stderr
