"""Start-up (issue 6, target 4): lazy package imports, and the direct call of plain command
lines, which must hand each command exactly what typer would."""

from __future__ import annotations

import functools
import gzip
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sglang_logscope
from sglang_logscope import cli
from sglang_logscope._direct import direct_call
from sglang_logscope.render.text import ONE_CELL
from sglang_logscope.staleness import live, process
from sglang_logscope.staleness.process import ProcTable

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in sglang_logscope.__all__:
        assert getattr(sglang_logscope, name) is not None, name
    assert set(sglang_logscope.__all__) <= set(dir(sglang_logscope))
    with pytest.raises(AttributeError):
        _ = sglang_logscope.no_such_name  # type: ignore[attr-defined]


def test_public_functions_are_not_shadowed_by_submodules() -> None:
    import sglang_logscope.machine.preflight
    import sglang_logscope.memory.budget
    import sglang_logscope.staleness.judge

    assert callable(sglang_logscope.check) and sglang_logscope.check.__name__ == "check"
    assert sglang_logscope.preflight.__name__ == "preflight"
    assert callable(sglang_logscope.budget) and sglang_logscope.budget.__name__ == "budget"
    from sglang_logscope.staleness.verdict import CheckReport

    assert sglang_logscope.CheckReport is CheckReport


_PROBE = """
import contextlib, io, sys
from sglang_logscope.__main__ import main
{prelude}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)))
"""


def _modules_after(*argv: str, prelude: str = "") -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(prelude=prelude), *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return set(out.stdout.split())


def test_check_on_a_small_log_imports_nothing_heavy() -> None:
    mods = _modules_after(
        "check", "--expect-args", str(DEMO / "command.txt"), str(DEMO / "sglang-serve.log")
    )
    assert "sglang_logscope.staleness.judge" in mods
    for heavy in (
        "pandas",
        "numpy",
        "pydantic",
        "sglang_logscope.machine.gpus",
        "sglang_logscope.machine.preflight",
        "sglang_logscope.watch.loop",
        "sglang_logscope.log.frames",
    ):
        assert heavy not in mods, heavy


def test_json_output_does_not_import_rich() -> None:
    mods = _modules_after("runs", "-f", "json", str(DEMO / "sglang-serve.log"))
    assert "rich" not in mods and "pydantic" not in mods


def _record(monkeypatch: pytest.MonkeyPatch, command: str) -> list[dict[str, Any]]:
    """Swap the command's function for a recorder with its signature; return its calls."""
    calls: list[dict[str, Any]] = []
    info = next(
        c
        for c in cli.app.registered_commands
        if (c.name or (c.callback.__name__ if c.callback else "")) == command
    )
    original = info.callback
    assert original is not None

    @functools.wraps(original)
    def recorder(**kwargs: Any) -> None:
        calls.append(kwargs)

    monkeypatch.setattr(info, "callback", recorder)
    return calls


CMD = str(DEMO / "command.txt")
LOG = str(DEMO / "sglang-serve.log")

_DIRECT = [
    ["check", LOG],
    ["check", "-"],
    ["check", "--expect-args", CMD, LOG],
    ["check", LOG, "-e", CMD, "-f", "json"],
    ["check", "--expect-args=" + CMD, "--format=json", LOG],
    ["check", "--launched-at", "2026-05-09 09:31", "--log-tz", "UTC", LOG],
    ["check", "--sglang-version", "0.5.4", "--format", "text", LOG],
    ["check", "--log-tz", "", LOG],
    ["check", "--here", "--server", "http://127.0.0.1:9", LOG],
    ["runs", LOG],
    ["runs", "-f", "json", LOG],
    ["args", CMD, "--sglang-version", "0.5.4", "-f", "json"],
    ["events", LOG],
    ["events", "-f", "jsonl", LOG],
    ["events", "--kind", "decode_batch", "--run", "0", "--format=json", LOG],
    ["events", "-k", "crash", "--run=1", LOG],
]
_TYPER_ONLY = [
    ["check"],
    ["check", "--help"],
    ["check", LOG, LOG],
    ["check", "-e", CMD, "-e", CMD, LOG],
    ["check", "--format", "xml", LOG],
    ["check", "--format", "JSON", LOG],
    ["check", "--launched-at", "-5", LOG],
    ["check", "--expect-args", LOG],
    ["check", "-ejson", LOG],
    ["check", "-e=" + CMD, LOG],
    ["check", "--", LOG],
    ["check", "--nope", LOG],
    ["check", "--here=yes", LOG],
    ["summary", LOG],
    ["events", "-k", "crash", "-k", "ready", LOG],
    ["events", "--run", "-1", LOG],
    ["events", "--run", "x", LOG],
    ["events", "--run", "1.5", LOG],
    ["--help"],
    [],
]


