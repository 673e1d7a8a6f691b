"""A guarded launch: ``logscope launch [--log PATH] [--keep N] -- python -m sglang.launch_server ...``.

The steps, each a function so the CLI (and tests) can run them one by one:

1. :func:`run_preflight` — the machine check (:mod:`.preflight`), one call.
2. :func:`rotate` — move an existing log aside to ``PATH.1`` (``PATH.1`` to ``PATH.2``, ...,
   up to ``PATH.N``); a log is never deleted: when every slot is taken, the launch stops.
3. :func:`start` — start the server in its own session (it survives the terminal and Ctrl-C),
   stdout and stderr appended to the log, and write the launch record ``PATH.launch.json``.
4. :func:`confirm_alive` — after a moment, is it still running?

The launch record is data: JSON only, validated on reading (:func:`read_record`); ``check``
and ``watch`` take the launch time and the intended command from it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._record import record
from .._text import own_pattern
from ..errors import LogscopeError
from ..findings import Severity
from ..limits import shape_problem
from ..machine.preflight import preflight
from ..parse.source import decode_line
from ..timing import LAUNCH_RECORD_SUFFIX, launch_record_bytes, launch_record_path

if TYPE_CHECKING:
    from ..machine.preflight import Preflight

RECORD_SUFFIX = LAUNCH_RECORD_SUFFIX
RECORD_SCHEMA = 1
#: Environment variables that change what the server does, kept in the launch record.
ENV_NAMES = frozenset({"CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF"})
ENV_PREFIXES = ("SGLANG_", "NCCL_")
#: Values of variables named like secrets are not written to the record.
_SECRET = own_pattern(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
REDACTED = "<redacted>"


# ------------------------------------------------------------------------------ the record


@record
class LaunchRecord:
    """What ``logscope launch`` started, written beside the log as ``LOG.launch.json``."""

    pid: int
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str]
    launched_at: str  # ISO 8601 with the UTC offset
    host: str
    log: str
    rotated_to: str | None = None
    schema_version: int = RECORD_SCHEMA

    @property
    def launch_time(self) -> datetime:
        return datetime.fromisoformat(self.launched_at)

    @property
    def command(self) -> str:
        """The argv as one shell-quoted command line (what ``--expect-args`` would hold)."""
        return shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "pid": self.pid,
            "argv": list(self.argv),
            "cwd": self.cwd,
            "env": dict(self.env),
            "launched_at": self.launched_at,
            "host": self.host,
            "log": self.log,
            "rotated_to": self.rotated_to,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "launch record") -> LaunchRecord:
        """Validate ``data`` (parsed JSON) field by field; raise :class:`LogscopeError` if bad."""
        if not isinstance(data, dict):
            raise LogscopeError(f"{where}: not a JSON object")

        def need(key: str, kind: type | tuple[type, ...]) -> Any:
            value = data.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise LogscopeError(
                    f"{where}: {key!r} is missing or not a {getattr(kind, '__name__', kind)}"
                )
            return value

        pid = need("pid", int)
        argv = need("argv", list)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise LogscopeError(f"{where}: 'argv' must be a non-empty list of strings")
        env = data.get("env", {})
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise LogscopeError(f"{where}: 'env' must map names to strings")
        launched_at = need("launched_at", str)
        try:
            moment = datetime.fromisoformat(launched_at)
        except ValueError:
            raise LogscopeError(f"{where}: 'launched_at' is not an ISO 8601 time") from None
        if moment.tzinfo is None:
            raise LogscopeError(f"{where}: 'launched_at' has no UTC offset")
        rotated = data.get("rotated_to")
        if rotated is not None and not isinstance(rotated, str):
            raise LogscopeError(f"{where}: 'rotated_to' must be a string or null")
        version = data.get("schema_version", RECORD_SCHEMA)
        if version != RECORD_SCHEMA:
            raise LogscopeError(f"{where}: schema_version {version!r} is not {RECORD_SCHEMA}")
        return cls(
            pid=pid,
            argv=tuple(argv),
            cwd=need("cwd", str),
            env=dict(env),
            launched_at=launched_at,
            host=need("host", str),
            log=need("log", str),
            rotated_to=rotated,
        )


record_path = launch_record_path


def read_record(log: str | os.PathLike[str]) -> LaunchRecord | None:
    """The launch record beside ``log``: ``None`` when there is none; an error when it is bad."""
    path = record_path(log)
    raw = launch_record_bytes(log)  # the one reader, shared with check
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise LogscopeError(f"{path}: not valid JSON ({str(exc)[:80]})") from None
    why = shape_problem(data)
    if why is not None:
        raise LogscopeError(f"{path}: refused as a launch record: it {why}")
    return LaunchRecord.from_dict(data, where=str(path))


def write_record(record: LaunchRecord, path: str | os.PathLike[str]) -> Path:
    """Write the record atomically: a temporary file of a fresh random name, created with
    ``O_EXCL`` (``mkstemp``: a symlink planted at the name is never followed), renamed over
    the target. :class:`LogscopeError` in one line when it cannot (full disk, permissions)."""
    target = Path(path)
    data = (json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise LogscopeError(f"{target}: cannot write the launch record ({_why(exc)})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target


def _why(exc: OSError) -> str:
    """An OSError in a few words (ENOSPC, EACCES, ELOOP, ... by their message)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link is in the way; logscope does not follow it"
    return exc.strerror or str(exc)


