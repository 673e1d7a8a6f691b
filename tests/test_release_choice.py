"""Issue 17: the release a run is pinned to chooses its argument table, its memory era and the
release-dependent wording; where the typed messages' hint and the pinning disagree, the
report says which was used and why. Real corpus logs (fixtures/real)."""

from __future__ import annotations

from pathlib import Path

from sglang_logscope.log.pinning import Evidence, ReleasePin
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.release import choose_release, release_choice
from sglang_logscope.memory.from_run import version_for_run
from sglang_logscope.staleness.judge import check

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
#: fixtures/real/037's own command (a compose file: entrypoint + command list), one line.
CMD_037 = (
    "python3 -m sglang.launch_server --model-path /sgl-workspace/models/DeepSeek-R1-Distill-Qwen-7B"
    " --host 0.0.0.0 --port 30000"
)


def _pin(low: str, high: str, pieces: int = 3, agreeing: int = 3) -> ReleasePin:
    ev = Evidence(1, "message", "x", f"{low}-{high}", 1)
    return ReleasePin(low, high, (ev,), pieces, agreeing)


def test_a_log_pinned_to_0_4_is_checked_against_a_0_4_table() -> None:
    """fixtures/real/037 (lmsysorg/sglang:latest, Feb 2025) pins to 0.4.1.post6-0.4.3.post2: your
    command is read with the 0.4.3.post2 table, so a flag only later releases have
    (``--cuda-graph-max-bs-decode``, 0.5.15+) is one that run's argparse would reject; read
    with 0.5.23 it is accepted."""
    cmd = CMD_037 + " --cuda-graph-max-bs-decode 8"
    report = check(REAL / "037" / "server.log", expect=cmd)
    assert report.intended is not None and report.intended.sglang_version == "0.4.3.post2"
    used = report.to_dict()["sglang_release_used"]
    assert (used["min"], used["max"], used["arg_table"], used["source"]) == (
        "0.4.1.post6",
        "0.4.3.post2",
        "0.4.3.post2",
        "pinned",
    )
    (ls006,) = [f for f in report.findings if f.code == "LS006"]
    assert "--cuda-graph-max-bs-decode" in ls006.message and "0.4.3.post2" in ls006.message
    newest = check(REAL / "037" / "server.log", expect=cmd, sglang_version="0.5.23")
    assert not [f for f in newest.findings if f.code == "LS006"]
    assert newest.to_dict()["sglang_release_used"]["source"] == "given"


def test_the_deprecated_alias_is_named_for_the_pinned_releases() -> None:
    """fixtures/real/055 (0.5.15 wheel) pins to 0.5.14-0.5.23. ``--cuda-graph-max-bs`` is a
    deprecated alias of ``--cuda-graph-max-bs-decode`` in 0.5.14-0.5.19 and gone from 0.5.20
    (an ambiguous prefix there): LS110 names the alias, LS111 says the answer depends on the
    release, and no LS006 calls it a sure rejection. On 037's 0.4.x range it is the plain
    flag: nothing is said."""
    cmd = "python3 -m sglang.launch_server --model-path /m --cuda-graph-max-bs 8"
    found = check(REAL / "055" / "server.log", expect=cmd).findings
    (ls110,) = [f for f in found if f.code == "LS110"]
    assert "--cuda-graph-max-bs-decode in SGLang 0.5.14-0.5.19 (7 of 11 read)" in ls110.message
    (ls111,) = [f for f in found if f.code == "LS111"]
    assert "accepted by SGLang 0.5.14-0.5.19" in ls111.message and "0.5.23" in ls111.message
    assert not [f for f in found if f.code == "LS006"]
    given = check(REAL / "055" / "server.log", expect=cmd, sglang_version="0.5.23").findings
    assert [f.code for f in given if f.code in ("LS006", "LS110", "LS111")] == ["LS006"]
    old = check(REAL / "037" / "server.log", expect=CMD_037 + " --cuda-graph-max-bs 8")
    assert not [f for f in old.findings if f.code in ("LS110", "LS111", "LS006")]


def test_where_hint_and_pinning_disagree_the_pinning_is_used_and_said() -> None:
    """fixtures/real/010 (SGLang 0.1.13): the typed messages' hint says 0.1.18-0.2.0, the
    pinning (a source line of 0.1.3-0.1.14) contains the real release and is used — for the
    memory era too — and the note says why."""
    run = read_log(REAL / "010" / "server.log").runs[-1]
    assert run.release_hint == "0.1.18-0.2.0"
    chosen = choose_release(run)
    assert chosen is not None and (chosen.low, chosen.high) == ("0.1.3", "0.1.14")
    assert chosen.source == "pinned" and "hint 0.1.18-0.2.0 disagrees" in chosen.note
    assert chosen.table is None and "no argument table before 0.4.0" in chosen.note
    version, note = version_for_run(run, None)
    assert version == "0.1.3" and note is not None and "disagrees" in note


def test_where_they_agree_the_hint_narrows_the_pinning() -> None:
    """fixtures/real/059 (PR branch, ~0.4.5): pinned 0.4.4.post4-0.4.6.post4, hint 0.4.5-0.4.6:
    read as 0.4.5-0.4.6.post4, the 0.4.6.post4 table, the 0.4.5 era."""
    run = read_log(REAL / "059" / "server.log").runs[-1]
    chosen = choose_release(run)
    assert chosen is not None and chosen.source == "pinned+hint"
    assert (chosen.low, chosen.high, chosen.table, chosen.era) == (
        "0.4.5",
        "0.4.6.post4",
        "0.4.6.post4",
        "0.4.5",
    )


def test_release_choice_rules() -> None:
    assert release_choice(None, None) is None
    assert release_choice(None, ">=0.5.3") is None  # open-ended: names no release
    only_hint = release_choice(None, "0.5.9-0.5.12")
    assert only_hint is not None and only_hint.source == "hint"
    assert (only_hint.low, only_hint.high) == ("0.5.9", "0.5.12.post1")
    mixed = release_choice(_pin("0.5.7", "0.5.8.post1", 32, 28), "0.5.9-0.5.12")
    assert mixed is not None and mixed.source == "mixed" and "source checkout" in mixed.note
    same = release_choice(_pin("0.5.9", "0.5.9"), ">=0.4.0")
    assert same is not None and same.source == "pinned" and same.table == "0.5.9"
