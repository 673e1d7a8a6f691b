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
    except FileNotFoundError:
        raise InputError(f"{name}: no such object") from None
    except (OSError, ValueError, gzip.BadGzipFile) as exc:
        raise InputError(f"{name}: cannot open ({' '.join(str(exc).split())[:300]})") from None
    return stream
