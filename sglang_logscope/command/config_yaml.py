"""A ``--config`` YAML read with bounds (issue 20): a few MB, a regular file, few aliases,
shallow nesting, and a bounded size once aliases are expanded — so a "billion laughs" file,
10 000 nested lists or a FIFO is a one-line error, not a hang or a traceback."""

from __future__ import annotations

import os
from typing import Any

import yaml

from ..errors import CommandError, InputError
from ..limits import CONFIG_MAX_BYTES, read_regular, shape_problem

#: Aliases (``*name``) a config may use; SGLang's own configs use none.
MAX_ALIASES = 32
#: Nesting of lists and mappings; SGLang's configs are one mapping of scalars and lists.
MAX_DEPTH = 50


class _Refused(Exception):
    """The document is over a bound (raised from inside the composer)."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, counting aliases and depth while it composes the node tree
    (before any Python object is built, so the depth never reaches the recursion limit)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _Refused(f"more than {MAX_ALIASES} aliases")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_config(path: str | os.PathLike[str], shown: str) -> Any:
    """The YAML document at ``path`` (``shown``: the name the user gave), or CommandError."""
    try:
        raw = read_regular(path, CONFIG_MAX_BYTES, "the file", follow=False)
    except InputError as exc:
        raise CommandError(f"--config {shown}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"--config {shown}: not UTF-8 text") from None
    loader: _BoundedLoader | None = None
    try:
        loader = _BoundedLoader(text)  # (its reader already refuses control characters)
        data = loader.get_single_data()
    except _Refused as exc:
        raise CommandError(f"--config {shown}: refused, {exc}") from None
    except yaml.YAMLError as exc:
        raise CommandError(
            f"--config {shown}: not valid YAML ({str(exc).splitlines()[0]})"
        ) from None
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. a 5000-digit int
        raise CommandError(f"--config {shown}: refused, {str(exc)[:80]}") from None
    finally:
        if loader is not None:
            loader.dispose()
    why = shape_problem(data)
    if why is not None:
        raise CommandError(f"--config {shown}: refused, the document {why}")
    return data
