#!/usr/bin/env python3
"""Build ``sglang_logscope/data/messages.idx``: every message SGLang's source can print,
per release, read statically from the released wheels.

For every release of ``sglang`` on the package index (0.1.x → newest) the wheel is fetched with
``pip download --no-deps`` into ``.whl/`` (git-ignored; kept as a cache) and the ``ast`` of every
file under ``sglang/srt/``, ``sglang/launch_server.py`` and the ``sglang/bench_*.py`` entry points
is walked for

* ``logger.<level>(msg, ...)`` (any receiver named like a logger), ``logging.<level>(...)``,
  ``print_warning_once`` / ``print_info_once`` and ``log_info_on_rank0(logger, msg)``;
* ``raise SomeError(msg, ...)``, ``SomeError(msg)`` / ``SomeException(msg)`` built anywhere (a
  helper that returns the exception), and ``warnings.warn(msg, ...)``;
* ``print(...)``;

whose message is a constant, an f-string, a ``%``-format, a ``.format`` call or a ``+`` of
those. Each message becomes a *template*: literal text with ``\\x00`` where a value goes (an
f-string hole, a ``%s``, a ``{}``, a non-constant operand). Only the first line of a message is
kept (the header sits on it) and a template needs 8 literal characters, among them a word of
three letters, to be kept: a bare ``f"{e}"`` is nobody's evidence.

Templates are deduplicated across releases; each keeps where it is printed from as runs of
consecutive releases at the same ``file.py:line``. Only facts are written (the literal text,
the call, the location); no SGLang code.

Usage::

    python scripts/extract_sglang_messages.py            # all releases (downloads what is missing)
    python scripts/extract_sglang_messages.py --offline  # only the wheels already in .whl/
"""

from __future__ import annotations

import argparse
import ast
import base64
import hashlib
import json
import pickle
import re
import subprocess
import sys
import tarfile
import zipfile
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sglang_logscope.parse.message_index import FORMAT, anchor_of, anchor_table, words_of

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".whl"
OUT = ROOT / "sglang_logscope" / "data" / "messages.idx"
FORMAT_VERSION = FORMAT  # 4: the header's ``anchors`` table; 5: header lines and row offsets
#: Bumped whenever what is extracted from a file changes (the per-file cache is keyed by it).
EXTRACTOR = 5
HOLE = "\x00"

LEVELS = {
    "debug": "DEBUG",
    "info": "INFO",
    "warning": "WARNING",
    "warn": "WARNING",
    "error": "ERROR",
    "exception": "ERROR",
    "critical": "CRITICAL",
    "fatal": "CRITICAL",
}
#: Helpers that log their message argument: name -> (index of the message, level).
HELPERS = {
    "rank0_log": (0, "INFO"),
    "rank0_print": (0, None),
    "rank_print": (0, None),
    "print_warning_once": (0, "WARNING"),
    "print_info_once": (0, "INFO"),
    "log_info_on_rank0": (1, "INFO"),
}
_LOGGER_NAME = re.compile(r"(?i)^_?(?:logger|log|logging|_LOGGER)$|logger$")
_PERCENT = re.compile(
    r"%(?:\([^)]{1,40}\))?[-#0 +]*(?:\*|\d{1,3})?(?:\.(?:\*|\d{1,3}))?[sdrifgexXoc%]"
)
_WORD = re.compile(r"[A-Za-z]{3,}")


# --------------------------------------------------------------------------------------------
# Wheels
# --------------------------------------------------------------------------------------------