@pytest.mark.parametrize("argv", _DIRECT, ids=" ".join)
def test_direct_call_passes_what_typer_passes(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record(monkeypatch, argv[0])
    cli.app(args=argv, standalone_mode=False)
    direct = direct_call(cli.app, argv)
    assert direct is not None
    direct()
    assert len(calls) == 2
    assert calls[0] == calls[1]
    assert {k: type(v) for k, v in calls[0].items()} == {k: type(v) for k, v in calls[1].items()}


@pytest.mark.parametrize("argv", _TYPER_ONLY, ids=" ".join)
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert direct_call(cli.app, argv) is None


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_main_direct_and_typer_paths_agree(
    fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["check", "--expect-args", CMD, "-f", fmt, LOG]
    with pytest.raises(SystemExit) as direct:
        cli.main(argv)
    out_direct = capsys.readouterr()
    monkeypatch.setattr(cli, "direct_call", lambda app, argv: None)
    with pytest.raises(SystemExit) as typer_path:
        cli.main(argv)
    assert direct.value.code == typer_path.value.code == 1
    assert capsys.readouterr() == out_direct


HEALTHY = ROOT / "fixtures" / "real" / "037" / "server.log"  # a small log of a run that is up

#: What a check of one plain log on disk never needs (issue 33: start-up): PyYAML is for a
#: command's ``--config``, dateutil's parser for a ``--launched-at`` not written
#: ``YYYY-MM-DD HH:MM[:SS]`` (``timing.plain_iso``), the redactor for
#: ``--redact``, the launch grouping and the listings for several logs or other commands.
_NOT_FOR_ONE_CHECK = (
    "yaml",
    "dateutil.parser",
    "sglang_logscope.command.config_yaml",
    "sglang_logscope._redact",
    "sglang_logscope.log.launches",
    "sglang_logscope.log.select",
    "sglang_logscope.render.tables",
    "sglang_logscope.staleness.report",
    "sglang_logscope.render.html",
    "pandas",
    "numpy",
    "pydantic",
    "fsspec",
    # issue 33, 2: typer and the CLI module (a plain check is read without them), rich (a
    # page without colour is written without it: session 13), dateutil's zones (the
    # machine's zone is the C library's)
    "typer",
    "sglang_logscope.cli",
    "rich",
    "dateutil",
    "importlib.resources",  # the package's data are read from its folder (limits.package_files)
    # issue 33, 2 (session 10): the end of a big file's reading (the byte-level pass, the scan
    # index and their types) for a small log
    "sglang_logscope.log.tail_end",
    "sglang_logscope.log.scan_index",
    "sglang_logscope.log.resume",
    "sglang_logscope.log.starters",
    # no server to ask: no --server, and no intended launch on this machine (the demo's runs
    # over ssh)
    "sglang_logscope.staleness.server",
    "difflib",  # a "did you mean" for a flag the argument table does not know
    # session 13: the network policy (its sockets: the suite's network guard loads socket in
    # every child, so only the modules are named) and fsspec's reader, for a log on disk
    "sglang_logscope.netpolicy",
    "sglang_logscope.parse.remote",
    # session 18: html's named entities (``_html.esc`` escapes by one table) and gzip (a gzip
    # log); threading below (regex, Python 3.10's engine, imports it)
    "html",
    "gzip",
)
#: What a check without an intended command never needs: the command's parser, lint and
#: fixer, the memory model (nothing to budget) and the launch roles (issue 33, 2).
_NOT_WITHOUT_A_COMMAND = (
    "sglang_logscope.command.parse",
    "sglang_logscope.command.lint",
    "sglang_logscope.command.fix",
    "sglang_logscope.memory.budget",
    "sglang_logscope.memory.eras",
    "sglang_logscope.memory.verdict",
    "sglang_logscope.staleness.launch_check",
    # issue 33, 2 (session 10): the HTML helpers (the memory model's)
    "sglang_logscope._html",
)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--expect-args", CMD, "--launched-at", "2026-05-09 09:31:05", LOG],
        ["check", "-f", "json", "--expect-args", CMD, LOG],
        ["check", str(HEALTHY)],
    ],
    ids=["demo", "demo-json", "healthy"],
)
def test_one_check_imports_only_what_its_answer_needs(argv: list[str]) -> None:
    mods = _modules_after(*argv)
    assert "sglang_logscope.staleness.judge" in mods and "sglang_logscope.parse.messages" in mods
    if sys.version_info >= (3, 11):  # session 13: the catalog on re (_text.own_pattern)
        assert "regex" not in mods
        # session 18: threading only for the progress line's timer (on a terminal) and the
        # split of a big file
        assert "threading" not in mods
    loaded = [name for name in _NOT_FOR_ONE_CHECK if name in mods]
    assert not loaded, loaded
    if "--expect-args" not in argv:
        loaded = [name for name in _NOT_WITHOUT_A_COMMAND if name in mods]
        assert not loaded, loaded


