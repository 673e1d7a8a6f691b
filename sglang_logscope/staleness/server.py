"""The live server's own arguments: the most direct proof of which launch is serving.

SGLang answers ``GET /server_info`` (``/get_server_info`` before it, deprecated but still
served in 0.5.9-0.5.23) with its resolved ``ServerArgs`` fields. When the intended command's
host is this machine and the port answers, the live values are compared with the intended
command's explicit arguments. The probe follows the network policy (:mod:`..netpolicy`):
loopback addresses only (a ``--server`` URL too), a 0.5 s connect and a 2 s total deadline, a
4 MiB cap, no redirect followed. A port that accepts but does not answer in time is a finding
(LS052), and the check goes on.
"""

from __future__ import annotations

import json
import socket
import urllib.parse
from typing import TYPE_CHECKING, Any

from .._record import record
from ..netpolicy import PROBE, NetPolicy, NetTimeout, http_get_loopback, is_loopback, redact
from .argdiff import same_value

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand

#: Hosts a launch binds that mean "this machine" (``0.0.0.0`` listens on loopback too).
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::", "::1", ""})
#: A server_info document larger than this is not read (the probe's byte cap).
MAX_BYTES = PROBE.max_bytes
PATHS = ("/server_info", "/get_server_info")


@record
class LiveArgDiff:
    """One explicit argument of yours the live server runs with another value."""

    arg: str
    intended: Any
    live: Any

    def to_dict(self) -> dict[str, Any]:
        return {"arg": self.arg, "intended": self.intended, "live": self.live}


@record
class ServerEvidence:
    """What the live server said: its URL, whether it answered, and each differing argument."""

    url: str
    reachable: bool
    arg_diff: tuple[LiveArgDiff, ...] = ()
    matched: tuple[str, ...] = ()
    version: str | None = None
    error: str | None = None
    silent: bool = False  # something accepted but answered nothing usable in time (LS052)

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "reachable": self.reachable,
            "arg_diff": [d.to_dict() for d in self.arg_diff],
            "matched": list(self.matched),
            "version": self.version,
            "error": self.error,
        }


def server_url(intended: LaunchCommand | None, given: str | None) -> str | None:
    """The URL to ask: the one given, else the intended launch's port when it is local."""
    if given:
        return given.rstrip("/")
    if intended is None:
        return None
    host = str(intended.args.get("host") or "127.0.0.1")
    port = intended.args.get("port")
    if host not in LOCAL_HOSTS or not isinstance(port, int):
        return None
    return f"http://127.0.0.1:{port}"


def fetch_server_info(url: str, policy: NetPolicy | None = None) -> dict[str, Any]:
    """The server's ``server_info`` document, read under the network policy (loopback only,
    one total deadline, a byte cap, no redirect followed); raises NetTimeout past the deadline
    or the cap, OSError/ValueError when there is no document."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "", parts.port or 80
    last = ""
    for path in PATHS:
        answer = http_get_loopback(host, port, path, policy or PROBE)
        if 300 <= answer.status < 400:
            where = redact(answer.headers.get("location", "?"))[:200]
            raise NetTimeout(f"redirected to {where}; redirects are not followed")
        if answer.status >= 400:
            last = f"HTTP {answer.status}"
            continue
        data = json.loads(answer.body.decode("utf-8", "replace"))
        if not isinstance(data, dict):
            raise ValueError("server_info is not a JSON object")
        return data
    raise OSError(f"no server_info endpoint ({last})")


def server_evidence(
    intended: LaunchCommand | None, given: str | None = None, policy: NetPolicy | None = None
) -> ServerEvidence | None:
    """Ask the live server for its arguments and diff them with the intended command."""
    url = server_url(intended, given)
    if url is None:
        return None
    url = redact(url)
    if not url.startswith("http://"):
        return ServerEvidence(url, False, error="only http:// URLs on this machine are asked")
    parts = urllib.parse.urlsplit(url)
    try:
        host, port = parts.hostname or "", parts.port or 80
    except ValueError:
        return ServerEvidence(url, False, error="not a valid URL")
    if not is_loopback(host):
        return ServerEvidence(url, False, error="only a loopback address (127.0.0.1, ::1) is asked")
    try:
        with socket.create_connection((host, port), timeout=(policy or PROBE).connect_s):
            pass
    except OSError as exc:
        return ServerEvidence(url, False, error=f"nothing answers ({exc.__class__.__name__})")
    try:
        info = fetch_server_info(url, policy)
    except NetTimeout as exc:
        return ServerEvidence(url, False, error=str(exc), silent=True)
    except (OSError, ValueError) as exc:
        return ServerEvidence(url, False, error=" ".join(str(exc).split())[:200])
    diffs: list[LiveArgDiff] = []
    matched: list[str] = []
    if intended is not None:
        for arg, want in intended.explicit_args().items():
            if arg not in info:
                continue
            live = info[arg]
            rewrite = intended.rewrites.get(arg)
            if same_value(want, live) or (rewrite is not None and same_value(rewrite[1], live)):
                matched.append(arg)
            else:
                diffs.append(LiveArgDiff(arg, want, live))
    version = info.get("version")
    return ServerEvidence(
        url, True, tuple(diffs), tuple(matched), version if isinstance(version, str) else None
    )
