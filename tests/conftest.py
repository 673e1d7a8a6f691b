"""Every test gets its own (empty) scan-index directory: a check in one test never finds an
index another test (or the user's own ``check``) left behind, and nothing is written into
``~/.cache``. Tests of the index itself (tests/test_scan_index.py) point it where they want."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_scan_index(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    where = tmp_path_factory.mktemp("scan-index")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(where))
    monkeypatch.delenv("LOGSCOPE_NO_CACHE", raising=False)
    return where
