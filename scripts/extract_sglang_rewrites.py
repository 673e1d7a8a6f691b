#!/usr/bin/env python3
"""Read SGLang's own value rewrites from its wheels, per release, into
``sglang_logscope/data/args/rewrites.json`` (issue 28).

A value rewrite is SGLang turning a value the user gave into another one after parsing, e.g.
``--speculative-draft-model-quantization unquant`` → ``None`` or ``--speculative-algorithm NEXTN``
→ ``EAGLE``. The banner prints the value after the rewrite, so a check that compares the
command with the banner must know them. They are read statically (``ast``, nothing imported
or run) from ``sglang/srt/server_args.py`` and, from 0.5.22 on, ``sglang/srt/arg_groups/*.py``:
an ``if X == "C":`` (``X`` an attribute of ``self``/``cfg``/``server_args``) whose body sets
the same field to a constant, by assignment (``self.X = V``) or through
``declare_resolution(server_args, ..., X=V)``, or a function with a parameter named like a
field whose ``if X == "C":`` returns a constant (``_resolve_speculative_algorithm_alias``).
One nested in another ``if`` is marked ``conditional`` (other settings decide whether it
happens); one whose body tests something else first is marked ``exceptions`` (NEXTN becomes
FROZEN_KV_MTP, not EAGLE, for a Gemma4 draft).

Usage: ``pip download --no-deps sglang==R -d WHEELS`` for every release of
``releases.jsonl``, then ``python scripts/extract_sglang_rewrites.py WHEELS``. The output lists
every release read, so ``tests/test_rewrites.py`` fails when a release was added to the
argument tables without its rewrites read.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sglang_logscope.parse.versions import release_key  # noqa: E402 - after the path

OUT = ROOT / "sglang_logscope" / "data" / "args" / "rewrites.json"
RELEASES = ROOT / "sglang_logscope" / "data" / "args" / "releases.jsonl"
#: The objects a ServerArgs field is read and set through, across releases.
_OWNERS = frozenset({"self", "cfg", "server_args"})
_SOURCES = ("sglang/srt/server_args.py", "sglang/srt/arg_groups/")


def _sources(wheel: Path) -> Iterator[tuple[str, str]]:
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.endswith(".py") and name.startswith(_SOURCES):
                yield name, zf.read(name).decode("utf-8", "replace")


def _field_eqs(test: ast.expr, params: frozenset[str]) -> list[tuple[str, str, bool]]:
    """``X == "C"`` (or several joined by ``or``) with ``X`` an owner's attribute, or a
    parameter of the function named like a field: ``[(X, C, by_parameter)]``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        found = [_field_eqs(v, params) for v in test.values]
        return [x for part in found for x in part] if all(found) else []
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return []
    right = test.comparators[0]
    if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
        return []
    left = test.left
    if (
        isinstance(left, ast.Attribute)
        and isinstance(left.value, ast.Name)
        and left.value.id in _OWNERS
    ):
        return [(left.attr, right.value, False)]
    if isinstance(left, ast.Name) and left.id in params:
        return [(left.id, right.value, True)]
    return []


def _sets(stmt: ast.stmt, field: str, by_parameter: bool) -> tuple[bool, Any]:
    """Does ``stmt`` set ``field`` to a constant (for a parameter: return one)? ``(True,
    value)`` when it does."""
    if by_parameter:
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant):
            return True, stmt.value.value
        return False, None
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Attribute)
        and stmt.targets[0].attr == field
        and isinstance(stmt.targets[0].value, ast.Name)
        and stmt.targets[0].value.id in _OWNERS
        and isinstance(stmt.value, ast.Constant)
    ):
        return True, stmt.value.value
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name == "declare_resolution":
            for kw in stmt.value.keywords:
                if kw.arg == field and isinstance(kw.value, ast.Constant):
                    return True, kw.value.value
    return False, None


def _rewrites_in(path: str, text: str, fields: frozenset[str]) -> Iterator[dict[str, Any]]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = frozenset(a.arg for a in func.args.args + func.args.kwonlyargs) & fields
        yield from _rewrites_of(path, func, func.body, params, nested=False)