def relevant_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables that matter to a launch, secrets redacted."""
    out: dict[str, str] = {}
    for name in sorted(env):
        if name in ENV_NAMES or name.startswith(ENV_PREFIXES):
            out[name] = REDACTED if _SECRET.search(name) else env[name]
    return out


def now_iso() -> str:
    """The local time now, ISO 8601 with its UTC offset, to the millisecond."""
    return datetime.now().astimezone().isoformat(timespec="milliseconds")


# ------------------------------------------------------------------------------ rotation


def rotate(log: str | os.PathLike[str], keep: int) -> Path | None:
    """Move ``log`` aside to ``log.1`` (shifting ``log.1`` → ``log.2`` ... up to ``log.N``).

    Never deletes: when ``log.N`` is taken, nothing moves and :class:`LogscopeError` is raised.
    An empty log is left alone (nothing to keep). The launch record of each log moves with it
    (``log.launch.json`` → ``log.1.launch.json``). Returns where the old log went, or ``None``.
    """
    path = Path(log)
    if keep < 1:
        raise LogscopeError("--keep must be at least 1 (logs are never deleted)")
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LogscopeError(f"{path}: cannot read ({_why(exc)})") from None
    if stat.S_ISLNK(st.st_mode):
        raise LogscopeError(f"{path}: is a symbolic link; logscope does not follow it")
    if not stat.S_ISREG(st.st_mode):
        raise LogscopeError(f"{path}: exists and is not a regular file")
    if st.st_size == 0:
        return None
    slots = [path.with_name(f"{path.name}.{i}") for i in range(1, keep + 1)]
    # a slot is taken by its log or by its record alone (a stale record is never paired with
    # a newer log: it moves up with its slot)
    free = next((i for i, slot in enumerate(slots) if not _taken(slot)), None)
    if free is None:
        raise LogscopeError(
            f"{slots[-1]} exists: all {keep} rotation slot(s) are taken and logs are never deleted; "
            f"move old logs away or raise --keep"
        )
    # Shift log.(k) → log.(k+1) from the first free slot down, then log → log.1.
    for i in range(free, 0, -1):
        _move(slots[i - 1], slots[i])
    _move(path, slots[0])
    return slots[0]


def _taken(slot: Path) -> bool:
    return os.path.lexists(slot) or os.path.lexists(record_path(slot))


def _move(src: Path, dst: Path) -> None:
    """``src`` and its record to ``dst``, never over an existing file: a hard link (which fails
    if ``dst`` exists, with no gap between a check and the move) then the old name removed;
    where the file system has no hard links, a check and a rename. A slot holding only a
    record (its log gone) moves as it is."""
    try:
        if os.path.lexists(src):
            _move_no_replace(src, dst)
        src_record, dst_record = record_path(src), record_path(dst)
        if os.path.lexists(src_record):
            _move_no_replace(src_record, dst_record)
    except FileExistsError:
        raise LogscopeError(f"{dst} appeared during rotation; nothing more was moved") from None
    except OSError as exc:
        raise LogscopeError(f"cannot move {src} to {dst} ({_why(exc)})") from None


def _move_no_replace(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EMLINK):
            raise
        if os.path.lexists(dst):
            raise FileExistsError(dst) from None
        os.rename(src, dst)
        return
    os.unlink(src)


# ------------------------------------------------------------------------------ pre-flight


def run_preflight(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, here: bool = False
) -> Preflight:
    """The pre-flight of this launch (``logscope preflight`` on its command). One call.

    A command that runs elsewhere (ssh, pct exec, ...) is not judged against this machine
    unless ``here``: the result names where it runs and the pre-flight to run there.
    """
    return preflight(shlex.join(argv), env=env, cwd=cwd, base_dir=cwd, here=here)


def preflight_blocks(result: Preflight) -> bool:
    """Errors stop a launch (warnings are shown); ``--force`` launches anyway. A command that
    runs elsewhere is not blocked for that (PF019 says where, and what to run there)."""
    return any(f.severity is Severity.ERROR and f.code != "PF019" for f in result.findings)


# ------------------------------------------------------------------------------ starting


@record(frozen=False)
class Launched:
    """A started server: its process, its record, and where the old log went."""

    process: subprocess.Popen[bytes] = field(repr=False)
    record: LaunchRecord
    log: Path
    record_file: Path
    rotated_to: Path | None

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None


def resolve_program(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> str:
    """The executable ``argv[0]`` names, or :class:`LogscopeError` (checked before any move)."""
    if not argv:
        raise LogscopeError(
            "no command to launch: put it after '--', e.g. logscope launch -- python -m sglang.launch_server ..."
        )
    program = argv[0]
    if os.sep in program:
        full = program if os.path.isabs(program) else str(cwd / program)
        if not (os.path.isfile(full) and os.access(full, os.X_OK)):
            raise LogscopeError(f"{program}: not an executable file")
        return full
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        raise LogscopeError(f"{program}: command not found on PATH")
    return found


def start(
    argv: Sequence[str],
    log: str | os.PathLike[str],
    *,
    keep: int = 5,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Launched:
    """Rotate the old log, start ``argv`` detached with its output in ``log``, write the record."""
    environ = dict(os.environ if env is None else env)
    workdir = Path(cwd) if cwd is not None else Path.cwd()
    resolve_program(argv, environ, workdir)
    log_path = Path(log)
    if not log_path.is_absolute():
        log_path = workdir / log_path
    if not log_path.parent.is_dir():
        raise LogscopeError(f"{log_path.parent}: no such directory for the log")
    with launch_lock(log_path):
        _refuse_if_served(log_path)
        return _start_locked(argv, log_path, keep, environ, workdir)


def _refuse_if_served(log: Path) -> None:
    """A server started by ``launch`` holds an exclusive ``flock`` on its log for as long as it
    runs (the lock is taken on the open file it writes, which it inherits): while it does,
    a second launch onto the same log is refused in one line instead of sharing the file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(log, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # no log yet (or a link, refused by the rotation with its own line)
    try:
        if not _try_lock(fd):
            raise LogscopeError(
                f"{log}: a server started by logscope launch still writes this log (it holds its "
                "lock); stop it first, or launch with another --log"
            )
    finally:
        os.close(fd)  # (closing our descriptor releases our own lock, if we got it)


def _try_lock(fd: int) -> bool:
    """An exclusive, non-blocking ``flock`` on ``fd``: False when another holds one."""
    try:
        # platform: fcntl exists on POSIX only
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks
        return True
    return True


@contextlib.contextmanager
def launch_lock(log: Path) -> Iterator[None]:
    """An exclusive lock per log (``LOG.launch.lock``, never removed): two launches onto one
    log at once would rotate each other's log and overwrite each other's record."""
    path = Path(os.fspath(log) + ".launch.lock")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise LogscopeError(f"{path}: cannot create the launch lock ({_why(exc)})") from None
    try:
        try:
            # platform: fcntl exists on POSIX only
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            raise LogscopeError(
                f"{log}: another logscope launch is starting a server on this log; try again"
            ) from None
        yield
    finally:
        os.close(fd)


def _start_locked(
    argv: Sequence[str], log_path: Path, keep: int, environ: dict[str, str], workdir: Path
) -> Launched:
    rotated = rotate(log_path, keep)
    record_file = record_path(log_path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
    try:  # never through a symlink: a dangling --log link would create its target
        fd = os.open(log_path, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise LogscopeError(f"{log_path}: cannot open the log ({_why(exc)})") from None
    try:
        if not _try_lock(fd):  # the server inherits the lock with the file: held while it runs
            raise LogscopeError(f"{log_path}: another process holds this log's lock; not launched")
        launched_at = now_iso()
        try:
            process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.STDOUT,
                cwd=workdir,
                env=environ,
                start_new_session=True,  # its own session: the terminal's Ctrl-C and hangup miss it
                close_fds=True,
            )
        except OSError as exc:
            raise LogscopeError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    record = LaunchRecord(
        pid=process.pid,
        argv=tuple(argv),
        cwd=str(workdir),
        env=relevant_env(environ),
        launched_at=launched_at,
        host=socket.gethostname(),
        log=str(log_path),
        rotated_to=str(rotated) if rotated else None,
    )
    try:
        write_record(record, record_file)
    except LogscopeError as exc:
        _stop(process)  # a server nobody can find again is worse than none
        raise LogscopeError(f"{exc}; stopped the server it started (pid {process.pid})") from None
    return Launched(process, record, log_path, record_file, rotated)


def _stop(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """Terminate the server's process group (it runs in its own session), then kill it."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        with contextlib.suppress(OSError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def confirm_alive(launched: Launched, wait: float = 1.0, poll: float = 0.05) -> int | None:
    """Wait up to ``wait`` seconds: ``None`` if still running, else its exit code."""
    deadline = time.monotonic() + wait
    while True:
        code = launched.process.poll()
        if code is not None:
            return code
        if time.monotonic() >= deadline:
            return None
        time.sleep(poll)


def tail(path: str | os.PathLike[str], lines: int = 20, max_bytes: int = 64 << 10) -> list[str]:
    """The last lines of a file, decoded and cleaned as the parser does."""

    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return []
    parts = data.split(b"\n")
    if size > max_bytes:
        parts = parts[1:]
    if parts and parts[-1] == b"":
        parts.pop()
    return [decode_line(p) for p in parts[-lines:]]
