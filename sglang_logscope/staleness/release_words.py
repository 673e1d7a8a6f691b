"""Wording that depends on the SGLang release a run is read with (issue 17): a flag of your
command that this release keeps only as a deprecated alias (``--cuda-graph-max-bs`` became
``--cuda-graph-max-bs-decode`` in 0.5.15), said with the release and how it was chosen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..command.argtable import load_arg_table
from ..command.parse import LaunchCommand
from ..errors import LogscopeError
from ..findings import Finding


def deprecated_flag_findings(
    command: LaunchCommand, used: Mapping[str, Any] | None
) -> list[Finding]:
    """LS110 for each flag of ``command`` that its argument table marks as a deprecated alias."""
    try:
        table = load_arg_table(command.sglang_version).for_program(command.program)
    except LogscopeError:
        return []
    how = f" ({used['note']})" if used and used.get("source") != "given" else ""
    out: list[Finding] = []
    for flag in sorted(set(command.flags_used.values())):
        option = table.option(flag)
        new = (option.deprecated or {}).get("new_flag") if option is not None else None
        if not new or flag == new:
            continue
        out.append(
            Finding.of(
                "LS110",
                f"{flag} is a deprecated alias of {new} in SGLang {table.version}'s argument "
                f"table{how}; pass {new}.",
            )
        )
    return out
