"""Prediction vs what SGLang printed, over a folder of real-log cases (``docs/memory-accuracy.md``).

Each case folder holds ``server.log``, ``case.json`` (source, model, version, supplementary
launch arguments, explanation) and optionally a ``config.json``. The prediction uses only the
run's server args and weight-load lines; the pool lines are read for comparison.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .._record import record
from ..log.reader import read_log
from .from_run import MISMATCH_PCT, budget_for_run
from .models import facts_from_config, load_config, profile_facts

START = "<!-- accuracy-table:start -->"
END = "<!-- accuracy-table:end -->"
FAMILY_START = "<!-- accuracy-families:start -->"
FAMILY_END = "<!-- accuracy-families:end -->"


@record
class Row:
    """One case of the accuracy table: the figures predicted beside those SGLang printed."""

    case: str
    category: str
    model: str
    version: str
    predicted_tokens: int | None
    reported_tokens: int | None
    tokens_error_pct: float | None
    predicted_slots: int | None
    reported_slots: int | None
    slots_error_pct: float | None
    note: str
    predicted_mrr: int | None = None
    reported_mrr: int | None = None
    #: Figures more than 2 % off what the run printed (the budget's own flag).
    flagged: tuple[str, ...] = ()


def evaluate(folder: Path) -> Row:
    case: dict[str, Any] = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    cid = str(case["id"])
    if case.get("not_recomputable"):
        return Row(
            cid,
            case["category"],
            "-",
            "-",
            None,
            None,
            None,
            None,
            None,
            None,
            f"not recomputable: {case['not_recomputable']}",
        )
    log = read_log(str(folder / "server.log"))
    run = log.runs[0]
    if "model_config" in case:
        cfg = load_config(folder / case["model_config"])
        model = facts_from_config(
            cfg, name=folder.name, source=str(cfg.get("_source", "config.json"))
        )
    else:
        model = profile_facts(case["model"])
    b = budget_for_run(
        run, args=case.get("args"), model=model, sglang_version=case["sglang_version"]
    )
    rep = b.reported or {}
    return Row(
        case=cid,
        category=case["category"],
        model=model.name if "model" in case else cfg.get("_source", "").split("/")[4],
        version=case["sglang_version"],
        predicted_tokens=b.per_gpu.kv_tokens,
        reported_tokens=rep.get("kv_tokens"),
        tokens_error_pct=rep.get("kv_tokens_error_pct"),
        predicted_slots=b.per_gpu.mamba_slots,
        reported_slots=rep.get("mamba_slots"),
        slots_error_pct=rep.get("mamba_slots_error_pct"),
        note=str(case.get("explanation", "")),
        predicted_mrr=b.max_running_requests,
        reported_mrr=rep.get("max_running_requests"),
        flagged=tuple(
            label
            for key, label in (
                ("kv_tokens", "tokens"),
                ("mamba_slots", "slots"),
                ("max_running_requests", "requests"),
            )
            if abs(rep.get(f"{key}_error_pct") or 0.0) > MISMATCH_PCT
        ),
    )


def evaluate_all(cases: Path) -> list[Row]:
    return [evaluate(p) for p in sorted(cases.iterdir()) if (p / "case.json").is_file()]


def _n(v: int | None) -> str:
    return f"{v:,}" if v is not None else "-"


def _pct(v: float | None) -> str:
    return f"{v:+.2f}%" if v is not None else "-"


def render_table(rows: list[Row]) -> str:
    lines = [
        "| case | kind | model | arithmetic of | #tokens predicted | #tokens printed | error | "
        "mamba slots predicted | printed | error | max_running_requests predicted | printed | "
        "flagged >2% | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.case} | {r.category} | {r.model} | {r.version} | {_n(r.predicted_tokens)} | "
            f"{_n(r.reported_tokens)} | {_pct(r.tokens_error_pct)} | {_n(r.predicted_slots)} | "
            f"{_n(r.reported_slots)} | {_pct(r.slots_error_pct)} | {_n(r.predicted_mrr)} | "
            f"{_n(r.reported_mrr)} | {', '.join(r.flagged) or '-'} | {r.note} |"
        )
    return "\n".join(lines)


def _abs_max(values: list[float]) -> str:
    return f"{max(abs(v) for v in values):.2f}%" if values else "-"


def render_families(rows: list[Row]) -> str:
    """One row per family (the cases' ``category``): cases, recomputed, the largest token and
    slot errors; then ``declined``: the cases that get no figure, and why."""
    lines = [
        "| family | cases | recomputed | largest #tokens error | largest slots error | cases |",
        "|---|---|---|---|---|---|",
    ]
    done = [r for r in rows if r.predicted_tokens is not None]
    for family in sorted({r.category for r in rows}):
        mine = [r for r in done if r.category == family]
        tokens = [r.tokens_error_pct for r in mine if r.tokens_error_pct is not None]
        slots = [r.slots_error_pct for r in mine if r.slots_error_pct is not None]
        lines.append(
            f"| {family} | {sum(r.category == family for r in rows)} | {len(mine)} | "
            f"{_abs_max(tokens)} | {_abs_max(slots)} | {', '.join(r.case for r in mine) or '-'} |"
        )
    declined = [r for r in rows if r.predicted_tokens is None]
    lines.append(
        f"| declined | {len(declined)} | 0 | - | - | "
        f"{', '.join(r.case for r in declined) or '-'} (no figure: {_declined_why(declined)}) |"
    )
    return "\n".join(lines)


def _declined_why(rows: list[Row]) -> str:
    whys = sorted({r.note.removeprefix("not recomputable: ").split(",")[0] for r in rows})
    return "; ".join(whys) or "-"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "fixtures/memory/cases")
    rows = evaluate_all(folder)
    sys.stdout.write(f"{START}\n{render_table(rows)}\n{END}\n\n")
    sys.stdout.write(f"{FAMILY_START}\n{render_families(rows)}\n{FAMILY_END}\n")


if __name__ == "__main__":
    main()