def release_list() -> list[str]:
    """Every release on the index, oldest first (``pip index versions``)."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "sglang"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("Available versions:"))
    versions = [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    return sorted(versions, key=version_key)


def version_key(version: str) -> tuple[int, ...]:
    base = [int(p) for p in re.findall(r"\d+", version.split(".post")[0])]
    post = int(version.split(".post")[1]) if ".post" in version else -1
    return (*base, *([0] * (4 - len(base))), post)


def cached_archive(version: str) -> Path | None:
    for path in sorted(CACHE.glob(f"sglang-{version}*")):
        rest = path.name[len(f"sglang-{version}") :]
        if rest.startswith(("-", ".tar.gz", ".zip")):
            return path
    return None


def fetch(version: str) -> Path:
    found = cached_archive(version)
    if found is not None:
        return found
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(CACHE)]
    if subprocess.run([*cmd, "--only-binary", ":all:", f"sglang=={version}"]).returncode:
        subprocess.run([*cmd, "--no-build-isolation", f"sglang=={version}"], check=True)
    found = cached_archive(version)
    if found is None:
        raise SystemExit(f"pip download produced nothing for sglang=={version}")
    return found


def _keep(name: str) -> str | None:
    m = re.search(
        r"(?:^|/)sglang/(srt/.*\.py|cli/.*\.py|benchmark/.*\.py|launch_server\.py|bench_[a-z_]+\.py)$",
        name,
    )
    return m.group(1) if m else None


def read_sources(archive: Path) -> Iterator[tuple[str, bytes]]:
    """``(path under sglang/, bytes)`` of the files that are read, from a wheel or sdist."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for name in sorted(zf.namelist()):
                rel = _keep(name)
                if rel:
                    yield rel, zf.read(name)
        return
    with tarfile.open(archive) as tf:
        for member in sorted(tf.getmembers(), key=lambda m: m.name):
            rel = _keep(member.name)
            fh = tf.extractfile(member) if rel and member.isfile() else None
            if rel and fh is not None:
                yield rel, fh.read()


# --------------------------------------------------------------------------------------------
# Templates
# --------------------------------------------------------------------------------------------


def template_of(node: ast.expr, extra_args: int = 0) -> str | None:
    """The message an expression evaluates to, with ``HOLE`` for each value (or ``None``)."""
    text = _pieces(node, 0)
    if text is None:
        return None
    if extra_args and isinstance(node, ast.Constant):
        text = _percent_holes(text)  # logger.info("%s loaded", name)
    return text


def _pieces(node: ast.expr, depth: int) -> str | None:
    if depth > 12:
        return HOLE
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else HOLE
    if isinstance(node, ast.JoinedStr):
        out: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value)
            else:
                out.append(HOLE)
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pieces(node.left, depth + 1), _pieces(node.right, depth + 1)
        return (left if left is not None else HOLE) + (right if right is not None else HOLE)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _pieces(node.left, depth + 1)
        return _percent_holes(left) if left is not None else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        base = _pieces(node.func.value, depth + 1)
        named = {
            kw.arg: kw.value.value
            for kw in node.keywords
            if kw.arg and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)
        }
        return _format_holes(base, named) if base is not None else None
    return None


def _percent_holes(text: str) -> str:
    return _PERCENT.sub(lambda m: "%" if m.group(0) == "%%" else HOLE, text)


def _format_holes(text: str, named: dict[str, str] | None = None) -> str:
    """``{}`` fields become holes; a field naming a constant keyword argument is its text
    (between holes when a format spec may pad it: ``"{s:=^50}".format(s=" Result ")``)."""
    named = named or {}
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "{}" and text[i : i + 2] in ("{{", "}}"):
            out.append(ch)
            i += 2
        elif ch == "{":
            end = _field_end(text, i)
            field = text[i + 1 : end].split("!")[0]
            name, _, spec = field.partition(":")
            if name in named:
                out.append(f"{HOLE}{named[name]}{HOLE}" if spec else named[name])
            else:
                out.append(HOLE)
            i = len(text) if end < 0 else end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _field_end(text: str, start: int) -> int:
    """The ``}`` closing the field at ``start`` (a spec may nest one level: ``{s:{c}^{n}}``)."""
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def first_line(template: str) -> str | None:
    """The line a header is printed on; ``None`` when it carries too little literal text."""
    lines = [x for x in template.split("\n") if x.replace(HOLE, "").strip()]
    if not lines:
        return None
    line = re.sub(HOLE + "+", HOLE, lines[0].strip(" \t\r"))
    literal = line.replace(HOLE, "")
    if len(literal.strip()) < 8 or not _WORD.search(literal):
        return None
    return line


