"""``--redact``: an output with what identifies a machine or a person replaced by placeholders.

Applied to the final text of a command (``check`` in every format, ``report --html`` and
``--markdown``), so every form is covered by the one function :func:`redact_text`. Replaced,
consistently (the same value is the same placeholder everywhere in the output):

- URL credentials (``scheme://user:pass@`` → ``scheme://cred-1@``) and tokens: ``hf_...``,
  ``sk-...``, ``Bearer ...``, AWS access key ids (``AKIA...``/``ASIA...``) → ``token-1``;
- IPv4 and IPv6 addresses → ``ip-1`` (loopback and unspecified addresses stay: they name no
  machine);
- host names (public sites logs cite, :data:`_PUBLIC`, stay): a URL's host, a fully qualified name under a common top-level domain, and every
  name the text itself gives a host (``host=``, ``--host``, ``dist_init_addr``, NCCL's
  ``HOST:PID:TID`` prefix) wherever it appears → ``host-1`` (``localhost`` stays);
- container ids (12 or 64 lower-case hex digits, holding a digit and a letter) →
  ``container-1``;
- user home directories ``/home/NAME`` and ``/Users/NAME`` → ``/home/user-1`` (``/root`` stays),
  and NAME wherever else it is a path's segment (``/opt/NAME/``).

Every pattern is linear (possessive or bounded); a placeholder is never replaced again, so
redacting twice changes nothing.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import sys
from collections.abc import Iterator

import regex

__all__ = ["Redactor", "redact_text", "redacted_stdout"]

_PLACEHOLDER = regex.compile(r"(?:host|ip|container|token|user|cred)-\d++")
_KEEP_HOSTS = frozenset({"localhost", "localhost.localdomain", "0.0.0.0", "127.0.0.1", "::"})
#: Values a ``host=`` prints that name no host (Python's and JSON's literals).
_NO_HOST = frozenset({"none", "null", "true", "false", "auto"})
#: Public sites logs cite (documentation, model hubs): named as they are, they identify no one.
_PUBLIC = (
    "github.com",
    "githubusercontent.com",
    "pytorch.org",
    "huggingface.co",
    "hf.co",
    "nvidia.com",
    "sglang.ai",
    "python.org",
    "tiangolo.com",
    "readthedocs.io",
)

_URL_CRED = regex.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,30}+://)([^/@\s?#'\"<>]{1,2048}+)@")
_TOKENS = regex.compile(
    r"\b(?:hf_[A-Za-z0-9]{16,256}+|sk-[A-Za-z0-9_-]{16,256}+|(?:AKIA|ASIA)[0-9A-Z]{16})\b"
    r"|(?<=\bBearer\s{1,8}+)[A-Za-z0-9._~+/=-]{8,4096}+"
)
_HOME = regex.compile(r"(?<=/(?:home|Users)/)[^/\s'\"<>:;,)\]}]{1,256}+")
_URL_HOST = regex.compile(
    r"(?i)(?<=\b[a-z][a-z0-9+.-]{0,30}://(?:[^/@\s]{1,300}@)?)[a-z0-9_-][a-z0-9_.-]{0,252}+"
)
_TLDS = (
    "com|net|org|io|ai|dev|cloud|internal|local|lan|localdomain|cluster|svc|corp|intra|"
    "edu|gov|arpa|uk|de|fr|jp|cn|us|ru|kr|nl|se|ch|it|es|ca|au|br|tw|sg|hk"
)
_FQDN = regex.compile(
    r"(?i)(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}+(?<=[a-z0-9]))?\.){1,20}+(?:"
    + _TLDS
    + r")(?![\w-])"
)
#: Names the text gives a host: ``host='x'``, ``--host x``, ``dist_init_addr='x:5000'``, NCCL.
_NAMED_HOST = regex.compile(
    r"(?i)(?:\bhost(?:name)?['\"]?\s{0,4}+[=:]\s{0,4}+['\"]?|--host[= ]['\"]?"
    r"|\bdist[_-]init[_-]addr['\"]?[= ]\s{0,4}+['\"]?)([A-Za-z0-9][A-Za-z0-9_.-]{0,252}+)"
    r"|(?m)^([A-Za-z][A-Za-z0-9_.-]{0,252}+):\d{1,10}+:\d{1,10}+ \[\d{1,4}+\] NCCL"
)
_CONTAINER = regex.compile(r"(?<![0-9A-Za-z])(?:[0-9a-f]{64}|[0-9a-f]{12})(?![0-9A-Za-z])")
_IPV4 = regex.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)(?![\w])")
_IPV6 = regex.compile(
    r"(?<![\w:.])(?=[0-9A-Fa-f]{0,4}+:[0-9A-Fa-f]{0,4}+:)[0-9A-Fa-f:]{2,39}+(?![\w:])"
)


class Redactor:
    """Placeholders handed out so far (kind → value → placeholder): one per output, so the
    same value is the same placeholder across the whole of it."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, str]] = {}

    def _name(self, kind: str, value: str) -> str:
        if _PLACEHOLDER.fullmatch(value):
            return value
        table = self.seen.setdefault(kind, {})
        if value not in table:
            table[value] = f"{kind}-{len(table) + 1}"
        return table[value]

    def _sub(self, pattern: regex.Pattern[str], kind: str, text: str, group: int = 0) -> str:
        def one(m: regex.Match[str]) -> str:
            value = m.group(group)
            if value is None or value in _KEEP_HOSTS:
                return m.group(0)
            if kind == "host" and _public(value):
                return m.group(0)
            if kind == "ip" and not _is_address(value):
                return m.group(0)
            if kind == "container" and not (_has_digit(value) and _has_letter(value)):
                return m.group(0)
            start, end = m.span(group)
            whole = m.group(0)
            return whole[: start - m.start()] + self._name(kind, value) + whole[end - m.start() :]

        return pattern.sub(one, text)

    def __call__(self, text: str) -> str:
        """``text`` redacted (every kind above, the same value to the same placeholder)."""
        text = self._sub(_URL_CRED, "cred", text, 2)
        text = self._sub(_TOKENS, "token", text)
        text = self._known_users(self._sub(_HOME, "user", text))
        for m in _NAMED_HOST.finditer(text):
            name = (m.group(1) or m.group(2) or "").rstrip(".")
            if name.lower() in _NO_HOST or name in _KEEP_HOSTS or _public(name):
                continue
            if name and not _is_address(name):
                self._name("host", name)
        text = self._known_hosts(text)
        text = self._sub(_URL_HOST, "host", text)
        text = self._sub(_FQDN, "host", text)
        text = self._sub(_IPV6, "ip", text)
        text = self._sub(_IPV4, "ip", text)
        return self._sub(_CONTAINER, "container", text)

    def _learnt(self, kind: str) -> str | None:
        """The names of ``kind`` learnt so far as one alternation, longest first (so that a
        name never stops short at a shorter one it starts with); None when there are none."""
        names = [n for n in self.seen.get(kind, {}) if not _PLACEHOLDER.fullmatch(n)]
        if not names:
            return None
        names.sort(key=len, reverse=True)
        return "|".join(regex.escape(n) for n in names)

    def _known_users(self, text: str) -> str:
        """Every user name learnt from a home directory, wherever it is a path's segment
        (``/opt/alice/venv``)."""
        names = self._learnt("user")
        if names is None:
            return text
        segment = regex.compile(r"(?<=/)(?:" + names + r")(?=/|[\s'\"]|$)")
        return self._sub(segment, "user", text)

    def _known_hosts(self, text: str) -> str:
        """Every host name learnt so far, wherever it stands as a whole word."""
        names = self._learnt("host")
        if names is None:
            return text
        words = regex.compile(
            r"(?<![\w.-])(" + names + r")(?:\.[A-Za-z0-9-]{1,63}+){0,20}+(?![\w-])"
        )
        # a name and its domain (``node3`` and ``node3.corp.example``) are one host
        return words.sub(lambda m: self._name("host", m.group(1)), text)


