"""Stable finding codes: what each means and what to do. Other tools match on these codes.

One registry for every code: ``LS`` (the check, the launch lint, the log readers) and ``PF``
(the pre-flight). ``docs/findings/<CODE>.md`` is generated from it (``scripts/gen_findings_docs.py``);
a test keeps it in sync. Codes are never renumbered or reused.
"""

from __future__ import annotations

import enum
from typing import Any

from ._record import record


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@record
class Code:
    """A finding code's one row: its name, severity, meaning and what to do."""

    code: str
    name: str
    severity: Severity
    meaning: str
    action: str = ""


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("LS001", "stale-run", Severity.ERROR,
             "The log's last run started before your launch: you are reading an earlier run.",
             "Your process has not written a run to this log. Check it started (`echo PID=$!` printed a pid, "
             "`ps -p PID`), that its output goes to this file, and read its own stderr if it was redirected elsewhere."),
        Code("LS002", "not-written-since-launch", Severity.ERROR,
             "The log file has not been modified since your launch time.",
             "The new process never wrote here: it did not start, or it writes to another file. Re-run the launch "
             "in the foreground (without nohup/&) to see why it fails."),
        Code("LS003", "unexplained-arg-difference", Severity.ERROR,
             "The run's effective argument differs from the command you intended, and SGLang did not say it changed it.",
             "This run was not started with your command (a stale log or another launch), or your flag never reached "
             "SGLang (quoting, a wrapper, a config file). Compare the run's server_args banner with your command."),
        Code("LS004", "explained-arg-difference", Severity.INFO,
             "The effective argument differs from what you passed because SGLang adjusted it itself (with evidence).",
             "Nothing to fix: this is SGLang's own rule. Set the argument explicitly if you need another value."),
        Code("LS005", "no-run", Severity.ERROR,
             "The log holds no SGLang run at all.",
             "Check the path, and that the server's stdout and stderr go to this file (`> log 2>&1`)."),
        Code("LS006", "argparse-rejects-command", Severity.ERROR,
             "SGLang's argparse would reject your command (unknown or ambiguous flag), so it exits at once.",
             "Fix the flag (see the suggestion) and launch again."),
        Code("LS007", "launch-died-at-argparse", Severity.ERROR,
             "The log's last run is your launch dying at argparse with your flags.",
             "Fix the flag named in the error (see the suggestion) and launch again."),
        Code("LS008", "timezone-suspect", Severity.WARNING,
             "The launch time and the run differ by whole hours: the log's time zone is probably not the launch time's.",
             "Pass --log-tz with the server's time zone (SGLang logs naive local time) or give --launched-at in the server's local time."),
        Code("LS009", "no-time-evidence", Severity.INFO,
             "No launch time was given, so staleness is judged from the arguments alone.",
             "Pass --launched-at (e.g. the time you ran the launch command) for a time-based verdict."),
        Code("LS010", "run-crashed", Severity.ERROR,
             "The run crashed.",
             "Read the failure and its line; for out-of-memory failures see the memory verdict."),
        Code("LS011", "several-runs", Severity.INFO,
             "The file holds several runs (appended with `>>`, or logs glued together); only the last is checked.",
             "Use `logscope runs LOG` to see them all."),
        Code("LS012", "no-banner", Severity.WARNING,
             "The run has no server_args banner; effective arguments come only from what its messages reveal.",
             "Arguments not revealed cannot be compared. A full log from the start of the run has the banner."),
        Code("LS013", "modified-but-no-new-run", Severity.WARNING,
             "The file was written after your launch, but holds no run that started after it.",
             "Your process may have died before SGLang's logging started (an import error, a bad interpreter path): read the last lines of the log."),
        Code("LS014", "still-starting", Severity.INFO,
             "The run has not finished starting (no ready line and no failure yet).",
             "Wait, or follow it with `tail -f`; a log cut short (disk full, killed) also looks like this."),
        Code("LS015", "launch-after-run", Severity.INFO,
             "The run started after your launch time.",
             "Nothing to do: the time evidence says this run is your launch or a later one."),
        Code("LS016", "args-match", Severity.INFO,
             "Every argument you passed explicitly has the same effective value in the run.",
             "Nothing to do."),
        Code("LS030", "kill-matches-own-shell", Severity.ERROR,
             "A `pkill -f`/`pgrep -f`/`killall` in your command matches the command line of the shell that runs it "
             "(`bash -c \"...sglang...\"`, an ssh remote command): the shell kills itself, and nothing after that line runs.",
             "Use a pattern that matches only the server's own command line, anchored at the interpreter "
             "(`pkill -9 -f '^[^ ]*python[^ ]* -m sglang[.]launch_server'`), or kill by the pid you saved at launch. "
             "The `[r]` trick (`sglang.launch_serve[r]`) does not help when the same `bash -c` string also holds the launch."),
        Code("LS031", "log-deleted-but-still-there", Severity.ERROR,
             "Your command deletes or truncates the log before the launch, yet the log still holds a run from before your "
             "launch: the shell never reached that line.",
             "Find what stopped the shell earlier in the script (usually LS030); run the script by hand and read `echo $?` "
             "after each line."),
        Code("LS032", "background-without-nohup", Severity.WARNING,
             "The launch is put in the background with `&` inside an `ssh`/`pct exec`/`docker exec`/`kubectl exec` "
             "session without nohup, setsid or disown: it belongs to the session and can die with it.",
             "Start it as `nohup setsid CMD > LOG 2>&1 < /dev/null &`."),
        Code("LS033", "pid-echo-without-background", Severity.WARNING,
             "`$!` is expanded by a shell in which nothing was started in the background (often the outer shell, when the "
             "inner script is in double quotes): `echo PID=$!` prints no pid.",
             "Escape it (`\\$!`) so the inner shell expands it after its `&`, or single-quote the inner script."),
        Code("LS034", "redirect-order", Severity.ERROR,
             "`2>&1 > LOG` duplicates stderr onto the old stdout before stdout moves to LOG: SGLang's log lines and "
             "tracebacks (stderr) do not reach the file.",
             "Write `> LOG 2>&1` (the file first, then stderr onto it)."),
        Code("LS035", "log-is-not-the-redirect-target", Severity.WARNING,
             "Your command writes the server's output to another file than the one being checked.",
             "Check the file the command writes to, or change the redirect."),
        Code("LS036", "fixed-sleep-after-kill", Severity.WARNING,
             "A fixed `sleep` (or nothing) after `kill -9` stands in for waiting until the killed server's GPU memory is released; "
             "SIGKILL only queues the driver's teardown (SGLang's own CI waits for the pids to leave NVML, "
             "sgl-project/sglang#39545).",
             "Wait for the GPU to be free: `while nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -q .; "
             "do sleep 1; done` (or `logscope gpus`)."),
        Code("LS037", "escaped-space-before-flag", Severity.ERROR,
             "A `\\ ` before a flag (a line continuation whose newline was lost in a paste) is an escaped space: bash passes "
             "`' --tp-size'` with a leading space (and `\\ >` a one-space argument), and SGLang's argparse exits 2.",
             "Remove the `\\ ` between arguments, or put each `\\` at the end of its line."),
        Code("LS038", "exits-before-launch", Severity.ERROR,
             "An `exit` (or `return`) at the top level of the script runs before the launch: bash stops there and "
             "the server is never started.",
             "Drop the `exit`, or move it after the launch."),
        Code("LS039", "fails-under-set-e", Severity.ERROR,
             "Under `set -e`, a `pkill`/`pgrep`/`grep` before the launch exits 1 when nothing matches (a clean "
             "machine has no old server), and bash ends the script before the launch.",
             "Append `|| true` to it (`pkill -f PATTERN || true`)."),
        Code("LS040", "not-an-sglang-log", Severity.ERROR,
             "The file holds no line SGLang prints (a syslog, a binary, another server's log).",
             "Check the path: SGLang's own output is what `> LOG 2>&1` captures from the launch."),
        Code("LS041", "log-zone-assumed", Severity.WARNING,
             "Your launch time carries a zone but the log's times do not: the zone the log was read in is an assumption.",
             "Pass --log-tz with the server's time zone (an IANA name or an offset such as +02:00)."),
        Code("LS042", "ambiguous-date", Severity.WARNING,
             "The --launched-at date could be read day first or month first.",
             "Write the date as YYYY-MM-DD."),
        Code("LS043", "flag-not-received", Severity.ERROR,
             "SGLang says an argument was not specified (\"X not specified, use ... by default\") that your command passes: "
             "the flag never reached that process.",
             "The run was started another way (a stale log, another script), or your flag was lost on the way "
             "(quoting, a wrapper script, an env file). Compare the run's banner with your command."),
        Code("LS044", "process-holds-log", Severity.INFO,
             "A live process on this machine has the log open for writing (readers such as `tail -f` are not counted).",
             "Nothing to do: this is the process writing the log (its command line says which launch it is)."),
        Code("LS045", "launch-process-exited", Severity.ERROR,
             "The process of the launch record has exited: whatever the log says, nothing serves this launch now.",
             "Read the end of the log for the reason, then launch again."),
        Code("LS046", "command-runs-elsewhere", Severity.WARNING,
             "A live process runs your command but does not hold this log open: its output goes to another file.",
             "Check the launch's redirect, or check the file it writes."),
        Code("LS047", "no-process-holds-log", Severity.INFO,
             "No process visible from here has the log open for writing: nothing is writing it now.",
             "Nothing to do when the server is meant to be stopped; otherwise its process has exited (read the end of the log)."),
        Code("LS048", "live-server-differs", Severity.ERROR,
             "The server answering on your command's port runs with other arguments (its /server_info): it is another launch.",
             "Stop that server, then launch yours; or check the port you launched on."),
        Code("LS049", "live-server-matches", Severity.INFO,
             "The server answering on your command's port runs with your explicit arguments (its /server_info).",
             "Nothing to do."),
        Code("LS050", "launch-runs-remotely", Severity.INFO,
             "Your command runs on another host or in a container (ssh, pct exec, docker exec, kubectl exec): this machine's "
             "processes, GPUs and paths say nothing about it.",
             "Run the same check where the command runs: the report prints the exact command (the command file goes on stdin)."),
        Code("LS051", "processes-not-visible", Severity.INFO,
             "This machine's processes could not be read (/proc unreadable): there is no live process evidence.",
             "Run the check as the user that runs the server, on the server's host."),
        Code("LS052", "live-server-silent", Severity.WARNING,
             "Something accepts connections on your command's port but did not give its /server_info within the probe's "
             "deadline and byte cap (or answered with a redirect, which is not followed): the live server says nothing.",
             "Look at what listens on the port (`ss -ltnp`); the rest of the check does not depend on it."),
        Code("LS053", "blocks-before-launch", Severity.ERROR,
             "A command before the launch never returns in the foreground (`tail -f`, `sleep infinity`, `watch`, "
             "`journalctl -f`): bash waits on it forever and never reaches the launch.",
             "Drop it, or start it in the background with `&` (or after the launch)."),
        Code("LS020", "oom-ghost", Severity.ERROR,
             "The out-of-memory failure belongs to a stale run, not to your launch.",
             "Do not tune flags against it. Find out why your launch did not run; the budget says whether your command would fit."),
        Code("LS021", "oom-real", Severity.ERROR,
             "SGLang's own memory arithmetic says the configuration cannot fit: the out-of-memory failure is real.",
             "Apply one of the suggested changes (the budget lists the smallest ones that make it fit)."),
        Code("LS022", "oom-contention", Severity.ERROR,
             "Free GPU memory at startup was well below the GPUs' capacity or unequal across ranks: another process held memory.",
             "Find and stop the process holding GPU memory (`logscope gpus`, `nvidia-smi`), e.g. a previous SGLang scheduler, then relaunch."),
        Code("LS023", "oom-unexplained", Severity.WARNING,
             "The arithmetic says the configuration should fit, and no contention is visible: the OOM is not explained.",
             "Check activation/CUDA-graph headroom (slack), fragmentation, and other memory users."),
        Code("LS024", "budget-does-not-fit", Severity.ERROR,
             "The memory budget of your intended command does not fit the GPUs.",
             "Apply one of the suggested changes before launching."),
        Code("LS100", "budget-not-modelled-for-device", Severity.INFO,
             "The command or the run targets a device other than a CUDA/ROCm GPU (an Ascend NPU, "
             "Apple mps, a CPU, ...): logscope models SGLang's memory arithmetic for CUDA and ROCm "
             "GPUs only, so no memory budget is given (a budget on an assumed GPU would be wrong).",
             "Judge the memory from the run's own figures (KV cache, avail mem) in the log."),
        Code("LS080", "value-out-of-range", Severity.WARNING,
             "A value read from the log or the command is not one SGLang accepts (wrong type, out of range, not a "
             "finite number, too large or too deep): logscope treats it as unknown.",
             "Check where the value came from: a hand-edited or corrupted log, a typo in the command or config. "
             "Figures that needed it rest on SGLang's default instead (the budget says which)."),
        Code("LS081", "host-not-resolved", Severity.INFO,
             "The command's --host is a name, not an address: the pre-flight resolves no names (no DNS "
             "look-up for a host it was not asked about), so the port was not probed.",
             "Give --host as an address (0.0.0.0, 127.0.0.1, an interface's IP) for the port check."),
        Code("LS110", "deprecated-flag-for-release", Severity.INFO,
             "Your command passes a flag that the SGLang release this log was read with keeps only as a "
             "deprecated alias of another flag (issue 17: the release is pinned from the log's own lines).",
             "Pass the replacement flag the finding names; a later release may drop the alias "
             "(`logscope args --sglang-version X` shows a release's own table)."),
        Code("LS111", "flag-depends-on-release", Severity.WARNING,
             "A flag of your command is accepted by some releases of the range this log was read with "
             "and rejected by others: whether SGLang's argparse exits on it depends on which one ran.",
             "Give the release with --sglang-version (`pip show sglang` where the server runs) for a "
             "definite answer."),
        Code("LS112", "several-nodes-pasted", Severity.WARNING,
             "The checked run holds the output of several nodes pasted into one file without their "
             "banners: the time goes back where one set of ranks ends and another, with no rank in "
             "common, begins (one node's own lines never do that). Its figures and its last line mix "
             "the nodes (issue 28).",
             "Check each node's own log (`logscope check` reads several logs of one launch together: "
             "docs/user-guide.md); the finding names the line where the second node's lines begin."),
        Code("LS120", "log-zone-from-receive-times", Severity.INFO,
             "The log's times carry no zone, but the times kubectl, Docker or journald stamped on its lines "
             "(received_at) show its clock's offset from UTC: the log was read in that zone.",
             "Nothing to do when that is the server's zone; pass --log-tz to read the log in another one."),
    )
}  # fmt: skip


