"""SGLang's argument tables and argparse-exact flag matching."""

from __future__ import annotations

import pytest

from sglang_logscope.command.argtable import ArgValueError, available_versions, load_arg_table
from sglang_logscope.errors import LogscopeError

REQUIRED = ["0.4.10.post2", "0.5.9", "0.5.15", "0.5.23"]


def test_tabled_versions() -> None:
    versions = available_versions()
    for v in REQUIRED:
        assert v in versions
    assert versions == sorted(
        versions, key=lambda v: [int(x) for x in v.replace("post", "").split(".")]
    )
    assert load_arg_table().version == versions[-1]


@pytest.mark.parametrize("version", REQUIRED)
def test_table_provenance_and_core_options(version: str) -> None:
    table = load_arg_table(version)
    assert len(table.sha256) == 64
    tp = table.option("--tp-size")
    assert tp is not None and tp.field == "tp_size" and tp.type == "int" and tp.default == 1
    assert table.option("--tensor-parallel-size") is tp
    mem = table.option("--mem-fraction-static")
    assert mem is not None and mem.type == "float" and mem.default is None
    model = table.option("--model")
    assert model is not None and model.field == "model_path" and model.required
    trust = table.option("--trust-remote-code")
    assert trust is not None and trust.action == "store_true" and trust.default is False
    assert any(r.field == "speculative_algorithm" and r.after == "EAGLE" for r in table.rewrites)


def test_option_string_counts_match_the_reference() -> None:
    # 0.5.9 registers 341 option strings; 0.5.23 547 plus 12 generated --no-X forms
    assert len(load_arg_table("0.5.9").flags) == 341 + 2  # + -h/--help
    assert len(load_arg_table("0.5.23").flags) == 559 + 2


def test_dest_is_the_field_name_in_old_releases() -> None:
    table = load_arg_table("0.5.9")
    tp = table.option("--tp-size")
    assert tp is not None and tp.dest == "tensor_parallel_size" and tp.field == "tp_size"
    assert table.field_map["data_parallel_size"] == "dp_size"
    assert "tensor_parallel_size" not in table.defaults()


def test_choices_and_types() -> None:
    spec = load_arg_table("0.5.9").option("--speculative-algorithm")
    assert spec is not None
    assert spec.convert("NEXTN") == "NEXTN"
    with pytest.raises(ArgValueError, match="invalid choice"):
        spec.convert("MTP")
    port = load_arg_table("0.5.9").option("--port")
    assert port is not None
    with pytest.raises(ArgValueError, match="invalid int value"):
        port.convert("30k")


@pytest.mark.parametrize(
    ("flag", "full"),
    [
        ("--mem-frac", "--mem-fraction-static"),
        ("--tp", "--tp-size"),
        ("--speculative-algo", "--speculative-algorithm"),
        ("--context-len", "--context-length"),
        ("--model", "--model"),  # exact match wins over the --model-path prefix
    ],
)
def test_unique_prefixes(flag: str, full: str) -> None:
    for version in ("0.5.9", "0.5.23"):
        m = load_arg_table(version).match(flag)
        assert m.option is not None and m.flag == full


def test_ambiguous_and_unknown() -> None:
    table = load_arg_table("0.5.23")
    pp = table.match("--pp")
    assert pp.option is None
    assert set(pp.candidates) == {
        "--pp-size",
        "--pp-max-micro-batch-size",
        "--pp-async-batch-depth",
    }
    # --cuda-graph-max-bs is no longer registered in 0.5.23: an ambiguous prefix there
    assert len(table.match("--cuda-graph-max-bs").candidates) >= 2
    assert load_arg_table("0.5.9").match("--cuda-graph-max-bs").flag == "--cuda-graph-max-bs"
    typo = table.match("--mem-fraction-statc")
    assert typo.option is None and not typo.candidates
    assert table.suggest("--mem-fraction-statc") == "--mem-fraction-static"


