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
from sglang_logscope.parse.catalog import version_tuple
from sglang_logscope.parse.message_index import message_index

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
    text: int
    sglang_unknown: int
    sglang_messages: int
    stated: str | None
    pinned: str | None
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
        v = version_tuple(stated)
        pin_ok = version_tuple(pin.low) <= v <= version_tuple(pin.high)
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
        text=sum(1 for e in log.events if e.kind is EventKind.TEXT),
        sglang_unknown=sglang_unknown,
        sglang_messages=sum(1 for e in log.events if e.kind is EventKind.SGLANG_MESSAGE),
        stated=stated,
        pinned=str(pin) if pin else None,
        pin_ok=pin_ok,
        false_argparse=_false_argparse(folder, last),
        outcome=last.outcome.value if last else "none",
        expected=expected,
    )


def _false_argparse(folder: Path, run: object) -> int | None:
    path = folder / "command.txt"
    if not path.is_file() or run is None or not getattr(run, "has_banner", False):
        return None
    pin = getattr(run, "sglang_release", None)
    version = pin.high if pin is not None and version_tuple(pin.high) >= (0, 4) else None
    try:
        cmd = parse_launch_command(path.read_text(encoding="utf-8"), sglang_version=version)
    except CommandError:
        return None
    return len(cmd.unknown) + len(cmd.ambiguous)


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
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
