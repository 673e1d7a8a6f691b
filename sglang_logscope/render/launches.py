"""Text of several logs read as launches: ``summary --launches``, ``runs`` and ``check`` of
several files (their JSON is the results' ``to_dict``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..log.launches import Launches
from ..staleness.launch_check import LaunchCheck
from .text import console, plain


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
