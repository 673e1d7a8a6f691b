"""Issue 32: judgments on evidence, never on a silent stand-in.

The model's shapes come from a config, the local caches or a bundled profile of exactly that
model (else no figure); GPUs from the log before any default; a CUDA OOM is judged by its phase
and its own figures; suggestions carry their own budget's warnings; check's memory line says
its confidence and the assumption deciding it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.cli import main
from sglang_logscope.errors import LogscopeError
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.budget_types import MeasuredFigures
from sglang_logscope.memory.confidence import verdict_words
from sglang_logscope.memory.from_run import budget_for_run
from sglang_logscope.memory.gpus import PRESETS
from sglang_logscope.memory.models import (
    ModelUnknown,
    facts_from_config,
    load_config,
    match_profile,
    modelscope_cache_config,
    profile_facts,
    resolve_model,
)
from sglang_logscope.memory.oom_phase import OomFigures, OomPhase, contention_gap, oom_phase
from sglang_logscope.memory.verdict import oom_verdict

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures/real"
CASES = ROOT / "fixtures/memory/cases"
SEED = (
    "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp 2 "
    "--mem-fraction-static 0.88 --speculative-algorithm NEXTN --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --context-length 32768"
)


@pytest.fixture(autouse=True)
def _no_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No cache of this machine decides a test: both caches point at empty folders."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "empty-ms"))


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


# ------------------------------------------------------------------------- item 1: the model


@pytest.mark.parametrize(
    "path",
    [
        "Qwen/Qwen3-14B",  # once priced as Qwen3-32B (-37.5 % KV tokens)
        "Qwen/Qwen3.5-9B",  # once priced as Qwen3.5-27B
        "meta-llama/Llama-3.2-3B-Instruct",  # once priced as Llama-3.1-8B
        # corpus 065: a pruned 60B, once priced as the full Qwen3-Next-80B
        "/data/cache/huggingface/hub/models--mattbucci--Qwen3-Coder-Next-REAM-AWQ/snapshots/7741",
        "/data/ckpt/local-run-7",
    ],
)
def test_no_bundled_profile_stands_in_for_another_model(path: str) -> None:
    assert match_profile(path) is None
    with pytest.raises(ModelUnknown, match="--model-config DIR"):
        resolve_model({"model_path": path})


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("Qwen/Qwen3-32B-AWQ", "Qwen3-32B"),
        ("deepseek-ai/DeepSeek-V3-0324", "DeepSeek-V3"),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen3-Next-80B-A3B"),
    ],
)
def test_an_exact_match_after_same_shape_endings_is_used(path: str, name: str) -> None:
    p = match_profile(path)
    assert p is not None and p.name == name
    m = resolve_model({"model_path": path})
    assert m.source.startswith(f"bundled profile {name} (exact model match")


def test_the_modelscope_cache_is_read_in_both_layouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = (CASES / "037/config.json").read_text(encoding="utf-8")
    root = tmp_path / "ms"
    monkeypatch.setenv("MODELSCOPE_CACHE", str(root))
    new = root / "models/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"
    new.mkdir(parents=True)
    (new / "config.json").write_text(cfg, encoding="utf-8")
    facts = resolve_model({"model_path": "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"})
    assert facts.source == str(new / "config.json") and facts.num_layers == 28
    old = root / "Qwen/Qwen2___5-7B"  # ModelScope's folder for the '.' in Qwen2.5
    old.mkdir(parents=True)
    (old / "config.json").write_text(cfg, encoding="utf-8")
    assert modelscope_cache_config("Qwen/Qwen2.5-7B") == old / "config.json"


def test_an_unusable_cache_entry_is_skipped_or_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    snap = hub / "models--org--Thing-7B/snapshots/abc"
    (snap / "config.json").mkdir(parents=True)  # a folder named config.json: no config
    with pytest.raises(ModelUnknown):
        resolve_model({"model_path": "org/Thing-7B"})
    (snap / "config.json").rmdir()
    (snap / "config.json").write_text('{"architectures": ["X"], "foo": 1}', encoding="utf-8")
    with pytest.raises(LogscopeError, match="lacks a usable field"):
        resolve_model({"model_path": "org/Thing-7B"})


@pytest.mark.parametrize(
    "text",
    [
        '{"_name_or_path": "a tokenizer config", "model_max_length": 8}',  # not a model config
        "[1, 2, 3]",
        '{"hidden_size": ' + "9" * 5000 + "}",
        "{" * 20000,
    ],
)
def test_hostile_or_non_model_configs_exit_2_in_one_line(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cmd.txt").write_text(SEED, encoding="utf-8")
    (tmp_path / "config.json").write_text(text, encoding="utf-8")
    argv = ["budget", "-e", str(tmp_path / "cmd.txt"), "--model-config", str(tmp_path)]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_an_unknown_model_gets_fits_null_and_what_to_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cmd.txt").write_text(SEED.replace("Qwen3.6-27B", "Qwen3.5-9B"), encoding="utf-8")
    argv = ["budget", "-e", str(tmp_path / "cmd.txt"), "--gpus", "2", "--gpu-memory", "a6000"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == "" and "--model-config DIR" in err
    code, out, err = _run([*argv, "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 2 and doc["fits"] is None and "--model-config" in doc["advice"]
    assert err.count("\n") == 1 and "--model-config DIR" in err
    assert "unknown model" in doc["declined"] and "per_gpu" not in doc
    code, out, _ = _run([*argv, "--format", "json", "--assume-model", "Qwen3.5-27B"], capsys)
    doc = json.loads(out)
    assert doc["fits"] in (True, False) and doc["sources"]["model"].startswith("assumed:")
    assert any("model assumed on request" in a for a in doc["assumptions"])


def test_check_declines_the_intended_budget_of_an_unknown_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Corpus 065's own command as the intended one: its model is a pruned Qwen3-Next no
    profile describes, so the memory section says 'no figure' (never 'fits' on the 80B)."""
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path mattbucci/Qwen3-Coder-Next-REAM-AWQ --tp 2 "
        "--quantization awq --mem-fraction-static 0.85",
        encoding="utf-8",
    )
    log = str(REAL / "065/server.log")
    _, out, _ = _run(["check", "-e", str(cmd), "--format", "json", log], capsys)
    doc = json.loads(out)
    assert doc["budget"]["fits"] is None and "--model-config" in doc["budget"]["advice"]
    assert "no figure" in verdict_words(doc["budget"])