def _call_of(node: ast.Call) -> tuple[str, str | None, ast.expr, int] | None:
    """``(call, level, message node, extra args)`` for a call that prints or logs."""
    func = node.func
    method = func.attr.removesuffix("_once") if isinstance(func, ast.Attribute) else ""
    if isinstance(func, ast.Attribute) and method in LEVELS and node.args:
        receiver = func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        if name and _LOGGER_NAME.search(name):
            return f"logger.{func.attr}", LEVELS[method], node.args[0], len(node.args) - 1
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "warn"
        and getattr(func.value, "id", "") == "warnings"
        and node.args
    ):
        return "warnings.warn", "WARNING", node.args[0], 0
    if isinstance(func, ast.Name):
        if func.id == "print" and node.args:
            return "print", None, _print_joined(node.args), 0
        helper = HELPERS.get(func.id)
        if helper is not None and len(node.args) > helper[0]:
            index, level = helper
            return func.id, level, node.args[index], len(node.args) - index - 1
    return None


def _print_joined(args: list[ast.expr]) -> ast.expr:
    """``print(a, b)`` prints ``a b``: one f-string-like node for the whole line."""
    if len(args) == 1:
        return args[0]
    values: list[ast.expr] = []
    for i, arg in enumerate(args):
        if i:
            values.append(ast.Constant(" "))
        text = _pieces(arg, 0)
        values.append(ast.Constant(text) if text is not None else ast.Constant(0))
    return ast.JoinedStr(values=values)


def _exception_of(node: ast.Call) -> tuple[str, str | None, ast.expr, int] | None:
    """``RuntimeError(f"...")`` built anywhere (returned by a helper, then raised)."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if not node.args or not name or not name.endswith(("Error", "Exception")):
        return None
    return f"raise {name}", "ERROR", node.args[0], 0


def _raise_of(node: ast.Raise) -> tuple[str, str | None, ast.expr, int] | None:
    exc = node.exc
    if not isinstance(exc, ast.Call) or not exc.args:
        return None
    func = exc.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if not name:
        return None
    return f"raise {name}", "ERROR", exc.args[0], 0


def extract(source: bytes) -> list[tuple[str, str, str | None, int]]:
    """``(template, call, level, line)`` for each message a file's source prints."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[str, str, str | None, int]] = []
    _scan_scope(tree, found)
    return sorted(set(found), key=lambda x: (x[3], x[0], x[1]))


