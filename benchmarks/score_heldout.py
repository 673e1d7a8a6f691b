"""Issue 17's held-out score: real logs the project was not tuned on (``fixtures/heldout/NNN``).

    python -m benchmarks.score_heldout            # the markdown table, per log and in total
    python -m benchmarks.score_heldout --json     # the same rows as JSON

Per log (``log``, ``meta.json`` and, where the log prints its own argv, ``command.txt``):

* **outcome**: the last run's outcome against ``expected_outcome`` in meta.json, which a person
  read from the log (logs whose outcome is not visible, ``outcome_evidence_in_log: partial``, are
  not scored), and its failure kind against ``expected_failure`` where meta.json gives one;
* **unknown**: headed lines that neither the typed catalog nor the source index reads; of them
  the ones with a ``[timestamp]`` header (SGLang's logger format: SGLang's own lines and other
  libraries' records that went through SGLang's handler) and their distinct messages (digits
  folded), and those whose ``file.py:LINE`` header names a file of the index. A level-only
  prefix (pip's ``WARNING:``, unittest's ``ERROR:``) is another program's line;
* **pinning**: the last run's release range against ``sglang_release_exact`` where meta.json
  knows the release exactly;
* **unexplained**: the differences between ``command.txt`` (the argv the run itself printed)
  and the run's banner that ``check`` leaves unexplained. The run printed both, so every such
  difference is SGLang's own doing (a value rewrite, an auto-adjustment): one left unexplained
  is a false alarm (issue 28: SGLang's value rewrites, read per release);
* **argparse false**: the LS006/LS007 findings ``check`` gives with ``command.txt`` as the
  intended command although the run printed its ``server_args`` banner (SGLang's argparse
  accepted that argv); beside them the flags the pinned release's argument table rejects
  (unknown or ambiguous) before the banner overrules it, and the banner's fields the table does
  not know.

``render()`` gives the markdown ``scripts/gen_support_matrix.py`` puts in docs/support-matrix.md.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from sglang_logscope.command.argtable import load_arg_table
from sglang_logscope.command.parse import LaunchCommand, parse_launch_command
from sglang_logscope.errors import CommandError
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import Log, read_log
from sglang_logscope.log.runs import Run
from sglang_logscope.parse.message_index import message_index
from sglang_logscope.parse.versions import release_key
from sglang_logscope.staleness.argdiff import DiffStatus, arg_diff
from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "fixtures" / "heldout"
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Row:
    name: str
    outcome: str
    expected: str | None
    failure: str | None
    expected_failure: str | None
    unknown: int
    stamped: int
    stamped_distinct: tuple[str, ...]
    unknown_sglang_file: int
    known_release: str | None
    pinned: str | None
    pin_ok: bool | None
    false_flags: tuple[str, ...] | None
    argparse_findings: int | None
    banner_gaps: tuple[str, ...] | None
    unexplained: tuple[str, ...] | None = None

    @property
    def outcome_ok(self) -> bool | None:
        return None if self.expected is None else self.outcome == self.expected

    @property
    def failure_ok(self) -> bool | None:
        return None if self.expected_failure is None else self.failure == self.expected_failure


def measure(folder: Path) -> Row:
    """Score one held-out log."""
    log = read_log(folder / "log")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    files = {p.rsplit("/", 1)[-1] for p in message_index().files}
    unknown = [e for e in log.events if e.kind is EventKind.UNKNOWN]
    stamped = [e for e in unknown if e.timestamp is not None]
    distinct = sorted({_DIGITS.sub("N", e.message.strip())[:120] for e in stamped})
    last = log.runs[-1] if log.runs else None
    pin = last.sglang_release if last else None
    known = meta.get("sglang_release_exact")
    pin_ok = None
    if known and pin:
        pin_ok = release_key(pin.low) <= release_key(known) <= release_key(pin.high)
    expected = (
        meta.get("expected_outcome") if meta.get("outcome_evidence_in_log") == "full" else None
    )
    return Row(
        name=folder.name,
        outcome=last.outcome.value if last else "none",
        expected=expected,
        failure=last.failure.kind.value if last and last.failure else None,
        expected_failure=meta.get("expected_failure") if expected else None,
        unknown=len(unknown),
        stamped=len(stamped),
        stamped_distinct=tuple(distinct),
        unknown_sglang_file=sum(
            1 for e in unknown if e.source and e.source.rpartition(":")[0] in files
        ),
        known_release=known,
        pinned=str(pin) if pin else None,
        pin_ok=pin_ok,
        false_flags=_false_flags(folder, last),
        argparse_findings=_argparse_findings(folder, log, last),
        banner_gaps=_banner_gaps(last),
        unexplained=_unexplained(folder, last),
    )


def _table_version(run: Run) -> str | None:
    pin = run.sglang_release
    return pin.high if pin is not None and release_key(pin.high) >= (0, 4) else None


def _own_command(folder: Path, run: Run | None) -> LaunchCommand | None:
    """The log's own argv (``command.txt``) read with the pinned release's table, when the run
    started (has a banner) and the command reads; else None."""
    path = folder / "command.txt"
    if not path.is_file() or run is None or not run.has_banner:
        return None
    try:
        return parse_launch_command(
            path.read_text(encoding="utf-8"), sglang_version=_table_version(run)
        )
    except CommandError:
        return None


def _false_flags(folder: Path, run: Run | None) -> tuple[str, ...] | None:
    """Flags of the log's own argv the pinned table rejects although the run started."""
    cmd = _own_command(folder, run)
    return None if cmd is None else tuple(cmd.unknown) + tuple(cmd.ambiguous)


