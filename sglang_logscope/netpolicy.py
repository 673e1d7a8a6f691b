"""The one network policy: every read logscope makes over a network goes through here.

Two kinds of read exist: the live-server probe of ``check`` (``GET /server_info`` on this
machine's loopback) and a log named by URL (fsspec: ``https://``, ``s3://``, ``gs://``, ...).
Each has a connect deadline, a total deadline and a byte cap (:data:`PROBE`, :data:`URL`);
neither follows a redirect; the probe talks to loopback addresses only. A URL is shown with
its credentials masked (:func:`redact`): ``https://user:***@host/...``, and a presigned
query's signature as ``***``.

The URL limits can be raised (or lowered) for one run through the environment:
``LOGSCOPE_URL_TIMEOUT`` (total seconds, 1-86400), ``LOGSCOPE_URL_CONNECT_TIMEOUT``
(seconds, 0.1-600) and ``LOGSCOPE_URL_MAX_MB`` (MiB, 1-1048576). A value outside its range is
one line and exit 2.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from ._record import record
from ._text import lazy_regex
from .errors import InputError

_T = TypeVar("_T")

__all__ = [
    "CHUNK",
    "PROBE",
    "URL",
    "Deadline",
    "NetPolicy",
    "NetTimeout",
    "ProbeAnswer",
    "aws_metadata_off",
    "http_get_loopback",
    "is_loopback",
    "redact",
    "secrets_in",
    "url_policy",
]


@record
class NetPolicy:
    """Deadlines (seconds) and a byte cap for one network read."""

    connect_s: float
    total_s: float
    max_bytes: int


#: The live probe of ``check``: small, as a pre-flight must not wait on a local port.
PROBE = NetPolicy(connect_s=0.5, total_s=2.0, max_bytes=4 << 20)
#: A log read by URL: a log may be large and far away, but not endless or stalled.
URL = NetPolicy(connect_s=10.0, total_s=300.0, max_bytes=4 << 30)

#: Environment variable -> (field, lowest, highest, scale to the field's unit).
_ENV = {
    "LOGSCOPE_URL_TIMEOUT": ("total_s", 1.0, 86400.0, 1.0),
    "LOGSCOPE_URL_CONNECT_TIMEOUT": ("connect_s", 0.1, 600.0, 1.0),
    "LOGSCOPE_URL_MAX_MB": ("max_bytes", 1.0, 1048576.0, float(1 << 20)),
}

#: A read chunk: the deadline is checked at least this often.
CHUNK = 1 << 16


class NetTimeout(InputError):
    """A network read ran past its deadline or its byte cap."""


class Deadline:
    """A total deadline on the monotonic clock."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def expired(self) -> bool:
        return self.left() <= 0


def url_policy(env: dict[str, str] | None = None) -> NetPolicy:
    """:data:`URL`, with the ``LOGSCOPE_URL_*`` values of ``env`` (default: the process's)."""
    env = dict(os.environ) if env is None else env
    policy = URL
    for name, (field, low, high, scale) in _ENV.items():
        raw = env.get(name)
        if raw is None or not raw.strip():
            continue
        try:
            value = float(raw.strip()[:40])
        except ValueError:
            value = float("nan")
        if not low <= value <= high:  # NaN fails too
            raise InputError(f"{name} must be a number from {low:g} to {high:g}, not {raw[:40]!r}")
        if field == "max_bytes":
            policy = replace(policy, max_bytes=int(value * scale))
        elif field == "total_s":
            policy = replace(policy, total_s=value)
        else:
            policy = replace(policy, connect_s=value)
    return policy


def aws_metadata_off() -> None:
    """An ``s3://`` read must not reach the cloud's instance-metadata address (169.254.169.254)
    unless the user asked for it: botocore's credential chain is told to skip it, except where
    ``AWS_EC2_METADATA_DISABLED`` is already set (``false`` turns IMDS on deliberately)."""
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")


# -- redaction -------------------------------------------------------------------------

#: ``scheme://user:password@`` (the password part is masked; a user alone is kept).
_USERINFO = lazy_regex(
    r"(?i)\b([a-z][a-z0-9+.-]{0,30}+://)([^/@:\s?#]{0,256}+):[^/@\s?#]{0,2048}+@"
)
#: A lone ``scheme://token@host`` (one word before @, no colon): masked whole.
_TOKEN = lazy_regex(r"(?i)\b([a-z][a-z0-9+.-]{0,30}+://)[^/@:\s?#]{1,2048}+@")
#: Query parameters that carry a secret in presigned / SAS URLs.
_SECRET_PARAM = lazy_regex(
    r"(?i)([?&](?:x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|"
    r"x-goog-credential|signature|sig|token|access_token|key|password|secret)=)[^&#\s]{1,4096}+"
)


