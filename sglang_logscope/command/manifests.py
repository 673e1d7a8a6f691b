"""SGLang launches written as argument lists rather than shell text: a Dockerfile's
``CMD``/``ENTRYPOINT`` JSON arrays, a compose service's ``entrypoint:`` + ``command:``, a
Kubernetes container's ``command:`` + ``args:`` lists.

Each list is the exec form (no shell): its items are the words. YAML is read with
``yaml.safe_load`` (never a Python object); a manifest that does not parse is not one.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any

_DOCKER_LINE = re.compile(r"^\s*(CMD|ENTRYPOINT)\s+(.*)$", re.IGNORECASE | re.MULTILINE)
#: Manifests bigger than this are not searched (bounded work on pasted text).
MAX_CHARS = 1_000_000
_MAX_NODES = 100_000


def manifest_argvs(text: str) -> Iterator[tuple[str, list[str]]]:
    """``(where, words)`` for every exec-form command the text declares."""
    if len(text) > MAX_CHARS:
        return
    yield from _dockerfile(text)
    yield from _yaml(text)


def _dockerfile(text: str) -> Iterator[tuple[str, list[str]]]:
    """``ENTRYPOINT [...]`` then ``CMD [...]``: Docker runs the entrypoint with CMD as its
    arguments (the last of each instruction counts)."""
    found: dict[str, list[str]] = {}
    for m in _DOCKER_LINE.finditer(text):
        words = _exec_form(m.group(2).strip())
        if words is not None:
            found[m.group(1).upper()] = words
    if found:
        yield "Dockerfile", [*found.get("ENTRYPOINT", []), *found.get("CMD", [])]


def _exec_form(value: str) -> list[str] | None:
    if value.startswith("["):
        try:
            items = json.loads(value)
        except ValueError:
            return None
        return [str(x) for x in items] if isinstance(items, list) else None
    try:
        return shlex.split(value)  # shell form: the words the shell would see
    except ValueError:
        return None


def _yaml(text: str) -> Iterator[tuple[str, list[str]]]:
    if ":" not in text:
        return
    # start-up: yaml is loaded only for text that may be a manifest
    import yaml

    try:
        docs = list(yaml.safe_load_all(text))
    except (yaml.YAMLError, RecursionError, ValueError):
        return
    budget = [_MAX_NODES]
    for doc in docs:
        yield from _walk(doc, budget)


def _walk(node: Any, budget: list[int]) -> Iterator[tuple[str, list[str]]]:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if isinstance(node, dict):
        # compose: entrypoint + command; Kubernetes: command + args
        entry, command, args = node.get("entrypoint"), node.get("command"), node.get("args")
        words = [*_words(entry), *_words(command), *_words(args)]
        if words and (entry is not None or command is not None or args is not None):
            keys = [
                k
                for k, v in (("entrypoint", entry), ("command", command), ("args", args))
                if v is not None
            ]
            yield "compose/k8s " + "+".join(keys), words
        for value in node.values():
            yield from _walk(value, budget)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, budget)


def _words(value: Any) -> list[str]:
    if isinstance(value, list) and all(isinstance(x, (str, int, float)) for x in value):
        return [str(x) for x in value]
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return []
    return []
