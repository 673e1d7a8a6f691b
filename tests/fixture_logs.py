"""The fixture logs the whole-corpus equality tests run over, each content once.

``fixtures/memory/cases/NNN/server.log`` are byte-for-byte copies of ``fixtures/real/NNN``'s
(the memory cases keep their log beside their ``expected.json``); a test that holds every
fixture log to a reference reads each distinct content once, under its first path.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _distinct(paths: list[Path]) -> list[Path]:
    seen: set[bytes] = set()
    kept = []
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).digest()
        if digest not in seen:
            seen.add(digest)
            kept.append(path)
    return kept


#: Every ``*.log`` under fixtures/, sorted, each distinct content once.
FIXTURE_LOGS = _distinct(sorted((ROOT / "fixtures").rglob("*.log")))
