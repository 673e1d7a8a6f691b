"""Issue 17's targets, measured over the real logs of ``fixtures/real/``.

    python -m benchmarks.corpus_targets          # the table, per log and in total

* **unknown lines**: lines neither the typed catalog nor the source index reads (``unknown``:
  with a header; ``text``: without), and how many of the headed ones name an SGLang source file
  (``file.py:LINE`` of a file in the index): SGLang-origin lines still unread;
* **pinning**: the last run's release range (``sglang_release``) against the release the
  log's ``meta.json`` states exactly (a version such as ``0.5.13`` or an image tag ``v0.4.8.post1``;
  approximate ones, ``~0.4.4``, are not scored);
* **argparse false positives**: flags of the log's ``command.txt`` that the argument table of
  the pinned release rejects although the run printed its ``server_args`` banner (argparse
  accepted them);
* **outcome**: the last run's outcome against ``meta.json`` where the log shows the outcome in
  full (``outcome_evidence_in_log: full``).

``render()`` gives the markdown that ``scripts/gen_support_matrix.py`` puts in
``docs/support-matrix.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from sglang_logscope.command.parse import CommandError, parse_launch_command
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.release import choose_release
from sglang_logscope.parse.message_index import message_index
from sglang_logscope.parse.versions import release_key
from sglang_logscope.staleness.release_words import release_flag_findings

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"
_EXACT = re.compile(
    r"^(?:v)?(\d+\.\d+\.\d+(?:\.post\d+)?)(?![.\w])|:v(\d+\.\d+\.\d+(?:\.post\d+)?)(?![.\w])"
)
#: Logs whose meta.json outcome predates issue 17's ``completed``: (outcome, why).
_ISSUE_17_OUTCOME = {
    "053": (
        "completed",
        "sglang.bench_one_batch ran to its end (meta.json: 'ready', see its notes)",
    ),
}
#: The last run's pinning (range, agreeing/pieces) at commit 8c34129, before issue 17's second
#: part (every matching template's releases per line; a run dated before its range's oldest
#: release is a source checkout): measured with this module's ``measure`` at that commit.
PINNED_BEFORE = {
    "002": "0.4.3.post3-0.5.23 1/1",
    "006": "0.4.9-0.5.6 1/1",
    "007": "0.3.6.post3-0.5.23 1/1",
    "008": "0.4.3.post3-0.5.23 2/2",
    "009": "0.4.3.post3-0.5.23 1/1",
    "010": "0.1.3-0.1.14 1/1",
    "011": "0.3.6.post3-0.5.23 1/1",
    "016": "0.2.14-0.4.3.post2 2/2",
    "018": "0.3.6.post3-0.5.23 1/1",
    "020": "0.3.6.post3-0.5.23 1/1",
    "022": "0.2.8-0.5.8.post1 1/2",
    "023": "0.1.3-0.1.17 1/1",
    "024": "0.1.22-0.5.23 1/1",
    "026": "0.2.14-0.4.3.post2 5/5",
    "027": "0.4.6.post2-0.5.1.post1 7/8",
    "028": "0.4.6.post2-0.5.12.post1 5/8",
    "030": "0.3.6.post3-0.5.23 1/1",
    "033": "0.4.3.post3-0.5.1.post3 4/4",
    "036": "0.3.6.post3-0.5.23 1/1",
    "037": "0.4.2-0.4.3.post2 9/9",
    "039": "0.3.6.post3-0.5.3 1/1",
    "041": "0.1.6-0.1.14 1/1",
    "043": "0.5.9 8/9",
    "046": "0.4.3.post3-0.5.23 2/2",
    "047": "0.3.6.post3-0.5.3 1/1",
    "049": "0.1.17-0.3.2 1/1",
    "053": "0.5.7-0.5.8.post1 28/32",
    "054": "0.5.10-0.5.12.post1 26/32",
    "055": "0.5.14-0.5.16 7/8",
    "057": "0.5.9-0.5.20 3/3",
    "059": "0.4.4.post4-0.4.6.post4 8/8",
    "063": "0.4.1.post5-0.4.4.post1 5/5",
    "065": "0.5.9-0.5.13.post1 13/13",
    "067": "0.5.11-0.5.12.post1 19/19",
    "069": "0.5.11-0.5.12.post1 30/31",
    "071": "0.3.6.post3-0.5.23 1/1",
}
#: The headed lines still read as ``unknown``, and why each is not SGLang's own message.
NOT_SGLANG = {
    ("050", 3): "the fork Lsglang's own message ('Failed to initialize lk_moe', its CPU/GPU "
    "hybrid MoE), cut short by the paste and prefixed with '**' by the reporter's markdown; "
    "SGLang has no lk_moe",
    ("054", 75): "NVIDIA CUTLASS's CuTe DSL logger ('CUTE_DSL - WARNING - "
    "[handle_import_error]', the line before): its record also reaches the root logger, "
    "which SGLang's handler formats with SGLang's header",
    ("054", 77): "the same CuTe DSL warning from the second rank (TP1)",
}
#: meta.json outcome → the outcome logscope gives the last run.
_OUTCOME = {
    "ready": "ready",
    "other_crash": "crashed",
    "cuda_oom": "crashed",
    "oom_not_enough_memory": "crashed",
    "stopped": "stopped",
    "completed": "completed",
}


@dataclass(frozen=True)
class Row:
    name: str
    unknown: int
    unknown_lines: tuple[tuple[int, str], ...]
    text: int
    sglang_unknown: int
    sglang_messages: int
    stated: str | None
    pinned: str | None
    pinned_detail: str | None
    pin_ok: bool | None
    false_argparse: int | None
    outcome: str
    expected: str | None


def stated_release(meta: dict[str, object]) -> str | None:
    m = _EXACT.search(str(meta.get("sglang_version") or ""))
    return (m.group(1) or m.group(2)) if m else None


def measure(folder: Path) -> Row:
    log = read_log(folder / "server.log")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    files = {p.rsplit("/", 1)[-1] for p in message_index().files}
    unknown = [e for e in log.events if e.kind is EventKind.UNKNOWN]
    sglang_unknown = sum(1 for e in unknown if e.source and e.source.rpartition(":")[0] in files)
    last = log.runs[-1] if log.runs else None
    pin = last.sglang_release if last else None
    stated = stated_release(meta)
    pin_ok = None
    if stated and pin:
        v = release_key(stated)
        pin_ok = release_key(pin.low) <= v <= release_key(pin.high)
    expected = (
        _OUTCOME.get(str(meta.get("outcome")))
        if meta.get("outcome_evidence_in_log") == "full"
        else None
    )
    if folder.name in _ISSUE_17_OUTCOME:
        expected = _ISSUE_17_OUTCOME[folder.name][0]
    return Row(
        name=folder.name,
        unknown=len(unknown),
        unknown_lines=tuple((e.line, e.message) for e in unknown),
        text=sum(1 for e in log.events if e.kind is EventKind.TEXT),
        sglang_unknown=sglang_unknown,
        sglang_messages=sum(1 for e in log.events if e.kind is EventKind.SGLANG_MESSAGE),
        stated=stated,
        pinned=str(pin) if pin else None,
        pinned_detail=f"{pin} {pin.agreeing}/{pin.pieces}" if pin else None,
        pin_ok=pin_ok,
        false_argparse=_false_argparse(folder, last),
        outcome=last.outcome.value if last else "none",
        expected=expected,
    )


def _false_argparse(folder: Path, run: object) -> int | None:
    path = folder / "command.txt"
    if not path.is_file() or run is None or not getattr(run, "has_banner", False):
        return None
    chosen = choose_release(run)  # type: ignore[arg-type]
    version = chosen.table if chosen is not None else None  # the table `check` reads with
    try:
        cmd = parse_launch_command(path.read_text(encoding="utf-8"), sglang_version=version)
    except CommandError:
        return None
    # as `check` counts: a flag some release of the run's range accepts is no sure rejection
    used = chosen.to_dict() if chosen is not None else None
    somewhere = release_flag_findings(cmd, used)[1]
    return sum(1 for f in (*cmd.unknown, *cmd.ambiguous) if f.split("=", 1)[0] not in somewhere)


def rows() -> list[Row]:
    return [measure(p) for p in sorted(REAL.iterdir()) if (p / "server.log").is_file()]


def render() -> str:
    table = rows()
    pinned = [r for r in table if r.pin_ok is not None]
    commands = [r for r in table if r.false_argparse is not None]
    scored = [r for r in table if r.expected is not None]
    out = [
        "## Issue 17 targets over the real logs",
        "",
        "Measured by `python -m benchmarks.corpus_targets` (this table is its output).",
        "",
        f"- lines left `unknown` (headed): {sum(r.unknown for r in table)} in "
        f"{sum(1 for r in table if r.unknown)} of {len(table)} logs; of them with an SGLang "
        f"`file.py:LINE` header: {sum(r.sglang_unknown for r in table)}; headerless `text` "
        f"lines: {sum(r.text for r in table)}; lines read as `sglang_message`: "
        f"{sum(r.sglang_messages for r in table)}",
        f"- last run pinned to a range holding the release its meta.json states: "
        f"{sum(1 for r in pinned if r.pin_ok)} of {len(pinned)} logs that state one exactly",
        f"- flags rejected by the pinned release's table although the run started: "
        f"{sum(r.false_argparse or 0 for r in commands)} in {len(commands)} commands",
        f"- last-run outcome as in meta.json: {sum(1 for r in scored if r.outcome == r.expected)} "
        f"of {len(scored)} logs that show it in full",
        "",
        "| log | unknown | of them SGLang file | text | sglang_message | stated | pinned | "
        "argparse false | outcome | expected |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        mark = "" if r.pin_ok is None else (" ✓" if r.pin_ok else " ✗")
        out.append(
            f"| {r.name} | {r.unknown} | {r.sglang_unknown} | {r.text} | {r.sglang_messages} | "
            f"{r.stated or '-'} | {r.pinned or '-'}{mark} | "
            f"{'-' if r.false_argparse is None else r.false_argparse} | {r.outcome} | "
            f"{r.expected or '-'} |"
        )
    return "\n".join([*out, *_pinning_table(table), *_unknown_table(table)]) + "\n"


def _pinning_table(table: list[Row]) -> list[str]:
    out = [
        "",
        "### Pinning before and after (issue 17, second part)",
        "",
        "The last run's range at commit 8c34129 (`PINNED_BEFORE`, the most specific template "
        "alone dated a line) and now (every template that matches a line gives its releases; a "
        "run dated two days or more before the first upload of its range's oldest release is "
        "a source checkout between the release before and that one). Ranges in release order "
        "of the message index; `n/m`: pieces of evidence agreeing / all.",
        "",
        "| log | stated | before | now |",
        "|---|---|---|---|",
    ]
    for r in table:
        was, now = PINNED_BEFORE.get(r.name), r.pinned_detail
        if was or now:
            out.append(f"| {r.name} | {r.stated or '-'} | {was or '-'} | {now or '-'} |")
    return out


def _unknown_table(table: list[Row]) -> list[str]:
    out = [
        "",
        "### Headed lines left `unknown`, and why none is SGLang's",
        "",
        "| log | line | message | whose |",
        "|---|---|---|---|",
    ]
    for r in table:
        for line, message in r.unknown_lines:
            why = NOT_SGLANG.get((r.name, line), "NOT EXPLAINED")
            shown = message.replace("|", "\\|").replace("*", "\\*")[:60]
            out.append(f"| {r.name} | {line} | `{shown}` | {why} |")
    return out


if __name__ == "__main__":
    print(render(), end="")
