"""The live server's own arguments: the most direct proof of which launch is serving.

SGLang answers ``GET /server_info`` (``/get_server_info`` before it, deprecated but still
served in 0.5.9-0.5.23) with its resolved ``ServerArgs`` fields. When the intended command's
host is this machine (loopback only, unless a URL is given) and the port answers, the live
values are compared with the intended command's explicit arguments.
"""

from __future__ import annotations

import json
import socket
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .argdiff import same_value

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand

#: Hosts a launch binds that mean "this machine" (``0.0.0.0`` listens on loopback too).
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::", "::1", ""})
#: A server_info document larger than this is not read.
MAX_BYTES = 4 << 20
PATHS = ("/server_info", "/get_server_info")


@dataclass(frozen=True)
class ServerEvidence:
    """What the live server said: its URL, whether it answered, and each differing argument."""

    url: str
    reachable: bool
    arg_diff: tuple[dict[str, Any], ...] = ()
    matched: tuple[str, ...] = ()
    version: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "reachable": self.reachable,
            "arg_diff": [dict(d) for d in self.arg_diff],
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


def fetch_server_info(url: str, timeout: float) -> dict[str, Any]:
    """The server's ``server_info`` document; raises OSError/ValueError when it has none."""
    # start-up: urllib.request (http.client, email, ssl) is imported only once a port answers
    import urllib.error
    import urllib.request

    last: Exception | None = None
    for path in PATHS:
        try:
            with urllib.request.urlopen(url + path, timeout=timeout) as resp:
                body = resp.read(MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            last = exc
            continue
        if len(body) > MAX_BYTES:
            raise ValueError("server_info is too large")
        data = json.loads(body.decode("utf-8", "replace"))
        if not isinstance(data, dict):
            raise ValueError("server_info is not a JSON object")
        return data
    raise OSError(f"no server_info endpoint ({last})")


def server_evidence(
    intended: LaunchCommand | None, given: str | None = None, timeout: float = 0.5
) -> ServerEvidence | None:
    """Ask the live server for its arguments and diff them with the intended command."""
    url = server_url(intended, given)
    if url is None:
        return None
    if not url.startswith(("http://", "https://")):
        return ServerEvidence(url, False, error="only http:// and https:// URLs are asked")
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        return ServerEvidence(url, False, error=f"nothing answers ({exc.__class__.__name__})")
    try:
        info = fetch_server_info(url, timeout)
    except (OSError, ValueError) as exc:
        return ServerEvidence(url, False, error=" ".join(str(exc).split())[:200])
    diffs: list[dict[str, Any]] = []
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
                diffs.append({"arg": arg, "intended": want, "live": live})
    version = info.get("version")
    return ServerEvidence(
        url, True, tuple(diffs), tuple(matched), version if isinstance(version, str) else None
    )