# -------------------------------------------------------------------------- item 2: the GPUs


def test_a_logs_measured_free_memory_beats_any_default_gpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Corpus 091 (8 x H100, 77.33-77.57 GB free per rank): check -e and budget --log -e
    budget on the log's figures, never on an assumed 48 GB card."""
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 --tp 8 "
        "--mem-fraction-static 0.831 --chunked-prefill-size 8192 --disable-cuda-graph",
        encoding="utf-8",
    )
    log = str(REAL / "091/server.log")
    _, out, _ = _run(["check", "-e", str(cmd), "--format", "json", log], capsys)
    b = json.loads(out)["budget"]
    assert "A6000" not in json.dumps(b) and "assumed" not in b["basis"]
    assert b["per_gpu"]["f0_gib"] == pytest.approx(77.33, abs=0.01)
    _, out, _ = _run(["budget", "--log", log, "-e", str(cmd), "--format", "json"], capsys)
    both = json.loads(out)
    assert both["sources"]["f0"].startswith("measured (log")
    assert both["sources"]["sglang_version"] == "log"
    assert both["per_gpu"]["f0_gib"] == pytest.approx(77.33, abs=0.01)


# -------------------------------------------------------------------- item 3: OOMs by phase


def test_a_weight_load_oom_gets_a_weights_verdict_with_figures() -> None:
    """Corpus 065: HIP OOM 1 s after 'Load weight begin' (31.42 GB free), PyTorch holding
    31.30 GiB of 31.86: the weights do not fit; fixes carry their figures."""
    run = read_log(str(REAL / "065/server.log")).runs[0]
    assert oom_phase(run) is OomPhase.WEIGHT_LOAD
    v = oom_verdict(run, stale=False, intended_budget=None)
    assert v is not None and v.verdict.value == "real" and v.phase is OomPhase.WEIGHT_LOAD
    text = v.explanation
    assert "the weights do not fit" in text and "31.30 GiB" in text and "31.86 GiB" in text
    assert "--tp 4 (at least 15.84 GiB" in text and "--cpu-offload-gb" in text
    assert "look at the request load" not in text
    assert v.to_dict()["phase"] == "weight_load"


