"""The JSON Schema of every ``--format json`` document, shipped in the package
(``sglang_logscope/data/schemas/NAME.schema.json``, Draft 2020-12), and a check of a
document against one (``logscope schema check NAME FILE``).

The schemas hold what scripts may rely on: every key named there is always present, with
that type; documents may carry more keys (fields are added, never renamed or dropped). The
check implements the part of JSON Schema the files use (``type``, ``enum``, ``const``,
``required``, ``properties``, ``items``, ``anyOf``, ``allOf``, ``if`` / ``then`` / ``else``,
``minimum``, ``pattern``, local ``$ref``), so validating needs no extra package; the test suite
also validates with ``jsonschema``.

A schema file may name a part of another (``"$ref": "check.schema.json"``, or
``"launches.schema.json#/$defs/launch"``: one fact in one place); :func:`load_schema` inlines
it (under ``$defs``, its own definitions prefixed ``check.``), so every loaded schema is whole.
"""

from __future__ import annotations

import json
from typing import Any

import regex

from ..errors import InputError
from ..limits import package_files

#: The documents: ``logscope NAME --format json`` (``summary``: one per line for several logs);
#: ``watch``: the records ``logscope watch`` and ``logscope launch`` write with ``--format jsonl``.
#: Of several logs: ``launches`` (``summary --launches``, ``runs``), ``launch_check``
#: (``check``), ``fleet`` (the JSON lines of ``summary --dask`` / ``--parquet``).
NAMES = (
    "events",
    "runs",
    "summary",
    "check",
    "args",
    "budget",
    "gpus",
    "preflight",
    "watch",
    "launches",
    "launch_check",
    "fleet",
)
#: A reference to another schema file (``NAME.schema.json``, optionally ``#/$defs/PART``).
_EXTERNAL = regex.compile(r"^([a-z_]{1,40})\.schema\.json(?:#/\$defs/([A-Za-z_.]{1,80}))?$")
_LOCAL = "#/$defs/"

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def load_schema(name: str) -> dict[str, Any]:
    """The schema of the ``name`` document."""
    if name not in NAMES:
        raise InputError(f"no schema {name!r} (one of: {', '.join(NAMES)})")
    text = package_files().joinpath(f"data/schemas/{name}.schema.json")
    data: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    defs: dict[str, Any] = dict(data.get("$defs", {}))
    inlined: dict[str, Any] = _inline(data, defs)
    for key, own in list(data.get("$defs", {}).items()):
        defs[key] = _inline(own, defs)
    if defs:
        inlined["$defs"] = defs
    return inlined


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with each reference to another schema file made local, the part it names
    (and that file's definitions, prefixed with its name) added to ``defs``."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    found = _EXTERNAL.match(str(node.get("$ref", "")))
    if found is not None:
        other, part = found[1], found[2]
        if other not in defs:
            loaded = load_schema(other)
            body = {k: v for k, v in loaded.items() if k not in ("$schema", "$id", "$defs")}
            defs[other] = _prefixed(body, other)
            for key, sub in loaded.get("$defs", {}).items():
                defs[f"{other}.{key}"] = _prefixed(sub, other)
        out["$ref"] = _LOCAL + (f"{other}.{part}" if part else other)
    return out


def _prefixed(node: Any, prefix: str) -> Any:
    """``node`` with its local references renamed as its definitions are when inlined."""
    if isinstance(node, list):
        return [_prefixed(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _prefixed(v, prefix) for k, v in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_LOCAL):
        out["$ref"] = f"{_LOCAL}{prefix}.{ref.removeprefix(_LOCAL)}"
    return out


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def errors(document: Any, schema: dict[str, Any]) -> list[str]:
    """Where ``document`` breaks ``schema`` (``$.runs[0].failure: ...``); empty when it holds."""
    out: list[str] = []
    _check(document, schema, schema, "$", out)
    return out


def _check(value: Any, node: dict[str, Any], root: dict[str, Any], at: str, out: list[str]) -> None:
    if "$ref" in node:
        target: Any = root
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        _check(value, target, root, at, out)
    for part in node.get("allOf", ()):
        _check(value, part, root, at, out)
    if "if" in node:
        branch = "else" if _sub_errors(value, node["if"], root, at) else "then"
        if branch in node:
            _check(value, node[branch], root, at, out)
    if "anyOf" in node:
        if all(_sub_errors(value, alt, root, at) for alt in node["anyOf"]):
            out.append(f"{at}: matches none of the allowed shapes")
        return
    kinds = node.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            out.append(f"{at}: {type(value).__name__} where {' or '.join(kinds)} is due")
            return
    if "const" in node and value != node["const"]:
        out.append(f"{at}: {value!r} where {node['const']!r} is due")
    if "enum" in node and value not in node["enum"]:
        out.append(f"{at}: {value!r} is not one of {node['enum']}")
    if "minimum" in node and _is(value, "number") and value < node["minimum"]:
        out.append(f"{at}: {value} is below {node['minimum']}")
    pattern = node.get("pattern")
    if pattern is not None and isinstance(value, str) and regex.search(pattern, value) is None:
        out.append(f"{at}: {value!r} does not match {pattern}")
    if isinstance(value, dict):
        out.extend(f"{at}: no {key!r}" for key in node.get("required", ()) if key not in value)
        for key, sub in node.get("properties", {}).items():
            if key in value:
                _check(value[key], sub, root, f"{at}.{key}", out)
    if isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            _check(item, node["items"], root, f"{at}[{i}]", out)


def _sub_errors(value: Any, node: dict[str, Any], root: dict[str, Any], at: str) -> list[str]:
    found: list[str] = []
    _check(value, node, root, at, found)
    return found


def check_text(name: str, text: str) -> list[str]:
    """:func:`errors` of a JSON document (or JSON lines: each line one document)."""
    schema = load_schema(name)
    stripped = text.strip()
    try:
        docs = [json.loads(stripped)]
    except ValueError:
        try:
            docs = [json.loads(line) for line in stripped.splitlines() if line.strip()]
        except ValueError as exc:
            raise InputError(f"not JSON (nor JSON lines): {exc}") from None
    problems: list[str] = []
    for n, doc in enumerate(docs):
        where = f"line {n + 1}: " if len(docs) > 1 else ""
        problems += [where + p for p in errors(doc, schema)]
    return problems
