"""`logscope mcp` through a real MCP client: the SDK's own ClientSession talking to the server
in a subprocess over stdio, on the demo and on the stand-in server (tests/fake_sglang_server.py,
started as ``python -m sglang.launch_server`` through a shim on PYTHONPATH, as test_launch.py
does). Every server a test launches is killed (by process group) when the test ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_run import completed
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from stand_ins import stand_in_env

from sglang_logscope.agent.server import INSTALL_HINT, TOOLS
from sglang_logscope.agent.tools import LOG_CONTENT
from sglang_logscope.watch.launch import read_record
from sglang_logscope.watch.loop import pid_alive

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
DEMO = ROOT / "fixtures" / "demo"
DEMO_COMMAND = (DEMO / "command.txt").read_text(encoding="utf-8")

Body = Callable[[ClientSession], Awaitable[None]]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The MCP server's environment: ``python -m sglang.launch_server`` is the stand-in."""
    return stand_in_env(tmp_path)


@pytest.fixture
def servers() -> Iterator[list[int]]:
    """Pids of launched servers (their process groups are killed at the end)."""
    pids: list[int] = []
    try:
        yield pids
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def session(env: dict[str, str], cwd: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sglang_logscope", "mcp"], env=env, cwd=str(cwd)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def run(env: dict[str, str], cwd: Path, body: Body) -> None:
    async def main() -> None:
        async with session(env, cwd) as client:
            await body(client)

    anyio.run(main)


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; it fails the test when the call is an error."""
    result = await client.call_tool(tool, arguments)
    text = "".join(getattr(c, "text", "") for c in result.content)
    assert not result.isError, text
    assert result.structuredContent is not None
    assert json.loads(text) == result.structuredContent  # the text block is the same document
    return result.structuredContent


async def error(client: ClientSession, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.isError
    return "".join(getattr(c, "text", "") for c in result.content)


def cli_json(*args: str, cwd: Path) -> Any:
    """The CLI's JSON document for ``args`` (run in this process), what a tool must return."""
    done = completed(*args, "--format", "json", cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _but_the_file(doc: dict[str, Any]) -> str:
    return (
        json.dumps(doc).replace("< YOUR_COMMAND_FILE", "< FILE").replace("< command.txt", "< FILE")
    )


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo log, its mtime where the stale run last wrote (as `make demo` does)."""
    log = tmp_path / "sglang-serve.log"
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    subprocess.run(["touch", "-d", "2026-05-09 09:18:32", str(log)], check=True)
    (tmp_path / "command.txt").write_text(DEMO_COMMAND, encoding="utf-8")
    return log


# ------------------------------------------------------------------------------ the tools


def test_the_tools_are_listed_with_their_schemas(env: dict[str, str], tmp_path: Path) -> None:
    async def body(client: ClientSession) -> None:
        listed = (await client.list_tools()).tools
        assert [t.name for t in listed] == [spec.name for spec in TOOLS]
        for tool in listed:
            assert tool.inputSchema["type"] == "object"
            assert tool.outputSchema is not None and tool.outputSchema["type"] == "object"
            assert tool.description
        by_name = {t.name: t for t in listed}
        assert by_name["check"].outputSchema["title"] == "logscope check --format json"
        assert by_name["launch"].inputSchema["required"] == ["command", "log"]
        assert by_name["launch"].annotations is not None
        assert by_name["launch"].annotations.readOnlyHint is False
        assert by_name["check"].annotations is not None
        assert by_name["check"].annotations.readOnlyHint is True

    run(env, tmp_path, body)


def test_fix_is_the_cli_document_and_lints_clean(
    env: dict[str, str], demo: Path, tmp_path: Path
) -> None:
    """``fix`` returns what ``logscope fix --format json`` prints, from the command's text, and
    its corrected command has no error finding left (the shell-killing pkill is gone)."""
    want = cli_json("fix", "-e", "command.txt", cwd=tmp_path)
    want_with_log = cli_json("fix", "-e", "command.txt", str(demo), cwd=tmp_path)

    async def body(client: ClientSession) -> None:
        got = await call(client, "fix", command=DEMO_COMMAND)
        assert got == want
        codes = {c["code"] for c in got["changes"]}
        assert "LS030" in codes and got["unfixed"] == []
        assert got["text"] != DEMO_COMMAND and "pct exec 129" in got["text"]  # the form kept
        with_log = await call(client, "fix", command=DEMO_COMMAND, log=str(demo))
        assert with_log == want_with_log
        assert "--max-running-requests" in with_log["text"]  # the budget's fix: it did not fit
        assert "'-' (stdin)" in await error(client, "fix", command=DEMO_COMMAND, log="-")

    run(env, tmp_path, body)


def test_check_budget_summary_are_the_cli_documents(
    env: dict[str, str], demo: Path, tmp_path: Path
) -> None:
    when = "2026-05-09 09:31:05"
    want_check = cli_json(
        "check", "--expect-args", "command.txt", "--launched-at", when, str(demo), cwd=tmp_path
    )
    want_budget = cli_json("budget", "--log", str(demo), cwd=tmp_path)
    config = ROOT / "fixtures" / "memory" / "configs" / "gemma3-text.json"
    sized = ["--gpus", "2", "--gpu-memory", "a6000", "--model-config", str(config)]
    (tmp_path / "gemma.txt").write_text("python -m sglang.launch_server --model-path g --tp 2\n")
    want_sized = cli_json("budget", "--expect-args", "gemma.txt", *sized, cwd=tmp_path)
    want_summary = cli_json("summary", str(demo), cwd=tmp_path)
    want_seed = cli_json("budget", "--expect-args", "command.txt", cwd=tmp_path)

    async def body(client: ClientSession) -> None:
        got = await call(client, "check", log=str(demo), expect_args=DEMO_COMMAND, launched_at=when)
        # the CLI read the command from a file, the tool from its text: the remote check
        # (LS050) names the file the command goes on stdin from, here a placeholder
        assert got["remote"]["command"].endswith("< YOUR_COMMAND_FILE")
        assert want_check["remote"]["command"].endswith("< command.txt")
        assert _but_the_file(got) == _but_the_file(want_check)
        assert got["verdict"] == "stale"
        codes = {f["code"] for f in got["findings"]}
        assert {"LS030", "LS050"} <= codes  # the pkill that kills its shell; runs remotely
        budget = await call(client, "budget", log=str(demo))
        assert budget == want_budget and budget["fits"] is False
        gemma = "python -m sglang.launch_server --model-path g --tp 2"
        sized = await call(
            client, "budget", command=gemma, gpus=2, gpu_memory="a6000", model_config=str(config)
        )
        assert sized == want_sized
        seed = await call(client, "budget", command=DEMO_COMMAND)  # the one-line ssh paste
        assert seed == want_seed and seed["fits"] is not None  # priced, on its exact profile
        unknown = "python -m sglang.launch_server --model-path /nowhere/NoSuchModel-7B --tp 2"
        declined = await call(client, "budget", command=unknown)  # no evidence: no figure
        assert declined["fits"] is None and "--model-config" in declined["advice"]
        summary = await call(client, "summary", paths=[str(demo)])
        assert summary == {"summaries": [want_summary]}

    run(env, tmp_path, body)


def test_explain_is_the_findings_page(env: dict[str, str], tmp_path: Path) -> None:
    async def body(client: ClientSession) -> None:
        page = await call(client, "explain", code="ls030")
        assert page["code"] == "LS030" and page["severity"] == "error"
        assert page["page"] == (ROOT / "docs" / "findings" / "LS030.md").read_text("utf-8")
        pf = await call(client, "explain", code="PF019")
        assert pf["name"] == "runs-elsewhere"
        assert "unknown finding code 'LS999'" in await error(client, "explain", code="LS999")

    run(env, tmp_path, body)


def test_bad_arguments_are_refused_before_any_call(env: dict[str, str], tmp_path: Path) -> None:
    async def body(client: ClientSession) -> None:
        text = await error(client, "check", log=str(tmp_path / "x.log"), nonsense=1)
        assert "validation" in text.lower()
        text = await error(client, "launch", command="true", log="x.log", deadline_s=10_000)
        assert "validation" in text.lower()
        text = await error(client, "check", log=str(tmp_path / "missing.log"))
        assert "missing.log" in text and "Traceback" not in text
        os.mkfifo(tmp_path / "pipe.log")  # no writer: opening it would hold the call for ever
        text = await error(client, "summary", paths=[str(tmp_path / "pipe.log")])
        assert "a FIFO" in text and "Traceback" not in text
        text = await error(client, "check", log=str(tmp_path / "pipe.log"))
        assert "a FIFO" in text

    run(env, tmp_path, body)


# ------------------------------------------------------------------------------ launch


def stand_in(*extra: str) -> str:
    return f"{sys.executable} -m sglang.launch_server --model-path /m --tp 2 " + " ".join(extra)


def test_launch_comes_back_ready(env: dict[str, str], tmp_path: Path, servers: list[int]) -> None:
    log = tmp_path / "serve.log"
    log.write_text("an old run\n")

    async def body(client: ClientSession) -> None:
        doc = await call(
            client, "launch", command=stand_in(), log=str(log), force=True, deadline_s=120
        )
        servers.append(doc["pid"])
        assert doc["state"] == "ready", doc["verdict"]
        assert doc["verdict"].startswith("ready: the server is up")
        assert doc["handle"] == str(log) and doc["rotated_to"] == f"{log}.1"
        assert read_record(log) is not None and read_record(log).pid == doc["pid"]  # type: ignore[union-attr]
        assert doc["last_lines"]["log_content"] == LOG_CONTENT
        assert any("fired up" in line for line in doc["last_lines"]["lines"])
        assert doc["result"]["outcome"] == "ready" and "tail" not in doc["result"]
        assert {n["event"] for n in doc["new_notes"]} >= {"run_started", "phase"}
        again = await call(client, "status", handle=str(log))
        assert again["state"] == "ready" and again["new_notes"] == []  # nothing new since

    run(env, tmp_path, body)


def test_launch_comes_back_crashed_with_the_findings(
    env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    log = tmp_path / "serve.log"
    command = "LOGSCOPE_FAKE_MODE=crash LOGSCOPE_FAKE_FAILURE=not_enough_memory " + stand_in()

    async def body(client: ClientSession) -> None:
        doc = await call(
            client, "launch", command=command, log=str(log), force=True, lines=5, deadline_s=120
        )
        servers.append(doc["pid"])
        assert doc["state"] == "crashed", doc["verdict"]
        assert "not_enough_memory" in doc["verdict"]
        assert doc["result"]["failure"]["kind"] == "not_enough_memory"
        assert "LS010" in {f["code"] for f in doc["findings"]}
        assert len(doc["last_lines"]["lines"]) == 5

    run(env, tmp_path, body)


def test_launch_returns_at_its_deadline_while_loading_and_status_follows(
    env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    log = tmp_path / "serve.log"
    command = "LOGSCOPE_FAKE_SLOW_AFTER=300 " + stand_in()

    async def body(client: ClientSession) -> None:
        doc = await call(client, "launch", command=command, log=str(log), force=True, deadline_s=2)
        pid = doc["pid"]
        servers.append(pid)
        assert doc["state"] == "starting" and pid_alive(pid)
        assert doc["result"] is None and doc["handle"] == str(log)
        later = await call(client, "status", handle=doc["handle"])
        assert later["state"] == "starting"
        os.killpg(pid, signal.SIGKILL)  # the server dies while loading
        end = await call(client, "status", handle=doc["handle"], wait_s=120)
        assert end["state"] == "crashed" and end["result"]["outcome"] == "exited"
        assert f"pid {pid}" in end["verdict"]

    run(env, tmp_path, body)


def test_a_new_mcp_server_takes_a_launch_up_from_its_record(
    env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    log = tmp_path / "serve.log"
    command = "LOGSCOPE_FAKE_SLOW_AFTER=300 " + stand_in()
    started: dict[str, Any] = {}

    async def first(client: ClientSession) -> None:
        started.update(
            await call(client, "launch", command=command, log=str(log), force=True, deadline_s=1)
        )
        servers.append(started["pid"])

    async def second(client: ClientSession) -> None:
        assert pid_alive(started["pid"])  # the server outlived the MCP server that started it
        doc = await call(client, "status", handle=str(log))
        assert doc["state"] == "starting" and doc["pid"] == started["pid"]
        unknown = await error(client, "status", handle=str(tmp_path / "other.log"))
        assert "no launch known" in unknown

    run(env, tmp_path, first)
    assert started["state"] == "starting"
    run(env, tmp_path, second)


def test_launch_refuses_a_command_whose_lint_has_an_error(
    env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    command = f"bash -c 'pkill -9 -f sglang; {stand_in()}'"

    async def body(client: ClientSession) -> None:
        doc = await call(client, "launch", command=command, log=str(log))
        assert doc["state"] == "refused" and doc["pid"] is None
        assert "LS030" in doc["verdict"]
        assert "LS030" in {f["code"] for f in doc["preflight_findings"]}
        assert not log.exists()
        shell = await error(client, "launch", command=stand_in() + f" > {log} 2>&1 &", log=str(log))
        assert "without a shell" in shell
        assert not log.exists()

    run(env, tmp_path, body)


def test_a_remote_launch_says_where_to_run_the_server(env: dict[str, str], tmp_path: Path) -> None:
    async def body(client: ClientSession) -> None:
        doc = await call(client, "launch", command=DEMO_COMMAND, log=str(tmp_path / "x.log"))
        assert doc["state"] == "refused"
        assert doc["remote"]["where"] == "host root@gpu-box, Proxmox container 129"
        assert doc["remote"]["mcp_command"].startswith("ssh root@gpu-box")
        assert "logscope mcp" in doc["remote"]["mcp_command"]
        assert "nothing was launched" in doc["verdict"]

    run(env, tmp_path, body)


def test_the_story_in_the_docs_is_what_the_tools_say() -> None:
    """docs/agents.md's transcript is scripts/agent_story.py's output (real calls, no edits)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "agent_story.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    shown = page.split("<!-- agent-story:begin -->\n```\n")[1].split("```\n<!-- agent-story:end")[0]
    assert shown == done.stdout


def test_every_tool_has_its_section_in_the_docs() -> None:
    page = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    sections = [line[4:] for line in page.splitlines() if line.startswith("### ")]
    assert sections == [spec.name for spec in TOOLS]


# ------------------------------------------------------------------------------ the extra


def test_the_package_does_not_import_mcp_and_says_how_to_get_it(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import sglang_logscope, sglang_logscope.cli\n"
        "assert 'mcp' not in sys.modules\n"
        "sys.modules['mcp'] = None  # as if the [agent] extra were not installed\n"
        "from sglang_logscope.cli import main\n"
        "main(['mcp'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 2
    assert done.stderr == f"logscope: error: {INSTALL_HINT}\n"