#: The pre-flight's codes (``machine/preflight.py`` emits them): the same registry, with pages in
#: ``docs/findings/`` generated beside the LS codes'.
PF_CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("PF001", "args-rejected", Severity.ERROR,
             "SGLang's argparse would reject the command (unknown/ambiguous flag, bad value).",
             "Fix the flag (see the suggestion) and run the pre-flight again."),
        Code("PF002", "gpu-missing", Severity.ERROR,
             "The launch needs more GPUs than CUDA_VISIBLE_DEVICES / --base-gpu-id leave it.",
             "Use fewer GPUs (--tp-size, --dp-size, --pp-size) or make more visible (CUDA_VISIBLE_DEVICES, --base-gpu-id)."),
        Code("PF003", "sglang-holds-gpu", Severity.ERROR,
             "An SGLang process (an earlier run, a leftover scheduler) holds memory on a GPU "
             "the launch will use.",
             "Stop the earlier SGLang process the finding names (its pid) before launching, or launch on other GPUs."),
        Code("PF004", "process-holds-gpu", Severity.WARNING,
             "Another process holds memory on a GPU the launch will use.",
             "Check that the process the finding names is meant to share the GPU: its memory is not free for the launch."),
        Code("PF005", "memory-unbalanced", Severity.ERROR,
             "Free memory differs between the launch's GPUs by more than SGLang tolerates "
             "(a rank's free < 0.9 x another's): 'The memory capacity is unbalanced'.",
             "Free the memory held on the fuller GPU (the holders are named in PF003/PF004) or launch on GPUs with equal free memory."),
        Code("PF006", "budget-does-not-fit", Severity.ERROR,
             "With the memory free now as F0, SGLang's memory budget does not fit.",
             "Free the memory other processes hold on the GPUs, or change the launch (more GPUs, a shorter context); `logscope budget` shows the arithmetic."),
        Code("PF007", "port-in-use", Severity.ERROR,
             "The host/port cannot be bound: something already listens there.",
             "Stop what listens there (an earlier server?) or pass another --port."),
        Code("PF008", "host-unavailable", Severity.ERROR,
             "The --host address cannot be bound on this machine.",
             "Pass a --host address of this machine (0.0.0.0, 127.0.0.1, an interface's IP)."),
        Code("PF009", "model-path-missing", Severity.ERROR,
             "--model-path names a local path that does not exist.",
             "Fix the path, or give the model's hub id."),
        Code("PF010", "model-config-missing", Severity.ERROR,
             "--model-path is a local directory without config.json.",
             "Point --model-path at the directory that holds the model's config.json."),
        Code("PF011", "log-overwritten", Severity.WARNING,
             "The redirection '>' will truncate an existing log: the previous run's log is lost.",
             "Move the old log aside first (the suggestion's `mv LOG LOG.<mtime>`) or write to a new file."),
        Code("PF012", "log-appended", Severity.WARNING,
             "The redirection '>>' will append to an existing log: the runs will be mixed.",
             "Move the old log aside first (the suggestion's `mv LOG LOG.<mtime>`) or write to a new file."),
        Code("PF013", "gpus-unreadable", Severity.ERROR,
             "GPU state could not be read (no NVML, no nvidia-smi): GPU checks not made.",
             "Run the pre-flight where NVML or nvidia-smi works (on the GPU host, or in a container with the driver); the other checks were made."),
        Code("PF014", "budget-unknown", Severity.WARNING,
             "The memory budget could not be computed (e.g. unknown model): not checked.",
             "Nothing was checked of the memory: give a local --model-path with config.json, or budget it with `logscope budget`."),
        Code("PF015", "hidden-memory", Severity.WARNING,
             "Memory on a GPU the launch will use is held by processes that cannot be seen.",
             "Look for processes in other containers or PID namespaces: their memory is not free for the launch."),
        Code("PF016", "model-not-local", Severity.INFO,
             "--model-path is not a local path (a hub id): not checked.",
             "Nothing to do; the model checks need a local path."),
        Code("PF017", "budget-fits", Severity.INFO,
             "SGLang's memory budget fits with the memory free now as F0.",
             "Nothing to do."),
        Code("PF018", "foreign-pids", Severity.INFO,
             "The driver reports PIDs of another PID namespace (a container): holders may be "
             "unnamed.",
             "Nothing to do; run the pre-flight in the host's PID namespace to have the holders named."),
        Code("PF019", "runs-elsewhere", Severity.ERROR,
             "The command runs on another host or in a container (ssh, pct exec, docker exec, "
             "kubectl exec): this machine's GPUs, ports and paths say nothing about it. Run the "
             "printed command there, or pass --here to check this machine anyway.",
             "Run the printed pre-flight where the command runs, or pass --here to check this machine anyway."),
    )
}  # fmt: skip
#: Every code, LS and PF: the one registry a finding's name, severity and fix come from.
ALL_CODES: dict[str, Code] = {**CODES, **PF_CODES}