def test_the_modules_left_out_load_when_asked_for(tmp_path: Path) -> None:
    """The names above are real and their triggers load them: the test above can fail."""
    (tmp_path / "cfg.yaml").write_text("context-length: 4096\n", encoding="utf-8")
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python3 -m sglang.launch_server --model-path /m --config cfg.yaml\n", encoding="utf-8"
    )
    asked = _modules_after(
        "check", "--redact", "--launched-at", "May 9 2026 09:31", "-e", str(cmd), LOG
    )
    for name in ("yaml", "dateutil.parser", "sglang_logscope.command.config_yaml"):
        assert name in asked, name
    assert "sglang_logscope._redact" in asked
    several = _modules_after("check", LOG, str(HEALTHY))
    assert "sglang_logscope.log.launches" in several
    verbose = _modules_after("check", "-v", "--log-tz", "Europe/Berlin", "-e", CMD, LOG)
    for name in ("rich.console", "dateutil", *_NOT_WITHOUT_A_COMMAND):
        assert name in verbose, name
    assert {"typer", "sglang_logscope.cli"} <= _modules_after("--debug", "check", LOG)
    big = _modules_after(  # as for a log of FAST_MIN_BYTES or more
        "check", LOG, prelude="from sglang_logscope.log import tail; tail.FAST_MIN_BYTES = 0"
    )
    for name in ("log.tail_end", "log.scan_index", "log.resume", "log.starters"):
        assert f"sglang_logscope.{name}" in big, name
    assert "threading" in big  # the start-up lines' reader's thread (log/starters.py)
    asked = _modules_after("check", "--here", "--server", "http://127.0.0.1:9", str(HEALTHY))
    assert "sglang_logscope.staleness.server" in asked
    for name in ("sglang_logscope.netpolicy", "sglang_logscope.parse.remote"):
        assert name in _modules_after("check", "memory://logs/server.log"), name
    typo = tmp_path / "typo.txt"
    typo.write_text("python3 -m sglang.launch_server --model-path /m --tp-sise 2\n", "utf-8")
    assert "difflib" in _modules_after("check", "-e", str(typo), LOG)
    assert "sglang_logscope._html" in _modules_after("report", "--html", "-", LOG)
    gzipped = tmp_path / "server.log.gz"
    gzipped.write_bytes(gzip.compress(Path(LOG).read_bytes()))
    assert "gzip" in _modules_after("check", str(gzipped))
    assert "sglang_logscope.log.select" in _modules_after("runs", LOG)