def _argparse_findings(folder: Path, log: Log, run: Run | None) -> int | None:
    """LS006/LS007 (argparse would reject / died at argparse) that ``check`` gives with the
    log's own argv as the intended command, although the run started."""
    path = folder / "command.txt"
    if not path.is_file() or run is None or not run.has_banner:
        return None
    report = check(log, expect=path, with_budget=False, live=False, full_scan=True)
    return sum(1 for f in report.findings if f.code in ("LS006", "LS007"))


def _unexplained(folder: Path, run: Run | None) -> tuple[str, ...] | None:
    """The differences between the run's own argv and its banner left unexplained."""
    cmd = _own_command(folder, run)
    if cmd is None or run is None:
        return None
    diffs, _, _ = arg_diff(run, cmd.meant or cmd)
    return tuple(d.arg for d in diffs if d.status is DiffStatus.UNEXPLAINED)


def _banner_gaps(run: Run | None) -> tuple[str, ...] | None:
    """``server_args`` fields of the run's banner that the pinned release's table lacks."""
    if run is None or not run.server_args:
        return None
    table = load_arg_table(_table_version(run))
    return tuple(sorted(k for k in run.server_args if table.by_field(k) is None))


def rows() -> list[Row]:
    return [measure(p) for p in sorted(HELDOUT.iterdir()) if (p / "log").is_file()]


def _totals(table: list[Row]) -> list[str]:
    scored = [r for r in table if r.expected is not None]
    failing = [r for r in table if r.expected_failure is not None]
    pinned = [r for r in table if r.pin_ok is not None]
    commands = [r for r in table if r.false_flags is not None]
    banners = [r for r in table if r.banner_gaps is not None]
    return [
        f"- last-run outcome right: {sum(1 for r in scored if r.outcome_ok)} of {len(scored)} "
        f"logs whose outcome the log shows; failure kind right: "
        f"{sum(1 for r in failing if r.failure_ok)} of {len(failing)} crashed logs",
        f"- headed lines left `unknown`: {sum(r.unknown for r in table)} in "
        f"{sum(1 for r in table if r.unknown)} of {len(table)} logs; with a `[timestamp]` "
        f"header: {sum(r.stamped for r in table)} "
        f"({len({m for r in table for m in r.stamped_distinct})} distinct messages); naming an "
        f"SGLang source file: {sum(r.unknown_sglang_file for r in table)}",
        f"- last run pinned to a range holding the known release: "
        f"{sum(1 for r in pinned if r.pin_ok)} of {len(pinned)} logs that know it exactly",
        f"- argparse findings (LS006/LS007) `check` gives on the log's own argv although the run "
        f"started: {sum(r.argparse_findings or 0 for r in commands)} in {len(commands)} commands; "
        f"flags the pinned release's table rejects (before the banner overrules it): "
        f"{sum(len(r.false_flags or ()) for r in commands)}",
        f"- differences between the log's own argv and its banner left unexplained: "
        f"{sum(len(r.unexplained or ()) for r in commands)} in {len(commands)} commands",
        f"- banner fields the pinned table lacks: {sum(len(r.banner_gaps or ()) for r in banners)} "
        f"in {len(banners)} banners",
    ]


def render() -> str:
    table = rows()
    out = [
        *_totals(table),
        "",
        "| log | outcome | expected | failure | unknown | [ts] unknown | pinned | "
        "table rejects | LS006 | unexplained | banner gaps | [ts] unknown messages |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        mark = {None: "", True: " ✓", False: " ✗"}[r.outcome_ok]
        pin = (r.pinned or "-") + {None: "", True: " ✓", False: " ✗"}[r.pin_ok]
        flags = "-" if r.false_flags is None else (", ".join(r.false_flags) or "0")
        gaps = "-" if r.banner_gaps is None else _gaps(r.banner_gaps)
        examples = "; ".join(f"`{_cell(e[:70])}`" for e in r.stamped_distinct) or "-"
        out.append(
            f"| {r.name} | {r.outcome}{mark} | {r.expected or '-'} | {_failure(r)} | {r.unknown} "
            f"| {r.stamped} "
            f"| {pin} | {flags} | {'-' if r.argparse_findings is None else r.argparse_findings} "
            f"| {'-' if r.unexplained is None else (', '.join(r.unexplained) or '0')} "
            f"| {gaps} | {examples} |"
        )
    return "\n".join(out) + "\n"


def _failure(r: Row) -> str:
    mark = {None: "", True: " ✓", False: " ✗"}[r.failure_ok]
    shown = r.failure or "-"
    if r.failure_ok is False:
        shown += f" (expected {r.expected_failure})"
    return shown + mark


def _gaps(names: tuple[str, ...]) -> str:
    if not names:
        return "0"
    shown = ", ".join(names[:2])
    return f"{len(names)}: {shown}" + (", ..." if len(names) > 2 else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


if __name__ == "__main__":
    if sys.argv[1:] == ["--json"]:
        print(json.dumps([asdict(r) for r in rows()], indent=1))
    else:
        print(render(), end="")
