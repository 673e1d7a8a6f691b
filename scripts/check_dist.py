"""Check the built sdist and wheel in ``dist/`` (``make dist`` runs it after ``twine check``).

- the sdist holds every file git tracks (bar CI plumbing): tests never ship without the
  fixtures, docs and scripts they read;
- the wheel holds the package, its data and py.typed, the C fast lane built for its
  platform (a platform wheel) and its stub, and no tests;
- both carry the SPDX license, the LICENSE text and the one version (``__version__``).

Usage: ``python scripts/check_dist.py [DIST_DIR]``; exit 1 with the problems listed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Tracked files that are plumbing, not source: not shipped.
NOT_SHIPPED = (".ci/", ".gitignore")


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


def check(dist: Path) -> list[str]:
    version = source_version()
    sdists = sorted(dist.glob(f"sglang_logscope-{version}.tar.gz"))
    # the C fast lane makes it a platform wheel (cp3X-cp3X-<platform>)
    wheels = sorted(dist.glob(f"sglang_logscope-{version}-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        return [f"expected one sdist and one wheel of version {version} in {dist}"]
    problems: list[str] = []
    with tarfile.open(sdists[0]) as tar:
        prefix = f"sglang_logscope-{version}/"
        members = {m.name.removeprefix(prefix) for m in tar.getmembers() if m.isfile()}
        pkg_info = tar.extractfile(prefix + "PKG-INFO")
        sdist_meta = Parser().parsestr(pkg_info.read().decode() if pkg_info else "")
    missing = sorted(tracked() - members)
    if missing:
        problems.append(f"sdist lacks {len(missing)} tracked file(s): {missing[:5]}")
    with zipfile.ZipFile(wheels[0]) as whl:
        names = set(whl.namelist())
        info = f"sglang_logscope-{version}.dist-info/"
        wheel_meta = Parser().parsestr(whl.read(info + "METADATA").decode())
    if any(n.startswith(("tests/", "fixtures/")) for n in names):
        problems.append("the wheel ships tests or fixtures")
    for needed in ("sglang_logscope/py.typed", "sglang_logscope/cli.py", info + "licenses/LICENSE"):
        if needed not in names:
            problems.append(f"the wheel lacks {needed}")
    if not any(
        n.startswith("sglang_logscope/parse/_rowscan.") and n.endswith(".so") for n in names
    ):
        problems.append("the wheel lacks the built C fast lane (sglang_logscope/parse/_rowscan)")
    if "sglang_logscope/parse/_rowscan.pyi" not in names:
        problems.append("the wheel lacks the fast lane's stub (_rowscan.pyi)")
    if any(n.endswith(".c") for n in names):
        problems.append("the wheel ships C source")
    if not any(n.startswith("sglang_logscope/data/") and n.endswith(".json") for n in names):
        problems.append("the wheel lacks the data files")
    for where, meta in (("sdist", sdist_meta), ("wheel", wheel_meta)):
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
        print("check_dist: sdist complete, wheel clean, license and version consistent")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
