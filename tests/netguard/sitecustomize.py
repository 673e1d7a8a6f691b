"""Loaded by every Python the test suite starts (``tests/conftest.py`` puts this folder on
``PYTHONPATH``): a socket connecting to an address that is not loopback is refused (OSError)
and written to ``$LOGSCOPE_NETGUARD_FILE``, which the suite's fixture reads after each test and
fails the test on. The CLI run in a child process is held to the same rule as the test itself.

With ``$LOGSCOPE_CHILD_CPU_FILE`` set, each Python the suite starts appends its CPU seconds and
the test that started it (``PYTEST_CURRENT_TEST``) there as it exits: where a suite's time in
child interpreters goes (docs/performance.md, issue 33 item 6)."""

from __future__ import annotations

import atexit
import errno
import ipaddress
import os
import socket
from typing import Any


def _loopback(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX
    host = str(address[0]).split("%", 1)[0]
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refuse(address: Any) -> None:
    where = os.environ.get("LOGSCOPE_NETGUARD_FILE")
    if where:
        with open(where, "a", encoding="utf-8") as f:
            f.write(f"pid {os.getpid()} connected to {address!r}\n")
    raise OSError(errno.ENETUNREACH, f"tests stay on loopback: {address!r} refused")


_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not _loopback(address):
        _refuse(address)
    _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not _loopback(address):
        _refuse(address)
    return _connect_ex(self, address)


if os.environ.get("LOGSCOPE_NETGUARD_FILE"):
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


def _note_cpu(where: str) -> None:
    times = os.times()
    test = os.environ.get("PYTEST_CURRENT_TEST", "-")
    with open(where, "a", encoding="utf-8") as f:
        f.write(f"{times.user + times.system:.3f}\t{test}\n")


if os.environ.get("LOGSCOPE_CHILD_CPU_FILE"):
    atexit.register(_note_cpu, os.environ["LOGSCOPE_CHILD_CPU_FILE"])