def test_contention_is_judged_relative_to_capacity_and_the_oom_figures() -> None:
    # 18 GiB short of a 288 GiB GPU is 6 %: a large GPU's context and reserves, not another process
    assert contention_gap(288.0, 270.0, None) is None
    assert "held by something else" in (contention_gap(80.0, 60.0, None) or "")
    # the failing process itself held 31 of 32 GiB: its own allocation, whatever F0 says
    assert contention_gap(32.0, 20.0, OomFigures(capacity=32.0, allocated=31.0)) is None


def test_an_oom_after_startup_names_the_flags_that_size_graphs_and_activations() -> None:
    """Every CUDA OOM of the corpus that struck after the weights (or where the log cannot
    tell) names the flags that size graphs and activations with SGLang's own unit figures;
    015 (a cuda_graph_runner traceback) is placed in graph capture."""
    phases = {}
    for d in sorted(REAL.iterdir()):
        log = d / "server.log"
        if not log.is_file():
            continue
        for run in read_log(str(log)).runs:
            if run.failure is None or run.failure.kind.value != "cuda_oom":
                continue
            v = oom_verdict(run, stale=False, intended_budget=None)
            assert v is not None and v.phase is not None
            phases[d.name] = v.phase
            if v.phase is not OomPhase.WEIGHT_LOAD:
                assert "--cuda-graph-max-bs" in v.explanation, d.name
                assert "2 MiB per batch size" in v.explanation, d.name
                assert "--mem-fraction-static" in v.explanation, d.name
    assert phases["015"] is OomPhase.GRAPH_CAPTURE and phases["065"] is OomPhase.WEIGHT_LOAD
    assert OomPhase.UNKNOWN in phases.values()  # 040/050: an excerpt that does not say


# --------------------------------------------------------------- item 5: suggestions, warnings


def test_each_suggestion_carries_its_own_budgets_warnings() -> None:
    from sglang_logscope.command.parse import parse_launch_command

    cmd = parse_launch_command(SEED)
    b = budget(cmd.args, gpus=[PRESETS["a6000"]] * 2, sglang_version="0.5.9", explicit=cmd.explicit)
    assert not b.fits and b.suggestions
    for s in b.suggestions:
        again = budget(
            {**cmd.args, **s.args},
            gpus=[PRESETS["a6000"]] * 2,
            sglang_version="0.5.9",
            explicit={*cmd.explicit, *s.args},
        )
        if not s.needs_more_gpus:
            assert s.warnings == again.warnings, s.change


def _healthy_runs() -> list[tuple[str, object, dict[str, object], object]]:
    out = []
    for d in sorted(CASES.iterdir()):
        case = json.loads((d / "case.json").read_text(encoding="utf-8"))
        cfg = d / "config.json"
        if not (d / "server.log").is_file() or not (cfg.is_file() or case.get("model")):
            continue
        model = (
            facts_from_config(load_config(cfg), name=d.name, source=str(cfg))
            if cfg.is_file()
            else profile_facts(case["model"])
        )
        for run in read_log(str(d / "server.log")).runs:
            if run.first(EventKind.SERVER_READY) is not None:
                out.append((d.name, run, case, model))
    return out


def test_no_cuda_oom_warning_fires_on_the_healthy_real_runs() -> None:
    runs = _healthy_runs()
    assert {name for name, *_ in runs} >= {"037", "069"}
    for name, run, case, model in runs:
        b = budget_for_run(
            run,  # type: ignore[arg-type]
            args=case.get("args"),  # type: ignore[arg-type]
            model=model,  # type: ignore[arg-type]
            sglang_version=case.get("sglang_version"),  # type: ignore[arg-type]
        )
        assert b.fits, name
        assert not [w for w in b.warnings if "out-of-memory" in w], name


# ------------------------------------------------------------ item 7: check's memory line


