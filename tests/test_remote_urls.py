"""Logs named by URL, read for real (issue #16, item 2): ``s3://`` from a local S3-compatible
server (moto's ``ThreadedMotoServer``, through s3fs), ``http://`` and ``https://`` from a local
``http.server`` (fsspec's HTTP filesystem, through aiohttp; https with a self-signed
certificate made here) — ``read_log``, ``summarize_file`` and the CLI, each equal to the plain
file. The dev dependencies (moto, flask, s3fs, aiohttp) are what a skip names; ``gs://`` is
not exercised (no local GCS server; see docs/user-guide.md)."""

from __future__ import annotations

import gzip
import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stand_ins import moto_s3

from sglang_logscope import read_log
from sglang_logscope.errors import InputError
from sglang_logscope.log.reader import summarize_file, summarize_source

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "demo" / "sglang-serve.log"
REAL = ROOT / "fixtures" / "real" / "069" / "server.log"
BUCKET = "sglang-logs"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **env},
        timeout=120,
        check=False,
    )


def _plain(path: Path) -> dict[str, Any]:
    data = summarize_source(str(path))
    data.pop("log")
    return data


def _without_log(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "log"}


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A local S3 endpoint holding the demo log (plain and gzipped) and a real corpus log;
    yields the environment that points boto/s3fs at it (``AWS_ENDPOINT_URL``)."""
    objects = {
        "demo/sglang-serve.log": LOG.read_bytes(),
        "demo/sglang-serve.log.gz": gzip.compress(LOG.read_bytes()),
        "real/069.log": REAL.read_bytes(),
    }
    with moto_s3(BUCKET, objects) as env:
        yield env


def test_read_log_and_summarize_file_from_s3(s3: dict[str, str]) -> None:
    url = f"s3://{BUCKET}/demo/sglang-serve.log"
    log = read_log(url)
    local = read_log(str(LOG))
    assert log.name == url
    assert [e.to_dict() for e in log.events] == [e.to_dict() for e in local.events]
    assert [r.failure.kind.value for r in log.runs if r.failure] == ["not_enough_memory"]
    assert _without_log(summarize_file(url)) == _plain(LOG)
    assert _without_log(summarize_file(f"{url}.gz")) == _plain(LOG)  # gzip by name
    assert _without_log(summarize_file(f"s3://{BUCKET}/real/069.log")) == _plain(REAL)


def test_cli_summary_and_check_on_s3(s3: dict[str, str]) -> None:
    url = f"s3://{BUCKET}/demo/sglang-serve.log"
    out = _cli("summary", "-f", "json", url, env=s3)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["log"] == url and _without_log(data) == _plain(LOG)
    text = _cli("summary", url, env=s3)
    assert text.returncode == 0 and "not_enough_memory" in text.stdout
    checked = _cli("check", "-f", "json", "-e", str(LOG.parent / "command.txt"), url, env=s3)
    assert checked.returncode == 1 and json.loads(checked.stdout)["verdict"] == "mismatch"


def test_a_missing_s3_object_is_one_line_and_exit_2(s3: dict[str, str]) -> None:
    with pytest.raises(InputError, match="no such object"):
        read_log(f"s3://{BUCKET}/nope.log")
    out = _cli("summary", f"s3://{BUCKET}/nope.log", env=s3)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "no such object" in out.stderr and "Traceback" not in out.stderr


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(directory: Path, tls: ssl.SSLContext | None = None) -> http.server.ThreadingHTTPServer:
    def handler(*args: Any, **kwargs: Any) -> _Quiet:
        return _Quiet(*args, directory=str(directory), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("aiohttp", reason="dev dependency aiohttp (fsspec's HTTP filesystem)")
    root = tmp_path_factory.mktemp("www")
    shutil.copyfile(LOG, root / "sglang-serve.log")
    (root / "sglang-serve.log.gz").write_bytes(gzip.compress(LOG.read_bytes()))
    return root


def test_read_log_and_summarize_file_over_http(served: Path) -> None:
    server = _serve(served)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        log = read_log(f"{base}/sglang-serve.log")
        assert [e.to_dict() for e in log.events] == [e.to_dict() for e in read_log(str(LOG)).events]
        assert _without_log(summarize_file(f"{base}/sglang-serve.log.gz")) == _plain(LOG)
        with pytest.raises(InputError, match="no such object"):
            read_log(f"{base}/nope.log")
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(InputError, match=r"cannot open .*Cannot connect"):  # nobody listens
        read_log(f"{base}/sglang-serve.log")


def _certificate(where: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl), the one this test's client trusts."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate for the https test")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def test_cli_summary_over_https(served: Path, tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server = _serve(served, tls)
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}/sglang-serve.log"
        out = _cli("summary", "-f", "json", url, env={"SSL_CERT_FILE": str(cert)})
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["log"] == url and _without_log(data) == _plain(LOG)
        # without trusting the certificate: refused, in one line
        untrusted = _cli("summary", url, env={"SSL_CERT_FILE": os.devnull})
        assert untrusted.returncode == 2 and untrusted.stderr.count("\n") == 1
        assert "Traceback" not in untrusted.stderr
        # what failed, not "no such object" (fsspec reports both as FileNotFoundError)
        assert "cannot open" in untrusted.stderr and "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
        gone = _cli(
            "summary", url.replace("sglang-serve", "nope"), env={"SSL_CERT_FILE": str(cert)}
        )
        assert gone.returncode == 2 and "no such object" in gone.stderr
    finally:
        server.shutdown()


NOISY = """
import logging, sys
import fsspec
from fsspec.spec import AbstractFileSystem

class Noisy(AbstractFileSystem):
    protocol = "noisy"

    def _open(self, path, mode="rb", **kwargs):
        try:
            raise ConnectionError("cannot reach the store")
        except ConnectionError as exc:  # what gcsfs does when it runs out of retries
            logging.getLogger("noisy").exception("_request out of retries on exception")
            raise OSError("cannot reach the store") from exc

fsspec.register_implementation("noisy", Noisy)
from sglang_logscope.cli import main
main(["summary", "noisy://bucket/server.log"])
"""


def test_a_backend_logging_its_retries_leaves_one_line_on_stderr() -> None:
    """gcsfs logs 'out of retries' with a traceback through Python's last-resort handler; the
    CLI's stderr is still its one line."""
    pytest.importorskip("fsspec")
    out = subprocess.run(
        [sys.executable, "-c", NOISY], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 2
    assert out.stderr == (
        "logscope: error: noisy://bucket/server.log: cannot open (cannot reach the store)\n"
    )
