"""Where a Python traceback printed into a log ends (issue 17).

A traceback is ``Traceback (most recent call last):``, its frames (``  File "...", line N``
and the indented source and ``^^^`` lines under them), then the exception line
(``pkg.SomeError: message``, whose message may run over more lines), and possibly a chain
(``During handling of the above exception ...`` / ``The above exception was the direct cause
...``) that opens the next traceback of the same record. Anything else ends it: a headed
line (the caller closes the block there), another program's log record (vLLM's
``INFO 03-29 18:12:39 file.py:190]``, a ``[transformers] ...`` tag), a second traceback that
no chain line joins, and, in a traceback cut short before its exception line (a pasted
excerpt), the first unindented line that is no exception line (a shell command, a note).
"""

from __future__ import annotations

from .._text import lazy_regex

#: Python's chain lines between the tracebacks of one record.
CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
TRACEBACK = "Traceback (most recent call last)"

_EXC_LINE = lazy_regex(r"(?P<type>[A-Za-z_][\w.]{0,200}+)(?::\s?(?P<msg>.*)|$)")
_BARE_EXC = ("Error", "Exception", "Interrupt", "Exit")
#: Another program's log record: vLLM's ``LEVEL MM-DD HH:MM:SS file.py:N]``, a timestamp
#: first (loguru, Rust's tracing, ``logging`` with asctime), glog / PyTorch c10
#: (``E0608 10:49:50.145396``, ``[W513 02:15:19.74 ...]``), torch's ``[rank0]:`` prefix, a
#: ``[library] `` tag (``[aiter] ``, ``[transformers] ``).
_FOREIGN_RECORD = lazy_regex(
    r"(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}"
    r"|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}"
    r"|\[?[IWEF]\d{4} \d{2}:\d{2}:\d{2}"
    r"|\[rank\d{1,6}+\]:"
    r"|\[[A-Za-z][\w.-]{0,30}+\] )"
)


def exception_line(line: str) -> tuple[str, str] | None:
    """``(type, message)`` when ``line`` reads as the exception line that ends a traceback
    (``KeyError: 'x'``, ``torch.OutOfMemoryError: ...``, a bare ``AssertionError``)."""
    if not line or line[:1] in (" ", "\t") or line.startswith((TRACEBACK, *CHAIN)):
        return None
    m = _EXC_LINE.match(line)
    if m is None:
        return None
    exc_type = m.group("type")
    if m.group("msg") is None and "." not in exc_type and not exc_type.endswith(_BARE_EXC):
        return None
    if not (exc_type[:1].isupper() or "." in exc_type):
        return None
    return exc_type, (m.group("msg") or "").strip()


def foreign_record(line: str) -> bool:
    """Does ``line`` open another program's log record (never part of a traceback)?"""
    return _FOREIGN_RECORD.match(line) is not None


def chained(content: list[str]) -> bool:
    """May a ``Traceback (most recent call last):`` line continue the block whose lines so
    far are ``content``? Only after a chain line (blank lines between), or right after a head
    line that announces it (``Exception in ModelRpcClient:``, ``X hit an exception:``)."""
    for i in range(len(content) - 1, -1, -1):
        prev = content[i].strip()
        if prev:
            return prev.startswith(CHAIN) or (i == 0 and prev.endswith(":"))
    return True
