"""The logs a command line names: directories, globs and URL prefixes expanded
(:func:`expand_sources`). Apart from :mod:`.launches` (which groups the runs of several logs)
so that a command given one log does not import the grouping (start-up: ``logscope check``)."""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Sequence

from .._text import lazy_re
from ..limits import file_kind
from ..parse.urls import is_url

#: A log file's name in a directory: ``.log``, ``.out`` or ``.err``, rotated (``.1``), compressed
#: (a format logscope does not read is named as unreadable, with the command that reads it).
LOG_NAME = lazy_re(r"\.(?:log|out|err)(?:\.\d{1,6})?(?:\.(?:gz|xz|bz2|zst|lz4))?$")
_GLOB = re.compile(r"[*?\[]")


def expand_sources(names: Sequence[str], recursive: bool = False) -> list[str]:
    """Each name as the logs it stands for: a directory → the log files in it (by
    :data:`LOG_NAME`, sorted; links are not followed, and with ``recursive`` its
    subdirectories too), a glob → its matching files, a URL prefix (ending in ``/``) or URL
    glob → its objects (fsspec); anything else as given (a reader says why it is unreadable)."""
    return list_sources(names, recursive)[0]


#: An entry a directory or glob named that is not read: its path and what it is.
Skipped = tuple[str, str]


def list_sources(names: Sequence[str], recursive: bool = False) -> tuple[list[str], list[Skipped]]:
    """:func:`expand_sources`, and the entries it left out that a reader is owed a word on: a
    log file's name in a directory, or a glob's match, that is not a regular file (a symbolic
    link, which is not followed; a FIFO, which would block) — a directory a glob matches is
    not one."""
    out: list[str] = []
    skipped: list[Skipped] = []
    for name in names:
        if name == "-":
            out.append(name)
        elif is_url(name):
            out.extend(_listed(name, recursive) if _is_listing(name) else [name])
        elif _GLOB.search(name) and not os.path.lexists(name):
            out.extend(_regular_of(sorted(glob.glob(name, recursive=recursive)), skipped))
        elif _is_dir(name):
            out.extend(_directory_logs(name, recursive, skipped))
        else:
            out.append(name)
    return list(dict.fromkeys(out)), skipped


def _listed(url: str, recursive: bool) -> list[str]:
    # start-up: fsspec's listing and the network policy only for a URL prefix or glob
    from ..parse.remote import list_url

    return list_url(url, recursive)


def _is_listing(url: str) -> bool:
    return url.endswith("/") or bool(_GLOB.search(url.split("://", 1)[-1]))


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _regular_of(paths: list[str], skipped: list[Skipped]) -> list[str]:
    """The regular files of ``paths``; the others, directories aside, noted in ``skipped``."""
    out = []
    for path in paths:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue  # gone since it was listed
        if stat.S_ISREG(mode):
            out.append(path)
        elif not stat.S_ISDIR(mode):
            skipped.append((path, file_kind(mode)))
    return out


def _directory_logs(root: str, recursive: bool, skipped: list[Skipped]) -> list[str]:
    """The log files under ``root`` (not following links)."""
    found = []
    for here, dirs, names in os.walk(root, followlinks=False):
        found += [os.path.join(here, n) for n in names if LOG_NAME.search(n)]
        if not recursive:
            dirs.clear()
    return _regular_of(sorted(found), skipped)
