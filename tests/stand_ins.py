"""Stand-ins the tests start: SGLang's ``launch_server`` (:func:`stand_in_env`, the environment
where ``python -m sglang.launch_server`` is ``fake_sglang_server.py``) and an S3 endpoint on
127.0.0.1 (:func:`moto_s3`, moto's ``ThreadedMotoServer``), and a free loopback port."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

#: Credentials for moto only (never a real account); no metadata look-up leaves the machine.
AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def stand_in_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment without SGLang's, NCCL's and the stand-in's own variables,
    where ``python -m sglang.launch_server`` runs ``tests/fake_sglang_server.py`` (a shim
    package under ``tmp_path``), quick to start and holding on for a minute."""
    pkg = tmp_path / "shim" / "sglang"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "launch_server.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(TESTS)!r})\n"
        "from fake_sglang_server import main\n"
        "sys.exit(main())\n"
    )
    out = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SGLANG_", "NCCL_", "LOGSCOPE_FAKE_"))
    }
    out.update(
        PYTHONPATH=os.pathsep.join([str(tmp_path / "shim"), str(ROOT), str(TESTS / "netguard")]),
        LOGSCOPE_FAKE_DELAY="0.01",
        LOGSCOPE_FAKE_HOLD="60",
        CUDA_VISIBLE_DEVICES="0,1",
    )
    return out


@contextlib.contextmanager
def moto_s3(bucket: str, objects: Mapping[str, bytes]) -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1 holding ``objects`` (key → bytes) in ``bucket``; while it
    runs, this process's environment points boto/s3fs at it, and the environment that does is
    yielded (for a child process). Skips the test where the dev dependencies are missing."""
    server_mod = pytest.importorskip("moto.server", reason="dev dependency moto[s3] + flask")
    pytest.importorskip("s3fs", reason="dev dependency s3fs")
    # test helper: fsspec loads only where an S3 test runs
    import fsspec

    port = free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {**AWS, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        fs = fsspec.filesystem("s3", skip_instance_cache=True)
        fs.mkdir(bucket)
        for key, data in objects.items():
            fs.pipe(f"{bucket}/{key}", data)
        fsspec.filesystem("s3").clear_instance_cache()
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()
