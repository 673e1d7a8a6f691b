"""The package's shape: imports point down, no cycles, no private names across packages.

Every import is read with ``ast`` — module-level and function-level alike; only imports under
``if TYPE_CHECKING:`` are left out, as they never run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "sglang_logscope"

#: Each layer may import only from the layers listed after it (and from itself).
LAYERS: dict[str, int] = {
    "cli": 6,
    "agent": 6,  # logscope mcp: a second front end, beside the CLI
    "_direct": 5,  # the CLI's fast path: below cli, beside render
    "__main__": 7,
    "render": 5,
    "staleness": 4,
    "memory": 4,
    "machine": 4,
    "watch": 4,
    "command": 3,
    "log": 2,
    "parse": 1,
    # the ground floor: shared types and helpers
    "errors": 0,
    "events": 0,
    "findings": 0,
    "timing": 0,
    "_text": 0,
    "limits": 0,
    "netpolicy": 0,  # every network read's deadlines, caps and redaction
    "_html": 0,
    "_record": 0,  # @record: a frozen dataclass made without exec per class (issue 33, 2)
    "_redact": 0,  # --redact: placeholders for hosts, addresses, tokens in any output
    "meter": 0,  # bytes read so far, for the progress line (the readers count, render shows)
    "__init__": 7,
}
#: Imports sideways within a layer that are part of the design (the layer's order).
SIDEWAYS = {
    ("staleness", "memory"),  # the check budgets the intended command
    ("machine", "memory"),  # the pre-flight budgets the command on the GPUs it reads
    ("watch", "staleness"),  # watch reports the check's arg diff
    ("watch", "machine"),  # launch runs the pre-flight
    ("cli", "agent"),  # `logscope mcp` serves the agent's tools
    ("_direct", "render"),  # a plain `check` runs and renders without typer (issue 33, 2)
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    """(module imported, names, line) for every runtime import of the package in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    here = _module_name(path).split(".")
    base = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                root = base[: len(base) - (node.level - 1)]
                target = ".".join(root + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "sglang_logscope":
                names = [a.name for a in node.names]
                for name in names:  # ``from . import x`` imports module x
                    if (
                        (PKG.parent / (target + "." + name).replace(".", "/"))
                        .with_suffix(".py")
                        .exists()
                    ):
                        yield target + "." + name, [], node.lineno
                yield target, names, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sglang_logscope":
                    yield alias.name, [], node.lineno


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        for target, _names, _line in _imports(path):
            if target in modules and target != mod:
                graph[mod].add(target)
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_import_cycles() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt == "sglang_logscope":
                continue
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(" → ".join(c) for c in cycles)


def test_imports_point_down() -> None:
    wrong = []
    for mod, targets in _graph().items():
        src = _layer(mod)
        for target in targets:
            dst = _layer(target)
            if src == dst or target == "sglang_logscope":  # ``from .. import __version__``
                continue
            if LAYERS[dst] == LAYERS[src] == 0:  # the ground floor is one floor
                continue
            if LAYERS[dst] >= LAYERS[src] and (src, dst) not in SIDEWAYS:
                wrong.append(f"{mod} → {target}")
    assert not wrong, "\n".join(sorted(wrong))


def test_render_is_imported_only_by_the_cli() -> None:
    users = sorted(
        mod
        for mod, targets in _graph().items()
        # the CLI (and its typer-free check, _direct) and the MCP server render
        if _layer(mod) not in ("render", "cli", "_direct", "agent")
        and any(_layer(t) == "render" for t in targets)
    )
    assert not users, users


#: Private modules of the ground floor: shared by every layer, not part of the public API.
GROUND_PRIVATE = {"_text", "_html"}


def test_no_private_name_crosses_a_package() -> None:
    crossing = []
    for path in PKG.rglob("*.py"):
        mod = _module_name(path)
        for target, names, line in _imports(path):
            if _layer(target) == _layer(mod):
                continue
            private = [
                n for n in names if n.startswith("_") and n not in GROUND_PRIVATE | {"__version__"}
            ]
            hidden = [p for p in target.split(".")[2:] if p.startswith("_")]
            if private or hidden:
                crossing.append(f"{mod}:{line} imports {target} {private}")
    assert not crossing, "\n".join(crossing)


def test_function_level_imports_say_why() -> None:
    """A function-level import exists only for start-up (or a platform-only module), and the
    comment line above it says so."""
    silent = []
    for path in PKG.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                first = node.lineno
                # the comment may sit above the first of a group of imports (isort's blank
                # lines between its sections included)
                j = first - 2
                while j >= 0 and (
                    not lines[j].strip() or lines[j].strip().startswith(("from ", "import "))
                ):
                    j -= 1
                if j < 0 or not lines[j].strip().startswith(("# start-up", "# platform")):
                    silent.append(f"{path.relative_to(PKG.parent)}:{first}")
    assert not silent, "\n".join(sorted(silent))


@pytest.mark.parametrize("name", ["check", "preflight", "budget"])
def test_public_names_are_importable_from_the_top(name: str) -> None:
    import sglang_logscope

    assert callable(getattr(sglang_logscope, name))


def test_all_is_sorted_and_complete() -> None:
    import sglang_logscope

    names = sglang_logscope.__all__

    def kind(name: str) -> int:  # ruff's RUF022 order: CONSTANTS, Classes, the rest
        return 0 if name.isupper() else 1 if name[0].isupper() else 2

    assert list(names) == sorted(names, key=lambda n: (kind(n), n))
    assert set(names) == set(sglang_logscope._WHERE) | {"__version__"}


def test_subpackage_inits_hold_only_their_docstring() -> None:
    for init in PKG.glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        body = [n for n in tree.body if not isinstance(n, ast.Expr)]
        assert not body, f"{init.relative_to(PKG.parent)}: import from the defining module instead"
        assert ast.get_docstring(tree), init


def test_schema_version_is_defined_once() -> None:
    """Every JSON document takes its ``schema_version`` from ``_text.SCHEMA_VERSION`` (the launch
    record file has a format version of its own, ``watch.launch.RECORD_SCHEMA``)."""
    literal = []
    for path in PKG.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r'"schema_version":\s*\d', line) and '"""' not in line:
                literal.append(f"{path.relative_to(PKG.parent)}:{number}")
    assert not literal, literal


def test_ground_floor_names_no_higher_type() -> None:
    """Not even under ``TYPE_CHECKING``: the notebook views live in ``render/notebook.py``, and
    the hooks reach them by name through ``_html.notebook_html`` (issue 26)."""
    wrong = []
    for path in PKG.glob("*.py"):
        mod = _module_name(path)
        if LAYERS.get(_layer(mod)) != 0:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level and node.module:
                target = node.module.split(".")[0]
                if LAYERS.get(target, 0) != 0:
                    wrong.append(f"{mod}:{node.lineno} imports .{node.module}")
    assert not wrong, wrong


def test_every_notebook_view_resolves() -> None:
    import importlib  # here: the one test that loads the render layer by name

    from sglang_logscope._html import NOTEBOOK_VIEWS

    for type_name, where in NOTEBOOK_VIEWS.items():
        module, func = where.split(":")
        view = getattr(importlib.import_module(f"sglang_logscope.render.{module}"), func)
        assert callable(view), type_name
