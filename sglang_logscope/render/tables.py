"""Listings as tables, JSON, JSON lines and CSV: ``logscope events``, ``runs``, ``summary``."""

from __future__ import annotations

import csv
import sys

from .._text import SCHEMA_VERSION, visible, when
from ..log.select import EventSelection, RunList, Summaries
from .events import write_events_table
from .streams import encodes_everything
from .text import console, release_text, unreadable_lines, write_json, write_jsonl
from .text import table as make_table

_CSV_COLUMNS = ("line", "end_line", "timestamp", "rank", "level", "kind", "message")


def events_table(result: EventSelection) -> None:
    """Streams: each row is written as its event is parsed (:mod:`.events`)."""
    write_events_table(result.events)


def events_json(result: EventSelection) -> None:
    write_json(
        {
            "schema_version": SCHEMA_VERSION,
            "log": result.log,
            "events": [e.to_dict() for e in result.events],
        },
        parsed=True,
    )


def events_jsonl(result: EventSelection) -> None:
    if result.json_blocks is None:
        write_jsonl((e.to_dict() for e in result.events), parsed=True)
        return
    out = sys.stdout
    for block in result.json_blocks(not encodes_everything(out)):
        out.write(block + "\n")


def events_csv(result: EventSelection) -> None:
    writer = csv.writer(sys.stdout)
    writer.writerow(_CSV_COLUMNS)
    for e in result.events:
        d = e.to_dict()
        writer.writerow([_csv_cell(d[c]) for c in _CSV_COLUMNS])


def _csv_cell(value: object) -> object:
    """Log text with control and bidi characters made visible (as in every other format)."""
    if value is None:
        return ""
    return visible(value) if isinstance(value, str) else value


def runs_table(result: RunList) -> None:
    table = make_table(
        "run", "started", "ended", "lines", "outcome", "failure", "release",
        box=None, header_style="bold",
    )  # fmt: skip
    for r, row in zip(result.runs, result.rows(), strict=True):
        table.add_row(
            str(row["index"]),
            when(r.started_at),
            when(r.ended_at),
            f"{row['first_line']}-{row['last_line']}",
            str(row["outcome"]),
            str(row["failure"]["kind"] if row["failure"] else "-"),
            release_text(row),
        )
    console().print(table)
    for r in result.runs:  # issue 28: one file, several nodes' output of one launch
        if len(r.nodes) > 1:
            nodes = ", ".join(map(str, r.nodes))
            console().print(f"run {r.index} holds the output of nodes {nodes} (node_rank)")


def summaries_json(result: Summaries) -> None:
    """One log: its summary document; several: one summary per line (JSON lines), and a line
    on stderr for each file that could not be read."""
    if len(result.items) == 1 and not result.unreadable:
        write_json(result.items[0])
    else:
        write_jsonl(result.items)
    unreadable_lines(result.unreadable)