def _rewrites_of(
    path: str,
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    body: list[ast.stmt],
    params: frozenset[str],
    nested: bool,
) -> Iterator[dict[str, Any]]:
    for stmt in body:
        if isinstance(stmt, ast.If):
            for field, before, by_parameter in _field_eqs(stmt.test, params):
                branches = any(isinstance(inner, ast.If) for inner in stmt.body)
                for inner in stmt.body:
                    found, after = _sets(inner, field, by_parameter)
                    if found and after != before:
                        yield {
                            "field": field,
                            "from": before,
                            "to": after,
                            "where": f"{path.removeprefix('sglang/srt/')} {func.name}",
                            "conditional": nested,
                            "exceptions": branches,
                        }
            yield from _rewrites_of(path, func, stmt.body, params, nested=True)
            yield from _rewrites_of(path, func, stmt.orelse, params, nested=nested)
        elif isinstance(stmt, ast.For | ast.While | ast.With | ast.Try):
            for part in ("body", "orelse", "finalbody"):
                inner_body = getattr(stmt, part, []) or []
                yield from _rewrites_of(path, func, inner_body, params, nested=True)


def _field_names(sources: list[tuple[str, str]]) -> frozenset[str]:
    """The ServerArgs fields: the annotated names of the dataclass bodies read (a function's
    parameter is taken for a field only when it is named like one)."""
    names: set[str] = set()
    for _path, text in sources:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
    return frozenset(names)


def read_release(wheel: Path) -> list[dict[str, Any]]:
    found: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    sources = list(_sources(wheel))
    fields = _field_names(sources)
    for path, text in sources:
        for rw in _rewrites_in(path, text, fields):
            key = (rw["field"], rw["from"], json.dumps(rw["to"]), rw["where"])
            if key in found:  # conditional only when every occurrence is
                found[key]["conditional"] = found[key]["conditional"] and rw["conditional"]
                found[key]["exceptions"] = found[key]["exceptions"] or rw["exceptions"]
            else:
                found[key] = rw
    return [found[k] for k in sorted(found)]


def wheel_of(wheels: Path, release: str) -> Path | None:
    for path in sorted(wheels.glob(f"sglang-{release}-*.whl")):
        return path
    return None


def build(wheels: Path) -> dict[str, Any]:
    releases = json.loads(RELEASES.read_text(encoding="utf-8").split("\n", 1)[0])["releases"]
    releases = sorted(releases, key=release_key)
    per: dict[str, list[dict[str, Any]]] = {}
    read: list[dict[str, str]] = []
    for release in releases:
        wheel = wheel_of(wheels, release)
        if wheel is None:
            raise SystemExit(f"no wheel of sglang {release} in {wheels}")
        per[release] = read_release(wheel)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        read.append({"release": release, "distribution": wheel.name, "sha256": digest})
    # contiguous release ranges of each (field, from, to, where)
    rows: list[dict[str, Any]] = []
    open_rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for release in releases:
        seen = set()
        for rw in per[release]:
            key = (rw["field"], rw["from"], json.dumps(rw["to"]), rw["where"])
            seen.add(key)
            row = open_rows.get(key)
            if row is None:
                row = {**rw, "first": release, "last": release}
                open_rows[key] = row
                rows.append(row)
            else:
                row["last"] = release
                row["conditional"] = row["conditional"] or rw["conditional"]
                row["exceptions"] = row["exceptions"] or rw["exceptions"]
        for key in [k for k in open_rows if k not in seen]:
            del open_rows[key]
    rows.sort(key=lambda r: (r["field"], r["from"], release_key(r["first"])))
    return {
        "format_version": 1,
        "generator": "scripts/extract_sglang_rewrites.py",
        "rule": "an `if X == C:` in server_args.py or arg_groups/*.py whose body sets X to a "
        "constant (assignment or declare_resolution), or returns one for a parameter named like "
        "a field; conditional: nested in another `if`; exceptions: the body tests more first",
        "releases_read": read,
        "rewrites": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", type=Path, help="a folder with one sglang wheel per release")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    doc = build(args.wheels)
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(doc['rewrites'])} rewrite rows from {len(doc['releases_read'])} releases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
