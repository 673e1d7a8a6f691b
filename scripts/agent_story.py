"""Replay the seed story of issue 31 through `logscope mcp`, with the MCP SDK's own client.

An agent deploys Qwen3.6-27B through `ssh root@gpu-box 'pct exec 129 -- bash -c "..."'` (the
demo's command, fixtures/demo/command.txt). Here the target is this machine: the demo log
stands for /root/sglang-serve.log, and the stand-in server (tests/fake_sglang_server.py, run
as `python -m sglang.launch_server` through a shim) crashes the way the real run did, then
comes up. Prints the transcript that docs/agents.md shows (tests/test_agent_mcp.py checks it):

    python scripts/agent_story.py
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
SEED = (ROOT / "fixtures" / "demo" / "command.txt").read_text(encoding="utf-8").strip()
FIXED = (
    "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 "
    "--mem-fraction-static 0.88 --context-length 32768 --mamba-full-memory-ratio 0.5 "
    "--speculative-algo NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4 --host 0.0.0.0 --port 30000"
)


def shim(where: Path) -> dict[str, str]:
    """An environment where `python -m sglang.launch_server` is the stand-in."""
    pkg = where / "shim" / "sglang"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "launch_server.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from fake_sglang_server import main\nsys.exit(main())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "LOGSCOPE_FAKE"))}
    env.update(
        PYTHONPATH=os.pathsep.join([str(where / "shim"), str(ROOT)]),
        LOGSCOPE_FAKE_DELAY="0.01",
        LOGSCOPE_FAKE_HOLD="30",
    )
    return env


@contextlib.asynccontextmanager
async def connect(env: dict[str, str], cwd: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sglang_logscope", "mcp"], env=env, cwd=str(cwd)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


async def ask(client: ClientSession, tool: str, shown: str, **arguments: Any) -> dict[str, Any]:
    say(f"> {tool}({shown})")
    result = await client.call_tool(tool, arguments)
    if result.isError or result.structuredContent is None:
        raise SystemExit(f"{tool} failed: {result.content}")
    return result.structuredContent


async def forensics(client: ClientSession, log: Path) -> None:
    doc = await ask(
        client, "launch", "command=SEED, log='sglang-serve.log'", command=SEED, log=str(log)
    )
    say(f"  state: {doc['state']}")
    say(f"  verdict: {doc['verdict']}")
    when = "2026-05-09 09:31:05"
    doc = await ask(
        client, "check", f"log='sglang-serve.log', expect_args=SEED, launched_at='{when}'",
        log=str(log), expect_args=SEED, launched_at=when,
    )  # fmt: skip
    say(f"  verdict: {doc['verdict']} (outcome {doc['outcome']})")
    say(f"  findings: {' '.join(f['code'] for f in doc['findings'])}")
    say(f"  next step: {doc['next_steps'][0][:150]}…")
    doc = await ask(client, "explain", "code='LS030'", code="LS030")
    say(f"  {doc['code']} {doc['name']}: {doc['action']}")
    doc = await ask(client, "budget", "log='sglang-serve.log'", log=str(log))
    first = doc["suggestions"][0]
    say(f"  fits: {doc['fits']}; try {first['change']}: {first['effect']}")
    doc = await ask(
        client, "fix", "command=SEED, log='sglang-serve.log'", command=SEED, log=str(log)
    )
    say(f"  changes: {' '.join(c['code'] for c in doc['changes'])}")
    say(f"  unfixed: {' '.join(doc['unfixed']) or 'none'}")


async def relaunch(
    client: ClientSession, log: Path, command: str, shown: str, deadline_s: float = 60
) -> None:
    doc = await ask(
        client, "launch", f"command={shown}, log='serve.log', force=true, deadline_s={deadline_s:g}",
        command=command, log=str(log), force=True, deadline_s=deadline_s,
    )  # fmt: skip
    say(f"  state: {doc['state']}")
    if doc["state"] == "starting":
        doc = await ask(client, "status", "handle, wait_s=120", handle=doc["handle"], wait_s=120)
        say(f"  state: {doc['state']}")
    with contextlib.suppress(ProcessLookupError, PermissionError, TypeError):
        os.killpg(doc["pid"], signal.SIGKILL)  # the stand-in is not kept running
    if doc["state"] != "ready":
        say(f"  verdict: {doc['verdict']}")
        say(f"  findings: {' '.join(f['code'] for f in doc['findings'])}")
        say(f"  last_lines ({doc['last_lines']['log_content'][:27]}…):")
        for line in [t for t in doc["last_lines"]["lines"] if t.strip()[:1] not in ("", "[")][-1:]:
            say(f"    {line[:110]}")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        log = where / "sglang-serve.log"
        shutil.copyfile(ROOT / "fixtures" / "demo" / "sglang-serve.log", log)
        subprocess.run(["touch", "-d", "2026-05-09 09:18:32", str(log)], check=True)
        env = shim(where)
        crash = {**env, "LOGSCOPE_FAKE_MODE": "crash", "LOGSCOPE_FAKE_FAILURE": "not_enough_memory"}

        async def story() -> None:
            async with connect(env, where) as client:
                await forensics(client, log)
            async with connect(crash, where) as client:
                await relaunch(client, where / "serve.log", FIXED, "FIXED")
            slow = {**env, "LOGSCOPE_FAKE_SLOW_AFTER": "5"}  # weights load for 5 s
            async with connect(slow, where) as client:
                fixed = FIXED + " --max-running-requests 6"
                shown = "FIXED + ' --max-running-requests 6'"
                await relaunch(client, where / "serve.log", fixed, shown, deadline_s=1)

        anyio.run(story)
    return 0


if __name__ == "__main__":
    sys.exit(main())
