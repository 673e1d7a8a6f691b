"""One ``--format`` vocabulary across commands (issue 33): every command's choices come from
``render.emit.COMMAND_FORMATS``, a row of names of ``Format``; ``table`` (events' and runs' old
name for the text form) stays accepted as an alias of ``text``."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import pytest
import typer

from sglang_logscope._direct import direct_call
from sglang_logscope.cli import app, main
from sglang_logscope.render.emit import (
    ALIASES,
    COMMAND_FORMATS,
    RENDERERS,
    Format,
    canonical,
    renderer,
)

LOG = Path(__file__).resolve().parent.parent / "fixtures" / "demo" / "sglang-serve.log"
VOCABULARY = {f.value for f in Format}


def _commands() -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    return dict(group.commands)


def _format_choices() -> dict[str, list[str]]:
    """Each command's ``--format`` choices, read from the click command typer builds."""
    found: dict[str, list[str]] = {}
    for name, cmd in _commands().items():
        for param in cmd.params:
            if "--format" in getattr(param, "opts", ()):
                assert isinstance(param.default, enum.Enum), name
                found[name] = [str(m.value) for m in type(param.default)]
    return found


def test_every_commands_format_choices_are_its_row_of_the_vocabulary() -> None:
    choices = _format_choices()
    assert choices, "no command has --format: the walk found nothing"
    for name, values in choices.items():
        unknown = [v for v in values if v not in VOCABULARY]
        assert not unknown, f"{name} --format offers {unknown}, not in render.emit.Format"
        assert values == [f.value for f in COMMAND_FORMATS[name]], name
    assert set(COMMAND_FORMATS) == set(choices), "a COMMAND_FORMATS row names no --format"


def test_every_format_is_offered_somewhere() -> None:
    offered = {f for row in COMMAND_FORMATS.values() for f in row}
    report = {o for p in _commands()["report"].params for o in getattr(p, "opts", ())}
    for fmt in Format:
        assert fmt in offered or f"--{fmt.value}" in report, f"{fmt.value} is offered nowhere"


def test_an_alias_is_rendered_as_its_target_and_keys_no_renderer() -> None:
    assert canonical("table") is Format.TEXT and canonical(Format.TABLE) is Format.TEXT
    assert canonical("json") is Format.JSON
    assert not [key for key in RENDERERS if key[1] in ALIASES]
    assert all(target not in ALIASES for target in ALIASES.values())


def test_every_default_is_text_and_offered_text_has_a_renderer() -> None:
    # each command's default is its row's first; text is every command's default
    for name, row in COMMAND_FORMATS.items():
        assert row[0] is Format.TEXT, name
    for name in ("EventSelection", "RunList", "Summaries", "CheckReport", "LaunchCommand"):
        assert (name, Format.TEXT) in RENDERERS, name


@pytest.mark.parametrize("command", ["events", "runs"])
def test_table_and_text_print_the_same(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a narrow terminal folds the table's cells
    outputs = []
    for fmt in ("table", "text"):
        with pytest.raises(SystemExit) as exc:
            main([command, "-f", fmt, str(LOG)])
        assert exc.value.code in (0, None)
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert {"events": "not_enough_memory", "runs": "crashed"}[command] in outputs[0]


def test_a_name_outside_a_commands_row_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["check", "-f", "jsonl", str(LOG)], ["events", "-f", "yaml", str(LOG)]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--format" in err and "Traceback" not in err


def test_the_direct_path_takes_the_same_choices() -> None:
    call = direct_call(app, ["events", "-f", "table", str(LOG)])
    assert call is not None
    fmt = call.keywords["fmt"]  # type: ignore[attr-defined]
    assert fmt == Format.TABLE and canonical(fmt) is Format.TEXT
    assert direct_call(app, ["events", "-f", "yaml", str(LOG)]) is None  # typer says why
    assert direct_call(app, ["check", "-f", "jsonl", str(LOG)]) is None


def test_renderer_refuses_a_format_a_result_lacks() -> None:
    from sglang_logscope.errors import LogscopeError
    from sglang_logscope.log.select import list_runs

    runs = list_runs(str(LOG))
    assert renderer(runs, "table") is renderer(runs, "text")
    with pytest.raises(LogscopeError, match="no csv form"):
        renderer(runs, Format.CSV)