def _fixture_checks() -> list[list[str]]:
    """Every real fixture log checked with its own command, and the demo, the heldout logs,
    the failures and a missing file plainly, in each format and verbose (issue 33, 2)."""
    lines: list[list[str]] = []
    for folder in sorted((ROOT / "fixtures" / "real").iterdir()):
        log = folder / "server.log"
        cmd = folder / "command.txt"
        if log.is_file():
            lines.append(
                ["check", "-e", str(cmd), str(log)] if cmd.is_file() else ["check", str(log)]
            )
    for folder in sorted((ROOT / "fixtures" / "heldout").iterdir()):
        if (folder / "log").is_file():
            lines.append(
                ["check", "--expect-args", str(folder / "command.txt"), str(folder / "log")]
            )
    lines += [["check", str(p)] for p in sorted((ROOT / "fixtures" / "failures").glob("*.log"))]
    demo = ["check", "-e", CMD, LOG]
    lines += [
        [*demo, "-f", "json"],
        [*demo, "--verbose"],
        [*demo, "--format=json", "--log-tz", "UTC", "--sglang-version", "0.5.4"],
        ["check", LOG, "--launched-at", "2026-05-09 09:31"],
        ["check", str(ROOT / "fixtures" / "no-such.log")],
        ["check", "-e", str(ROOT / "fixtures" / "no-such.txt"), LOG],
        ["check", "--sglang-version", "not-a-release", LOG],
    ]
    return lines


class _OnlyThisProcess(ProcTable):
    """A process table of this process alone: what a check says of the processes holding a
    fixture log does not depend on the other tests' children reading it at that moment."""

    def pids(self) -> list[int]:
        return [os.getpid()]


@pytest.fixture
def no_other_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "gather", functools.partial(process.gather, table=_OnlyThisProcess()))


def _outcome(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    # the entry point the `logscope` command and `python -m sglang_logscope` run
    from sglang_logscope.__main__ import main

    with pytest.raises(SystemExit) as ended:
        main(argv)
    out, err = capsys.readouterr()
    return ended.value.code, out, err


def test_the_typer_free_check_answers_as_typer_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_other_processes: None
) -> None:
    """A plain ``check`` runs without typer (``__main__`` → ``_direct.check_command``); the same
    command lines through typer's own parsing give the same stdout, stderr and exit code."""
    import sglang_logscope.__main__ as entry

    lines = _fixture_checks()
    assert len(lines) > 60
    assert all(entry.plain_check(argv) is not None for argv in lines)
    fast = [_outcome(argv, capsys) for argv in lines]
    monkeypatch.setattr(entry, "plain_check", lambda argv: None)
    monkeypatch.setattr(cli, "plain_check", lambda argv: None)
    monkeypatch.setattr(cli, "direct_call", lambda app, argv: None)
    slow = [_outcome(argv, capsys) for argv in lines]
    for argv, one, other in zip(lines, fast, slow, strict=True):
        assert one == other, argv
    codes = {code for code, _, _ in fast}
    assert codes == {0, 1, 2}, codes  # fresh or ready, stale or failed, and bad input
    assert all(out or err for _, out, err in fast)


def test_the_check_signature_is_the_one_typer_reads() -> None:
    """:data:`_direct.CHECK` is ``cli.check``'s declaration as :func:`_direct.direct_call`
    reads it: an option added to ``check`` and not to CHECK fails here."""
    from sglang_logscope._direct import CHECK, _read_signature

    assert _read_signature(cli.check) == CHECK


