"""Logs named by URL (``s3://``, ``gs://``, ``https://``, ``memory://``, ...) through fsspec.

fsspec is the optional extra ``[remote]`` (``pip install 'sglang-logscope[remote]'``); each
object store needs its own fsspec backend as well (s3fs, gcsfs, aiohttp for https). Without
them the error says which package to install instead of "no such file". ``file://`` URLs are
read as the local path they name, without fsspec.
"""

from __future__ import annotations

from typing import IO, Any, cast

from ..errors import InputError
from ..netpolicy import (
    CHUNK,
    Deadline,
    NetPolicy,
    NetTimeout,
    aws_metadata_off,
    redact,
    secrets_in,
    url_policy,
)


def open_url(name: str) -> IO[bytes]:
    """An open binary stream of the object at URL ``name`` (gzip-decompressed by name), read
    under the network policy (:func:`..netpolicy.url_policy`): a connect and a total deadline,
    a byte cap, no redirect followed. Every failure is one :class:`InputError` line naming the
    URL with its credentials masked."""
    shown, known = redact(name), secrets_in(name)
    policy = url_policy()
    try:
        # start-up: fsspec loads only for a URL
        import fsspec
    except ImportError:
        raise InputError(
            f"{shown}: reading URLs needs fsspec: pip install 'sglang-logscope[remote]'"
        ) from None
    aws_metadata_off()
    deadline = Deadline(policy.total_s)
    try:
        opened = fsspec.open(name, "rb", compression="infer", **_options(name, policy))
        stream: IO[bytes] = opened.open()
    except ImportError as exc:  # the scheme's backend (s3fs, gcsfs, aiohttp) is missing
        raise InputError(f"{shown}: {_one_line(exc, known)}") from None
    except FileNotFoundError as exc:
        why = _root_cause(exc)
        if why is None:  # the store answered: there is no such object
            raise InputError(f"{shown}: no such object") from None
        # fsspec's HTTP filesystem reports a refused connection or an untrusted certificate
        # as FileNotFoundError too: say what failed instead
        raise InputError(f"{shown}: cannot open ({_one_line(why, known)})") from None
    except Exception as exc:  # any backend's error (botocore, zipfile, aiohttp) is the URL's
        raise InputError(f"{shown}: cannot open ({_one_line(exc, known)})") from None
    return cast(IO[bytes], _Bounded(stream, shown, policy, deadline, known))


def _options(name: str, policy: NetPolicy) -> dict[str, Any]:
    """Each backend's own form of the policy's deadlines (and no redirect followed)."""
    scheme = name.split("://", 1)[0].lower()
    if scheme in ("http", "https"):
        # start-up: aiohttp only for an http(s) URL (fsspec's HTTP backend needs it anyway)
        import aiohttp

        timeout = aiohttp.ClientTimeout(
            total=policy.total_s, sock_connect=policy.connect_s, sock_read=policy.connect_s
        )
        client = {"timeout": timeout, "raise_for_status": _no_redirect}
        return {"client_kwargs": client, "allow_redirects": False}
    if scheme in ("s3", "s3a"):
        retries = {"max_attempts": 1}
        config = {
            "connect_timeout": policy.connect_s,
            "read_timeout": policy.connect_s,
            "retries": retries,
        }
        return {"config_kwargs": config}
    return {}


async def _no_redirect(response: Any) -> None:
    """aiohttp's check of each answer: a redirect is not followed, and its body is no log."""
    if 300 <= response.status < 400:
        where = redact(str(response.headers.get("Location", "?")))[:200]
        raise OSError(f"HTTP {response.status}: redirected to {where}; redirects are not followed")


class _Bounded:
    """A URL's stream under the policy: past the total deadline or the byte cap, one line."""

    def __init__(
        self,
        inner: IO[bytes],
        shown: str,
        policy: NetPolicy,
        deadline: Deadline,
        known: tuple[str, ...],
    ) -> None:
        self._inner = inner
        self._known = known
        self._shown = shown
        self._policy = policy
        self._deadline = deadline
        self._seen = 0
        self.name = shown

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:  # all of it: chunk by chunk, each under the policy
            parts = []
            while chunk := self._chunk(CHUNK):
                parts.append(chunk)
            return b"".join(parts)
        return self._chunk(min(size, CHUNK))

    def _chunk(self, want: int) -> bytes:
        if self._deadline.expired():
            raise NetTimeout(
                f"{self._shown}: not read in {self._policy.total_s:g} s; "
                "LOGSCOPE_URL_TIMEOUT=SECONDS allows longer"
            )
        try:
            data = self._inner.read(want)
        except InputError:
            raise
        except Exception as exc:  # a backend's timeout or reset mid-read
            raise InputError(
                f"{self._shown}: read failed ({_one_line(exc, self._known)})"
            ) from None
        self._seen += len(data)
        if self._seen > self._policy.max_bytes:
            raise NetTimeout(
                f"{self._shown}: more than {self._policy.max_bytes >> 20} MiB; "
                "LOGSCOPE_URL_MAX_MB=MIB allows more"
            )
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> _Bounded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: HTTP statuses that mean the object is not there.
_GONE = (404, 410)


def _root_cause(exc: BaseException) -> BaseException | None:
    """The first exception under ``exc`` that is not a FileNotFoundError nor an HTTP 404/410;
    ``None`` when the chain holds only those (an answer of "not found")."""
    seen = 0
    cause = exc.__cause__
    while cause is not None and seen < 20:
        if not isinstance(cause, FileNotFoundError) and getattr(cause, "status", 0) not in _GONE:
            return cause
        cause, seen = cause.__cause__, seen + 1
    return None


def _one_line(exc: BaseException, known: tuple[str, ...] = ()) -> str:
    text = redact(" ".join(str(exc).split()), known)[:300]
    return text or type(exc).__name__


def list_url(prefix: str, recursive: bool = False) -> list[str]:
    """The objects under URL ``prefix`` (ending in ``/``: its objects, with ``recursive``
    those of its sub-prefixes too) or matching URL glob ``prefix``, as URLs, sorted."""
    try:
        # start-up: fsspec loads only for a URL
        from fsspec.core import url_to_fs
    except ImportError:
        raise InputError(
            f"{prefix}: listing URLs needs fsspec: pip install 'sglang-logscope[remote]'"
        ) from None
    try:
        fs, path = url_to_fs(prefix)
        if prefix.endswith("/"):
            found = fs.find(path, maxdepth=None if recursive else 1)
        else:
            found = fs.glob(path)
    except ImportError as exc:  # the scheme's backend is missing
        raise InputError(f"{prefix}: {' '.join(str(exc).split())[:300]}") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{prefix}: cannot list ({_one_line(exc)})") from None
    return sorted(fs.unstrip_protocol(p) for p in found)
