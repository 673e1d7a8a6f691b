"""``read_pairs`` by shape templates equals the pair pattern's own reading."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate, generate_long
from sglang_logscope.parse import catalog
from sglang_logscope.parse.catalog import _read_pairs, read_pairs
from sglang_logscope.parse.messages import SPECS

ROOT = Path(__file__).resolve().parent.parent
PAIR_SPECS = [s for s in SPECS if s.pairs is not None]
LABELS = ["#token", "#full token", "token usage", "gen throughput (token/s)", "p99", "a.b", "x"]
VALUES = [
    "0",
    "47",
    "0.05",
    "1.5 GB",
    "True",
    "[1, 2]",
    "1e3",
    "-3",
    "7.",
    "12 ",
    "",
    "٣",
    "0" * 25,
]
SEPS = [", ", ". ", " ", ",", "; ", "="]


def _twice(text: str, names: Mapping[str, str]) -> None:
    """The same answer on a template's first sight and when it is reused."""
    ref = _read_pairs(text, names)
    assert read_pairs(text, names) == ref
    assert read_pairs(text, names) == ref


@settings(max_examples=examples(400), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(LABELS), st.sampled_from([": ", "=", ":"]), st.sampled_from(VALUES)
        ),
        min_size=0,
        max_size=8,
    ),
    st.lists(st.sampled_from(SEPS), min_size=8, max_size=8),
    st.sampled_from(["", " ", "Decode batch. "]),
)
def test_templates_equal_the_pattern(
    pairs: list[tuple[str, str, str]], seps: list[str], lead: str
) -> None:
    text = lead + "".join(f"{k}{c}{v}{seps[i]}" for i, (k, c, v) in enumerate(pairs))
    for spec in PAIR_SPECS[:3]:
        assert spec.pairs is not None
        _twice(text, dict(spec.pairs))
        _twice(text.rstrip(", "), dict(spec.pairs))


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="#abx ().:,=0123456789-[]", max_size=80))
def test_templates_equal_the_pattern_on_any_text(text: str) -> None:
    _twice(text, {"#token": "token"})


def test_every_batch_line_of_generated_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalog, "_TEMPLATES", {})
    for paths in (
        generate_long(tmp_path / "l", 0.3, seed=1),
        generate(tmp_path / "m", 0.5, seed=1),
    ):
        for line in paths["big"].read_text(encoding="utf-8").splitlines():
            for marker in ("Decode batch", "Prefill batch"):
                at = line.find(marker)
                if at >= 0:
                    rest = line[at + len(marker) + 1 :]
                    for spec in PAIR_SPECS:
                        assert spec.pairs is not None
                        _twice(rest, spec.pairs)
                    break
    assert 0 < len(catalog._TEMPLATES) <= 10 * len(PAIR_SPECS)  # a few shapes per spec
