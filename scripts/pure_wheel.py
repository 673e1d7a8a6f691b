"""Make the pure-Python fallback wheel (``py3-none-any``) from the built platform wheel.

The C fast lane (``parse/_rowscan.c``) is optional: without it every caller takes its Python
path, to the same answers, only slower on big logs. An installer picks the ``abi3`` manylinux
wheel where one fits and this one anywhere else (another OS, another architecture, PyPy),
so no platform needs a compiler. The wheel is the platform wheel less the built module, with
``Root-Is-Purelib: true``, the ``py3-none-any`` tag and a RECORD of what it holds.

Usage: ``python scripts/pure_wheel.py PLATFORM_WHEEL OUT_DIR`` (``make dist`` runs it).
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
import zipfile
from pathlib import Path

#: The tag of a wheel that runs on any Python 3 (the fast lane then off).
PURE_TAG = "py3-none-any"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel_file(text: str) -> str:
    """The WHEEL metadata with the pure tag and purelib root."""
    lines = [
        ln for ln in text.splitlines() if ln and not ln.startswith(("Tag:", "Root-Is-Purelib:"))
    ]
    return "\n".join([*lines, "Root-Is-Purelib: true", f"Tag: {PURE_TAG}"]) + "\n"


def make_pure(wheel: Path, out_dir: Path) -> Path:
    """Write the pure wheel of ``wheel`` into ``out_dir``; its path."""
    name, version = wheel.name.split("-")[:2]
    target = out_dir / f"{name}-{version}-{PURE_TAG}.whl"
    info = f"{name}-{version}.dist-info/"
    records: list[str] = []
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename == info + "RECORD" or re.search(r"\.(so|pyd)$", item.filename):
                continue
            data = src.read(item)
            if item.filename == info + "WHEEL":
                data = _wheel_file(data.decode()).encode()
            dst.writestr(item, data)
            records.append(_record_line(item.filename, data))
        records.append(f"{info}RECORD,,")
        dst.writestr(info + "RECORD", "\n".join(records) + "\n")
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: pure_wheel.py PLATFORM_WHEEL OUT_DIR", file=sys.stderr)
        return 2
    print(f"pure_wheel: wrote {make_pure(Path(argv[0]), Path(argv[1]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
