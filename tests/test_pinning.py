"""Release pinning (issue 17): each run's SGLang release range from its own lines."""

from __future__ import annotations

import io
import json
from pathlib import Path

from typer.testing import CliRunner

from sglang_logscope import read_log
from sglang_logscope.cli import app
from sglang_logscope.log.pinning import pin_release
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.versions import release_key

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def _within(release: str, low: str, high: str) -> bool:
    return release_key(low) <= release_key(release) <= release_key(high)


def test_real_logs_pinned_around_their_stated_release() -> None:
    """Logs whose source states the release exactly: the pinned range holds it."""
    stated = {"010": "0.1.13", "022": "0.4.8.post1", "024": "0.4.6.post4", "055": "0.5.15"}
    for name, release in stated.items():
        pin = read_log(REAL / name / "server.log").runs[-1].sglang_release
        assert pin is not None, name
        assert _within(release, pin.low, pin.high), (name, str(pin))


def test_a_checkout_between_releases_is_pinned_narrowly() -> None:
    """fixtures/real/067: a 0.5.12 checkout ('sglang-v0512' in its sibling logs). Its
    tokenizer messages are first printed by 0.5.11 (and, from another call site, by 0.5.13 on:
    a line belongs to every template it matches); the other lines end the range at
    0.5.13.post1. It still holds 0.5.12."""
    pin = read_log(REAL / "067" / "server.log").runs[-1].sglang_release
    assert pin is not None and (pin.low, pin.high) == ("0.5.11", "0.5.13.post1")
    assert pin.consistent and pin.evidence
    assert all(e.kind in ("message", "source_line") for e in pin.evidence)


def test_source_line_headers_pin_by_line_number() -> None:
    """A ``LEVEL file.py:LINE:`` header whose message is printed from that line in only some
    releases narrows the range to them (line numbers move with every edit)."""
    index_line = "[2026-02-23 10:00:00] WARNING server_args.py:{}: {}"
    from sglang_logscope.parse.message_index import message_index

    index = message_index()
    msg = next(
        m
        for m in index
        if m.call == "logger.warning"
        and len(m.pieces) == 1
        and m.literal_chars > 40
        and any(index.files[f].endswith("/server_args.py") for f, _, _, _ in m.locs)
        and len(m.locs) > 2
    )
    _, line, first, last = next(
        loc for loc in msg.locs if index.files[loc[0]].endswith("server_args.py")
    )
    text = index_line.format(line, msg.template)
    (event,) = iter_events(io.StringIO(text + "\n"))
    pin = pin_release([(1, event.message, event.source)])
    assert pin is not None
    assert (pin.low, pin.high) == (index.releases[first], index.releases[last])
    assert pin.evidence[0].kind == "source_line"
    wide = pin_release([(1, event.message, None)])
    assert wide is not None and wide.evidence[0].kind == "message"
    assert release_key(wide.low) <= release_key(pin.low)


def test_disagreeing_evidence_gives_the_majority_and_says_so() -> None:
    from sglang_logscope.parse.message_index import message_index

    index = message_index()
    old = "Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=9.00 GB"
    new = "Sleeping 5 seconds before crash diagnostics to let GPU activity settle."
    pin = pin_release([(1, old, None), (2, old + " ", None), (3, new, None)], index)
    assert pin is not None and not pin.consistent and pin.agreeing == 2 and pin.pieces == 3


def test_runs_json_carries_sglang_release_and_keeps_the_hint() -> None:
    result = CliRunner().invoke(app, ["runs", str(REAL / "067" / "server.log"), "--format", "json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.output)["runs"][-1]
    assert "sglang_version_hint" in run
    assert run["sglang_release"]["min"] == "0.5.11"
    assert run["sglang_release"]["max"] == "0.5.13.post1"
    assert run["sglang_release"]["evidence"]
    assert {"line", "kind", "text", "releases"} <= set(run["sglang_release"]["evidence"][0])


def test_no_argparse_finding_on_a_flag_the_runs_banner_shows(tmp_path: Path) -> None:
    """Issue 17: a flag the table at hand lacks, but whose field the run's own banner shows,
    was accepted by that run: no LS006 for it (synthetic log; --cuda-graph-bs-decode is not
    in 0.5.9's table)."""
    from sglang_logscope import check

    log = tmp_path / "server.log"
    log.write_text(
        "[2026-07-10 10:00:00] server_args=ServerArgs(model_path='m', cuda_graph_bs_decode=[1, 2])\n",
        encoding="utf-8",
    )
    shown = "python -m sglang.launch_server --model-path m --cuda-graph-bs-decode 1 2"
    report = check(str(log), expect=shown, sglang_version="0.5.9")
    assert "LS006" not in {f.code for f in report.findings}
    typo = "python -m sglang.launch_server --model-path m --cuda-graf-bs 1 2"
    report = check(str(log), expect=typo, sglang_version="0.5.9")
    assert "LS006" in {f.code for f in report.findings}
