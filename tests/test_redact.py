"""``--redact``: hosts, addresses, container ids, home directories, tokens and URL credentials
replaced by consistent placeholders, in every output of ``check`` and ``report``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope._redact import Redactor, redact_text, redacted_stdout
from sglang_logscope.render.text import console
from tests.cli_run import run_cli, run_main

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"

#: One secret of each kind, as each appears in logs.
SECRETS = {
    "hf": "hf_AbCdEfGhIjKlMnOpQrStUvWx12",
    "sk": "sk-proj-ABCDEFGHIJKLMNOPqrst1234",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.payload.sig",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "ipv4": "10.12.3.47",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "container": "3f4e5d6c7b8a",
    "container64": "9" * 30 + "ab" * 17,
    "fqdn": "gpu-node-07.cluster.internal",
    "user": "alice",
    "password": "s3cr3tP4ss",
}
PLANTED = [
    SECRETS["hf"],
    SECRETS["sk"],
    "Authorization: Bearer " + SECRETS["bearer"],
    SECRETS["aws"],
    SECRETS["ipv4"],
    SECRETS["ipv6"],
    SECRETS["container"],
    SECRETS["container64"],
    SECRETS["fqdn"],
    "/home/" + SECRETS["user"] + "/models",
    f"https://bob:{SECRETS['password']}@example.com/x",
    "host='trainer-box-3'",
]
GONE = [*SECRETS.values(), "bob:", "trainer-box-3"]

_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80
)


@settings(max_examples=examples(150), deadline=None)
@given(before=_text, after=_text, which=st.sampled_from(PLANTED))
def test_a_planted_secret_never_survives(before: str, after: str, which: str) -> None:
    out = redact_text(f"{before} {which} {after}")
    for secret in GONE:
        if secret in which:
            assert secret not in out.replace(before, "").replace(after, "")


@settings(max_examples=examples(150), deadline=None)
@given(parts=st.lists(st.one_of(_text, st.sampled_from(PLANTED)), max_size=8))
def test_redacting_twice_changes_nothing(parts: list[str]) -> None:
    once = redact_text(" ".join(parts))
    assert redact_text(once) == once


@settings(max_examples=examples(100), deadline=None)
@given(filler=st.lists(_text.filter(lambda t: not set(t) & set(".:-")), max_size=5))
def test_the_same_value_is_the_same_placeholder(filler: list[str]) -> None:
    text = "".join(f"{f} 10.0.0.9 " for f in filler)
    text += "10.0.0.9 node-a.example.com 10.0.0.8 node-a.example.com"
    out = redact_text(text).split()
    assert out.count("host-1") == 2 and "host-2" not in out
    ips = [w for w in out if w.startswith("ip-")]
    assert ips == ["ip-1"] * (len(filler) + 1) + ["ip-2"]


def test_what_stays() -> None:
    text = (
        "bind 127.0.0.1 and 0.0.0.0 and ::1 at 09:31:05, /root/x, localhost, v0.5.9, 123456789012"
    )
    assert redact_text(text) == text


def test_examples() -> None:
    text = (
        "server_args=ServerArgs(host='gpu-node-07', dist_init_addr='10.1.2.3:5000', "
        "model_path='/home/alice/m')\ngpu-node-07:123:456 [0] NCCL INFO init 10.1.2.3\n"
        "pull https://bob:pw@hub.example.com/v2 as /Users/bob/x on gpu-node-07"
    )
    assert redact_text(text) == (
        "server_args=ServerArgs(host='host-1', dist_init_addr='ip-1:5000', "
        "model_path='/home/user-1/m')\nhost-1:123:456 [0] NCCL INFO init ip-1\n"
        "pull https://cred-1@host-2/v2 as /Users/user-2/x on host-1"
    )


def _hostly_log(tmp_path: Path) -> Path:
    """The demo log in a folder named by an address, with an address and a token at its end."""
    folder = tmp_path / "10.20.30.40"
    folder.mkdir()
    log = folder / "s.log"
    text = (DEMO / "sglang-serve.log").read_text(encoding="utf-8")
    tail = "[2026-05-09 09:40:00] token hf_AbCdEfGhIjKlMnOpQrStUvWx12 from 10.20.30.40\n"
    log.write_text(text + tail, encoding="utf-8")
    return log


def test_cli_check_redacts_text_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At any terminal width: a line folded at 60 columns would split the address in the log's
    path (found by a full run whose workers had a narrow COLUMNS), so held text is unwrapped."""
    monkeypatch.setenv("COLUMNS", "60")
    log = _hostly_log(tmp_path)
    plain = run_main("check", str(log), "-f", "json")
    assert "10.20.30.40" in plain
    for fmt in ("text", "json"):
        long_form = ["-v"] if fmt == "text" else []  # the short screen names no log path
        # its own process, as a user runs it (stdout swapped for the whole run)
        out = run_cli("check", str(log), "-f", fmt, "--redact", *long_form)
        assert "10.20.30.40" not in out and "ip-1" in out
        if fmt == "json":
            assert json.loads(out)["verdict"] == json.loads(plain)["verdict"]


def test_cli_report_redacts_html_and_markdown(tmp_path: Path) -> None:
    log = _hostly_log(tmp_path)
    for form in ("--html", "--markdown"):
        out = run_main("report", str(log), form, "-", "--redact")
        assert "10.20.30.40" not in out and "ip-1" in out
        assert "hf_AbCd" not in out and "token-1" in out


def test_literals_and_public_sites_stay() -> None:
    text = "dist_init_addr=None host=None see https://github.com/sgl-project/sglang and pytorch.org"
    assert redact_text(text) == text


def test_a_host_and_its_domain_are_one_host() -> None:
    text = "host='node3' ... connect to [node3.delta.example.ru]:5000 and node3"
    assert redact_text(text) == "host='host-1' ... connect to [host-1]:5000 and host-1"


def test_a_user_name_is_redacted_in_every_path() -> None:
    text = 'File "/home/tiger/.local/x.py" and "/opt/tiger/src/y.py"'
    assert redact_text(text) == 'File "/home/user-1/.local/x.py" and "/opt/user-1/src/y.py"'


@pytest.mark.parametrize(
    "log",
    ["launches/real-pd-2x2/prefill-node1.log", "real/049/server.log"],
)
def test_real_logs_keep_nothing_learnt(log: str) -> None:
    """Real logs (fixtures/, sources in their folders): every value given a placeholder is gone
    from the output, and a second pass changes nothing."""
    text = (DEMO.parent / log).read_text(encoding="utf-8", errors="replace")
    redactor = Redactor()
    out = redactor(text)
    learnt = [v for table in redactor.seen.values() for v in table]
    assert learnt and not [v for v in learnt if v in out]
    assert redactor(out) == out


@pytest.mark.parametrize("columns", ["60", None], ids=["set", "unset"])
def test_redacted_stdout_lays_out_unwrapped_and_leaves_columns_as_it_was(
    columns: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The held text is as wide as it needs without touching ``COLUMNS``, neither during
    the block (another thread, a child process, would see it) nor after."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    line = "word " * 40 + "from 10.20.30.40"  # 216 characters: folded at 60 or 120 columns
    with redacted_stdout():
        assert os.environ.get("COLUMNS") == columns
        console().print(line)
    assert os.environ.get("COLUMNS") == columns
    assert capsys.readouterr().out == line.replace("10.20.30.40", "ip-1") + "\n"