def code_of(code: str) -> Code:
    """The registry's entry for ``code`` (LS or PF)."""
    return ALL_CODES[code]


def finding_dict(code: str, message: str) -> dict[str, Any]:
    """The JSON keys every finding has, LS or PF: code, name, severity, message."""
    entry = code_of(code)
    return {
        "code": code,
        "name": entry.name,
        "severity": entry.severity.value,
        "message": message,
    }


@record
class Finding:
    """One statement of a report, with its stable code."""

    code: str
    message: str
    severity: Severity

    @classmethod
    def of(cls, code: str, message: str | None = None) -> Finding:
        entry = code_of(code)
        return cls(code=code, message=message or entry.meaning, severity=entry.severity)

    @property
    def name(self) -> str:
        return code_of(self.code).name

    def to_dict(self) -> dict[str, Any]:
        return {**finding_dict(self.code, self.message), "severity": self.severity.value}


def doc_page(code: Code) -> str:
    """The documentation page of ``code``: ``docs/findings/<CODE>.md`` is this text
    (``scripts/gen_findings_docs.py``), and the agent's ``explain`` tool returns it."""
    return "\n".join(
        [
            f"# {code.code} — {code.name}",
            "",
            f"Severity: **{code.severity.value}**",
            "",
            "## What it means",
            "",
            code.meaning,
            "",
            "## What to do",
            "",
            code.action,
            "",
        ]
    )