def _scan_scope(scope: ast.AST, found: list[tuple[str, str, str | None, int]]) -> None:
    """The calls of one function (or the module) whose message may be a local variable:
    ``msg = f"Prefill batch. ..."; msg += ...; logger.info(msg)``."""
    assigns: dict[str, list[tuple[int, ast.expr]]] = defaultdict(list)
    appended: dict[str, list[int]] = defaultdict(list)
    hits: list[tuple[ast.stmt | ast.expr, tuple[str, str | None, ast.expr, int]]] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _scan_scope(node, found)
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                assigns[target.id].append((node.lineno, node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            appended[node.target.id].append(node.lineno)
        hit = (
            (_call_of(node) or _exception_of(node))
            if isinstance(node, ast.Call)
            else _raise_of(node)
            if isinstance(node, ast.Raise)
            else None
        )
        if hit is not None:
            hits.append((node, hit))
        stack.extend(ast.iter_child_nodes(node))
    for node, (call, level, message, extra) in hits:
        lineno = node.lineno
        texts: list[str | None]
        if isinstance(message, ast.Name):
            earlier = [(ln, v) for ln, v in assigns.get(message.id, ()) if ln < lineno]
            grown = any(ln < lineno for ln in appended.get(message.id, ()))
            texts = [_grown(template_of(v, extra), grown) for _, v in earlier]
        else:
            texts = [template_of(message, extra)]
        for text in dict.fromkeys(texts):
            line = first_line(text) if text is not None else None
            if line is not None:
                found.append((line, call, level, lineno))


def _grown(text: str | None, grown: bool) -> str | None:
    return text + HOLE if text is not None and grown else text


# --------------------------------------------------------------------------------------------
# The index
# --------------------------------------------------------------------------------------------


def build(releases: list[str], offline: bool) -> dict[str, object]:
    cache_file = CACHE / f"messages-extract-cache-{EXTRACTOR}.pkl"
    by_hash: dict[str, list[tuple[str, str, str | None, int]]] = {}
    if cache_file.exists():
        by_hash = pickle.loads(cache_file.read_bytes())
    # (template, call, level) -> {(file, line): [release indexes]}
    seen: dict[tuple[str, str, str | None], dict[tuple[str, int], list[int]]] = defaultdict(
        lambda: defaultdict(list)
    )
    used: list[str] = []
    for version in releases:
        archive = cached_archive(version) if offline else fetch(version)
        if archive is None:
            continue
        index = len(used)
        used.append(version)
        for path, data in read_sources(archive):
            digest = hashlib.sha1(data).hexdigest()
            found = by_hash.get(digest)
            if found is None:
                found = by_hash[digest] = extract(data)
            for template, call, level, line in found:
                seen[(template, call, level)][(path, line)].append(index)
        print(f"{version}: {len(seen)} templates so far", file=sys.stderr)
    cache_file.write_bytes(pickle.dumps(by_hash))
    return encode(used, seen)


def encode(
    releases: list[str],
    seen: dict[tuple[str, str, str | None], dict[tuple[str, int], list[int]]],
) -> dict[str, object]:
    """Compact JSON: file paths and calls by index; a template's locations as one string of
    ``file,line,first,last`` runs of release indexes joined by ``;`` (read only when asked)."""
    files: dict[str, int] = {}
    calls: dict[str, int] = {}
    messages: list[list[object]] = []
    frequency: Counter[str] = Counter()
    for template, _, _ in seen:
        frequency.update(words_of(template.split(HOLE)))
    for (template, call, level), where in sorted(seen.items(), key=lambda kv: kv[0][0]):
        anchor = anchor_of(template.split(HOLE), frequency)
        if not anchor and HOLE in template[:4]:
            continue  # neither a complete word nor a literal start: no line could find it
        locs: list[str] = []
        for (path, line), indexes in sorted(where.items()):
            fi = files.setdefault(path, len(files))
            for first, last in _runs(sorted(set(indexes))):
                locs.append(f"{fi},{line},{first},{last}")
        ci = calls.setdefault(f"{call}|{level or ''}", len(calls))
        messages.append([template, ci, anchor, ";".join(locs)])
    return {
        "format": FORMAT_VERSION,
        "generated_by": "scripts/extract_sglang_messages.py",
        "hole": HOLE,
        "releases": releases,
        "files": list(files),
        "calls": list(calls),
        "messages": messages,
    }


def _compact(doc: object) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def to_text(data: dict[str, object]) -> str:
    """The layout of ``message_index.FORMAT``: a JSON header line, the source files (JSON),
    the rows of each anchor word (JSON: the loader reads them from there), each row's end
    (base64 of little-endian 32-bit offsets from the rows' start: the loader cuts a row out
    only when it becomes a candidate), then ``anchor<TAB>call<TAB>locations<TAB>template``
    per template (a template is one line)."""
    messages: list[list[Any]] = data.pop("messages")  # type: ignore[assignment]
    files = data.pop("files")
    rows = []
    for template, call, anchor, locs in messages:
        assert "\n" not in template and "\t" not in anchor
        rows.append(f"{anchor}\t{call}\t{locs}\t{template}")
    ends = array("I", accumulate((len(row.encode()) + 1 for row in rows), initial=0))
    if sys.byteorder == "big":
        ends.byteswap()
    lines = [
        _compact(data),
        _compact(files),
        _compact(anchor_table([anchor for _, _, anchor, _ in messages])),
        base64.b64encode(ends.tobytes()).decode("ascii"),
        *rows,
    ]
    return "\n".join(lines) + "\n"


def _runs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    start = prev = indexes[0]
    for i in indexes[1:]:
        if i != prev + 1:
            yield start, prev
            start = i
        prev = i
    yield start, prev


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offline", action="store_true", help="use only wheels already in .whl/")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    CACHE.mkdir(exist_ok=True)
    if args.offline:
        names = {p.name.split("-")[1] for p in CACHE.glob("sglang-*")}
        releases = sorted((n.removesuffix(".tar.gz") for n in names), key=version_key)
    else:
        releases = release_list()
    data = build(releases, args.offline)
    count = len(data["messages"])  # type: ignore[arg-type]
    args.out.write_text(to_text(data), encoding="utf-8")
    print(f"{args.out}: {count} templates, {len(releases)} releases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
