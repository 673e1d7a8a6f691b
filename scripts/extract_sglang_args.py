#!/usr/bin/env python3
"""Build ``sglang_logscope/data/args/releases.jsonl`` (``--all``): SGLang's server option table, per release.

SGLang cannot be imported without torch, so this script reads the released source *statically*:
it runs ``pip download --no-deps sglang==X`` into a temporary directory, opens the wheel (or
sdist) and walks the ``ast`` of

* ``sglang/srt/server_args.py``: every ``parser.add_argument(...)`` reached from
  ``ServerArgs.add_cli_args`` (≤0.5.9 registers every option by hand), the ``ServerArgs`` field
  defaults those calls refer to (``default=ServerArgs.x``), and the ``args.tp_size =
  args.tensor_parallel_size`` copies in ``from_cli_args`` (the dest → field map);
* dataclass fields annotated ``A[T, "help"]`` / ``A[T, Arg(...)]`` (0.5.15: on ``ServerArgs``
  itself; 0.5.23: on the msgspec namespaces in ``sglang/srt/arg_groups/fields/*.py`` listed in
  ``_INPUT_NAMESPACES``), converted the way ``arg_utils.add_cli_args_from_dataclass`` does
  (bool → store_true, ``list[X]`` → nargs "+", ``Literal`` → choices, Optional unwrapped).

Only facts are written (option strings, dest, type name, nargs, choices, defaults); no SGLang
code. A default or choices list that is computed at run time is stored as ``null`` together
with the expression text (``default_expr`` / ``choices_expr``).

Usage::

    python scripts/extract_sglang_args.py 0.4.10.post2 0.5.9 0.5.15 0.5.23
    python scripts/extract_sglang_args.py --from-wheel path/to/sglang-X.whl
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import itertools
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUT_DIR = Path(__file__).resolve().parent.parent / "sglang_logscope" / "data" / "args"
FORMAT_VERSION = 1


class Unresolved(Exception):
    """A value that cannot be evaluated statically."""


# --------------------------------------------------------------------------------------------
# Source access
# --------------------------------------------------------------------------------------------


def download(version: str, dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest)]
    subprocess.run([*cmd, f"sglang=={version}"], check=True)
    files = sorted(dest.iterdir())
    if not files:
        raise SystemExit(f"pip download produced nothing for sglang=={version}")
    return files[0]


def read_sources(archive: Path) -> dict[str, str]:
    """Python sources under ``sglang/srt`` of a wheel or sdist, keyed by ``sglang/...`` path."""
    out: dict[str, str] = {}

    def keep(name: str) -> str | None:
        m = re.search(r"(?:^|/)(sglang/(?:srt/.*|[a-z_]+|benchmark/[a-z_]+)\.py)$", name)
        if not m:
            return None
        rel = m.group(1)
        if rel == "sglang/srt/server_args.py" or rel.startswith("sglang/srt/arg_groups/"):
            return rel
        if rel.removeprefix("sglang/") in ENTRY_POINTS:
            return rel
        return None

    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                rel = keep(name)
                if rel:
                    out[rel] = zf.read(name).decode("utf-8")
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                rel = keep(member.name)
                if rel and member.isfile():
                    fh = tf.extractfile(member)
                    if fh is not None:
                        out[rel] = io.TextIOWrapper(fh, encoding="utf-8").read()
    if "sglang/srt/server_args.py" not in out:
        raise SystemExit(f"{archive.name}: no sglang/srt/server_args.py")
    return out


# --------------------------------------------------------------------------------------------
# Static evaluation
# --------------------------------------------------------------------------------------------


@dataclass
class Module:
    name: str
    tree: ast.Module
    consts: dict[str, ast.expr] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)


class Source:
    def __init__(self, files: dict[str, str]) -> None:
        self.modules: dict[str, Module] = {}
        for path, text in files.items():
            tree = ast.parse(text)
            mod = Module(path, tree)
            for node in tree.body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Name):
                        mod.consts[target.id] = node.value
                elif (
                    isinstance(node, ast.AnnAssign)
                    and isinstance(node.target, ast.Name)
                    and node.value is not None
                ):
                    mod.consts[node.target.id] = node.value
                elif isinstance(node, ast.ClassDef):
                    mod.classes[node.name] = node
                elif isinstance(node, ast.FunctionDef):
                    mod.functions[node.name] = node
            self.modules[path] = mod
        self.main = self.modules["sglang/srt/server_args.py"]

    def const(self, name: str, mod: Module) -> tuple[ast.expr, Module]:
        if name in mod.consts:
            return mod.consts[name], mod
        for other in self.modules.values():
            if name in other.consts:
                return other.consts[name], other
        raise Unresolved(name)

    def evaluate(self, node: ast.expr, mod: Module, depth: int = 0) -> Any:
        if depth > 20:
            raise Unresolved(ast.unparse(node))
        ev = self.evaluate
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items: list[Any] = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(ev(elt.value, mod, depth + 1))
                else:
                    items.append(ev(elt, mod, depth + 1))
            return items
        if isinstance(node, ast.Dict):
            return {
                ev(k, mod, depth + 1): ev(v, mod, depth + 1)
                for k, v in zip(node.keys, node.values, strict=True)
                if k is not None
            }
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand, mod, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.BitOr)):
            left, right = ev(node.left, mod, depth + 1), ev(node.right, mod, depth + 1)
            if isinstance(node.op, ast.BitOr):
                if isinstance(left, list) and isinstance(right, list):
                    return left + [x for x in right if x not in left]
                raise Unresolved(ast.unparse(node))
            if isinstance(node.op, ast.Mult) and not all(
                isinstance(x, (int, float)) for x in (left, right)
            ):
                raise Unresolved(ast.unparse(node))
            return left + right if isinstance(node.op, ast.Add) else left * right
        if isinstance(node, ast.Name):
            value, where = self.const(node.id, mod)
            return ev(value, where, depth + 1)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return ev(node.value, mod, depth + 1)[node.slice.value]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            fname = node.func.id
            if fname in ("list", "sorted", "set", "tuple") and len(node.args) == 1:
                return list(ev(node.args[0], mod, depth + 1))
            if fname in ("list", "dict") and not node.args and not node.keywords:
                return [] if fname == "list" else {}
        raise Unresolved(ast.unparse(node))


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------

ZERO_ARG_ACTIONS = {
    "store_true",
    "store_false",
    "store_const",
    "count",
    "boolean_optional",
    "deprecated",
    "deprecated_store_true",
    "deprecated_store_const",
}
ACTION_NAMES = {
    "BooleanOptionalAction": "boolean_optional",
    "DeprecatedAction": "deprecated",
    "DeprecatedStoreTrueAction": "deprecated_store_true",
    "DeprecatedStoreConstAction": "deprecated_store_const",
    "DeprecatedAliasStoreAction": "deprecated_alias_store",
    "LoRAPathAction": "lora_paths",
}
TYPE_NAMES = {"loads": "json", "json.loads": "json"}


def _name_of(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text.rsplit(".", 1)[-1] if "." in text and text != "json.loads" else text


def new_option(flags: list[str], dest: str) -> dict[str, Any]:
    return {
        "flags": flags,
        "dest": dest,
        "field": dest,
        "action": "store",
        "type": None,
        "nargs": None,
        "choices": None,
        "default": None,
        "required": False,
    }


class Extractor:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.notes: list[str] = []
        self.field_defaults: dict[str, tuple[ast.expr | None, Module]] = {}

    # ---- defaults ------------------------------------------------------------------------

    def default_value(self, node: ast.expr | None, mod: Module) -> tuple[Any, str | None]:
        """(value, expression text when computed)."""
        if node is None:
            return None, None
        # default=ServerArgs.x / _declared_default("x")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ServerArgs"
        ):
            return self.field_default(node.attr)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_declared_default"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            return self.field_default(str(node.args[0].value))
        # field(default=..., default_factory=...)
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("field"):
            for kw in node.keywords:
                if kw.arg == "default":
                    return self.default_value(kw.value, mod)
                if kw.arg == "default_factory":
                    fac = kw.value
                    if isinstance(fac, ast.Name) and fac.id in ("list", "dict"):
                        return ([] if fac.id == "list" else {}), None
                    if isinstance(fac, ast.Lambda):
                        return self.default_value(fac.body, mod)
                    return None, ast.unparse(node)
            return None, ast.unparse(node)
        try:
            value = self.src.evaluate(node, mod)
        except (Unresolved, TypeError, ValueError, KeyError, IndexError):
            return None, ast.unparse(node)
        if isinstance(value, (set, tuple)):
            value = list(value)
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return None, ast.unparse(node)
        return value, None

    def field_default(self, name: str) -> tuple[Any, str | None]:
        if name not in self.field_defaults:
            return None, f"ServerArgs.{name}"
        node, mod = self.field_defaults[name]
        if node is None:
            return None, None
        return self.default_value(node, mod)

    # ---- manual add_argument -------------------------------------------------------------

    def from_add_argument(self, call: ast.Call, mod: Module) -> dict[str, Any] | None:
        flags: list[str] = []
        for arg in call.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                flags.append(arg.value)
            else:
                self.notes.append(f"skipped non-literal option name: {ast.unparse(arg)}")
                return None
        if not flags or not flags[0].startswith("-"):
            return None
        kws = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        longs = [f for f in flags if f.startswith("--")]
        first = (longs or flags)[0]
        dest = first.lstrip("-").replace("-", "_")
        if "dest" in kws and isinstance(kws["dest"], ast.Constant):
            dest = str(kws["dest"].value)
        opt = new_option(flags, dest)
        self.fill(opt, kws, mod)
        return opt

    def fill(self, opt: dict[str, Any], kws: dict[str, ast.expr], mod: Module) -> None:
        action = "store"
        if "action" in kws:
            node = kws["action"]
            if isinstance(node, ast.Constant):
                action = str(node.value)
            else:
                raw = ast.unparse(node).rsplit(".", 1)[-1]
                action = ACTION_NAMES.get(raw, raw)
        opt["action"] = action
        if "type" in kws:
            opt["type"] = TYPE_NAMES.get(ast.unparse(kws["type"]), _name_of(kws["type"]))
        if "nargs" in kws:
            try:
                opt["nargs"] = self.src.evaluate(kws["nargs"], mod)
            except Unresolved:
                opt["nargs"] = ast.unparse(kws["nargs"])
        elif action in ZERO_ARG_ACTIONS:
            opt["nargs"] = 0
        if "choices" in kws:
            try:
                choices = self.src.evaluate(kws["choices"], mod)
                opt["choices"] = list(choices)
            except (Unresolved, TypeError, KeyError, IndexError):
                opt["choices"] = None
                opt["choices_expr"] = ast.unparse(kws["choices"])
        if "default" in kws:
            value, expr = self.default_value(kws["default"], mod)
            opt["default"] = value
            if expr is not None:
                opt["default_expr"] = expr
        elif action in ("store_true", "deprecated_store_true"):
            opt["default"] = False
        elif action == "store_false":
            opt["default"] = True
        if "const" in kws or "const_value" in kws:
            value, _ = self.default_value(kws.get("const", kws.get("const_value")), mod)
            opt["const"] = value
        elif action in ("store_true", "deprecated_store_true"):
            opt["const"] = True
        if "required" in kws and isinstance(kws["required"], ast.Constant):
            opt["required"] = bool(kws["required"].value)
        for key in ("new_flag", "error_message"):
            if key in kws:
                try:
                    opt.setdefault("deprecated", {})[key] = self.src.evaluate(kws[key], mod)
                except Unresolved:
                    opt.setdefault("deprecated", {})[key] = ast.unparse(kws[key])
        if action.startswith("deprecated"):
            opt.setdefault("deprecated", {})

    def manual_options(self) -> list[dict[str, Any]]:
        mod = self.src.main
        server = mod.classes.get("ServerArgs")
        if server is None:
            raise SystemExit("no class ServerArgs")
        start = next(
            (n for n in server.body if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args"),
            None,
        )
        if start is None:
            raise SystemExit("no ServerArgs.add_cli_args")
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        todo: list[ast.FunctionDef] = [start]
        methods = {n.name: n for n in server.body if isinstance(n, ast.FunctionDef)}
        while todo:
            func = todo.pop(0)
            if func.name in seen:
                continue
            seen.add(func.name)
            for node in ast.walk(func):
                if not isinstance(node, ast.Call):
                    continue
                fn = node.func
                if isinstance(fn, ast.Attribute) and fn.attr == "add_argument":
                    opt = self.from_add_argument(node, mod)
                    if opt is not None:
                        out.append(opt)
                    continue
                # helper functions that receive the parser
                name = fn.id if isinstance(fn, ast.Name) else getattr(fn, "attr", None)
                passes_parser = any(isinstance(a, ast.Name) and a.id == "parser" for a in node.args)
                if passes_parser and name:
                    target = methods.get(name) or mod.functions.get(name)
                    if target is not None:
                        todo.append(target)
        return out

    # ---- dataclass-derived ----------------------------------------------------------------

    def field_classes(self) -> list[tuple[ast.ClassDef, Module]]:
        main = self.src.main
        classes: list[tuple[ast.ClassDef, Module]] = []
        names: list[str] = []
        if "_INPUT_NAMESPACES" in main.consts:
            node = main.consts["_INPUT_NAMESPACES"]
            if isinstance(node, (ast.List, ast.Tuple)):
                names = [e.id for e in node.elts if isinstance(e, ast.Name)]
        for name in names:
            for mod in self.src.modules.values():
                if name in mod.classes and mod.name.startswith("sglang/srt/arg_groups/fields"):
                    classes.append((mod.classes[name], mod))
                    break
            else:
                self.notes.append(f"namespace class {name} not found")
        classes.append((main.classes["ServerArgs"], main))
        return classes

    def collect_fields(self) -> list[tuple[str, ast.expr, ast.expr | None, Module]]:
        fields: list[tuple[str, ast.expr, ast.expr | None, Module]] = []
        for cls, mod in self.field_classes():
            for node in cls.body:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    name = node.target.id
                    if name.startswith("_"):
                        continue
                    fields.append((name, node.annotation, node.value, mod))
                    self.field_defaults[name] = (node.value, mod)
        return fields

    def dataclass_options(
        self, fields: list[tuple[str, ast.expr, ast.expr | None, Module]]
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for name, ann, value, mod in fields:
            meta = self.arg_meta(ann)
            if meta is None:
                continue
            inner, kws = meta
            if "no_cli" in kws and isinstance(kws["no_cli"], ast.Constant) and kws["no_cli"].value:
                continue
            cli_name = f"--{name.replace('_', '-')}"
            if "cli_name" in kws:
                cli_name = str(self.src.evaluate(kws["cli_name"], mod))
            aliases: list[str] = []
            if "aliases" in kws:
                aliases = list(self.src.evaluate(kws["aliases"], mod))
            opt = new_option([cli_name, *aliases], name)
            has_default = value is not None
            default, default_expr = self.default_value(value, mod) if has_default else (None, None)

            def set_default(
                opt: dict[str, Any] = opt,
                has_default: bool = has_default,
                default: Any = default,
                default_expr: str | None = default_expr,
            ) -> None:
                if has_default:
                    opt["default"] = default
                    if default_expr is not None:
                        opt["default_expr"] = default_expr

            if "action" in kws:
                extra: dict[str, ast.expr] = {"action": kws["action"]}
                if "action_kwargs" in kws and isinstance(kws["action_kwargs"], ast.Dict):
                    for k, v in zip(
                        kws["action_kwargs"].keys, kws["action_kwargs"].values, strict=True
                    ):
                        if isinstance(k, ast.Constant):
                            extra[str(k.value)] = v
                self.fill(opt, extra, mod)
                set_default()
                out.append(opt)
                continue
            inner, _optional = self.unwrap_optional(inner)
            literal = self.literal_values(inner, mod)
            type_parser = (
                TYPE_NAMES.get(ast.unparse(kws["type_parser"]), _name_of(kws["type_parser"]))
                if "type_parser" in kws
                else None
            )
            if "const" in kws:
                opt["const"] = self.default_value(kws["const"], mod)[0]
            if literal is not None:
                opt["choices"] = literal
                self.set_choices(opt, kws, mod)
                first = literal[0] if literal else ""
                opt["type"] = type_parser or self.infer_type(type(first).__name__)
                set_default()
                out.append(opt)
                continue
            list_elem = self.list_elem(inner)
            if list_elem is not None and type_parser is None:
                opt["type"] = self.infer_type(list_elem)
                opt["nargs"] = self.src.evaluate(kws["nargs"], mod) if "nargs" in kws else "+"
                self.set_choices(opt, kws, mod)
                set_default()
                out.append(opt)
                continue
            if ast.unparse(inner) == "bool":
                opt["action"] = "store_true"
                opt["nargs"] = 0
                opt["const"] = True
                # argparse's store_true default is False unless the field gives one
                opt["default"] = False
                set_default()
                out.append(opt)
                continue
            opt["type"] = type_parser or self.infer_type(ast.unparse(inner))
            self.set_choices(opt, kws, mod)
            if "nargs" in kws:
                opt["nargs"] = self.src.evaluate(kws["nargs"], mod)
            set_default()
            required = kws.get("required")
            req_value = required.value if isinstance(required, ast.Constant) else None
            if req_value is True or (req_value is None and not has_default):
                opt["required"] = True
            out.append(opt)
        return out

    def set_choices(self, opt: dict[str, Any], kws: dict[str, ast.expr], mod: Module) -> None:
        if "choices" not in kws:
            return
        try:
            value = self.src.evaluate(kws["choices"], mod)
            opt["choices"] = list(value) if value else None
        except (Unresolved, TypeError, KeyError, IndexError):
            opt["choices"] = None
            opt["choices_expr"] = ast.unparse(kws["choices"])

    @staticmethod
    def infer_type(name: str) -> str:
        return name if name in ("str", "int", "float") else "str"

    def arg_meta(self, ann: ast.expr) -> tuple[ast.expr, dict[str, ast.expr]] | None:
        if not isinstance(ann, ast.Subscript):
            return None
        base = ast.unparse(ann.value)
        if base not in ("A", "Annotated", "typing.Annotated"):
            return None
        sl = ann.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if len(elts) < 2:
            return None
        inner = elts[0]
        for meta in elts[1:]:
            if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
                return inner, {}
            if isinstance(meta, ast.JoinedStr):
                return inner, {}
            if isinstance(meta, ast.BinOp):  # "help " + "text"
                return inner, {}
            if isinstance(meta, ast.Call) and ast.unparse(meta.func) in ("Arg", "arg_utils.Arg"):
                return inner, {kw.arg: kw.value for kw in meta.keywords if kw.arg}
        return None

    @staticmethod
    def unwrap_optional(node: ast.expr) -> tuple[ast.expr, bool]:
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in (
            "Optional",
            "typing.Optional",
        ):
            return node.slice, True
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Union",):
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            rest = [e for e in elts if ast.unparse(e) != "None"]
            if len(rest) == 1 and len(elts) == 2:
                return rest[0], True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            parts = [node.left, node.right]
            rest = [p for p in parts if ast.unparse(p) != "None"]
            if len(rest) == 1:
                return rest[0], True
        return node, False

    def literal_values(self, node: ast.expr, mod: Module) -> list[Any] | None:
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in (
            "Literal",
            "typing.Literal",
        ):
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return [self.src.evaluate(e, mod) for e in elts]
        if isinstance(node, ast.Name):
            try:
                target, where = self.src.const(node.id, mod)
            except Unresolved:
                return None
            if isinstance(target, ast.Subscript):
                return self.literal_values(target, where)
        return None

    @staticmethod
    def list_elem(node: ast.expr) -> str | None:
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in (
            "List",
            "list",
            "typing.List",
        ):
            return ast.unparse(node.slice)
        return None

    # ---- from_cli_args copies --------------------------------------------------------------

    def field_map(self) -> dict[str, str]:
        server = self.src.main.classes["ServerArgs"]
        out: dict[str, str] = {}
        for node in server.body:
            if isinstance(node, ast.FunctionDef) and node.name == "from_cli_args":
                for stmt in ast.walk(node):
                    if (
                        isinstance(stmt, ast.Assign)
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Attribute)
                        and isinstance(stmt.value, ast.Attribute)
                        and ast.unparse(stmt.targets[0].value) == "args"
                        and ast.unparse(stmt.value.value) == "args"
                    ):
                        out[stmt.value.attr] = stmt.targets[0].attr
        return out


#: Offline entry points that take ServerArgs plus their own BenchArgs: file under sglang/ → the
#: module ``python -m`` runs.
ENTRY_POINTS = {
    "bench_one_batch.py": "sglang.bench_one_batch",
    "bench_latency.py": "sglang.bench_latency",
    "bench_offline_throughput.py": "sglang.bench_offline_throughput",
    "benchmark/one_batch.py": "sglang.benchmark.one_batch",
    "benchmark/offline_throughput.py": "sglang.benchmark.offline_throughput",
}


def bench_options(ex: Extractor, src: Source) -> dict[str, list[dict[str, Any]]]:
    """Each entry point's own options: the ``parser.add_argument`` calls of its
    ``BenchArgs.add_cli_args`` (defaults ``BenchArgs.x`` read from the class body)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for rel, module in ENTRY_POINTS.items():
        mod = src.modules.get("sglang/" + rel)
        bench = mod.classes.get("BenchArgs") if mod is not None else None
        if mod is None or bench is None:
            continue
        fields = {
            n.target.id: n.value
            for n in bench.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }
        adder = next(
            (n for n in bench.body if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args"),
            None,
        )
        if adder is None:
            continue
        options: list[dict[str, Any]] = []
        calls = [n for n in ast.walk(adder) if isinstance(n, ast.Call)]
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            if getattr(node.func, "attr", "") == "add_argument":
                for kw in node.keywords:  # default=BenchArgs.x → the field's own default
                    v = kw.value
                    if (
                        kw.arg == "default"
                        and isinstance(v, ast.Attribute)
                        and getattr(v.value, "id", "") == "BenchArgs"
                        and fields.get(v.attr) is not None
                    ):
                        kw.value = fields[v.attr]  # type: ignore[assignment]
                opt = ex.from_add_argument(node, mod)
                if opt is not None:
                    opt["field"] = opt["dest"]
                    options.append(opt)
        out[module] = options
    return out


def build_table(version: str, archive: Path) -> dict[str, Any]:
    files = read_sources(archive)
    src = Source(files)
    ex = Extractor(src)
    fields = ex.collect_fields()
    options = ex.dataclass_options(fields) + ex.manual_options()
    fmap = ex.field_map()
    for opt in options:
        opt["field"] = fmap.get(opt["dest"], opt["dest"])
        if opt["action"] == "boolean_optional":
            opt["flags"] = opt["flags"] + [
                "--no-" + f[2:] for f in opt["flags"] if f.startswith("--")
            ]
    # the parser: ArgumentParser(...) in prepare_server_args
    prog = None
    prep = src.main.functions.get("prepare_server_args")
    if prep is not None:
        for node in ast.walk(prep):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ArgumentParser"):
                for kw in node.keywords:
                    if kw.arg == "prog" and isinstance(kw.value, ast.Constant):
                        prog = kw.value.value
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    n_strings = sum(len(o["flags"]) for o in options)
    return {
        "format_version": FORMAT_VERSION,
        "sglang_version": version,
        "source": {
            "distribution": archive.name,
            "sha256": digest,
            "files": sorted(p for p in files if p.endswith("server_args.py") or "/fields/" in p),
            "generator": "scripts/extract_sglang_args.py",
        },
        "parser": {"prog": prog, "allow_abbrev": True},
        "config_option": any("--config" in o["flags"] for o in options),
        "field_map": fmap,
        "option_count": len(options),
        "option_string_count": n_strings,
        "notes": sorted(set(ex.notes)),
        "entry_points": bench_options(ex, src),
        "options": options,
    }


# --------------------------------------------------------------------------------------------
# Every release: a base table plus per-release deltas
# --------------------------------------------------------------------------------------------

WHEELS = OUT_DIR.parent.parent.parent / ".whl"
RELEASES_FILE = OUT_DIR / "releases.jsonl"
FIRST_TABLED = (0, 4, 0)


def version_key(version: str) -> tuple[int, ...]:
    base = [int(p) for p in re.findall(r"\d+", version.split(".post")[0])]
    post = int(version.split(".post")[1]) if ".post" in version else -1
    return (*base, *([0] * (4 - len(base))), post)


def option_key(opt: dict[str, Any]) -> str:
    """An option's identity across releases: its first option string."""
    return str(opt["flags"][0])


def delta(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What turns table ``old`` into ``new``: changed top-level keys, removed option keys, and
    options put in place (replacing the same key, else after the option before them)."""
    out: dict[str, Any] = {"sglang_version": new["sglang_version"]}
    changed = {
        k: v for k, v in new.items() if k not in ("options", "sglang_version") and old.get(k) != v
    }
    if changed:
        out["set"] = changed
    before = {option_key(o): o for o in old["options"]}
    after_keys = [option_key(o) for o in new["options"]]
    removed = [k for k in before if k not in set(after_keys)]
    if removed:
        out["remove"] = removed
    put: list[list[Any]] = []
    for i, opt in enumerate(new["options"]):
        key = after_keys[i]
        if before.get(key) != opt:
            put.append([after_keys[i - 1] if i else None, opt])
    if put:
        out["put"] = put
    if apply_delta(old, out)["options"] != new["options"]:
        out["order"] = after_keys  # options moved: the order itself
    return out


def apply_delta(table: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`delta` (``sglang_logscope.command.argtable`` does the same)."""
    out = {**table, **step.get("set", {}), "sglang_version": step["sglang_version"]}
    gone = set(step.get("remove", ()))
    options = [o for o in table["options"] if option_key(o) not in gone]
    for after, opt in step.get("put", ()):
        keys = [option_key(o) for o in options]
        if option_key(opt) in keys:
            options[keys.index(option_key(opt))] = opt
        else:
            options.insert(keys.index(after) + 1 if after in keys else 0, opt)
    if "order" in step:
        by_key = {option_key(o): o for o in options}
        options = [by_key[k] for k in step["order"]]
    out["options"] = options
    return out


def build_all(out_file: Path) -> None:
    """Tables for every release from 0.4.0 in ``.whl/`` (see extract_sglang_messages.py,
    which fetches them), stored as the newest release's table plus, release by release
    going back, the delta that turns each table into the one before it."""
    wheels: dict[str, Path] = {}
    for path in WHEELS.glob("sglang-*"):
        m = re.match(r"sglang-(\d[^-]*?)(?:-|\.tar\.gz|\.zip)", path.name)
        if m and version_key(m.group(1))[:3] >= FIRST_TABLED:
            wheels[m.group(1)] = path
    versions = sorted(wheels, key=version_key)
    if not versions:
        raise SystemExit(f"no wheels of 0.4.0 or newer in {WHEELS}")
    tables = [build_table(v, wheels[v]) for v in versions]
    # newest first: the newest table (the one used most) loads without any delta
    newest_first = tables[::-1]
    steps = [delta(a, b) for a, b in itertools.pairwise(newest_first)]
    check = newest_first[0]
    for step, table in zip(steps, newest_first[1:], strict=True):
        check = apply_delta(check, step)
        assert check == table, step["sglang_version"]
    # one JSON document a line (format 3): the loader parses only the lines a table needs
    head = {"format_version": 3, "releases": versions}
    docs = [head, newest_first[0], *steps]
    lines = [json.dumps(doc, ensure_ascii=False, separators=(",", ":")) for doc in docs]
    out_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out_file}: {len(tables)} releases ({versions[0]} → {versions[-1]})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="*", help="SGLang releases, e.g. 0.5.9")
    ap.add_argument("--from-wheel", action="append", default=[], help="use a local wheel")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument(
        "--all", action="store_true", help="every release in .whl/ → data/args/releases.jsonl"
    )
    ns = ap.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    if ns.all:
        build_all(ns.out / RELEASES_FILE.name)
        return 0
    jobs: list[tuple[str, Path | None]] = [(v, None) for v in ns.versions]
    for whl in ns.from_wheel:
        m = re.match(r"sglang-([^-]+)", Path(whl).name)
        if not m:
            raise SystemExit(f"cannot tell the version of {whl}")
        jobs.append((m.group(1), Path(whl)))
    for version, archive in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            path = archive or download(version, Path(tmp))
            table = build_table(version, path)
        out = ns.out / f"sglang-{version}.json"
        out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(
            f"{out.name}: {table['option_count']} options, "
            f"{table['option_string_count']} option strings, {len(table['notes'])} notes"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
