"""Coverage-guided fuzzing of every parser entry point with atheris (optional; not part of CI).

    pip install atheris
    python benchmarks/fuzz/fuzz_parsers.py -atheris_runs=200000 benchmarks/fuzz/corpus

The corpus is seeded from the fixtures (``--seed`` writes it). Any exception other than
``LogscopeError`` is a finding: atheris stops and prints the input that caused it.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from sglang_logscope.command.parse import parse_launch_command
    from sglang_logscope.errors import LogscopeError
    from sglang_logscope.log.reader import read_log
    from sglang_logscope.memory.gpus import parse_size_mib
    from sglang_logscope.parse.banner import parse_banner
    from sglang_logscope.timing import parse_launched_at

ROOT = Path(__file__).resolve().parents[2]


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    choice = fdp.ConsumeIntInRange(0, 4)
    rest = fdp.ConsumeBytes(fdp.remaining_bytes())
    text = rest.decode("utf-8", "replace")
    try:
        if choice == 0:
            log = read_log(io.BytesIO(rest))
            assert sum(e.line_count for e in log.events) == rest.count(b"\n") + (
                1 if rest and not rest.endswith(b"\n") else 0
            )
        elif choice == 1:
            parse_banner(text)
        elif choice == 2:
            parse_launch_command(text)
        elif choice == 3:
            parse_launched_at(text)
        else:
            parse_size_mib(text)
    except LogscopeError:
        pass


def seed(corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    sources = [
        *sorted((ROOT / "fixtures" / "real").glob("*/server.log")),
        *sorted((ROOT / "fixtures" / "real").glob("*/command.txt")),
    ]
    for i, path in enumerate(sources):
        data = path.read_bytes()[:4096]
        kind = 2 if path.name == "command.txt" else 0
        (corpus / f"seed-{i:03d}").write_bytes(bytes([kind]) + data)


if __name__ == "__main__":
    if "--seed" in sys.argv:
        seed(ROOT / "benchmarks" / "fuzz" / "corpus")
        sys.exit(0)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