def redact_text(text: str) -> str:
    """``text`` with hosts, addresses, container ids, home directories, tokens and URL
    credentials replaced by consistent placeholders (see the module's docstring)."""
    return Redactor()(text)


def _is_address(value: str) -> bool:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified)


def _public(host: str) -> bool:
    host = host.lower()
    return any(host == p or host.endswith("." + p) for p in _PUBLIC)


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _has_letter(value: str) -> bool:
    return any(c.isalpha() for c in value)


#: The width text is laid out at while it is held for redaction: no line is folded.
UNWRAPPED_COLUMNS = 100_000


class _Held(io.StringIO):
    """The output held for redaction; ``columns``: the width a renderer lays it out at
    (``render.text.console`` asks a stream that is no terminal for it before ``COLUMNS``)."""

    columns = UNWRAPPED_COLUMNS


@contextlib.contextmanager
def redacted_stdout(enabled: bool = True) -> Iterator[None]:
    """Within the block, what is written to ``sys.stdout`` is held, then written redacted
    (one :class:`Redactor` for the whole output); a no-op when not ``enabled``. The held text
    is laid out unwrapped (the held stream says it is :data:`UNWRAPPED_COLUMNS` wide; the
    environment is left alone): a line folded at the terminal's width could split a host or
    an address the redactor must see whole. Pasted into an issue, long lines wrap there."""
    if not enabled:
        yield
        return
    real, held = sys.stdout, _Held()
    sys.stdout = held
    try:
        yield
    finally:
        sys.stdout = real
        real.write(redact_text(held.getvalue()))
        real.flush()