def secrets_in(url: str) -> tuple[str, ...]:
    """The secrets ``url`` carries (a password or token before ``@``, a signature in its query),
    so that a backend's message quoting them without the ``scheme://`` is masked too."""
    found: list[str] = []
    head = url.split("://", 1)[-1].split("/", 1)[0]
    if "@" in head:
        userinfo = head.rsplit("@", 1)[0]
        found.append(userinfo.split(":", 1)[1] if ":" in userinfo else userinfo)
    found.extend(m.group(0)[len(m.group(1)) :] for m in _SECRET_PARAM.finditer(url))
    return tuple(f for f in found if len(f) >= 3)


def redact(text: str, known: tuple[str, ...] = ()) -> str:
    """``text`` with every URL's credentials masked: ``user:***@``, ``***@`` for a token, and
    ``***`` for a signature or token in the query; each of ``known`` (:func:`secrets_in`)
    wherever it appears. Text without ``://`` or a known secret is returned as is."""
    for secret in known:
        text = text.replace(secret, "***")
    if "://" not in text:
        return text
    text = _USERINFO.sub(r"\1\2:***@", text)
    text = _TOKEN.sub(
        lambda m: m.group(0) if m.group(0).endswith(":***@") else f"{m.group(1)}***@", text
    )
    return _SECRET_PARAM.sub(r"\1***", text)


# -- the live probe --------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """Is ``host`` a literal loopback address (``127.0.0.0/8``, ``::1``)? Names are not resolved."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@record
class ProbeAnswer:
    """One HTTP answer: status, headers (lower-case names) and the body."""

    status: int
    headers: dict[str, str]
    body: bytes


def http_get_loopback(host: str, port: int, path: str, policy: NetPolicy = PROBE) -> ProbeAnswer:
    """``GET path`` from ``host:port`` over HTTP/1.0: loopback only, one connect deadline, one
    total deadline over the whole exchange, at most ``policy.max_bytes`` read, and no redirect
    followed (a 3xx is returned as it is). Raises :class:`NetTimeout` past the deadline or the
    cap, OSError when nothing answers, ValueError for an answer that is not HTTP."""
    if not is_loopback(host):
        raise ValueError(f"{host} is not a loopback address: the probe asks this machine only")
    deadline = Deadline(policy.total_s)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(min(policy.connect_s, policy.total_s))
        try:
            sock.connect((host.strip("[]"), port))
        except TimeoutError:
            raise NetTimeout(f"did not connect in {policy.connect_s:g} s") from None
        request = f"GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        _send(sock, request.encode("ascii"), deadline)
        raw = _receive(sock, deadline, policy)
    return _parse_answer(raw)


def _within(sock: socket.socket, deadline: Deadline, op: Callable[[], _T]) -> _T:
    """``op`` on ``sock`` in the time the deadline leaves; none left, or past it: NetTimeout."""
    left = deadline.left()
    if left <= 0:
        raise NetTimeout(f"did not answer in {deadline.seconds:g} s")
    sock.settimeout(left)
    try:
        return op()
    except TimeoutError:
        raise NetTimeout(f"did not answer in {deadline.seconds:g} s") from None


def _send(sock: socket.socket, data: bytes, deadline: Deadline) -> None:
    while data:
        sent = _within(sock, deadline, functools.partial(sock.send, data))
        data = data[sent:]


def _receive(sock: socket.socket, deadline: Deadline, policy: NetPolicy) -> bytes:
    """Everything until the peer closes, within the deadline and the cap."""
    parts: list[bytes] = []
    got = 0
    while True:
        chunk = _within(sock, deadline, functools.partial(sock.recv, CHUNK))
        if not chunk:
            return b"".join(parts)
        got += len(chunk)
        if got > policy.max_bytes:
            raise NetTimeout(f"sent more than {policy.max_bytes >> 20} MiB")
        parts.append(chunk)


def _parse_answer(raw: bytes) -> ProbeAnswer:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        head, sep, body = raw.partition(b"\n\n")
    lines = head.decode("iso-8859-1").splitlines()
    status_line = lines[0].split(None, 2) if lines else []
    if (
        len(status_line) < 2
        or not status_line[0].startswith("HTTP/")
        or not status_line[1].isdigit()
    ):
        raise ValueError("the answer is not HTTP")
    headers: dict[str, str] = {}
    for line in lines[1:200]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return ProbeAnswer(int(status_line[1]), headers, body)
