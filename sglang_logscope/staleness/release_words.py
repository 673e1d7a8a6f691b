"""Wording that depends on the SGLang release a run is read with (issue 17). Every release of
the run's range is asked, not one table, since the releases of a range may disagree:

* LS110: a flag of your command that those releases keep only as a deprecated alias
  (``--cuda-graph-max-bs`` is one of ``--cuda-graph-max-bs-decode`` in 0.5.14-0.5.19);
* LS111: a flag the newest table of the range rejects (unknown, or an ambiguous prefix) but
  older releases of it accept (then it is no "argparse would reject": which release ran
  decides).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..command.argtable import ArgTable, available_versions, load_arg_table
from ..errors import LogscopeError
from ..findings import Finding
from ..parse.versions import release_key

if TYPE_CHECKING:  # start-up: a check without a command never loads the command parser
    from ..command.parse import LaunchCommand

#: Argument tables read per check at most (a range spans a few dozen releases).
MAX_TABLES = 120


def release_flag_findings(
    command: LaunchCommand, used: Mapping[str, Any] | None
) -> tuple[list[Finding], set[str]]:
    """LS110/LS111 for ``command`` over the releases of ``used`` (the check's
    ``sglang_release_used``), and the unknown flags some release of the range accepts."""
    releases = _releases(used) or [command.sglang_version]
    how = ""
    if used and used.get("source") != "given":
        how = f" (this log read as SGLang {used['min']}-{used['max']}: {used['source']})"
    unknown = {u.split("=", 1)[0] for u in (*command.unknown, *command.ambiguous)}
    flags = sorted(set(command.flags_used.values()) | unknown)
    deprecated: dict[str, tuple[str, list[str]]] = {}
    accepted: dict[str, list[str]] = {}
    for release in releases[:MAX_TABLES]:
        table = _table(release, command.program)
        for flag in flags if table is not None else ():
            option = table.option(flag) if table is not None else None
            if option is None:
                continue
            accepted.setdefault(flag, []).append(release)
            new = (option.deprecated or {}).get("new_flag")
            if new and new != flag:
                deprecated.setdefault(flag, (new, []))[1].append(release)
    out = []
    for flag, (new, where) in deprecated.items():
        out.append(
            Finding.of(
                "LS110",
                f"{flag} is a deprecated alias of {new} in SGLang {_span(where, releases)}{how}; "
                f"pass {new}.",
            )
        )
    for flag in sorted(unknown & set(accepted)):
        out.append(
            Finding.of(
                "LS111",
                f"{flag} is accepted by SGLang {_span(accepted[flag], releases)} but not by the "
                f"newest table of the range, {command.sglang_version}{how}: whether argparse "
                "rejects it depends on which of them ran.",
            )
        )
    return out, unknown & set(accepted)


def _table(release: str, program: str) -> ArgTable | None:
    try:
        return load_arg_table(release).for_program(program)
    except LogscopeError:
        return None


def _span(where: list[str], releases: list[str]) -> str:
    span = where[0] if len(where) == 1 else f"{where[0]}-{where[-1]}"
    return span if len(where) == len(releases) else f"{span} ({len(where)} of {len(releases)} read)"


def _releases(used: Mapping[str, Any] | None) -> list[str]:
    """The releases with an argument table within ``used``'s ``min``..``max``."""
    if not used:
        return []
    low, high = release_key(str(used["min"])), release_key(str(used["max"]))
    return [v for v in available_versions() if low <= release_key(v) <= high]