def test_a_plain_check_does_not_import_typer() -> None:
    for argv in (["check", "-e", CMD, LOG], ["check", "-f", "json", str(HEALTHY)]):
        mods = _modules_after(*argv)
        assert "sglang_logscope.staleness.judge" in mods
        assert not {"typer", "sglang_logscope.cli"} & mods, argv
    assert {"typer", "sglang_logscope.cli"} <= _modules_after("runs", LOG)


def test_the_check_text_without_rich_console_is_rich_console_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_other_processes: None
) -> None:
    """The short screen to a file or pipe goes through ``render.text.PlainPage`` (rich's
    console not loaded); rich's console writes the same bytes for every fixture check."""
    from sglang_logscope.render import check_page, text

    lines = [argv for argv in _fixture_checks() if "json" not in " ".join(argv)]
    plain = [_outcome(argv, capsys) for argv in lines]
    monkeypatch.setattr(check_page, "page", lambda: text.RichPage(text.console()))
    with_console = [_outcome(argv, capsys) for argv in lines]
    assert plain == with_console
    assert sum("\n" in out for _, out, _ in plain) > 60


@pytest.mark.parametrize("width", [40, 77, 120])
def test_the_plain_page_wraps_as_rich_does(width: int) -> None:
    import io

    from rich.console import Console
    from rich.text import Text

    from sglang_logscope.render.text import PlainPage, plain

    samples: list[tuple[object, ...]] = [
        (),
        ("one short line",),
        ("word " * 60,),
        (Text.assemble(("Cause ", "bold"), "(LS030): ", plain("x" * 300)),),
        (plain("日本語のログ行 " * 30),),  # two cells a character
        (plain("tab\tseparated\tcolumns " * 12),),
        (plain("ends in spaces      " * 9),),
        ("two", Text("objects"), "joined"),
        (plain("line one\nline two " + "y" * 200 + "\n\nafter a blank line"),),
        (plain("a/very/long/path/without/any/space/" * 8),),
    ]
    for objects in samples:
        for soft_wrap in (False, True):
            by_rich, by_page = io.StringIO(), io.StringIO()
            Console(file=by_rich, width=width, highlight=False, markup=False, emoji=False).print(
                *objects, soft_wrap=soft_wrap
            )
            PlainPage(by_page, width).print(*objects, soft_wrap=soft_wrap)
            assert by_page.getvalue() == by_rich.getvalue(), (objects, soft_wrap)


def test_the_one_cell_characters_are_one_cell_in_rich() -> None:
    from rich.cells import cell_len

    assert {c: cell_len(c) for c in ONE_CELL} == dict.fromkeys(ONE_CELL, 1)
    assert not any(c.isspace() or not c.isprintable() for c in ONE_CELL)


#: Printable lines the short screen holds: words, runs of spaces, long unbroken words.
_PAGE_TEXT = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30),
        st.text(alphabet=st.sampled_from(sorted(ONE_CELL)), max_size=3),
        st.text(alphabet="ab /-", max_size=200),
        st.just(" " * 45),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(_PAGE_TEXT, min_size=1, max_size=4).map("\n".join),
    st.integers(min_value=1, max_value=130),
    st.booleans(),
)
def test_ascii_lines_are_richs_lines(text: str, width: int, soft_wrap: bool) -> None:
    """The page's own wrap of printable ASCII is rich's ``Text.wrap`` (the definition) at any
    width, folds, runs of spaces and blank lines included."""
    from sglang_logscope.render.text import ascii_lines, one_cell, rich_lines, wraps_plainly

    assert one_cell(text)
    assume(wraps_plainly(text, width, soft_wrap))
    assert ascii_lines(text, width, soft_wrap) == rich_lines(text, width, soft_wrap)