def test_the_memory_line_says_confidence_and_the_deciding_assumption() -> None:
    from sglang_logscope.command.parse import parse_launch_command

    cmd = parse_launch_command(SEED)
    b = budget(cmd.args, gpus=[PRESETS["a6000"]] * 2, sglang_version="0.5.9", explicit=cmd.explicit)
    deciding = b.confidence["deciding"]
    assert deciding.startswith("'does not fit' rests on the hybrid speculative scratch")
    assert "13.76 GiB, more than the 1.40 GiB margin" in deciding
    words = verdict_words(b.to_dict())
    assert "confidence low" in words and "speculative scratch" in words
    plain = budget(
        {"model_path": "meta-llama/Llama-3.1-8B", "mem_fraction_static": 0.88},
        gpus=[PRESETS["h100"]],
        sglang_version="0.5.9",
        measured=MeasuredFigures(f0_gib=78.0, weights_gib=15.0),
    )
    assert "deciding" not in plain.confidence
    assert verdict_words(plain.to_dict()).endswith("confidence high")


# ---------------------------------------------------------- item 6: one command reader


def test_budget_and_args_read_the_seeds_one_line_ssh_paste_as_check_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fixtures/demo/command.txt (the seed's ssh/pct one-liner with flattened '\\ --flag'
    continuations): budget -e reads it as a file and pasted as text, as check -e does."""
    file = str(ROOT / "fixtures/demo/command.txt")
    text = (ROOT / "fixtures/demo/command.txt").read_text(encoding="utf-8").strip()
    docs = []
    for e in (file, text):
        argv = ["budget", "-e", e, "--sglang-version", "0.5.9", "--gpus", "2"]
        code, out, _ = _run([*argv, "--gpu-memory", "a6000", "--format", "json"], capsys)
        docs.append(json.loads(out))
        assert code == 1, e[:40]
    assert docs[0] == docs[1]
    b = docs[0]
    assert b["model"] == "Qwen3.6-27B" and b["shortfall_gib"] == pytest.approx(1.40, abs=0.01)
    assert any(a.startswith("command read as meant") for a in b["assumptions"])
    code, out, _ = _run(["args", text, "--format", "json"], capsys)
    assert json.loads(out)["meant_argv"][:2] == ["--model-path", "/root/models/Qwen3.6-27B"]


# ------------------------------------------------- item 4: the draft's copies, per era


STARTUP = json.loads((ROOT / "fixtures/memory/startup-order.json").read_text(encoding="utf-8"))


def _step(era: dict[str, object], prefix: str) -> int:
    order = era["order"]
    assert isinstance(order, list)
    return next(i for i, step in enumerate(order) if str(step).startswith(prefix))


@pytest.mark.parametrize("version", sorted(STARTUP["eras"]))
def test_the_recorded_run_orders_the_profile_and_the_drafts_copies(version: str) -> None:
    """fixtures/memory/startup-order.json, recorded by running SGLang's own Scheduler start-up
    on CPU (scripts/record_startup_order.py): before era D (0.5.13) the target profiles before
    the draft loads; from 0.5.14 the draft loads first and its embed/lm_head copies are still
    its own tensors when the target profiles, freed only by set_embed_and_head after it. The
    bytes SGLang held at profiling are exactly the project's draft_head_copies_gib."""
    from sglang_logscope.memory.eras import Era, era_of
    from sglang_logscope.memory.estimates import draft_head_copies_gib
    from sglang_logscope.parse.versions import release_key

    era = STARTUP["eras"][version]
    assert era["source"] == "run" and era["release"] == version
    assert not [s for s in era["stubbed"] if "CALLED" in s]  # no stubbed kernel ran
    profile = _step(era, "profile free memory [target]")
    share = _step(era, "draft set_embed_and_head begin")
    assert _step(era, "ModelRunner.load_model [target] end") < profile < share
    resident = era_of(release_key(version)) is Era.D
    assert era["draft_copies_resident_at_profiling"] is resident
    at_profile, after = era["at_profile"], era["after_set_embed_and_head"]
    tiny = facts_from_config(STARTUP["harness_config"], name="tiny", source="run")
    copies = round(draft_head_copies_gib(tiny, 1) * 2**30)
    if resident:
        assert _step(era, "ModelRunner.load_model [draft] end") < profile
        assert at_profile["draft_embed_is_own_tensor"] and at_profile["draft_lm_head_is_own_tensor"]
        assert at_profile["draft_copies_bytes"] == copies == 2 * 4096 * 128 * 2
        assert after["models_held_bytes"] == at_profile["models_held_bytes"] - copies
    else:
        assert at_profile == {"draft_loaded": False}
        assert profile < _step(era, "ModelRunner.load_model [draft] begin")
    assert after["draft_copies_bytes"] == 0
    static = era.get("static_reading")
    if static is not None:  # the earlier reading of the wheels agrees with the run
        assert static["draft_copies_resident_at_profiling"] is resident


