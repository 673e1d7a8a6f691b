"""Text of several logs read as launches: ``summary --launches``, ``runs`` and ``check`` of
several files (their JSON is the results' ``to_dict``)."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from .._text import SCHEMA_VERSION, to_json, visible
from ..log.fleet import FLEET_COLUMNS, Fleet
from ..log.launches import Launches
from ..staleness.launch_check import LaunchCheck
from .streams import encodes_everything
from .text import console, plain, table


def launches_text(result: Launches) -> None:
    render_launches(console(), result.to_dict())


def launch_check_text(result: LaunchCheck) -> None:
    con = console()
    data = result.to_dict()
    for f in data["files"]:
        head = Text.assemble(
            (f"{f['verdict'].upper():<13}", "bold"),
            plain(str(f["file"])),
            f"  ({f['role'] or 'no role'})",
        )
        con.print(head)
        con.print(Text.assemble("  ", plain(str(f["check"]["headline"]))))
        if f["older_launch"]:
            con.print(Text.assemble("  ", plain(str(f["older_launch"]), "yellow")))
    con.print()
    render_launches(con, data)
    con.print(Text.assemble(("launch verdict: ", "bold"), data["verdict"]))


def render_launches(con: Console, data: dict[str, Any]) -> None:
    launches = data["launches"]
    for i, launch in enumerate(launches):
        files = len(launch["files"])
        con.print(
            Text.assemble(
                (f"launch {i}", "bold"),
                f"  {launch['outcome']}  —  {files} file(s), {len(launch['roles'])} run(s)",
            )
        )
        for role in launch["roles"]:
            con.print(
                Text.assemble(
                    f"  {role['role']:<16}", plain(str(role["file"])), f"  run {role['run']}"
                )
            )
        for line in launch["evidence"]:
            con.print(Text.assemble("  evidence: ", plain(str(line))))
        _failure_lines(con, launch)
        for note in launch["notes"]:
            con.print(Text.assemble("  note: ", plain(str(note), "yellow")))
        con.print()
    for bad in data.get("unreadable", []):
        con.print(Text.assemble(("unreadable: ", "red"), plain(str(bad["error"]))))


def _failure_lines(con: Console, launch: dict[str, Any]) -> None:
    first = launch["first_failure"]
    if first is None:
        return
    cause = "first failure" if not first["consequence"] else "first failure (a consequence)"
    con.print(
        Text.assemble(
            (f"  {cause}: ", "bold red"),
            plain(f"{first['role']} {first['file']}:{first['line']} at {first['time'] or '?'}"),
            f"  {first['kind']}",
        )
    )
    con.print(Text.assemble("    ", plain(str(first["message"]), limit=300)))
    for after in launch["consequences"]:
        con.print(
            Text.assemble(
                "  then: ",
                plain(f"{after['role']} {after['file']}:{after['line']} at {after['time'] or '?'}"),
                f"  {after['kind']} — a consequence ({after['consequence']})",
            )
        )


def fleet_json(result: Fleet) -> None:
    """JSON lines: each file's summary as its task completes, then ``{"schema_version",
    "fleet": [...]}``, the table; an unreadable file is one line on stderr."""
    out = sys.stdout
    ascii_only = not encodes_everything(out)
    for item in result:
        if item.error is not None:
            sys.stderr.write(f"logscope: {visible(item.error)}\n")
            continue
        line = item.summary_json or ""
        if ascii_only and not line.isascii():  # (made with non-ASCII characters as they are)
            line = to_json(item.summary, indent=None, ascii_only=True)
        out.write(line + "\n")
        out.flush()
    if result.read:
        rows = result.table()
        fleet = {"schema_version": SCHEMA_VERSION, "fleet": rows}
        out.write(to_json(fleet, indent=None, ascii_only=ascii_only) + "\n")


def fleet_text(result: Fleet) -> None:
    """The fleet table, one row per launch, once every file is read."""
    for item in result:
        if item.error is not None:
            sys.stderr.write(f"logscope: {visible(item.error)}\n")
    if not result.read:
        return
    shown = table(*FLEET_COLUMNS)
    for row in result.table():
        shown.add_row(*(plain("-" if row[c] is None else str(row[c])) for c in FLEET_COLUMNS))
    console().print(shown)
