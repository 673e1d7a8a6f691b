"""Whether a log's name is a URL, and the local path of a ``file://`` URL: what every read
asks first. Apart from :mod:`.remote` (fsspec and the network policy's sockets) so that a log
on disk does not load them (start-up: ``logscope check``, issue 33, 2)."""

from __future__ import annotations

from .._text import lazy_regex
from ..errors import InputError

#: ``scheme://`` at the start of a name (a Windows drive ``C:\\`` is not one).
_URL = lazy_regex(r"[A-Za-z][A-Za-z0-9+.-]{1,30}+://")


def is_url(name: str) -> bool:
    return "://" in name and _URL.match(name) is not None


def local_path(name: str) -> str | None:
    """The local path of a ``file://`` URL; ``None`` for other names."""
    if not name.lower().startswith("file://"):
        return None
    # start-up: urllib and the network policy's redaction only for a file:// URL
    from urllib.parse import unquote, urlsplit

    from ..netpolicy import redact

    parts = urlsplit(name)
    if parts.netloc not in ("", "localhost"):
        raise InputError(
            f"{redact(name)}: a file:// URL on another host ({parts.netloc}) is not readable"
        )
    return unquote(parts.path)
