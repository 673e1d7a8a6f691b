"""Every property's count of examples goes through ``examples()`` (tests/examples.py), so the
matrix suites (``LOGSCOPE_EXAMPLE_SHARE=0.25`` in ``make test``) try their share of each: a
literal ``max_examples=400`` ran 400 examples in every suite (issue 33, item 6)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import examples as E
import pytest
from hypothesis import settings

TESTS = Path(__file__).resolve().parent


def _counts_not_shared(path: Path) -> list[str]:
    """``max_examples=`` arguments in ``path`` whose value calls no ``examples`` (the explore
    profile, which searches further on purpose, aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        explore = any(isinstance(a, ast.Constant) and a.value == "explore" for a in node.args)
        for keyword in node.keywords:
            shared = any(
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Name)
                and part.func.id == "examples"
                for part in ast.walk(keyword.value)
            )
            if keyword.arg == "max_examples" and not shared and not explore:
                found.append(f"{path.name}:{keyword.lineno}")
    return found


def test_every_count_of_examples_is_shared() -> None:
    found = [where for path in sorted(TESTS.glob("*.py")) for where in _counts_not_shared(path)]
    assert found == []


def test_the_check_finds_a_literal_count(tmp_path: Path) -> None:
    case = tmp_path / "test_case.py"
    case.write_text(
        "@settings(max_examples=400)\ndef a(): ...\n"
        "@settings(max_examples=examples(400))\ndef b(): ...\n"
        'settings.register_profile("explore", max_examples=1000)\n'
    )
    assert _counts_not_shared(case) == ["test_case.py:1"]


def _suite_profile_count(path: Path) -> ast.expr | None:
    """The ``max_examples`` that ``path`` registers the ``suite`` profile with (None: none)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and any(
            isinstance(a, ast.Constant) and a.value == "suite" for a in node.args
        ):
            return next((k.value for k in node.keywords if k.arg == "max_examples"), None)
    return None


def test_a_property_naming_no_count_takes_the_share() -> None:
    """The suite profile names its count (Hypothesis' default of 100 is not scaled), through
    ``examples``: what the properties that name none try."""
    count = _suite_profile_count(TESTS / "conftest.py")
    assert isinstance(count, ast.Call) and ast.unparse(count) == "examples(100)"
    if os.environ.get("HYPOTHESIS_PROFILE", "suite") == "suite":
        assert settings.default.max_examples == E.examples(100)


def test_no_property_has_a_deadline() -> None:
    """No result depends on timing: the profile sets no deadline, and no property sets one
    back (``deadline=None`` aside)."""
    assert settings.default.deadline is None
    timed = [
        f"{path.name}:{node.lineno}"
        for path in sorted(TESTS.glob("test_*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.keyword)
        and node.arg == "deadline"
        and not (isinstance(node.value, ast.Constant) and node.value.value is None)
    ]
    assert timed == []


def test_a_share_scales_each_count_down_to_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(E, "SHARE", 0.25)
    assert [E.examples(n) for n in (400, 100, 20, 5)] == [100, 25, E.FLOOR, 5]
    monkeypatch.setattr(E, "SHARE", 1.0)
    assert [E.examples(n) for n in (400, 100, 5)] == [400, 100, 5]