@pytest.mark.parametrize("version", sorted(STARTUP["eras"]))
def test_the_budget_follows_the_recorded_startup_order_per_era(version: str) -> None:
    """The budget follows the run per era: from 0.5.14 the copies (2.37 GiB per GPU on the seed
    at tp 2) count with the draft weights before profiling; in 0.5.13 the draft (copies
    and all) loads after profiling and comes out of the slack, as in 0.5.9."""
    from sglang_logscope.command.parse import parse_launch_command
    from sglang_logscope.memory.estimates import draft_head_copies_gib

    era = STARTUP["eras"][version]
    cmd = parse_launch_command(SEED)
    gpus = [PRESETS["a6000"]] * 2
    base = budget(cmd.args, gpus=gpus, sglang_version="0.5.9", explicit=cmd.explicit)
    copies = draft_head_copies_gib(resolve_model(cmd.args), 2)
    assert copies == pytest.approx(2.37, abs=0.01)
    b = budget(cmd.args, gpus=gpus, sglang_version=version, explicit=cmd.explicit)
    held = copies if era["draft_copies_resident_at_profiling"] else 0.0
    assert b.per_gpu.draft_weights_gib == pytest.approx(base.per_gpu.draft_weights_gib + held)
    assert b.per_gpu.draft_in_slack is (not era["draft_copies_resident_at_profiling"])
    assert "set_embed_and_head" in era["order"][-1]


# ------------------------------------------- leftover: where the context length comes from


def test_the_context_length_names_its_source_and_says_assumed_where_it_is() -> None:
    """``--context-length``, else the model's max_position_embeddings, else 32,768 said as
    assumed (it sets the estimated max running requests and the concurrency figure)."""
    from dataclasses import replace

    from sglang_logscope.command.parse import parse_launch_command

    args = dict(parse_launch_command(SEED).args)
    gpus = [PRESETS["a6000"]] * 2
    b = budget(args, gpus=gpus, sglang_version="0.5.9")
    assert b.sources["context_length"] == "args" and b.context_len == 32768
    del args["context_length"]
    model = resolve_model(args)
    b = budget(args, gpus=gpus, model=model, sglang_version="0.5.9")
    assert b.sources["context_length"] == "model: max_position_embeddings (sources.model)"
    assert b.context_len == model.max_position_embeddings == 262144
    assert not [a for a in b.assumptions if a.startswith("context length")]
    b = budget(args, gpus=gpus, model=replace(model, max_position_embeddings=None))
    assert b.sources["context_length"] == "assumed" and b.context_len == 32768
    assert [a for a in b.assumptions if a.startswith("context length 32,768 assumed")]
    assert b.to_dict()["sources"]["context_length"] == "assumed"


def test_a_budget_from_a_log_takes_the_runs_context_length(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """037 (no config: the model is figured from its own pool lines, no max_position_embeddings)
    gets the context_len=131072 SGLang printed, not 32,768; 069 its banner's --context-length.
    The text and the JSON both name the source."""
    run = read_log(str(REAL / "037/server.log")).runs[0]
    b = budget_for_run(run)
    assert b.sources["model"] == "log"
    assert b.sources["context_length"] == "log: context_len of the run's token summary line"
    assert b.context_len == 131072
    run = read_log(str(REAL / "069/server.log")).runs[0]
    assert budget_for_run(run).sources["context_length"] == "log: server_args banner"
    code, out, _ = _run(["budget", "--log", str(REAL / "037/server.log")], capsys)
    assert code == 0 and "context_length: log: context_len of the run's token summary line" in out
    code, out, _ = _run(
        ["budget", "--log", str(REAL / "037/server.log"), "--format", "json"], capsys
    )
    assert code == 0
    doc = json.loads(out)
    doc = doc[0] if isinstance(doc, list) else doc
    assert doc["sources"]["context_length"].startswith("log: context_len")