def test_equals_and_positional_forms() -> None:
    table = load_arg_table("0.5.9")
    m = table.match("--mem-frac=0.8")
    assert m.flag == "--mem-fraction-static" and m.value == "0.8"
    assert table.match("-1").positional
    assert table.match("a b").positional is True or table.match("a b").option is None


def test_version_resolution() -> None:
    assert load_arg_table("0.5.10").version == "0.5.10"
    assert load_arg_table("0.5.0").version == "0.4.10.post2"  # no 0.5.0 on the index
    assert load_arg_table("v0.5.23").version == "0.5.23"
    # One version parser (parse/versions.py): a release candidate precedes its release, and
    # ``post1`` without the dot is the same post-release.
    assert load_arg_table("0.5.10rc1").version == "0.5.9"
    assert load_arg_table("0.5.10post1").version == "0.5.10.post1"
    with pytest.raises(LogscopeError):
        load_arg_table("0.1.0")
    with pytest.raises(LogscopeError):
        load_arg_table("banana")


def test_every_release_from_0_4_0_has_its_own_table() -> None:
    """Issue 17: a table per release (0.4.0 → 0.5.23, 92 releases, post releases included),
    stored as the newest table plus deltas, each rebuilt exactly as extracted."""
    versions = available_versions()
    assert versions[0] == "0.4.0" and versions[-1] == "0.5.23" and len(versions) == 92
    assert {"0.4.6.post4", "0.5.13", "0.5.15.post1", "0.5.16", "0.5.22"} <= set(versions)
    for version in versions:
        table = load_arg_table(version)
        assert table.version == version and table.option("--model-path") is not None


def test_deprecated_aliases_name_their_replacement() -> None:
    """``--cuda-graph-max-bs`` is a plain option up to 0.5.13, a deprecated alias of
    ``--cuda-graph-max-bs-decode`` from 0.5.14 (per the wheels), gone in 0.5.23."""
    assert load_arg_table("0.5.13").option("--cuda-graph-max-bs").deprecated is None  # type: ignore[union-attr]
    alias = load_arg_table("0.5.16").option("--cuda-graph-max-bs")
    assert alias is not None and alias.deprecated == {"new_flag": "--cuda-graph-max-bs-decode"}
    assert load_arg_table("0.5.16").option("--cuda-graph-bs") is not None
    assert load_arg_table("0.5.23").option("--cuda-graph-max-bs") is None


def test_offline_entry_points_add_their_bench_args() -> None:
    """bench_one_batch / bench_latency / bench_offline_throughput parse ServerArgs plus their
    own BenchArgs (read from each release's wheel); a server launch does not get them."""
    from sglang_logscope.command.parse import parse_launch_command

    # (bench_latency has its own BenchArgs only before 0.4.0, older than every table)
    assert {"sglang.bench_one_batch", "sglang.bench_offline_throughput"} <= set(
        load_arg_table("0.5.9").entry_points
    )
    bench = "python -m sglang.bench_one_batch --model-path m --batch-size 4 --input-len 256"
    cmd = parse_launch_command(bench, sglang_version="0.5.6")
    assert not cmd.unknown and cmd.explicit_args()["batch_size"] == [4]
    server = parse_launch_command(
        "python -m sglang.launch_server --model-path m --batch-size 4", sglang_version="0.5.6"
    )
    assert server.unknown == ("--batch-size",)
    offline = parse_launch_command(
        "python3 -m sglang.bench_offline_throughput --model-path m --num-prompts 10",
        sglang_version="0.5.9",
    )
    assert not offline.unknown and offline.explicit_args()["num_prompts"] == 10


def test_an_untabled_release_is_refused_in_one_short_line() -> None:
    """92 tabled releases made the error a 1,000-character line; it names the span instead."""
    with pytest.raises(LogscopeError) as exc:
        load_arg_table("0.2.9")
    text = str(exc.value)
    assert "\n" not in text and len(text) < 120
    assert f"{available_versions()[0]} … {available_versions()[-1]}" in text
