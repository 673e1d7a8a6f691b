"""Check the built sdist and wheel in ``dist/`` (``make dist`` runs it after ``twine check``).

- the sdist holds every file git tracks (bar CI plumbing): tests never ship without the
  fixtures, docs and scripts they read;
- two wheels: ``cp310-abi3-manylinux*`` (the C fast lane built once under the stable ABI,
  for every CPython >= 3.10 on this architecture) and the pure fallback ``py3-none-any``
  (no built module); each holds the package, its data, py.typed and the lane's stub, no tests;
- both carry the SPDX license, the LICENSE text and the one version (``__version__``).

Usage: ``python scripts/check_dist.py [DIST_DIR]``; exit 1 with the problems listed.
"""

from __future__ import annotations

import ast
import platform
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Tracked files that are plumbing, not source: not shipped.
NOT_SHIPPED = (".ci/", ".gitignore")
#: The C fast lane as built under the stable ABI (``Py_LIMITED_API`` in ``_rowscan.c``).
LANE_ABI3 = "sglang_logscope/parse/_rowscan.abi3.so"


def source_version() -> str:
    tree = ast.parse((ROOT / "sglang_logscope" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            assert isinstance(node.value, ast.Constant)
            return str(node.value.value)
    raise SystemExit("no __version__ in sglang_logscope/__init__.py")


def tracked() -> set[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    return {p for p in out if p and not p.startswith(NOT_SHIPPED) and (ROOT / p).exists()}


def check_wheel(wheel: Path, version: str, fast_lane: bool) -> tuple[list[str], Message]:
    """The problems of one wheel (with the C fast lane built in or not) and its metadata."""
    problems: list[str] = []
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        info = f"sglang_logscope-{version}.dist-info/"
        wheel_meta = Parser().parsestr(whl.read(info + "METADATA").decode())
        purelib = Parser().parsestr(whl.read(info + "WHEEL").decode()).get("Root-Is-Purelib")
    if any(n.startswith(("tests/", "fixtures/")) for n in names):
        problems.append(f"{wheel.name} ships tests or fixtures")
    for needed in ("sglang_logscope/py.typed", "sglang_logscope/cli.py", info + "licenses/LICENSE"):
        if needed not in names:
            problems.append(f"{wheel.name} lacks {needed}")
    modules = {n for n in names if n.startswith("sglang_logscope/parse/_rowscan.")}
    if fast_lane and modules != {LANE_ABI3, "sglang_logscope/parse/_rowscan.pyi"}:
        problems.append(
            f"{wheel.name}: the C fast lane is not one abi3 module and its stub: {modules}"
        )
    if not fast_lane and (modules != {"sglang_logscope/parse/_rowscan.pyi"} or purelib != "true"):
        problems.append(f"{wheel.name}: a pure wheel with a built module or not purelib")
    if any(n.endswith(".c") for n in names):
        problems.append(f"{wheel.name} ships C source")
    if not any(n.startswith("sglang_logscope/data/") and n.endswith(".json") for n in names):
        problems.append(f"{wheel.name} lacks the data files")
    return problems, wheel_meta


def check(dist: Path) -> list[str]:
    version = source_version()
    sdists = sorted(dist.glob(f"sglang_logscope-{version}.tar.gz"))
    # the C lane's one abi3 wheel (manylinux, this machine's architecture) and the pure fallback
    fast = sorted(
        dist.glob(f"sglang_logscope-{version}-cp310-abi3-manylinux*_{platform.machine()}.whl")
    )
    pure = sorted(dist.glob(f"sglang_logscope-{version}-py3-none-any.whl"))
    every = sorted(dist.glob("*.whl"))
    if len(sdists) != 1 or len(fast) != 1 or len(pure) != 1 or len(every) != 2:
        return [
            f"expected one sdist, one cp310-abi3-manylinux wheel and one py3-none-any wheel "
            f"of version {version} in {dist}; found {[p.name for p in dist.iterdir()]}"
        ]
    problems: list[str] = []
    with tarfile.open(sdists[0]) as tar:
        prefix = f"sglang_logscope-{version}/"
        members = {m.name.removeprefix(prefix) for m in tar.getmembers() if m.isfile()}
        pkg_info = tar.extractfile(prefix + "PKG-INFO")
        sdist_meta = Parser().parsestr(pkg_info.read().decode() if pkg_info else "")
    missing = sorted(tracked() - members)
    if missing:
        problems.append(f"sdist lacks {len(missing)} tracked file(s): {missing[:5]}")
    metas = [("sdist", sdist_meta)]
    for wheel, fast_lane in ((fast[0], True), (pure[0], False)):
        found, meta = check_wheel(wheel, version, fast_lane)
        problems += found
        metas.append((wheel.name, meta))
    for where, meta in metas:
        if meta.get("License-Expression") != "Apache-2.0":
            problems.append(f"{where}: License-Expression is {meta.get('License-Expression')!r}")
        if meta.get("Version") != version:
            problems.append(f"{where}: Version {meta.get('Version')!r}, source says {version}")
        if not meta.get_all("Classifier"):
            problems.append(f"{where}: no classifiers")
    return problems


def main(argv: list[str]) -> int:
    problems = check(Path(argv[0]) if argv else ROOT / "dist")
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if not problems:
        print("check_dist: sdist complete, both wheels clean, license and version consistent")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
