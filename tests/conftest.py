"""Suite-wide guards.

- Every test gets its own (empty) scan-index directory: a check in one test never finds an
  index another test (or the user's own ``check``) left behind, and nothing is written into
  ``~/.cache``. Tests of the index itself (tests/test_scan_index.py) point it where they want.
- No test reaches past this machine: a socket connecting to an address that is not loopback
  (``127.0.0.0/8``, ``::1``) fails the test; Unix sockets are fine. Every Python process the
  test starts is held to it too (``netguard/sitecustomize.py``, through ``PYTHONPATH``). Botocore is told never to
  ask the cloud's instance-metadata address (169.254.169.254) for credentials; the setting is
  in the environment, so the CLI run in a child process inherits it.
- Property tests are derandomized: each run of the suite tries the same examples, so its result
  never depends on the run (issue 29: a flake-free suite). ``HYPOTHESIS_PROFILE=explore``
  searches afresh each run, with more examples, to look for new counterexamples. Every count of
  examples goes through ``examples()`` (``tests/examples.py``: the matrix suites' share), the
  default one included; ``tests/test_examples_share.py`` holds that.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import settings

#: A property that names no count tries Hypothesis' default 100 examples, at this suite's share;
#: no deadline: a result never depends on how fast an example ran (a loaded CI machine took
#: 268 ms over the default 200 ms on a first call, and the property failed as "flaky").
settings.register_profile("suite", derandomize=True, max_examples=examples(100), deadline=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))

os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
#: Every Python a test starts loads ``netguard/sitecustomize.py``: the same rule in the child.
_NETGUARD = str(Path(__file__).resolve().parent / "netguard")
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_NETGUARD, os.environ.get("PYTHONPATH", "")) if p
)


@pytest.fixture(autouse=True)
def _own_scan_index(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    where = tmp_path_factory.mktemp("scan-index")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(where))
    monkeypatch.delenv("LOGSCOPE_NO_CACHE", raising=False)
    return where


class NonLoopbackConnection(AssertionError):
    """A test opened a socket to an address that is not this machine."""


def _loopback_only(address: Any) -> None:
    if not isinstance(address, tuple) or not address:
        return  # AF_UNIX path (or an abstract name)
    host = str(address[0]).split("%", 1)[0]
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok:
        raise NonLoopbackConnection(f"a test connected to {host!r}: tests stay on loopback")


@pytest.fixture(autouse=True)
def _no_traffic_off_this_machine(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    log = tmp_path_factory.mktemp("netguard") / "connections.txt"
    monkeypatch.setenv("LOGSCOPE_NETGUARD_FILE", str(log))
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        _loopback_only(address)
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        _loopback_only(address)
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    yield
    if log.exists():  # a child process (the CLI, a helper) reached past loopback
        pytest.fail(
            f"a process of this test left loopback: {log.read_text(encoding='utf-8')[:500]}"
        )


@pytest.fixture()
def stale_log(tmp_path: Path) -> Path:
    """The demo's log, dated when its stale run last wrote (before the demo launch in any zone)."""
    log = tmp_path / "sglang-serve.log"
    demo = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
    log.write_bytes((demo / "sglang-serve.log").read_bytes())
    stamp = 1778318312  # 2026-05-09 09:18:32 UTC: before the launch whatever the zone offset
    os.utime(log, (stamp, stamp))
    return log
