"""``logscope check`` of several logs: each file checked as one log is (against the command
of its role), and the launches they make (:mod:`..log.launches`) judged as a whole: a node
whose log is from an older launch of the same cluster is the commonest multi-node ghost."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._record import record
from .._text import SCHEMA_VERSION
from ..errors import LogscopeError
from ..meter import file_done, files_begin
from ..parse.source import Source, describe
from .judge import check
from .verdict import CheckReport, Verdict

if TYPE_CHECKING:
    from ..log.launches import Launch, Launches

#: A launch's verdict: the first of these that one of its files has.
GRAVITY = (Verdict.STALE, Verdict.MISMATCH, Verdict.NO_RUN, Verdict.INCONCLUSIVE, Verdict.FRESH)


@record
class FileCheck:
    """One file of a launch check: its role, the command it was held to, its check."""

    file: str
    role: str | None
    expect: str | None
    report: CheckReport
    #: set when the file's last run belongs to an older launch than another file's
    older_launch: str | None = None

    @property
    def verdict(self) -> Verdict:
        return Verdict.STALE if self.older_launch else self.report.verdict

    @property
    def exit_code(self) -> int:
        return 1 if self.older_launch else self.report.exit_code

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "role": self.role,
            "expect_args": self.expect,
            "verdict": self.verdict.value,
            "older_launch": self.older_launch,
            "exit_code": self.exit_code,
            "check": self.report.to_dict(),
        }


@record
class LaunchCheck:
    """``check`` of several logs: per file, per launch, and the files that could not be read."""

    files: tuple[FileCheck, ...]
    launches: Launches
    unreadable: tuple[tuple[str, str], ...] = field(default=())

    @property
    def verdict(self) -> Verdict:
        """The gravest of the files' verdicts (:data:`GRAVITY`)."""
        seen = {f.verdict for f in self.files}
        return next((v for v in GRAVITY if v in seen), Verdict.INCONCLUSIVE)

    @property
    def exit_code(self) -> int:
        """0 when every file checks out and every file was read; 1 otherwise."""
        worst = max((f.exit_code for f in self.files), default=1)
        return max(worst, 1 if self.unreadable else 0)

    def to_dict(self) -> dict[str, Any]:
        launches = self.launches.to_dict()["launches"]
        return {
            "schema_version": SCHEMA_VERSION,
            "verdict": self.verdict.value,
            "exit_code": self.exit_code,
            "files": [f.to_dict() for f in self.files],
            "launches": launches,
            "unreadable": [{"file": f, "error": why} for f, why in self.unreadable],
        }


def parse_expects(specs: Sequence[str]) -> dict[str | None, str]:
    """``--expect-args`` values: ``ROLE=FILE`` (a role — ``prefill``, ``decode``, ``node1``,
    ``prefill-node1`` — or a log's file name) or one plain ``FILE`` for every log."""
    out: dict[str | None, str] = {}
    for spec in specs:
        role, sep, path = spec.partition("=")
        if sep and role and path and not os.path.exists(spec):
            out[_norm(role)] = path
        elif None in out:
            raise LogscopeError(
                "--expect-args: name the role of each command (prefill=p.txt, node1=n1.txt)"
            )
        else:
            out[None] = spec
    return out


def check_launch(
    sources: Sequence[Source],
    expects: Mapping[str | None, str] | None = None,
    launched_at: str | None = None,
    log_tz: str | None = None,
    *,
    sglang_version: str | None = None,
    here: bool = False,
) -> LaunchCheck:
    """Check each of ``sources`` (against the command of its role in ``expects``: see
    :func:`parse_expects`) and the launches they make. Live evidence (processes, the server)
    is asked only with ``here`` (the logs are of other machines, as a rule)."""
    # start-up: the grouping of launches only for several logs (one log: parse_expects)
    from ..log.launches import read_launches

    expects = dict(expects or {})
    launches = read_launches(sources)
    roles = _roles(launches.launches)
    older = _older(launches.launches)
    unread = dict(launches.unreadable)
    files = []
    files_begin(len(sources), "judging")  # the progress line's count
    for source in sources:
        name = describe(source)
        if name in unread:
            file_done()
            continue
        role = roles.get(name)
        expect = _expect_for(name, role, expects)
        try:
            report = check(
                source,
                expect=Path(expect) if expect is not None else None,
                launched_at=launched_at,
                log_tz=log_tz,
                sglang_version=sglang_version,
                live=here,
                here=here,
            )
        except LogscopeError as exc:
            unread[name] = str(exc)
            continue
        finally:
            file_done()
        files.append(FileCheck(name, role, expect, report, older.get(name)))
    if not files:
        raise LogscopeError("no log could be checked (" + "; ".join(unread.values()) + ")")
    return LaunchCheck(tuple(files), launches, tuple(unread.items()))


def _roles(launches: Sequence[Launch]) -> dict[str, str]:
    """Each file's role, from its last run in the launches."""
    out: dict[str, tuple[int, str]] = {}
    for launch in launches:
        for m in launch.members:
            if m.file not in out or m.run.index > out[m.file][0]:
                out[m.file] = (m.run.index, m.role)
    return {f: role for f, (_, role) in out.items()}


def _older(launches: Sequence[Launch]) -> dict[str, str]:
    """Files whose last run lies in a launch marked older than another of the same cluster."""
    last: dict[str, tuple[int, Launch]] = {}
    for launch in launches:
        for m in launch.members:
            if m.file not in last or m.run.index > last[m.file][0]:
                last[m.file] = (m.run.index, launch)
    return {
        f: "its last run is from an older launch: " + note
        for f, (_, launch) in last.items()
        for note in launch.notes
        if note.startswith("an older launch")
    }


def _expect_for(source: str, role: str | None, expects: Mapping[str | None, str]) -> str | None:
    """The command file for ``source``: by its file name, its whole role, its mode or node
    (``prefill``, ``node1``), else the one plain command."""
    keys = [_norm(os.path.basename(source))]
    if role:
        keys += [_norm(role), *role.split()]
    return next((expects[k] for k in keys if k in expects), expects.get(None))


def _norm(role: str) -> str:
    return role.strip().lower().replace("-", " ").replace("_", " ")