def test_a_lazy_pattern_compiles_on_first_use_and_matches_as_compiled() -> None:
    import re

    from sglang_logscope._text import lazy_re, lazy_regex, lazy_regex_bytes, own_pattern

    for lazy, eager, text in (
        (
            lazy_regex(r"(?P<n>\d{1,9}+)x", re.I),
            own_pattern(r"(?P<n>\d{1,9}+)x", re.I),
            "12X 3x",
        ),
        (lazy_re(r"(\w+)=(\d+)"), re.compile(r"(\w+)=(\d+)"), "a=1 b=22"),
    ):
        assert "match" not in vars(lazy)  # nothing compiled yet
        assert lazy.findall(text) == eager.findall(text)
        assert "match" in vars(lazy) and lazy.pattern == eager.pattern
        assert lazy.groups == eager.groups and lazy.flags == eager.flags
        assert lazy.sub("-", text) == eager.sub("-", text)
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    raw = lazy_regex_bytes(rb"\d+")
    assert raw.match(b"42 ") is not None and raw.match(b"42 ").group() == b"42"  # type: ignore[union-attr]


def test_a_check_leaves_the_patterns_it_does_not_use_uncompiled(tmp_path: Path) -> None:
    probe = (
        "import contextlib, io, sys\n"
        "from sglang_logscope.__main__ import main\n"
        "from sglang_logscope import netpolicy\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(sys.argv[1:])\n"
        "    except SystemExit: pass\n"
        "print('match' in vars(netpolicy._USERINFO))\n"
    )

    def compiled(*argv: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True
        ).stdout.strip()

    assert compiled("check", str(HEALTHY)) == "False"
    assert compiled("check", f"file://{HEALTHY}") == "True"  # a URL: its credentials masked


#: Module-level patterns a check of a small healthy log never uses, compiled on first use
#: (issue 33, 2, session 10): the catalog's field reading the bulk path leaves alone, the
#: traceback and foreign-record lines, Ray's prefix, the allocator's cut, ...
_LAZY_SINCE_SESSION_10 = (
    ("command.argtable", "_NEGATIVE_NUMBER"),
    ("log.pinning", "_FRAME"),
    ("parse.catalog", "_PAIR"),
    ("parse.catalog", "_INT"),
    ("parse.catalog", "_FLOAT"),
    ("parse.catalog", "_UNIT"),
    ("parse.catalog", "_LABEL"),
    ("parse.catalog", "_VALUE_NUMBER"),
    ("parse.extent", "_EXC_LINE"),
    ("parse.extent", "_FOREIGN_RECORD"),
    ("parse.header", "_PYLOGGING"),
    ("parse.lines", "_CUT_ALLOCATOR"),
    ("parse.lines", "_RAY_PREFIX"),
    ("staleness.argdiff", "_NOT_GIVEN"),
)


def test_a_healthy_check_leaves_its_unused_module_patterns_uncompiled() -> None:
    probe = (
        "import contextlib, importlib, io, sys\n"
        "from sglang_logscope.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(sys.argv[2:])\n"
        "    except SystemExit: pass\n"
        "for item in sys.argv[1].split():\n"
        "    mod, name = item.split(':')\n"
        "    pattern = getattr(importlib.import_module('sglang_logscope.' + mod), name)\n"
        "    print(item, 'match' in vars(pattern))\n"
    )
    names = " ".join(f"{mod}:{name}" for mod, name in _LAZY_SINCE_SESSION_10)
    out = subprocess.run(
        [sys.executable, "-c", probe, names, "check", str(HEALTHY)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert [line for line in out if line.endswith(" True")] == []
    assert len([line for line in out if line.endswith(" False")]) == len(_LAZY_SINCE_SESSION_10)


def test_package_files_are_the_ones_importlib_resources_names() -> None:
    from importlib import resources

    from sglang_logscope.limits import package_files

    ours, theirs = package_files(), resources.files("sglang_logscope")
    assert str(ours) == str(theirs)
    for name in ("data/messages.idx", "data/args/limits.json", "data/release_dates.json"):
        assert ours.joinpath(name).read_bytes() == theirs.joinpath(name).read_bytes()
