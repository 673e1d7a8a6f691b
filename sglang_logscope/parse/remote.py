"""Logs named by URL (``s3://``, ``gs://``, ``https://``, ``memory://``, ...) through fsspec.

fsspec is the optional extra ``[remote]`` (``pip install 'sglang-logscope[remote]'``); each
object store needs its own fsspec backend as well (s3fs, gcsfs, aiohttp for https). Without
them the error says which package to install instead of "no such file". ``file://`` URLs are
read as the local path they name, without fsspec.
"""

from __future__ import annotations

import gzip
from typing import IO

import regex

from ..errors import InputError

#: ``scheme://`` at the start of a name (a Windows drive ``C:\\`` is not one).
_URL = regex.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,30}+://")


def is_url(name: str) -> bool:
    return _URL.match(name) is not None


def local_path(name: str) -> str | None:
    """The local path of a ``file://`` URL; ``None`` for other names."""
    if not name.lower().startswith("file://"):
        return None
    # start-up: urllib only for a file:// URL
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(name)
    if parts.netloc not in ("", "localhost"):
        raise InputError(f"{name}: a file:// URL on another host ({parts.netloc}) is not readable")
    return unquote(parts.path)


def open_url(name: str) -> IO[bytes]:
    """An open binary stream of the object at URL ``name`` (gzip-decompressed by name)."""
    try:
        # start-up: fsspec loads only for a URL
        import fsspec
    except ImportError:
        raise InputError(
            f"{name}: reading URLs needs fsspec: pip install 'sglang-logscope[remote]'"
        ) from None
    try:
        opened = fsspec.open(name, "rb", compression="infer")
        stream: IO[bytes] = opened.open()
    except ImportError as exc:  # the scheme's backend (s3fs, gcsfs, aiohttp) is missing
        raise InputError(f"{name}: {' '.join(str(exc).split())[:300]}") from None
    except FileNotFoundError as exc:
        why = _root_cause(exc)
        if why is None:  # the store answered: there is no such object
            raise InputError(f"{name}: no such object") from None
        # fsspec's HTTP filesystem reports a refused connection or an untrusted certificate
        # as FileNotFoundError too: say what failed instead
        raise InputError(f"{name}: cannot open ({_one_line(why)})") from None
    except (OSError, ValueError, gzip.BadGzipFile) as exc:
        raise InputError(f"{name}: cannot open ({_one_line(exc)})") from None
    return stream


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


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
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
